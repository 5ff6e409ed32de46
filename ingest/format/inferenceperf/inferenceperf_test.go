package inferenceperf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
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

// TestRealReports: two reports the KubeCon NA 2025 demo published
// (testdata/SOURCE.md), written before benchmark_time_seconds existed: the
// duration is the one their throughputs were divided by, successes.count /
// requests_per_sec; the figures are the file's own.
func TestRealReports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file    string
		variant string
		rate    string // the stage's requested rate; none for the summary
	}{
		{"testdata/kubecon_vllm_stage_0_lifecycle_metrics.json", "stage_lifecycle_metrics (one load stage) (before benchmark_time_seconds)", "1"},
		{"testdata/kubecon_vllm_summary_lifecycle_metrics.json", "summary_lifecycle_metrics (before benchmark_time_seconds)", ""},
	} {
		data := ingesttest.Read(t, tc.file)
		if got := ingesttest.Detect(tc.file, data); got != inferenceperf.ID {
			t.Fatalf("%s detected as %q", tc.file, got)
		}
		r := ingesttest.One(t, inferenceperf.New(), tc.file, data)
		var raw struct {
			Successes struct {
				Count   float64
				Latency map[string]map[string]float64
				Through map[string]float64 `json:"throughput"`
			}
			Failures    struct{ Count float64 }
			LoadSummary struct{ Count int } `json:"load_summary"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		if r.FormatVariant != tc.variant || r.Completed != int64(raw.Successes.Count) || r.Failed != int64(raw.Failures.Count) {
			t.Errorf("%s: variant %q, completed %d failed %d", tc.file, r.FormatVariant, r.Completed, r.Failed)
		}
		lat := raw.Successes.Latency
		ingesttest.WantStated(t, r, 1e-15, map[string]float64{
			"duration":           raw.Successes.Count / raw.Successes.Through["requests_per_sec"],
			"request_throughput": raw.Successes.Through["requests_per_sec"], "output_throughput": raw.Successes.Through["output_tokens_per_sec"],
			"ttft.median": lat["time_to_first_token"]["median"], "ttft.p90": lat["time_to_first_token"]["p90"],
			"e2el.mean": lat["request_latency"]["mean"], "tpot.max": lat["time_per_output_token"]["max"],
		})
		ingesttest.WantFacts(t, r, map[string]string{"workload.request_rate": tc.rate, "workload.request_count": strconv.Itoa(raw.LoadSummary.Count)})
		if !ingesttest.HasNote(r, "predates benchmark_time_seconds") || r.Extra["successes.prompt_len"] == "" {
			t.Errorf("%s: notes %q, extra keys %d", tc.file, r.Notes, len(r.Extra))
		}
	}
	// Without the rate the duration cannot be derived: said, not guessed.
	data := strings.Replace(string(ingesttest.Read(t, "testdata/kubecon_vllm_summary_lifecycle_metrics.json")), `"requests_per_sec"`, `"requests_per_second"`, 1)
	_, err := ingesttest.Parse(inferenceperf.New(), "r.json", []byte(data))
	ingesttest.WantInputError(t, err, "object at byte 0", "no benchmark_time_seconds and no successful requests per second")
}
