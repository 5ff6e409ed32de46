package figures

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
)

func TestChangePublished(t *testing.T) {
	for _, c := range []struct {
		name                string
		base, cand          float64
		dir                 Direction
		pct, ratio          string
		improved, regressed bool
	}{
		{"scheduler tuning, display values", 17961, 41651, HigherIsBetter, "+131.9%", "2.32x", true, false},
		{"scheduler tuning, unrounded", 17961.2, 41651.2, HigherIsBetter, "+131.9%", "2.32x", true, false},
		{"against the NVIDIA reference", 9938, 10750.04, HigherIsBetter, "+8.2%", "1.08x", true, false},
		// Median latency fell from 15.91 s to 11.70 s: lower is better, so
		// a negative change is the improvement.
		{"median latency", 15.91, 11.70, LowerIsBetter, "-26.5%", "0.74x", true, false},
		{"latency grew", 20.04, 29.85, LowerIsBetter, "+49.0%", "1.49x", false, true},
		{"unchanged", 5, 5, HigherIsBetter, "+0.0%", "1.00x", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := NewChange(c.base, c.cand, c.dir)
			if p, r := fmt.Sprintf("%+.1f%%", ch.Pct), fmt.Sprintf("%.2fx", ch.Ratio); p != c.pct || r != c.ratio {
				t.Errorf("%s / %s, want %s / %s", p, r, c.pct, c.ratio)
			}
			if ch.Improved != c.improved || ch.Regressed != c.regressed {
				t.Errorf("improved %v regressed %v", ch.Improved, ch.Regressed)
			}
			if math.Abs(ch.Abs-(c.cand-c.base)) > 1e-12 {
				t.Errorf("abs %v", ch.Abs)
			}
		})
	}
	// The published figures: +132% = 2.32x, +8.17%.
	if ch := NewChange(17961, 41651, HigherIsBetter); fmt.Sprintf("%+.0f%%", ch.Pct) != "+132%" {
		t.Errorf("headline %+.0f%%", ch.Pct)
	}
	if ch := NewChange(9938, 10750.04, HigherIsBetter); fmt.Sprintf("%+.2f%%", ch.Pct) != "+8.17%" {
		t.Errorf("reference %+.2f%%", ch.Pct)
	}
	if ch := NewChange(0, 1, HigherIsBetter); !math.IsNaN(ch.Pct) || !math.IsNaN(ch.Ratio) {
		t.Errorf("zero baseline %+v", ch)
	}
}

// qwenProv is the published single-GPU setup.
func qwenProv() map[string]string {
	return map[string]string{
		"hardware.gpu_model": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "hardware.gpu_count": "1", "hardware.node": "node-a",
		"runtime.engine": "vllm", "runtime.version": "0.25.1", "runtime.image": "vllm/vllm-openai:v0.25.1",
		"runtime.server_args":   "--max-num-seqs 256",
		"checkpoint.repository": "nvidia/Qwen3-30B-A3B-FP4", "checkpoint.revision": "2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3",
		"checkpoint.precision": "nvfp4", "checkpoint.kv_cache_dtype": "fp8",
		"workload.input_len": "63-66", "workload.output_len": "256", "workload.dataset": "technical-guide prompt",
		"workload.request_count": "2048", "workload.concurrency": "2048", "workload.request_rate": "inf",
		"measurement.client": "vllm bench serve",
	}
}

func TestProvenanceDiff(t *testing.T) {
	a, b := qwenProv(), qwenProv()
	b["runtime.server_args"] = "--max-num-seqs 1024"
	b["workload.request_count"] = "2048.0" // same number
	b["measurement.client"] = "vLLM bench serve"
	delete(b, "checkpoint.kv_cache_dtype")
	d := ProvenanceDiff(a, b, nil)
	if len(d.Changed) != 1 || d.Changed[0] != (FieldDiff{"runtime.server_args", "--max-num-seqs 256", "--max-num-seqs 1024"}) {
		t.Errorf("changed %+v", d.Changed)
	}
	if len(d.Unknown) != 1 || d.Unknown[0].Field != "checkpoint.kv_cache_dtype" || d.Unknown[0].Candidate != "" {
		t.Errorf("unknown %+v", d.Unknown)
	}
	if len(d.Fixed) != len(ComparisonFields)-2 || len(d.Absent) != 0 {
		t.Errorf("fixed %d absent %v", len(d.Fixed), d.Absent)
	}
	// Versions are text: 0.10 is not 0.1.
	a["runtime.version"], b["runtime.version"] = "0.10", "0.1"
	if d := ProvenanceDiff(a, b, []string{"runtime.version"}); len(d.Changed) != 1 {
		t.Errorf("0.10 vs 0.1: %+v", d)
	}
}

