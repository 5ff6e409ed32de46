package runview

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

func request(start, ttft, lat float64, out int32, errText string) benchrun.Request {
	return benchrun.Request{Start: start, TTFT: ttft, Latency: lat, InputTokens: 10, OutputTokens: out, Error: errText}
}

// record is a stored run of four requests (one failed) that states two
// figures, one of them wrong, with provenance from the file and the manifest.
func record() *store.RunRecord {
	reqs := []benchrun.Request{request(0, 0.1, 2, 100, ""), request(1, 0.2, 3, 100, ""), request(1, 0.3, 3, 100, ""), request(2, 0, 0, 0, "boom")}
	return &store.RunRecord{ID: "0123456789abcdef", BlobSHA256: "ab", FileName: "run.json", IngestedAt: time.Date(2026, 8, 18, 9, 0, 0, 0, time.UTC),
		Run: &benchrun.Run{Format: "vllm-serve-json", Clock: benchrun.ClockMonotonic, Requests: reqs, HasRequests: true, Completed: 3, Failed: 1,
			Stated: []benchrun.Stated{
				{Metric: "output_throughput", Value: 75, Unit: "tok/s", SourceKey: "output_throughput"},
				{Metric: "completed", Value: 3, Unit: "requests", SourceKey: "completed"},
				{Metric: "ttft.p99", Value: 9, Unit: "s", SourceKey: "p99_ttft_ms"},
			},
			Extra: map[string]string{"zeta": "1", "alpha": "2"}},
		Provenance: provenance.Record{
			{Field: "runtime.engine", Value: "vllm", Source: provenance.FromFile},
			{Field: "runtime.engine", Value: "vllm", Source: provenance.FromManifest},
			{Field: "hardware.gpu_model", Value: "H100", Source: provenance.FromManifest},
		},
		Missing: []string{"checkpoint.revision"},
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	v := Build(record(), record().Run.Requests)
	if v.ID != "0123456789abcdef" || v.Clock != "monotonic" || v.IngestedAt != "2026-08-18T09:00:00Z" || v.Publishable ||
		!slices.Equal(v.Missing, []string{"checkpoint.revision"}) || !slices.Equal(v.Extra, []string{"alpha", "zeta"}) {
		t.Errorf("header %+v", v)
	}
	if c := v.Completion; c.Sent != 4 || c.Completed != 3 || c.Failed != 1 || c.Short != -1 {
		t.Errorf("completion %+v", c)
	}
	if v.WindowBasis != figures.BasisRecords {
		t.Errorf("window basis %q", v.WindowBasis)
	}
	// The figures are the catalogue's summary, in its order, each with its
	// unit and definition; the counts are in the completion instead.
	var names []string
	for _, f := range v.Figures {
		names = append(names, f.Metric)
	}
	// Left out: ITL (no gaps recorded), per GPU (no GPU count stated),
	// goodput and SLO attainment (a run alone has no SLO).
	absent := map[string]bool{"itl.mean": true, "output_throughput_per_gpu": true, "goodput": true, "slo_attainment": true}
	if want := slices.DeleteFunc(figures.SummaryNames(), func(n string) bool { return absent[n] }); !slices.Equal(names, want) {
		t.Errorf("figures %v, want %v (no ITL, GPU count or SLO)", names, want)
	}
	byName := map[string]Figure{}
	for _, f := range v.Figures {
		byName[f.Metric] = f
	}
	tests := []struct {
		metric     string
		unit       string
		recomputed float64
		stated     float64 // NaN: not stated
		key        string
	}{
		{"duration", "s", 4, math.NaN(), ""},
		{"output_throughput", "tok/s", 75, 75, "output_throughput"},
		{"request_throughput", "req/s", 0.75, math.NaN(), ""},
		{"ttft.mean", "s", 0.2, math.NaN(), ""},
		{"ttft.median", "s", 0.2, math.NaN(), ""},
		{"ttft.p99", "s", 0.1 + 1.98*0.1, 9, "p99_ttft_ms"},
		{"e2el.p90", "s", 3, math.NaN(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.metric, func(t *testing.T) {
			t.Parallel()
			f, ok := byName[tt.metric]
			if !ok {
				t.Fatal("not shown")
			}
			if f.Unit != tt.unit || f.Recomputed == nil || math.Abs(*f.Recomputed-tt.recomputed) > 1e-9 || f.SourceKey != tt.key {
				t.Errorf("%+v (recomputed %v), want %s %v key %q", f, deref(f.Recomputed), tt.unit, tt.recomputed, tt.key)
			}
			if math.IsNaN(tt.stated) != (f.Stated == nil) || f.Stated != nil && *f.Stated != tt.stated {
				t.Errorf("stated %v, want %v", deref(f.Stated), tt.stated)
			}
			n, _ := figures.ParseMetric(tt.metric)
			if f.Definition != n.Metric.Formula {
				t.Errorf("definition %q, want %q", f.Definition, n.Metric.Formula)
			}
		})
	}
	// The wrong stated p99 is a disagreement among the checks.
	var bad []string
	for _, c := range v.StatedChecks {
		if !c.OK {
			bad = append(bad, c.Metric)
		}
	}
	if !slices.Equal(bad, []string{"ttft.p99"}) {
		t.Errorf("disagreeing checks %v, want ttft.p99", bad)
	}
	if g := GroupProvenance(v.Provenance); len(g) != 2 || g[1].Field != "runtime.engine" || g[1].Sources != "file, manifest" {
		t.Errorf("grouped provenance %+v", g)
	}
}

// TestBuildStatedOnly: without records, a view shows what the file stated.
func TestBuildStatedOnly(t *testing.T) {
	t.Parallel()
	rec := record()
	rec.Run.Requests, rec.Run.HasRequests = nil, false
	v := Build(rec, nil)
	if v.WindowBasis != "no per-request records: stated figures only" || v.Completion.Sent != 4 || v.Completion.Completed != 3 || v.Completion.Short != -1 {
		t.Errorf("basis %q, completion %+v", v.WindowBasis, v.Completion)
	}
	var names []string
	for _, f := range v.Figures {
		if f.Recomputed != nil {
			t.Errorf("%s recomputed without records", f.Metric)
		}
		names = append(names, f.Metric)
	}
	if !slices.Equal(names, []string{"output_throughput", "ttft.p99"}) {
		t.Errorf("figures %v, want the stated ones", names)
	}
	if len(v.StatedChecks) != 0 || v.Caveats != nil {
		t.Errorf("checks or caveats without records: %+v %+v", v.StatedChecks, v.Caveats)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Each row's stated figure is the one StatedValue finds: the first of its
// name, whatever else the run states and in whatever order.
func TestBuildStatedAsStatedValue(t *testing.T) {
	t.Parallel()
	rec := record()
	rec.Run.Stated = []benchrun.Stated{
		{Metric: "not.a.summary", Value: 1, Unit: "s", SourceKey: "x"},
		{Metric: "ttft.p99", Value: 9, Unit: "s", SourceKey: "p99_ttft_ms"},
		{Metric: "e2el.median", Value: math.NaN(), Unit: "s", SourceKey: "median_e2el_ms"},
		{Metric: "output_throughput", Value: 75, Unit: "tok/s", SourceKey: "output_throughput"},
		{Metric: "ttft.p99", Value: 8, Unit: "s", SourceKey: "second"},
		{Metric: "request_throughput", Value: 2, Unit: "req/s", SourceKey: "request_throughput"},
	}
	v := Build(rec, rec.Run.Requests)
	seen := 0
	for _, f := range v.Figures {
		s, ok := rec.Run.StatedValue(f.Metric)
		switch {
		case !ok || math.IsNaN(s.Value):
			if f.Stated != nil {
				t.Errorf("%s: stated %v, but the run states %v", f.Metric, *f.Stated, s)
			}
		case f.Stated == nil || *f.Stated != s.Value || f.SourceKey != s.SourceKey:
			t.Errorf("%s: stated %v (%q), want %v (%q)", f.Metric, deref(f.Stated), f.SourceKey, s.Value, s.SourceKey)
		default:
			seen++
		}
	}
	if seen != 3 {
		t.Errorf("%d rows show a stated figure, want 3 (ttft.p99, output_throughput, request_throughput)", seen)
	}
}

// BuildWith finds a row's stated figure by the row's place: the catalogue
// names each summary metric once.
func TestSummaryIndex(t *testing.T) {
	t.Parallel()
	sms, idx := summaryMetrics(), summaryIndex()
	if len(idx) != len(sms) {
		t.Fatalf("%d summary rows, %d names", len(sms), len(idx))
	}
	for k, sm := range sms {
		if idx[sm.name] != k {
			t.Errorf("%s: row %d, indexed as %d", sm.name, k, idx[sm.name])
		}
	}
}
