package guidellm_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/guidellm"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/testshared"
	"github.com/benchledger/benchledger/store"
)

func glMustParse(t *testing.T, p format.Parser, name string, data []byte) []*benchrun.Run {
	t.Helper()
	runs, err := ingesttest.Parse(p, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return runs
}

// glDetected is the format Detect picks for a file, or why it picks none.
func glDetected(name string, data []byte) string {
	d := registry.Detect(name, data[:min(len(data), format.HeadSize)])
	switch {
	case d.Parser != nil:
		return d.Parser.ID()
	case d.NotResult != "":
		return "not a result: " + d.NotResult
	case d.Unsupported != "":
		return "unsupported: " + d.Unsupported
	}
	return ""
}

// glWant checks stated figures exactly: they are the file's values converted
// once (ms → s by /1000), so the expectation is written the same way.
func glWant(t *testing.T, r *benchrun.Run, want map[string]float64) {
	t.Helper()
	for m, v := range want {
		s, ok := r.StatedValue(m)
		if !ok {
			t.Errorf("no stated %s", m)
			continue
		}
		if s.Value != v {
			t.Errorf("stated %s = %.17g, want %.17g", m, s.Value, v)
		}
	}
}

// glMs converts milliseconds as the parser does, at run time: a constant
// expression would be divided exactly and rounded once, a step away.
func glMs(v float64) float64 { return v / 1000 }

// glAudit recomputes a run's figures from its records and checks the stated
// ones the way guidellm defines them: nearest-rank percentiles, duration
// as its measured window.
func glAudit(r *benchrun.Run) figures.StatedAudit {
	dur := benchrun.Unknown
	if s, ok := r.StatedValue("duration"); ok {
		dur = s.Value
	}
	f := figures.Recompute(r.Requests, dur, 0, figures.Options{Method: figures.MethodNearestRank,
		Percentiles: []float64{0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9}})
	return figures.CheckStated(r.Stated, f, figures.StatedOptions{SourceMethod: r.PercentileMethod, DurationIsWindow: true})
}

// glDisagreeing lists the metrics of the checks beyond tolerance.
func glDisagreeing(a figures.StatedAudit) []string {
	var out []string
	for _, c := range a.Disagreements() {
		out = append(out, c.Metric)
	}
	return out
}

func glChecked(a figures.StatedAudit, metric string) (figures.StatedCheck, bool) {
	for _, c := range a.Checks {
		if c.Metric == metric {
			return c, true
		}
	}
	return figures.StatedCheck{}, false
}

// TestGuidellmSamples reads every real guidellm report in ../shared and
// checks figures against the values the files print.
func TestGuidellmSamples(t *testing.T) {
	checks := map[string]func(t *testing.T, runs []*benchrun.Run){
		"guidellm_v0.3_benchmarks_stripped.json": func(t *testing.T, runs []*benchrun.Run) {
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			r := runs[0]
			if r.Rejection != "" || r.Format != "guidellm-report" || !strings.HasPrefix(r.FormatVariant, "0.2–0.3") || r.PercentileMethod != "nearest-rank" {
				t.Fatalf("run %+v", r)
			}
			// request_totals: 46 successful, 1 incomplete.
			if r.Completed != 46 || r.Failed != 1 || !ingesttest.HasNote(r, "0 errored and 1 incomplete") {
				t.Errorf("completed %d failed %d notes %q", r.Completed, r.Failed, r.Notes)
			}
			glWant(t, r, map[string]float64{
				"completed": 46, "failed": 1, "duration": 29.997201442718506,
				"ttft.mean": glMs(16.792535781860348), "ttft.median": glMs(16.38054847717285),
				"ttft.p99": glMs(21.281957626342773), "ttft.std": glMs(1.1303385708366516),
				"e2el.mean": 0.6444743664368339, "e2el.median": 0.6424565315246582, "e2el.p95": 0.6567289829254150,
				"tpot.mean": glMs(4.941609043733832), "tpot.max": glMs(5.258346167136365),
				"total_input_tokens": 11827, "total_output_tokens": 5888,
				"request_rate_series.mean": 1.5481806532737452, "output_rate_series.mean": 198.13346751788123,
				"total_token_rate_series.mean": 992.6867036588937, "concurrency_series.mean": 0.9977627456483604,
			})
			// time_per_output_token_ms is not TPOT: kept in Extra only.
			for _, s := range r.Stated {
				if strings.Contains(s.SourceKey, "time_per_output_token_ms") || s.Metric == "output_throughput" {
					t.Errorf("stated %s from %s", s.Metric, s.SourceKey)
				}
			}
			if !strings.Contains(r.Extra["metrics.time_per_output_token_ms"], "4.90300272307966") || !ingesttest.HasNote(r, "not TPOT") {
				t.Errorf("time_per_output_token_ms: extra %.80q notes %q", r.Extra["metrics.time_per_output_token_ms"], r.Notes)
			}
			// One sampled request of 46: no records.
			if r.HasRequests || !ingesttest.HasNote(r, "1 successful, 0 errored and 0 incomplete request samples of the 46, 0 and 1") {
				t.Errorf("records %v notes %q", r.HasRequests, r.Notes)
			}
			ingesttest.WantFacts(t, r, map[string]string{
				"checkpoint.model_id": "example_model", "checkpoint.tokenizer": "example_processor",
				"workload.input_len": "256", "workload.output_len": "128", "workload.concurrency": "1",
				"workload.seed": "42", "measurement.client": "guidellm", "measurement.backend": "openai_http",
				"measurement.date": "2025-06-05T20:59:28Z", "metadata.guidellm_profile": "sweep",
				"metadata.guidellm_strategy": "synchronous",
			})
		},
		"guidellm_v0.5.0dev_xpu_benchmarks.json": func(t *testing.T, runs []*benchrun.Run) {
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			r := runs[0]
			if r.Rejection != "" || !strings.HasPrefix(r.FormatVariant, "0.5–0.6") || !strings.HasSuffix(r.FormatVariant, "request samples") {
				t.Fatalf("run %q %q", r.Rejection, r.FormatVariant)
			}
			glWant(t, r, map[string]float64{
				"completed": 26, "failed": 0, "duration": 720,
				"ttft.mean": glMs(44.13208594689003), "ttft.p95": glMs(107.56301879882812),
				"e2el.mean": 20.131840183184696, "e2el.p99": 20.409373998641968,
				"tpot.mean": glMs(19.63438540618665), "total_input_tokens": 2816, "total_output_tokens": 26624,
				"request_rate_series.mean": 0.036111111111111115, "output_rate_series.mean": 50.86612140156177,
			})
			ingesttest.WantFacts(t, r, map[string]string{
				"checkpoint.model_id": "Qwen/Qwen3-4B-Thinking-2507", "measurement.client_version": "0.5.0.dev0",
				"workload.request_count": "30", "workload.concurrency": "1", "workload.dataset": "/root/aime_2024_v2.jsonl",
				"measurement.clock": "epoch", "metadata.client_platform": "Linux-6.14.0-1011-intel-x86_64-with-glibc2.39",
			})
			// 30 samples: 4 warmup requests fall before the measurement
			// window and are not the run's; the other 26 are all of it.
			if !r.HasRequests || len(r.Requests) != 26 || r.Clock != benchrun.ClockEpoch || !ingesttest.HasNote(r, "4 of the 30 request samples fall outside") {
				t.Fatalf("records %v %d clock %q notes %q", r.HasRequests, len(r.Requests), r.Clock, r.Notes)
			}
			if !ingesttest.HasNote(r, "ends 205.491 s after the last request completed") {
				t.Errorf("window note missing: %q", r.Notes)
			}
			// The records reproduce guidellm's own counts, TTFT and TPOT
			// (nearest-rank percentiles included). Some figures disagree and
			// the check reports them:
			//   - duration: guidellm's configured measurement window (720 s)
			//     while the measured requests span 523.45 s;
			//   - e2el.*: guidellm's request_latency runs to the end of the
			//     response, about 1 ms past the last token the records'
			//     latency ends at;
			//   - ttft.median, tpot.median: guidellm finds the median of 26
			//     values on a float cumulative sum, 13 × (1/26) falls just
			//     short of 0.5, and it takes the 14th value, one rank above
			//     the exact nearest-rank 13th.
			a := glAudit(r)
			for _, m := range []string{"completed", "failed", "total_input_tokens", "total_output_tokens",
				"ttft.mean", "ttft.std", "ttft.p99", "ttft.p0.1", "ttft.p25", "tpot.mean", "tpot.p95", "tpot.max"} {
				c, ok := glChecked(a, m)
				if !ok || !c.OK {
					t.Errorf("%s: checked %v %+v", m, ok, c)
				}
			}
			bad := glDisagreeing(a)
			for _, m := range []string{"duration", "e2el.mean", "ttft.median", "tpot.median"} {
				if !slices.Contains(bad, m) {
					t.Errorf("%s not reported; disagreements %v", m, bad)
				}
			}
			for _, m := range bad {
				if m != "duration" && m != "ttft.median" && m != "tpot.median" && !strings.HasPrefix(m, "e2el.") {
					t.Errorf("unexpected disagreement %s", m)
				}
			}
			if c, _ := glChecked(a, "duration"); math.Abs(c.Recomputed-523.45) > 0.01 {
				t.Errorf("records' window %v", c.Recomputed)
			}
			if c, _ := glChecked(a, "e2el.mean"); c.Diff() <= 0 || c.Diff() > 2e-3 {
				t.Errorf("e2el.mean stated − recomputed = %v, want the stream-close tail (0, 2 ms]", c.Diff())
			}
			var ttfts []float64
			for _, q := range r.Requests {
				ttfts = append(ttfts, q.TTFT)
			}
			slices.Sort(ttfts)
			if s, _ := r.StatedValue("ttft.median"); s.Value != ttfts[13] || ttfts[12] == ttfts[13] {
				t.Errorf("stated median %v; sorted[12] %v, sorted[13] %v", s.Value, ttfts[12], ttfts[13])
			}
		},
		"guidellm_v0.8.0dev_report_v2_mock.json": func(t *testing.T, runs []*benchrun.Run) {
			if len(runs) != 2 {
				t.Fatalf("%d runs", len(runs))
			}
			for i, r := range runs {
				if r.Rejection != "" || r.Ordinal != i || !strings.HasPrefix(r.FormatVariant, "0.7–0.8") || r.HasRequests {
					t.Fatalf("run %d: %+v", i, r)
				}
				if r.Facts["checkpoint.model_id"] != "e2e-mock-model" || r.Facts["measurement.client_version"] != "0.8.0.dev18" || !ingesttest.HasNote(r, "keeps no request samples") {
					t.Errorf("run %d facts %v notes %q", i, r.Facts, r.Notes)
				}
			}
			glWant(t, runs[0], map[string]float64{"completed": 2, "duration": 5.01964807510376,
				"ttft.mean": glMs(11.481165885925293), "e2el.mean": 0.01978909969329834, "total_input_tokens": 143,
				"total_output_tokens": 16, "request_rate_series.mean": 0.39843430656414264})
			glWant(t, runs[1], map[string]float64{"completed": 2, "duration": 2.5186119079589844,
				"ttft.p99": glMs(10.147809982299805), "tpot.mean": glMs(1.0904414313180106)})
			if runs[0].Facts["workload.request_rate"] != "2.0" || runs[1].Facts["workload.request_rate"] != "4.0" {
				t.Errorf("rates %q %q", runs[0].Facts["workload.request_rate"], runs[1].Facts["workload.request_rate"])
			}
		},
	}
	for _, path := range testshared.Samples(t, "guidellm") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data := ingesttest.Read(t, path)
			if got := glDetected(name, data); got != "guidellm-report" {
				t.Errorf("detected as %q", got)
			}
			runs, err := ingesttest.Parse(guidellm.New(), name, data)
			check, known := checks[name]
			if !known {
				// A sample added later must at least parse.
				if err != nil {
					t.Errorf("parse: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			check(t, runs)
		})
	}
}

// TestGuidellmFixtures reads the project's own guidellm reports, written
// from guidellm's source (testdata/guidellm/README.md).
func TestGuidellmFixtures(t *testing.T) {
	p := guidellm.New()
	t.Run("sweep_v07_samples.json", func(t *testing.T) {
		runs := glMustParse(t, p, "sweep_v07_samples.json", ingesttest.Read(t, "testdata/guidellm/sweep_v07_samples.json"))
		if len(runs) != 3 {
			t.Fatalf("%d runs", len(runs))
		}
		// Benchmark 0: every request sampled, one of them warmup.
		r := runs[0]
		if r.Rejection != "" || !r.HasRequests || len(r.Requests) != 6 || r.Completed != 4 || r.Failed != 2 {
			t.Fatalf("run 0: %q records %d completed %d failed %d", r.Rejection, len(r.Requests), r.Completed, r.Failed)
		}
		var errored, incomplete int
		for i, q := range r.Requests {
			if q.Index != i || i > 0 && q.Start < r.Requests[i-1].Start {
				t.Errorf("request %d out of order", i)
			}
			switch {
			case strings.HasPrefix(q.Error, "HTTPStatusError"):
				errored++
			case strings.HasPrefix(q.Error, "incomplete"):
				incomplete++
			}
		}
		if errored != 1 || incomplete != 1 || !ingesttest.HasNote(r, "1 of the 7 request samples fall outside") {
			t.Errorf("errored %d incomplete %d notes %q", errored, incomplete, r.Notes)
		}
		ingesttest.WantFacts(t, r, map[string]string{"workload.concurrency": "1", "workload.input_len": "128",
			"workload.output_len": "64", "workload.seed": "7", "workload.request_count": "6",
			"metadata.team": "perf", "measurement.date": "2026-01-01T00:00:01Z", "measurement.clock": "epoch"})
		a := glAudit(r)
		for _, m := range []string{"completed", "failed", "total_input_tokens", "total_output_tokens", "ttft.mean",
			"ttft.std", "ttft.p25", "ttft.p75", "ttft.p99.9", "tpot.mean", "tpot.median", "tpot.std", "tpot.p90"} {
			if c, ok := glChecked(a, m); !ok || !c.OK {
				t.Errorf("%s: checked %v %+v", m, ok, c)
			}
		}
		for _, m := range glDisagreeing(a) {
			// guidellm's window runs to the incomplete request's end and its
			// request_latency to the end of each response (0.8 ms tail).
			if m != "duration" && !strings.HasPrefix(m, "e2el.") {
				t.Errorf("unexpected disagreement %s", m)
			}
		}
		// Benchmark 1: 3 samples of 10, output lengths differ.
		r = runs[1]
		if r.HasRequests || !ingesttest.HasNote(r, "3 successful, 0 errored and 0 incomplete request samples of the 10") {
			t.Errorf("run 1 records %v notes %q", r.HasRequests, r.Notes)
		}
		if _, ok := r.StatedValue("tpot.mean"); ok || r.Extra["metrics.inter_token_latency_ms"] == "" || !ingesttest.HasNote(r, "weighted by output tokens − 1") {
			t.Errorf("token-weighted inter_token_latency_ms stated as tpot: extra %.40q", r.Extra["metrics.inter_token_latency_ms"])
		}
		if r.Facts["workload.request_rate"] != "2.0" || r.Facts["workload.concurrency"] != "" {
			t.Errorf("load facts %v", r.Facts)
		}
		// Benchmark 2 is broken; it is rejected, the others are not.
		r = runs[2]
		if r.Ordinal != 2 || !strings.Contains(r.Rejection, "benchmark 2: metrics.request_totals.successful: negative count -3") || !strings.Contains(r.Location, "benchmark 2 at byte") {
			t.Errorf("run 2: %q at %q", r.Rejection, r.Location)
		}
	})
	t.Run("args_v04.json", func(t *testing.T) {
		runs := glMustParse(t, p, "args_v04.json", ingesttest.Read(t, "testdata/guidellm/args_v04.json"))
		r := runs[0]
		if len(runs) != 1 || r.FormatVariant != "0.4 (args)" {
			t.Fatalf("%d runs, variant %q", len(runs), r.FormatVariant)
		}
		if _, ok := r.StatedValue("ttft.p99.9"); ok || r.Extra["metrics.time_to_first_token_ms.successful.percentiles.p999"] != "NaN" || !ingesttest.HasNote(r, "p999 is NaN in the file") {
			t.Errorf("NaN percentile: extra %q notes %q", r.Extra["metrics.time_to_first_token_ms.successful.percentiles.p999"], r.Notes)
		}
		ingesttest.WantFacts(t, r, map[string]string{"workload.concurrency": "4", "checkpoint.model_id": "Qwen/Qwen3-8B",
			"checkpoint.tokenizer": "Qwen/Qwen3-8B", "workload.seed": "11", "workload.input_len": "128",
			"workload.output_len": "", "workload.request_count": "10", "measurement.backend": "openai_http"})
		glWant(t, r, map[string]float64{"completed": 10, "total_output_tokens": 610})
	})
	t.Run("report_v07.yaml", func(t *testing.T) {
		data := ingesttest.Read(t, "testdata/guidellm/report_v07.yaml")
		if !p.Sniff("report_v07.yaml", data) {
			t.Error("YAML report not sniffed")
		}
		runs := glMustParse(t, p, "report_v07.yaml", data)
		json := glMustParse(t, p, "sweep_v07_samples.json", ingesttest.Read(t, "testdata/guidellm/sweep_v07_samples.json"))
		r := runs[0]
		if len(runs) != 1 || !strings.HasSuffix(r.FormatVariant, ", YAML") || !strings.HasPrefix(r.Location, "benchmark 0 at line ") {
			t.Fatalf("%d runs %q %q", len(runs), r.FormatVariant, r.Location)
		}
		// The same benchmark as the JSON sweep's second: the same figures.
		if len(r.Stated) != len(json[1].Stated) {
			t.Fatalf("%d stated, JSON %d", len(r.Stated), len(json[1].Stated))
		}
		for i, s := range r.Stated {
			if s != json[1].Stated[i] {
				t.Errorf("YAML %+v, JSON %+v", s, json[1].Stated[i])
			}
		}
	})
}

// glBench is a minimal valid 0.5+ benchmark whose parts tests replace.
func glBenchJSON(replace map[string]string) string {
	parts := map[string]string{
		"totals":   `{"successful": 2, "errored": 0, "incomplete": 0, "total": 2}`,
		"latency":  `{"successful": {"mean": 0.5, "median": 0.5, "std_dev": 0.0, "min": 0.5, "max": 0.5, "count": 2, "total_sum": 1.0, "percentiles": {"p50": 0.5, "p99": 0.5}}}`,
		"duration": `1.5`,
		"requests": `{"successful": [], "errored": [], "incomplete": [], "total": null}`,
	}
	for k, v := range replace {
		parts[k] = v
	}
	return `{"type_": "generative_benchmark", "config": {"strategy": {"type_": "synchronous"}}, "metrics": {"request_totals": ` + parts["totals"] +
		`, "request_latency": ` + parts["latency"] + `}, "requests": ` + parts["requests"] + `, "duration": ` + parts["duration"] + `}`
}

func glReportJSON(benches ...string) string {
	return `{"metadata": {"version": 1, "guidellm_version": "0.5.0"}, "benchmarks": [` + strings.Join(benches, ", ") + `]}`
}

func TestGuidellmBadInput(t *testing.T) {
	good := glBenchJSON(nil)
	sweep := ingesttest.Read(t, "testdata/guidellm/sweep_v07_samples.json")
	fileErrors := []struct {
		name, data, place, reason string
	}{
		{"empty", "", "", "the file is empty"},
		{"blank", " \n\t\n", "", "the file is empty"},
		{"truncated", string(sweep[:2000]), "byte 2000", "is the file truncated?"},
		{"malformed", `{"benchmarks": [}`, "byte 16 (line 1)", "malformed JSON"},
		{"not an object", `[1, 2]`, "line 1", "holds a list, not an object"},
		{"no benchmarks", `{"metadata": {"guidellm_version": "0.5.0"}}`, "", `no "benchmarks" list`},
		{"empty list", `{"benchmarks": []}`, "", `"benchmarks" list is empty`},
		{"benchmarks an object", `{"benchmarks": {}}`, "byte 15 (line 1)", `"benchmarks" holds a object, not a list`},
		{"metadata a list", `{"metadata": [1], "benchmarks": [` + good + `]}`, "byte 13 (line 1)", `"metadata" holds a list`},
		{"two values", glReportJSON(good) + ` {}`, "line 1", "more than one JSON value"},
		{"duplicate key", `{"benchmarks": [` + good + `], "benchmarks": []}`, "line 1", `key "benchmarks" appears twice`},
		{"plain text", "not a report at all\n", "", "the document holds a string, not an object"},
		{"binary", "\x00\xff\xfe", "", "neither JSON nor YAML"},
		{"bad sample type", glReportJSON(glBenchJSON(map[string]string{"requests": `{"successful": [1, 2]}`})), "", ""},
	}
	p := guidellm.New()
	for _, tc := range fileErrors[:len(fileErrors)-1] {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := ingesttest.Parse(p, "bad.json", []byte(tc.data))
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v (%d runs), want an InputError", err, len(runs))
			}
			if ie.File != "bad.json" || !strings.Contains(ie.Place, tc.place) || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got place %q reason %q, want %q / %q", ie.Place, ie.Reason, tc.place, tc.reason)
			}
		})
	}

	// One bad benchmark is a rejection; the good one beside it parses.
	runRejections := []struct {
		name, bench, reason string
	}{
		{"not an object", `42`, "benchmark 0 is a number, not a benchmark object"},
		{"count is a string", glBenchJSON(map[string]string{"totals": `{"successful": "2", "errored": 0, "incomplete": 0}`}), `metrics.request_totals.successful: expected a count, found string`},
		{"count is NaN", glBenchJSON(map[string]string{"totals": `{"successful": NaN, "errored": 0, "incomplete": 0}`}), `metrics.request_totals.successful is NaN, not a count`},
		{"negative count", glBenchJSON(map[string]string{"totals": `{"successful": 2, "errored": -1, "incomplete": 0}`}), "negative count -1"},
		{"fractional count", glBenchJSON(map[string]string{"totals": `{"successful": 2.5, "errored": 0, "incomplete": 0}`}), "2.5 is not a whole number"},
		{"missing status", glBenchJSON(map[string]string{"totals": `{"successful": 2, "errored": 0}`}), "metrics.request_totals.incomplete is missing"},
		{"no requests", glBenchJSON(map[string]string{"totals": `{"successful": 0, "errored": 0, "incomplete": 0}`}), "no requests"},
		{"no metrics", `{"type_": "generative_benchmark", "duration": 1.0}`, `no "metrics" object`},
		{"other benchmark type", `{"type_": "embeddings_benchmark", "metrics": {}}`, `not a generative benchmark`},
		{"negative latency", glBenchJSON(map[string]string{"latency": `{"successful": {"mean": -0.5, "count": 2}}`}), "metrics.request_latency.successful.mean: negative value -0.5"},
		{"latency a string", glBenchJSON(map[string]string{"latency": `{"successful": {"mean": "fast", "count": 2}}`}), "expected a number, found string"},
		{"summary a list", glBenchJSON(map[string]string{"latency": `[1, 2]`}), "metrics.request_latency: expected a distribution summary object, found list"},
		{"negative duration", glBenchJSON(map[string]string{"duration": `-1.5`}), "duration: negative value -1.5"},
		{"sample not an object", glBenchJSON(map[string]string{"requests": `{"successful": [1, 2]}`}), `key "requests.successful" item 0`},
		{"sample negative tokens", glBenchJSON(map[string]string{"requests": `{"successful": [{"request_start_time": 1767225600.0, "request_end_time": 1767225600.5, "output_tokens": -4}]}`}), "negative output_tokens -4"},
		{"sample NaN time", glBenchJSON(map[string]string{"requests": `{"successful": [{"request_start_time": NaN}]}`}), "NaN at byte"},
		{"sample negative time", glBenchJSON(map[string]string{"requests": `{"successful": [{"request_start_time": -3.0}]}`}), "negative time -3.0"},
	}
	for _, tc := range runRejections {
		t.Run("rejected/"+tc.name, func(t *testing.T) {
			runs := glMustParse(t, p, "sweep.json", []byte(glReportJSON(tc.bench, good)))
			if len(runs) != 2 {
				t.Fatalf("%d runs", len(runs))
			}
			if runs[0].Ordinal != 0 || !strings.Contains(runs[0].Rejection, tc.reason) || runs[0].Location == "" {
				t.Errorf("rejection %q at %q, want %q", runs[0].Rejection, runs[0].Location, tc.reason)
			}
			if runs[1].Rejection != "" || runs[1].Ordinal != 1 || runs[1].Completed != 2 {
				t.Errorf("the good benchmark: %+v", runs[1])
			}
		})
	}

	// Non-finite figures where guidellm can write them are not figures.
	runs := glMustParse(t, p, "inf.json", []byte(glReportJSON(glBenchJSON(map[string]string{"duration": "Infinity"}))))
	if _, ok := runs[0].StatedValue("duration"); ok || runs[0].Extra["duration"] != "Infinity" || !ingesttest.HasNote(runs[0], "duration is Infinity in the file") {
		t.Errorf("Infinity duration: %+v", runs[0])
	}
}