func TestCompareSchedulerTuning(t *testing.T) {
	base, cand := qwenProv(), qwenProv()
	cand["runtime.server_args"] = "--max-num-seqs 1024 --max-num-batched-tokens 16384"
	c, err := Compare(
		Side{RunID: "baseline", Value: 17961.2, Unit: "tok/s", Provenance: base, Clock: benchrun.ClockMonotonic},
		Side{RunID: "tuned", Value: 41651.2, Unit: "tok/s", Provenance: cand, Clock: benchrun.ClockMonotonic},
		ComparisonSpec{Metric: "output_throughput", Intended: []string{"runtime.server_args"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Confounders) != 0 || len(c.Changed) != 1 || len(c.IntendedUnchanged) != 0 || !c.ClocksComparable || c.PercentileMethodDiffers {
		t.Errorf("%+v", c)
	}
	if !c.Change.Improved || c.Baseline.N != 1 || c.Candidate.N != 1 || c.Significance != nil {
		t.Errorf("change %+v n %d/%d", c.Change, c.Baseline.N, c.Candidate.N)
	}
	// An unintended version change is a confounder; the load mode changing
	// from a concurrency limit to a finite rate is one too.
	cand["runtime.version"] = "0.26.0"
	cand["workload.request_rate"] = "50"
	c, _ = Compare(Side{RunID: "b", Value: 1, Unit: "tok/s", Provenance: base}, Side{RunID: "c", Value: 2, Unit: "tok/s", Provenance: cand},
		ComparisonSpec{Metric: "output_throughput", Intended: []string{"runtime.server_args"}})
	var got []string
	for _, d := range c.Confounders {
		got = append(got, d.Field)
	}
	if want := []string{"runtime.version", "workload.request_rate", LoadModeField}; !slices.Equal(got, want) {
		t.Errorf("confounders %v, want %v", got, want)
	}
	// Intending the rate covers the load mode.
	c, _ = Compare(Side{RunID: "b", Value: 1, Unit: "tok/s", Provenance: base}, Side{RunID: "c", Value: 2, Unit: "tok/s", Provenance: cand},
		ComparisonSpec{Metric: "output_throughput", Intended: []string{"runtime.server_args", "workload.request_rate", "checkpoint.revision"}})
	if len(c.Confounders) != 1 || c.Confounders[0].Field != "runtime.version" || !slices.Equal(c.IntendedUnchanged, []string{"checkpoint.revision"}) {
		t.Errorf("confounders %+v intended unchanged %v", c.Confounders, c.IntendedUnchanged)
	}
}

func TestCompareAgainstReference(t *testing.T) {
	local := map[string]string{"hardware.gpu_model": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "hardware.gpu_count": "1",
		"hardware.node": "lab-node-1", "runtime.engine": "tensorrt-llm", "runtime.version": "1.3.0rc24",
		"workload.input_len": "1000", "workload.output_len": "1000", "checkpoint.precision": "nvfp4"}
	refProv := map[string]string{"hardware.gpu_model": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "hardware.gpu_count": "1",
		"hardware.node": "nvidia-reference-host", "runtime.engine": "tensorrt-llm", "runtime.version": "1.1",
		"workload.input_len": "1000", "workload.output_len": "1000", "checkpoint.precision": "nvfp4"}
	ref := ExternalReference{ID: "nvidia-rtx-pro-6000-qwen3", Figure: "output_throughput_per_gpu", Unit: "tok/s/GPU",
		Source: "https://developer.nvidia.com/deep-learning-performance-training-inference", Title: "NVIDIA reference",
		Value: 9938, Captured: time.Date(2026, 8, 17, 0, 0, 0, 0, time.UTC), Checked: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Visible: false, Provenance: refProv}
	c, err := Compare(ReferenceSide(ref), Side{RunID: "pubspec-1gpu", Value: 10750.04, Unit: "tok/s/GPU", Provenance: local,
		Clock: benchrun.ClockEpoch, PercentileMethod: "linear"}, ComparisonSpec{Metric: "output_throughput"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+.2f%%", c.Change.Pct) != "+8.17%" {
		t.Errorf("change %v", c.Change.Pct)
	}
	var got []string
	for _, d := range c.Confounders {
		got = append(got, d.Field)
	}
	if want := []string{"hardware.node", "runtime.version"}; !slices.Equal(got, want) {
		t.Errorf("confounders %v, want %v", got, want)
	}
	r := c.Baseline.Reference
	if r == nil || r.Visible || !r.Captured.Equal(ref.Captured) || !r.Checked.Equal(ref.Checked) || r.Source != ref.Source {
		t.Errorf("reference status not carried: %+v", r)
	}
	if c.Baseline.N != 0 || !c.ClocksComparable {
		t.Errorf("a reference is neither a single measurement of ours nor a clock: n %d clocks %v", c.Baseline.N, c.ClocksComparable)
	}
	if _, err := Compare(ReferenceSide(ref), Side{RunID: "x", Value: 1, Unit: "tok/s"}, ComparisonSpec{Metric: "output_throughput"}); err == nil {
		t.Error("units tok/s/GPU vs tok/s accepted")
	}
}

func TestCompareMethodsClocksSignificance(t *testing.T) {
	c, _ := Compare(Side{RunID: "a", Value: 1.2, Unit: "s", PercentileMethod: "linear", Clock: benchrun.ClockEpoch},
		Side{RunID: "b", Value: 1.1, Unit: "s", PercentileMethod: "nearest-rank", Clock: benchrun.ClockNone}, ComparisonSpec{Metric: "ttft.p99"})
	if !c.PercentileMethodDiffers || c.ClocksComparable || !c.Change.Improved {
		t.Errorf("%+v", c)
	}
	// A method does not change a throughput.
	c, _ = Compare(Side{RunID: "a", Value: 1, Unit: "tok/s", PercentileMethod: "linear"},
		Side{RunID: "b", Value: 2, Unit: "tok/s", PercentileMethod: "nearest-rank"}, ComparisonSpec{Metric: "output_throughput"})
	if c.PercentileMethodDiffers {
		t.Error("method flagged on a throughput")
	}
	c, _ = Compare(Side{RunID: "a", Value: 100, Unit: "tok/s", Values: []float64{100, 101, 99}},
		Side{RunID: "b", Value: 103, Unit: "tok/s", Values: []float64{103, 104, 105}}, ComparisonSpec{Metric: "output_throughput"})
	if c.Significance == nil || c.Significance.Significant || c.Baseline.N != 3 {
		t.Errorf("significance %+v n %d", c.Significance, c.Baseline.N)
	}
}

// TestCompareAllDirections: every metric of the catalogue is compared, and
// a candidate that is higher on every figure is better exactly for the
// higher-is-better ones, worse for the lower-is-better ones, and neither
// for a metric without a better way; equal values are neither.
func TestCompareAllDirections(t *testing.T) {
	t.Parallel()
	fast := sloRequests()
	for i := range fast {
		fast[i].Gaps = benchrun.GapStats{Sum: 1, Count: 10}
	}
	base := Recompute(fast, math.NaN(), 0)
	base.GPUs = 2
	base.ApplySLO(sloRequests(), SLO{TTFT: 0.5})
	// Every time doubled and the counts kept: latencies and the window
	// grow; rates halve. Then compare the other way round too.
	slow := sloRequests()
	for i := range slow {
		slow[i].Start *= 2
		slow[i].TTFT *= 2
		slow[i].Latency *= 2
		slow[i].Gaps = benchrun.GapStats{Sum: 2, Count: 10}
	}
	slow = append(slow, benchrun.Request{Index: 7, Start: 0, TTFT: 0.1, Latency: 1, OutputTokens: 2})
	cand := Recompute(slow, math.NaN(), 0)
	cand.GPUs = 2
	cand.ApplySLO(slow, SLO{TTFT: 0.5})
	rows := CompareAll(&base, &cand)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Metric] = true
		m, _ := ParseMetric(r.Metric)
		if r.Direction != m.Metric.Direction || r.Unit != m.Unit() || r.Abs != r.Candidate-r.Baseline {
			t.Errorf("%s: %+v", r.Metric, r)
		}
		switch {
		case r.Candidate == r.Baseline || m.Metric.Direction == 0:
			if r.Better != nil {
				t.Errorf("%s: better %v for an equal value or a neutral metric", r.Metric, *r.Better)
			}
		case r.Better == nil:
			t.Errorf("%s: no better/worse for %v → %v (%s)", r.Metric, r.Baseline, r.Candidate, r.Way)
		case *r.Better != (m.Metric.Direction == HigherIsBetter) == (r.Candidate > r.Baseline):
			t.Errorf("%s (%s): %v → %v judged better=%v", r.Metric, r.Way, r.Baseline, r.Candidate, *r.Better)
		}
	}
	for _, name := range MetricNames() {
		if !seen[name] {
			t.Errorf("%s not compared", name)
		}
	}
	if len(rows) != len(MetricNames()) {
		t.Errorf("%d rows for %d metrics", len(rows), len(MetricNames()))
	}
	// A metric one side lacks is left out.
	cand.GPUs = 0
	for _, r := range CompareAll(&base, &cand) {
		if r.Metric == "output_throughput_per_gpu" {
			t.Error("per-GPU compared without a GPU count")
		}
	}
	// Named ways in the JSON.
	for _, want := range []struct{ metric, way string }{{"ttft.p99", "lower-is-better"}, {"goodput", "higher-is-better"}, {"achieved_concurrency", "neutral"}} {
		for _, r := range rows {
			if r.Metric == want.metric && r.Way != want.way {
				t.Errorf("%s: direction %q, want %q", r.Metric, r.Way, want.way)
			}
		}
	}
}
