package site

import (
	"encoding/json"
	"testing"

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