func TestGuidellmSniff(t *testing.T) {
	p := guidellm.New()
	for _, path := range []string{"testdata/guidellm/sweep_v07_samples.json", "testdata/guidellm/args_v04.json", "testdata/guidellm/report_v07.yaml"} {
		if !p.Sniff(filepath.Base(path), ingesttest.Read(t, path)) {
			t.Errorf("%s not sniffed", path)
		}
	}
	for _, s := range []string{
		``, `{}`, `[]`, `not json`, `{"benchmarks": 3}`, `{"benchmarks": [{"name": "x"}]}`,
		`{"metadata": {"version": 2}}`,
		`{"model_instance_name": "m", "raw_metrics": {"metadata": {"guidellm_version": "0.7.1"}, "benchmarks": [{"type_": "generative_benchmark"}]}}`,
		"benchmarks:\n- model_instance_name: m\n  raw_metrics:\n    benchmarks:\n    - type_: generative_benchmark\n",
	} {
		if p.Sniff("x.json", []byte(s)) {
			t.Errorf("sniffed %q", s)
		}
	}
	// Known by its first benchmark's keys before type_, or by metadata; a
	// head cut short inside a long benchmark still counts.
	for _, s := range []string{
		`{"benchmarks": [{"type_": "generative_benchmark"`,
		`{"benchmarks": [{"id_": "x", "metrics": {}, "run_stats": {}}]}`,
		`{"metadata": {"version": 1, "guidellm_version": "0.5.0"}, "args": {"target": "` + strings.Repeat("x", 70000),
	} {
		if !p.Sniff("x.json", []byte(s)[:min(len(s), format.HeadSize)]) {
			t.Errorf("not sniffed: %.80q", s)
		}
	}
	// No other tool's sample is taken for guidellm, and no other parser
	// takes a guidellm sample.
	ingesttest.EachSample(t, func(tool, path string, head []byte) {
		if got := p.Sniff(filepath.Base(path), head); got != (tool == "guidellm") {
			t.Errorf("%s/%s: guidellm Sniff %v", tool, filepath.Base(path), got)
		}
		if tool != "guidellm" {
			return
		}
		for _, other := range registry.Parsers() {
			if other.ID() != guidellm.ID && other.Sniff(filepath.Base(path), head) {
				t.Errorf("%s also sniffed by %s", filepath.Base(path), other.ID())
			}
		}
	})
}

