package site

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/render/charts"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// runDataScriptReference is runDataScript as encoding/json writes it, the
// yardstick for the hand-written one.
func runDataScriptReference(d *runData) ([]byte, error) {
	type figure struct {
		Metric     string   `json:"metric"`
		Unit       string   `json:"unit"`
		Recomputed *float64 `json:"recomputed"`
		Stated     *float64 `json:"stated"`
	}
	v := struct {
		ID          string            `json:"id"`
		Fields      map[string]string `json:"fields"`
		Figures     []figure          `json:"figures"`
		Publishable bool              `json:"publishable"`
		Sent        int64             `json:"sent"`
		Completed   int64             `json:"completed"`
		Failed      int64             `json:"failed"`
		Format      string            `json:"format"`
		SHA256      string            `json:"sha256"`
	}{ID: d.rec.ID, Fields: d.eff, Publishable: d.rec.Publishable,
		Sent: d.view.Completion.Sent, Completed: d.view.Completion.Completed, Failed: d.view.Completion.Failed,
		Format: d.view.Format, SHA256: d.rec.BlobSHA256}
	for _, f := range d.view.Figures {
		v.Figures = append(v.Figures, figure{f.Metric, f.Unit, f.Recomputed, f.Stated})
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return []byte("benchledgerRun(" + string(data) + ");"), nil
}

// TestRunDataScriptMatchesMarshal: the diff page's data line is
// encoding/json's to the byte, for hostile values, no figures, no fields.
func TestRunDataScriptMatchesMarshal(t *testing.T) {
	x, y, tiny, huge := 17961.25, 0.0123, 1e-9, 3e21
	hostile := "</script><script>alert(1)</script>\u2028&\"\\\x01\xff"
	for name, d := range map[string]*runData{
		"hostile": {
			rec: &store.RunRecord{ID: "abc" + hostile, Publishable: true, BlobSHA256: "ff00"},
			eff: map[string]string{"runtime.version": hostile, "b": "1", "a": "", hostile: "key"},
			view: &runview.View{Format: "vllm-serve-json" + hostile, Figures: []runview.Figure{
				{Metric: "output_throughput", Unit: "tok/s", Recomputed: &x, Stated: &x},
				{Metric: "ttft.median", Unit: "s", Recomputed: &y},
				{Metric: hostile, Unit: "s", Stated: &tiny},
				{Metric: "peak", Unit: "tok/s", Recomputed: &huge},
			}},
		},
		"empty": {rec: &store.RunRecord{ID: "0123456789ab"}, view: &runview.View{}},
	} {
		if name == "hostile" {
			d.view.Completion.Sent, d.view.Completion.Completed, d.view.Completion.Failed = 100, 98, 2
		} else {
			d.view.Completion.Sent = -1
		}
		got, err := runDataScript(d)
		if err != nil {
			t.Fatal(err)
		}
		want, err := runDataScriptReference(d)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// TestRequestPoints: a run's timeline points are its requests stably
// sorted by send, whether the records come in order (the sort is skipped)
// or not, with unknown and infinite sends, failed requests and negative
// latencies; e2e holds the completed requests' known latencies.
func TestRequestPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	nan := math.NaN()
	starts := []float64{0, 1, 1, 2, 2.5, 3, -1, nan, math.Inf(1), math.Inf(-1)}
	for i := range 3000 {
		n := 1 + rng.IntN(40)
		reqs := make([]benchrun.Request, n)
		sorted := i%2 == 0
		for j := range reqs {
			q := &reqs[j]
			q.Start = float64(j) * 0.5
			if !sorted || i%10 == 1 {
				q.Start = starts[rng.IntN(len(starts))]
			}
			q.TTFT, q.Latency = rng.Float64(), rng.Float64()*3-0.5
			if rng.IntN(8) == 0 {
				q.Latency = nan
			}
			if rng.IntN(6) == 0 {
				q.Error = "boom"
			}
		}
		if i%10 == 3 { // in order but for a start or two at -Inf: unknown sends among infinite ones
			for range 1 + rng.IntN(2) {
				reqs[rng.IntN(n)].Start = math.Inf(-1)
			}
		}
		// The reference: every point made, then always sorted.
		first := math.Inf(1)
		for _, q := range reqs {
			first = math.Min(first, q.Start)
		}
		var want []charts.RequestPoint
		var wantE2E []float64
		for _, q := range reqs {
			p := charts.RequestPoint{Send: q.Start - first, TTFT: q.TTFT, Latency: q.Latency}
			if q.Failed() {
				p.TTFT, p.Latency = nan, nan
			} else if !math.IsNaN(q.Latency) && q.Latency >= 0 {
				wantE2E = append(wantE2E, q.Latency)
			}
			want = append(want, p)
		}
		sort.SliceStable(want, func(a, b int) bool { return want[a].Send < want[b].Send })
		prefix := []charts.RequestPoint{{Send: 99}}
		got, e2e := requestPoints(prefix, []float64{7}, reqs)
		if fmt.Sprint(got[1:]) != fmt.Sprint(want) || got[0].Send != 99 || fmt.Sprint(e2e[1:]) != fmt.Sprint(wantE2E) || e2e[0] != 7 {
			t.Fatalf("requests %+v:\n got %v %v\nwant %v %v", reqs, got[1:], e2e[1:], want, wantE2E)
		}
	}
}
