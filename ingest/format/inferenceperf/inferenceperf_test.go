package inferenceperf_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/inferenceperf"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
)

const stage = "testdata/stage_0_lifecycle_metrics.json"

func TestStageReport(t *testing.T) {
	t.Parallel()
	data := ingesttest.Read(t, stage)
	if got := ingesttest.Detect(stage, data); got != inferenceperf.ID {
		t.Fatalf("detected as %q", got)
	}
	r := ingesttest.One(t, inferenceperf.New(), stage, data)
	if r.HasRequests || r.Completed != 598 || r.Failed != 2 || r.PercentileMethod != "linear" || r.SourceTool != "inference-perf" {
		t.Errorf("completed %d failed %d method %q tool %q", r.Completed, r.Failed, r.PercentileMethod, r.SourceTool)
	}
	ingesttest.WantStated(t, r, 1e-12, map[string]float64{
		"duration": 61.25, "request_throughput": 9.763, "output_throughput": 1249.8, "total_token_throughput": 6265.3,
		"input_throughput": 5015.5, "total_input_tokens": 307199, "total_output_tokens": 76550,
		"e2el.mean": 2.41, "e2el.p99": 5.9, "ttft.median": 0.18, "ttft.p90": 0.35, "tpot.mean": 0.0171, "tpot.max": 0.031,
	})
	for _, m := range []string{"itl.mean", "itl.median"} {
		if _, ok := r.StatedValue(m); ok {
			t.Errorf("%s stated: inference-perf's token-time gaps are not ITL", m)
		}
	}
	ingesttest.WantFacts(t, r, map[string]string{"workload.request_rate": "10", "workload.request_count": "600", "measurement.client": "inference-perf"})
	if !strings.Contains(r.Extra["successes.latency.inter_token_latency"], `"mean":0.0171`) || r.Extra["load_summary.achieved_rate"] != "10.016" {
		t.Errorf("extra %v", r.Extra)
	}
}

func TestBadReports(t *testing.T) {
	t.Parallel()
	good := string(ingesttest.Read(t, stage))
	tests := []struct{ name, from, to, place, reason string }{
		{"negative latency", `"median": 0.18`, `"median": -0.18`, `successes.latency.time_to_first_token.median`, "negative -0.18"},
		{"counts disagree", `"count": 600`, `"count": 601`, `load_summary.count`, "601 requests sent but successes.count 598 + failures.count 2 = 600"},
		{"zero duration", `"benchmark_time_seconds": 61.25`, `"benchmark_time_seconds": 0`, "benchmark_time_seconds", "is 0"},
		{"fractional count", `"count": 598`, `"count": 598.5`, "successes.count", "whole number"},
		{"text rate", `"requests_per_sec": 9.763`, `"requests_per_sec": "fast"`, "requests_per_sec", "expected a finite number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := strings.Replace(good, tc.from, tc.to, 1)
			_, err := ingesttest.Parse(inferenceperf.New(), "r.json", []byte(data))
			ingesttest.WantInputError(t, err, tc.place, tc.reason)
		})
	}
}

func FuzzInferencePerf(f *testing.F) {
	f.Add(ingesttest.Read(f, stage))
	f.Add([]byte(`{"benchmark_time_seconds": 1, "load_summary": {}, "successes": {"count": 1}}`))
	p := inferenceperf.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.json", data[:min(len(data), format.HeadSize)])
		err := p.Parse(context.Background(), "fuzz.json", bytes.NewReader(data), func(r *benchrun.Run) error {
			ingesttest.FuzzStated(t, r)
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz.json")
	})
}