func TestGuidellmEmitErrorAndCancel(t *testing.T) {
	data := ingesttest.Read(t, "testdata/guidellm/sweep_v07_samples.json")
	stop := errors.New("stop")
	n := 0
	err := guidellm.New().Parse(context.Background(), "s.json", bytes.NewReader(data), func(*benchrun.Run) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("emit error: %v after %d runs", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := guidellm.New().Parse(ctx, "s.json", bytes.NewReader(data), func(*benchrun.Run) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestGuidellmIngest archives the real samples and a fixture with the
// batch, as `benchledger ingest` does, and reads them back.
func TestGuidellmIngest(t *testing.T) {
	dir := t.TempDir()
	a, err := store.Open(filepath.Join(dir, "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	paths := []string{"testdata/guidellm/sweep_v07_samples.json"}
	if root := testshared.Root(); root != "" {
		paths = append(paths, filepath.Join(root, "samples", "guidellm"))
	} else {
		t.Log("../shared is absent: ingesting the project's fixture only")
	}
	var outs []ingest.Outcome
	if err := ingest.Batch(context.Background(), paths, ingest.Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o ingest.Outcome) { outs = append(outs, o) }); err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]ingest.Outcome{}
	for _, o := range outs {
		byFile[filepath.Base(o.File)] = append(byFile[filepath.Base(o.File)], o)
	}
	sweep := byFile["sweep_v07_samples.json"]
	if len(sweep) != 3 || sweep[0].Status != ingest.StatusNew || sweep[1].Status != ingest.StatusNew || sweep[2].Status != ingest.StatusRejected ||
		!strings.Contains(sweep[2].Reason, "negative count -3") || sweep[0].Format != "guidellm-report" {
		t.Fatalf("sweep outcomes %+v", sweep)
	}
	rec, err := a.Run(sweep[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Run.Format != "guidellm-report" || len(rec.Run.Requests) != 6 || rec.Run.PercentileMethod != "nearest-rank" {
		t.Errorf("stored run: format %q, %d requests, method %q", rec.Run.Format, len(rec.Run.Requests), rec.Run.PercentileMethod)
	}
	if s, ok := rec.Run.StatedValue("total_output_tokens"); !ok || s.Value != 256 {
		t.Errorf("stored total_output_tokens %+v", s)
	}
	if testshared.Root() == "" {
		return
	}
	v05 := byFile["guidellm_v0.5.0dev_xpu_benchmarks.json"]
	if len(v05) != 1 || v05[0].Status != ingest.StatusNew || v05[0].Format != "guidellm-report" {
		t.Fatalf("v0.5 outcomes %+v", v05)
	}
	rec, err = a.Run(v05[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := rec.Run.StatedValue("ttft.mean"); !ok || s.Value != glMs(44.13208594689003) || s.SourceUnit != "ms" {
		t.Errorf("stored ttft.mean %+v", s)
	}
	if len(rec.Run.Requests) != 26 || rec.Run.Clock != benchrun.ClockEpoch {
		t.Errorf("stored %d requests, clock %q", len(rec.Run.Requests), rec.Run.Clock)
	}
	if got := byFile["guidellm_v0.8.0dev_report_v2_mock.json"]; len(got) != 2 || got[1].Status != ingest.StatusNew {
		t.Errorf("v0.8 outcomes %+v", got)
	}
}

// FuzzGuidellm: whatever the bytes, Sniff and Parse must not panic, Parse
// must reject with an *InputError only, and every run must be well formed.
func FuzzGuidellm(f *testing.F) {
	paths, _ := filepath.Glob("testdata/guidellm/*")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "guidellm", "*"))
		paths = append(paths, shared...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, ".md") {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "{}", "[]", "\x00\xff", glReportJSON(glBenchJSON(nil)),
		glReportJSON(glBenchJSON(map[string]string{"requests": `{"successful": [{"request_start_time": 1767225600.0, "request_end_time": 1767225600.5, "request_latency": 0.5, "output_tokens": 3, "time_to_first_token_ms": 10.0}]}`})),
		"benchmarks:\n- type_: generative_benchmark\n  metrics: {request_totals: {successful: 1, errored: 0, incomplete: 0}}\n",
		"a: &x [*x]\n",
	} {
		f.Add([]byte(s))
	}
	p := guidellm.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.json", data[:min(len(data), format.HeadSize)])
		ordinal := 0
		err := p.Parse(context.Background(), "fuzz.json", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Ordinal != ordinal {
				t.Fatalf("ordinal %d, want %d", r.Ordinal, ordinal)
			}
			ordinal++
			if r.Rejection != "" {
				return nil
			}
			if r.Format != guidellm.ID || r.Facts == nil || r.Extra == nil || r.HasRequests != (len(r.Requests) > 0) {
				t.Fatalf("run %+v", r)
			}
			for i, q := range r.Requests {
				if q.Index != i || q.InputTokens < -1 || q.OutputTokens < -1 || q.TTFT < 0 || q.Latency < 0 {
					t.Fatalf("request %d: %+v", i, q)
				}
			}
			for _, s := range r.Stated {
				if !benchrun.IsKnown(s.Value) || math.IsInf(s.Value, 0) || s.Metric == "" {
					t.Fatalf("stated %+v", s)
				}
			}
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz.json")
	})
}
