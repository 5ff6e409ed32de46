package aiperf_test

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
	"github.com/benchledger/benchledger/ingest/format/aiperf"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/testshared"
	"github.com/benchledger/benchledger/store"
)

// apOne parses data that must hold exactly one run.
func apOne(t *testing.T, p format.Parser, name string, data []byte) *benchrun.Run {
	t.Helper()
	runs, err := ingesttest.Parse(p, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(runs) != 1 {
		t.Fatalf("%s: %d runs, want 1", name, len(runs))
	}
	return runs[0]
}

// apDetect names the format Detect picks for a file ("" for none).
func apDetect(name string, data []byte) string {
	d := registry.Detect(name, data[:min(len(data), format.HeadSize)])
	if d.Parser == nil {
		return ""
	}
	return d.Parser.ID()
}

// apWant checks stated figures: metric -> value in canonical units, exact
// to 1e-12 relative (the parser only divides by 1000 or 1e9).
func apWant(t *testing.T, r *benchrun.Run, want map[string]float64) {
	t.Helper()
	for metric, v := range want {
		s, ok := r.StatedValue(metric)
		if !ok {
			t.Errorf("%s: no stated %s", r.Format, metric)
			continue
		}
		if math.Abs(s.Value-v) > 1e-12*math.Max(1, math.Abs(v)) {
			t.Errorf("%s: stated %s = %.15g, want %.15g (source %s %s)", r.Format, metric, s.Value, v, s.SourceKey, s.SourceUnit)
		}
	}
}

// apCheck compares a summary's stated figures with the records' recomputed
// ones, as the audit does, and returns the disagreements.
func apCheck(t *testing.T, stated *benchrun.Run, records *benchrun.Run, rounded bool) figures.StatedAudit {
	t.Helper()
	f := figures.Recompute(records.Requests, math.NaN(), 0, figures.Options{Percentiles: []float64{1, 5, 10, 25, 50, 75, 90, 95, 99}})
	opt := figures.StatedOptions{SourceMethod: stated.PercentileMethod, DurationIsWindow: true}
	if rounded {
		opt.Rounded, opt.Decimals = true, 2
	}
	return figures.CheckStated(stated.Stated, f, opt)
}

func TestAIPerfIdentity(t *testing.T) {
	for _, c := range []struct {
		p        format.Parser
		id, desc string
	}{
		{aiperf.NewJSON(), "aiperf-json", "AIPerf profile_export_aiperf.json summary"},
		{aiperf.NewCSV(), "aiperf-csv", "AIPerf profile_export_aiperf.csv summary"},
		{aiperf.NewRecords(), "aiperf-records", "AIPerf profile_export.jsonl per-request records"},
	} {
		if c.p.ID() != c.id || c.p.Describe() != c.desc {
			t.Errorf("ID %q Describe %q", c.p.ID(), c.p.Describe())
		}
		if p, ok := registry.ByID(c.id); !ok || p.ID() != c.id {
			t.Errorf("%s is not registered", c.id)
		}
	}
}

// The 2025-10 sample: one run (gpt-oss-20b, 100 requests at concurrency
// 100, 11 cancelled) as AIPerf 0.1 wrote it three ways.
const (
	apSampleJSON  = "aiperf_2025-10_profile_export_aiperf.json"
	apSampleCSV   = "aiperf_2025-10_profile_export_aiperf.csv"
	apSampleJSONL = "aiperf_2025-10_profile_export.jsonl"
	apSampleV08   = "aiperf_v0.8.0_profile_export_aiperf_mock.json"
	apSampleKey   = "aiperf:requests=89,errors=11,output_tokens=21624,duration=9.32s"
)

func TestAIPerfSamples(t *testing.T) {
	checks := map[string]struct {
		format string
		check  func(t *testing.T, r *benchrun.Run)
	}{
		apSampleJSON: {"aiperf-json", func(t *testing.T, r *benchrun.Run) {
			if r.FormatVariant != "records layout (AIPerf 0.1)" || r.SourceTool != "aiperf" || r.PercentileMethod != "linear" {
				t.Errorf("variant %q tool %q method %q", r.FormatVariant, r.SourceTool, r.PercentileMethod)
			}
			if r.Completed != 89 || r.Failed != 11 || r.HasRequests {
				t.Errorf("completed %d failed %d records %v", r.Completed, r.Failed, r.HasRequests)
			}
			// As printed in the file, ms and sec converted to seconds.
			apWant(t, r, map[string]float64{
				"ttft.mean": 2343.219436988764 / 1000, "ttft.p99": 3833.3894000399996 / 1000, "ttft.median": 2369.317693 / 1000,
				"ttft.std": 1049.8164554204095 / 1000, "e2el.mean": 9059.654633033708 / 1000, "e2el.p1": 8180.93424796 / 1000,
				"tpot.mean": 27.763065454471807 / 1000, "tpot.p99": 33.73224787406911 / 1000,
				"itl.mean": 27.755153106189347 / 1000, "itl.p99": 140.53429476 / 1000,
				"duration": 9.317788951, "request_throughput": 9.551622221540914, "output_throughput": 2320.7222350404572,
				"completed": 89, "failed": 11, "total_input_tokens": 48950, "total_output_tokens": 21624,
			})
			if s, _ := r.StatedValue("ttft.mean"); s.SourceKey != "ttft.avg" || s.SourceUnit != "ms" || s.Unit != "s" {
				t.Errorf("ttft.mean source %+v", s)
			}
			// Not stated under a name that means something else.
			for _, m := range []string{"itl.tpot", "ttst.mean"} {
				if _, ok := r.StatedValue(m); ok {
					t.Errorf("stated %s", m)
				}
			}
			if !strings.Contains(r.Extra["total_output_tokens"], `"avg":1832.0`) || !strings.Contains(r.Extra["ttst"], `"avg":120.16625153932584`) {
				t.Errorf("answer-only total_output_tokens and ttst must stay in Extra: %q %q", r.Extra["total_output_tokens"], r.Extra["ttst"])
			}
			want := map[string]string{
				"checkpoint.model_id": "openai/gpt-oss-20b", "workload.concurrency": "100", "workload.request_count": "100",
				"measurement.client": "aiperf", "measurement.date": "2025-10-03T20:13:39Z", "measurement.backend": "chat",
				"workload.output_len": "250",
			}
			for k, v := range want {
				if r.Facts[k] != v {
					t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
				}
			}
			if r.Companion != apSampleKey {
				t.Errorf("companion %q", r.Companion)
			}
			for _, n := range []string{"vLLM's TPOT", "vLLM's ITL", "499 RequestCancellationError (11)", "answer tokens only"} {
				if !ingesttest.HasNote(r, n) {
					t.Errorf("no note %q in %q", n, r.Notes)
				}
			}
		}},
		apSampleCSV: {"aiperf-csv", func(t *testing.T, r *benchrun.Run) {
			if r.FormatVariant != "two sections, early statistics (no p10)" || r.Completed != 89 || r.Failed != 11 {
				t.Errorf("variant %q completed %d failed %d", r.FormatVariant, r.Completed, r.Failed)
			}
			apWant(t, r, map[string]float64{
				"ttft.mean": 2343.22 / 1000, "ttft.p99": 3833.39 / 1000, "ttft.std": 1049.82 / 1000,
				"tpot.median": 27.62 / 1000, "itl.max": 164.62 / 1000, "e2el.p95": 9288.61 / 1000,
				"duration": 9.32, "request_throughput": 9.55, "output_throughput": 2320.72,
				"completed": 89, "failed": 11, "total_input_tokens": 48950, "total_output_tokens": 21624,
			})
			if s, _ := r.StatedValue("duration"); s.SourceKey != "Benchmark Duration (sec) Value" || s.SourceUnit != "sec" {
				t.Errorf("duration source %+v", s)
			}
			if r.Facts["measurement.date"] != "2025-10-03T20:13:39Z" || r.Companion != apSampleKey {
				t.Errorf("date %q companion %q", r.Facts["measurement.date"], r.Companion)
			}
			if r.Extra["Total Output Tokens (tokens)"] != `{"avg":"1832.00"}` || !ingesttest.HasNote(r, "answer tokens only") {
				t.Errorf("extra %q", r.Extra["Total Output Tokens (tokens)"])
			}
		}},
		apSampleJSONL: {"aiperf-records", func(t *testing.T, r *benchrun.Run) {
			if !r.HasRequests || len(r.Requests) != 100 || r.Completed != 89 || r.Failed != 11 {
				t.Fatalf("records %d completed %d failed %d", len(r.Requests), r.Completed, r.Failed)
			}
			if r.Clock != benchrun.ClockEpoch || r.Facts["measurement.clock"] != "epoch" || r.FormatVariant != "timestamp_ns metadata (AIPerf 0.1)" {
				t.Errorf("clock %q variant %q", r.Clock, r.FormatVariant)
			}
			for i := 1; i < len(r.Requests); i++ {
				if r.Requests[i].Start < r.Requests[i-1].Start || r.Requests[i].Index != i {
					t.Fatalf("request %d not in send order", i)
				}
			}
			// The earliest request, 1759522419154568925 ns, completed.
			q := r.Requests[0]
			if q.Start != 1759522419154568925/1e9 || q.Failed() || q.InputTokens != 550 {
				t.Errorf("first request %+v", q)
			}
			// x_request_id 1ed40a0d-...: TTFT 1680.543782 ms, latency
			// 7936.968269 ms, output_sequence_length 193 (61 + 132 reasoning),
			// 192 chunk gaps.
			found := false
			for _, q := range r.Requests {
				if q.Start == 1759522419159192408/1e9 {
					found = true
					if q.TTFT != 1.680543782 || q.Latency != 7.936968269 || q.OutputTokens != 193 || q.InputTokens != 550 || q.Gaps.Count != 192 || math.Abs(q.Gaps.Min-0.018624758) > 1e-15 {
						t.Errorf("request 1ed40a0d: %+v", q)
					}
				}
				if q.Failed() && (q.Error != "499 RequestCancellationError: Request was cancelled after 0.000 seconds" || benchrun.IsKnown(q.TTFT) || q.InputTokens != -1) {
					t.Errorf("failed request %+v", q)
				}
			}
			if !found {
				t.Error("request 1ed40a0d not found")
			}
			if r.Companion != apSampleKey || r.Facts["measurement.date"] != "2025-10-03T20:13:39Z" {
				t.Errorf("companion %q date %q", r.Companion, r.Facts["measurement.date"])
			}
		}},
		apSampleV08: {"aiperf-json", func(t *testing.T, r *benchrun.Run) {
			if r.FormatVariant != "schema 1.0" || r.Completed != 64 || r.Failed != 0 {
				t.Errorf("variant %q completed %d failed %d", r.FormatVariant, r.Completed, r.Failed)
			}
			apWant(t, r, map[string]float64{
				"e2el.mean": 1.516322453125 / 1000, "e2el.p10": 0.4393838 / 1000, "e2el.p99": 15.14387014 / 1000, "e2el.max": 15.148168 / 1000,
				"request_throughput": 1854.929714829192, "output_throughput": 1022443.0554692096, "total_token_throughput": 2042654.398625265,
				"duration": 0.034502655, "completed": 64, "total_input_tokens": 35200, "total_output_tokens": 35277,
			})
			if _, ok := r.StatedValue("e2el.std"); ok || !ingesttest.HasNote(r, "sample standard deviation") {
				t.Errorf("a versioned export's std must not be stated as the population std: %v", r.Notes)
			}
			if _, ok := r.StatedValue("failed"); ok {
				t.Error("failed stated without an error_request_count")
			}
			want := map[string]string{"measurement.client_version": "0.8.0", "checkpoint.model_id": "mock-model", "workload.concurrency": "4",
				"workload.request_count": "64", "workload.input_len": "550", "workload.seed": "42", "checkpoint.tokenizer": "gpt2"}
			for k, v := range want {
				if r.Facts[k] != v {
					t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
				}
			}
			if _, ok := r.Facts["measurement.date"]; ok || !ingesttest.HasNote(r, "local time without a zone") {
				t.Errorf("a naive local start_time must not become measurement.date: %v", r.Facts)
			}
			if r.Extra["benchmark_id"] != `"cf9a7da02a534390b4aa6cf08156a56d"` || !strings.Contains(r.Extra["input_config"], `--tokenizer '<redacted>'`) {
				t.Errorf("extra %q %q", r.Extra["benchmark_id"], r.Extra["input_config"])
			}
			if r.Companion != "aiperf:requests=64,errors=0,output_tokens=35277,duration=0.03s" {
				t.Errorf("companion %q", r.Companion)
			}
		}},
	}
	for _, path := range testshared.Samples(t, "aiperf") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data := ingesttest.Read(t, path)
			c, known := checks[name]
			got := apDetect(name, data)
			if !known {
				// A sample added later must at least be detected as AIPerf and parse.
				p, ok := registry.ByID(got)
				if !ok || !strings.HasPrefix(got, "aiperf-") {
					t.Fatalf("detected as %q", got)
				}
				if _, err := ingesttest.Parse(p, name, data); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != c.format {
				t.Fatalf("detected as %q, want %q", got, c.format)
			}
			p, _ := registry.ByID(got)
			c.check(t, apOne(t, p, name, data))
		})
	}
}

// TestAIPerfSampleFiguresAgree: what the JSON and CSV state agrees with
// what the JSONL's records recompute, by the same definitions (duration
// is AIPerf's window; percentiles linear; population std).
func TestAIPerfSampleFiguresAgree(t *testing.T) {
	dir := testshared.Dir(t, filepath.Join("samples", "aiperf"))
	records := apOne(t, aiperf.NewRecords(), apSampleJSONL, ingesttest.Read(t, filepath.Join(dir, apSampleJSONL)))
	for _, c := range []struct {
		file    string
		p       format.Parser
		rounded bool
		checks  int
	}{
		{apSampleJSON, aiperf.NewJSON(), false, 44},
		{apSampleCSV, aiperf.NewCSV(), true, 44},
	} {
		r := apOne(t, c.p, c.file, ingesttest.Read(t, filepath.Join(dir, c.file)))
		a := apCheck(t, r, records, c.rounded)
		for _, d := range a.Disagreements() {
			t.Errorf("%s: %s stated %.9g recomputed %.9g: %s", c.file, d.Metric, d.Stated, d.Recomputed, d.Reason)
		}
		if len(a.Checks) < c.checks {
			t.Errorf("%s: only %d figures checked", c.file, len(a.Checks))
		}
		// ITL percentiles have no per-gap values in the archive: listed, not hidden.
		if !slices.ContainsFunc(a.NotChecked, func(n figures.NotChecked) bool { return n.Metric == "itl.p99" }) {
			t.Errorf("%s: itl.p99 should be listed as not checked: %+v", c.file, a.NotChecked)
		}
		if c.rounded {
			// Without the CSV's rounding declared, its figures disagree.
			f := figures.Recompute(records.Requests, math.NaN(), 0)
			strict := figures.CheckStated(r.Stated, f, figures.StatedOptions{SourceMethod: "linear", DurationIsWindow: true})
			if len(strict.Disagreements()) == 0 {
				t.Error("two-decimal CSV figures must not pass a full-precision check")
			}
		}
	}
	// Had inter_token_latency been taken as vLLM's ITL (chunk gaps), the
	// stated mean would disagree with the records.
	f := figures.Recompute(records.Requests, math.NaN(), 0)
	mis := figures.CheckStated([]benchrun.Stated{{Metric: "itl.mean", Value: 27.763065454471807 / 1000, Unit: "s"}}, f, figures.StatedOptions{})
	if len(mis.Disagreements()) != 1 {
		t.Errorf("inter_token_latency as itl.mean should disagree: %+v", mis.Checks)
	}
}

// TestAIPerfFixtures: the layouts without a public sample, one benchmark
// written as each (testdata/aiperf/README.md).
func TestAIPerfFixtures(t *testing.T) {
	const key = "aiperf:requests=3,errors=1,output_tokens=13,duration=0.70s"
	dir := filepath.Join("testdata", "aiperf")
	records := apOne(t, aiperf.NewRecords(), "current_profile_export.jsonl", ingesttest.Read(t, filepath.Join(dir, "current_profile_export.jsonl")))
	t.Run("records", func(t *testing.T) {
		r := records
		if r.FormatVariant != "request_start_ns metadata" || len(r.Requests) != 4 || r.Completed != 3 || r.Failed != 1 {
			t.Fatalf("variant %q records %d completed %d failed %d", r.FormatVariant, len(r.Requests), r.Completed, r.Failed)
		}
		starts := []float64{1767225600.1, 1767225600.25, 1767225600.4, 1767225600.45}
		for i, q := range r.Requests {
			if math.Abs(q.Start-starts[i]) > 1e-6 {
				t.Errorf("request %d starts %v, want %v (send order)", i, q.Start, starts[i])
			}
		}
		q := r.Requests[0]
		if q.TTFT != 0.1205 || q.Latency != 0.6205 || q.OutputTokens != 6 || q.Gaps.Count != 5 || math.Abs(q.Gaps.Sum-0.5) > 1e-12 {
			t.Errorf("request 0 %+v", q)
		}
		if f := r.Requests[3]; f.Error != "499 RequestCancellationError: Request was cancelled after 0.000 seconds" || f.InputTokens != 100 {
			t.Errorf("cancelled request %+v", f)
		}
		if r.Companion != key || r.Facts["measurement.date"] != "2026-01-01T00:00:00Z" {
			t.Errorf("companion %q date %q", r.Companion, r.Facts["measurement.date"])
		}
		if !ingesttest.HasNote(r, "1 warmup-phase records") || !ingesttest.HasNote(r, "sorted by send time") {
			t.Errorf("notes %q", r.Notes)
		}
	})
	t.Run("versioned json", func(t *testing.T) {
		r := apOne(t, aiperf.NewJSON(), "current_profile_export_aiperf.json", ingesttest.Read(t, filepath.Join(dir, "current_profile_export_aiperf.json")))
		if r.FormatVariant != "schema 1.5" || r.Companion != key || r.Completed != 3 || r.Failed != 1 {
			t.Errorf("variant %q companion %q completed %d failed %d", r.FormatVariant, r.Companion, r.Completed, r.Failed)
		}
		apWant(t, r, map[string]float64{"ttft.median": 0.15, "itl.mean": 0.103, "duration": 0.7, "total_output_tokens": 13})
		if _, ok := r.StatedValue("ttft.std"); ok {
			t.Error("schema 1.5 std (sample) stated as population std")
		}
		if r.Facts["hardware.gpu_model"] != "NVIDIA H100 80GB HBM3" || r.Facts["workload.concurrency"] != "2" ||
			r.Facts["workload.request_count"] != "4" || r.Facts["workload.output_len"] != "6±2" || r.Facts["workload.seed"] != "7" {
			t.Errorf("facts %v", r.Facts)
		}
		if a := apCheck(t, r, records, false); len(a.Disagreements()) > 0 || len(a.Checks) < 30 {
			t.Errorf("checks %d, disagreements %+v", len(a.Checks), a.Disagreements())
		}
	})
	t.Run("csv with sum and p10", func(t *testing.T) {
		r := apOne(t, aiperf.NewCSV(), "current_profile_export_aiperf.csv", ingesttest.Read(t, filepath.Join(dir, "current_profile_export_aiperf.csv")))
		if r.FormatVariant != "two sections, statistics with p10" || r.Companion != key || r.Completed != 3 || r.Failed != 1 {
			t.Errorf("variant %q companion %q", r.FormatVariant, r.Companion)
		}
		apWant(t, r, map[string]float64{"ttft.p75": 0.17515, "e2el.p10": 0.41606, "request_throughput": 4.29, "total_token_throughput": 447.14})
		if _, ok := r.StatedValue("ttft.std"); ok || !ingesttest.HasNote(r, "sample standard deviation") {
			t.Errorf("std of the newer CSV layout stated, or not said why not: %q", r.Notes)
		}
		if a := apCheck(t, r, records, true); len(a.Disagreements()) > 0 || len(a.Checks) < 30 {
			t.Errorf("checks %d, disagreements %+v", len(a.Checks), a.Disagreements())
		}
	})
	t.Run("flat json", func(t *testing.T) {
		r := apOne(t, aiperf.NewJSON(), "flat_profile_export_aiperf.json", ingesttest.Read(t, filepath.Join(dir, "flat_profile_export_aiperf.json")))
		if r.FormatVariant != "flat (GenAI-Perf-compatible, no schema_version)" || r.Companion != key {
			t.Errorf("variant %q companion %q", r.FormatVariant, r.Companion)
		}
		if r.Facts["measurement.date"] != records.Facts["measurement.date"] || r.Facts["checkpoint.model_id"] != "Qwen/Qwen3-0.6B" {
			t.Errorf("facts %v", r.Facts)
		}
		apWant(t, r, map[string]float64{"ttft.std": 32.94503840573807 / 1000, "tpot.mean": 106.1111111111111 / 1000})
		if a := apCheck(t, r, records, false); len(a.Disagreements()) > 0 || len(a.Checks) < 40 {
			t.Errorf("checks %d, disagreements %+v", len(a.Checks), a.Disagreements())
		}
	})
	t.Run("detected", func(t *testing.T) {
		for file, want := range map[string]string{
			"current_profile_export.jsonl": "aiperf-records", "current_profile_export_aiperf.json": "aiperf-json",
			"current_profile_export_aiperf.csv": "aiperf-csv", "flat_profile_export_aiperf.json": "aiperf-json",
		} {
			if got := apDetect(file, ingesttest.Read(t, filepath.Join(dir, file))); got != want {
				t.Errorf("%s detected as %q, want %q", file, got, want)
			}
		}
	})
}

// TestAIPerfSniffOthers: no other tool's sample is taken for AIPerf, and
// AIPerf's files are not taken for another format.
func TestAIPerfSniffOthers(t *testing.T) {
	ours := []format.Parser{aiperf.NewJSON(), aiperf.NewCSV(), aiperf.NewRecords()}
	ingesttest.EachSample(t, func(tool, path string, head []byte) {
		for _, p := range ours {
			if tool != "aiperf" && p.Sniff(filepath.Base(path), head) {
				t.Errorf("%s/%s sniffed as %s", tool, filepath.Base(path), p.ID())
			}
		}
	})
	for _, s := range []string{
		``, `{}`, `[]`, `{"records": []}`, `{"records": {"x": {"value": 1}}}`, `{"time_to_first_token": {"unit": "ms", "avg": 1.0}, "input_config": {}}`,
		`{"benchledger_trace": 1}`, `{"metadata": {"timestamp_ns": 1}, "metrics": {}}`, `{"metadata": {"worker_id": "w"}, "metrics": {}}`,
		"Metric,Value\nOutput Token Throughput (tokens/sec),1.00\n", "Metric,avg,min,max,p99,p95\n", "a,b\n1,2\n",
	} {
		for _, p := range ours {
			if p.Sniff("x", []byte(s)) {
				t.Errorf("%s sniffed %q", p.ID(), s)
			}
		}
	}
}

// apJSONL is a valid two-record file in the current shape; bad inputs are
// edits of it.
const apJSONL = `{"metadata":{"session_num":0,"x_request_id":"a","request_start_ns":1767225600100000000,"request_end_ns":1767225600620000000,"worker_id":"w","record_processor_id":"r","benchmark_phase":"profiling"},"metrics":{"input_sequence_length":{"value":10,"unit":"tokens"},"time_to_first_token":{"value":120.0,"unit":"ms"},"request_latency":{"value":520.0,"unit":"ms"},"inter_chunk_latency":{"value":[200.0,200.0],"unit":"ms"},"output_sequence_length":{"value":3,"unit":"tokens"}},"error":null}
{"metadata":{"session_num":1,"x_request_id":"b","request_start_ns":1767225600200000000,"worker_id":"w","record_processor_id":"r","benchmark_phase":"profiling"},"metrics":{"error_isl":{"value":10,"unit":"tokens"}},"error":{"code":500,"type":"ServerError","message":"boom"}}
`

const apJSON = `{"request_count": {"unit": "requests", "avg": 2.0},
 "time_to_first_token": {"unit": "ms", "avg": 100.0, "p99": 120.0},
 "benchmark_duration": {"unit": "sec", "avg": 1.5},
 "total_osl": {"unit": "tokens", "avg": 8.0},
 "error_summary": [], "was_cancelled": false}`

const apCSV = "Metric,avg,min,max,p1,p5,p25,p50,p75,p90,p95,p99,std\n" +
	"Time to First Token (ms),100.00,90.00,110.00,90.20,91.00,95.00,100.00,105.00,108.00,109.00,109.80,10.00\n\n" +
	"Metric,Value\nBenchmark Duration (sec),1.50\nRequest Count,2.00\nTotal Output Sequence Length (tokens),8.00\n"

func TestAIPerfGoodMinimal(t *testing.T) {
	r := apOne(t, aiperf.NewRecords(), "x.jsonl", []byte(apJSONL))
	if r.Completed != 1 || r.Failed != 1 || r.Requests[1].Error != "500 ServerError: boom" {
		t.Errorf("records %+v", r)
	}
	j := apOne(t, aiperf.NewJSON(), "x.json", []byte(apJSON))
	c := apOne(t, aiperf.NewCSV(), "x.csv", []byte(apCSV))
	if j.Companion != "aiperf:requests=2,errors=0,output_tokens=8,duration=1.50s" || c.Companion != j.Companion {
		t.Errorf("companions %q %q", j.Companion, c.Companion)
	}
	if j.Failed != 0 || c.Failed != -1 || !ingesttest.HasNote(c, "failed is unknown") {
		t.Errorf("json failed %d (error_summary is empty: 0); csv failed %d (no row: unknown)", j.Failed, c.Failed)
	}
}

func TestAIPerfBadInput(t *testing.T) {
	rep := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			panic("test edit does not apply: " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
	line1 := strings.SplitAfter(apJSONL, "\n")[0]
	tests := []struct {
		name   string
		p      format.Parser
		data   string
		place  string
		reason string
	}{
		// Summary JSON.
		{"json empty", aiperf.NewJSON(), ``, "", "the file is empty"},
		{"json whitespace", aiperf.NewJSON(), "  \n", "", "only whitespace"},
		{"json truncated", aiperf.NewJSON(), apJSON[:60], "byte 60 (line 2)", "truncated"},
		{"json not an object", aiperf.NewJSON(), `[1, 2]`, "byte 0 (line 1)", "not an AIPerf summary"},
		{"json no metrics", aiperf.NewJSON(), `{"input_config": {}}`, "byte 0 (line 1)", "no metric blocks"},
		{"json NaN", aiperf.NewJSON(), rep(apJSON, `"avg": 100.0`, `"avg": NaN`), "byte 98 (line 2)", "AIPerf writes null, never a non-finite number"},
		{"json Infinity", aiperf.NewJSON(), rep(apJSON, `"p99": 120.0`, `"p99": Infinity`), "line 2", "non-finite"},
		{"json string stat", aiperf.NewJSON(), rep(apJSON, `"avg": 100.0`, `"avg": "100"`), "line 2", "must be a number"},
		{"json negative count", aiperf.NewJSON(), rep(apJSON, `"avg": 2.0`, `"avg": -2.0`), "line 1", "request_count is negative"},
		{"json fractional count", aiperf.NewJSON(), rep(apJSON, `"avg": 2.0`, `"avg": 2.5`), "line 1", "not a whole number"},
		{"json ttft in tokens", aiperf.NewJSON(), rep(apJSON, `"unit": "ms"`, `"unit": "tokens"`), "line 2", "not a unit of time"},
		{"json no request_count", aiperf.NewJSON(), rep(apJSON, `"request_count"`, `"request_countx"`), "byte 0 (line 1)", "no request_count"},
		{"json zero requests", aiperf.NewJSON(), rep(apJSON, `"avg": 2.0`, `"avg": 0.0`), "byte 0 (line 1)", "run has no requests"},
		{"json duplicate key", aiperf.NewJSON(), rep(apJSON, `"was_cancelled": false`, `"was_cancelled": false, "was_cancelled": true`), "byte 264 (line 5)", "appears twice"},
		{"json two values", aiperf.NewJSON(), apJSON + "\n{}", "byte 264 (line 6)", "a second JSON value"},
		{"json bad error_summary", aiperf.NewJSON(), rep(apJSON, `"error_summary": []`, `"error_summary": [{"count": -1}]`), "line 5", "no valid \"count\""},
		{"json records not object", aiperf.NewJSON(), `{"records": [1]}`, "line 1", "must be an object of metric blocks"},
		// Summary CSV.
		{"csv empty", aiperf.NewCSV(), ``, "", "the file is empty"},
		{"csv no header", aiperf.NewCSV(), "Request Count,2.00\n", "line 1", "not a \"Metric,...\" header"},
		{"csv not a number", aiperf.NewCSV(), rep(apCSV, "100.00,90.00", "abc,90.00"), "line 2", `"abc" is not a number`},
		{"csv nan", aiperf.NewCSV(), rep(apCSV, "100.00,90.00", "nan,90.00"), "line 2", `"nan" is not a number`},
		{"csv inf", aiperf.NewCSV(), rep(apCSV, "Request Count,2.00", "Request Count,inf"), "line 6", `"inf" is not a number`},
		{"csv negative count", aiperf.NewCSV(), rep(apCSV, "Request Count,2.00", "Request Count,-2.00"), "line 6", "negative"},
		{"csv field count", aiperf.NewCSV(), rep(apCSV, "Request Count,2.00", "Request Count,2,00"), "line 6", "the row has 3 fields"},
		{"csv duplicate row", aiperf.NewCSV(), apCSV + "Request Count,2.00\n", "line 8", "appears twice"},
		{"csv no request count", aiperf.NewCSV(), rep(apCSV, "Request Count,2.00\n", ""), "", "no Request Count row"},
		{"csv bad quote", aiperf.NewCSV(), rep(apCSV, "Request Count,2.00", `Request Count,"2.00`), "line 6", "malformed CSV"},
		{"csv ttft unit", aiperf.NewCSV(), rep(apCSV, "Time to First Token (ms)", "Time to First Token (tokens)"), "line 2", "not a unit of time"},
		{"csv binary", aiperf.NewCSV(), "Metric,Value\x00\n", "", "NUL"},
		// Per-request JSONL.
		{"jsonl empty", aiperf.NewRecords(), ``, "", "the file is empty"},
		{"jsonl truncated", aiperf.NewRecords(), apJSONL[:len(apJSONL)-40], "line 2", "truncated"},
		{"jsonl not object", aiperf.NewRecords(), "[1]\n", "line 1", "expected a JSON object"},
		{"jsonl two per line", aiperf.NewRecords(), strings.TrimSuffix(line1, "\n") + " {}\n", "line 1", "a second JSON value on the line"},
		{"jsonl spans lines", aiperf.NewRecords(), rep(line1, `"error":null`, "\n\"error\":null"), "line 1", "continues on line 2"},
		{"jsonl NaN ttft", aiperf.NewRecords(), rep(apJSONL, `"value":120.0`, `"value":NaN`), "line 1", "NaN, not a measurement"},
		{"jsonl Infinity gap", aiperf.NewRecords(), rep(apJSONL, `[200.0,200.0]`, `[200.0,Infinity]`), "line 1", "gap 1 is Infinity"},
		{"jsonl negative latency", aiperf.NewRecords(), rep(apJSONL, `"value":520.0`, `"value":-520.0`), "line 1", "negative"},
		{"jsonl string ttft", aiperf.NewRecords(), rep(apJSONL, `"value":120.0`, `"value":"120"`), "line 1", "value must be a number"},
		{"jsonl negative tokens", aiperf.NewRecords(), rep(apJSONL, `"value":3,`, `"value":-3,`), "line 1", "negative"},
		{"jsonl fractional tokens", aiperf.NewRecords(), rep(apJSONL, `"value":3,`, `"value":3.5,`), "line 1", "whole number of tokens"},
		{"jsonl no start", aiperf.NewRecords(), rep(apJSONL, `"request_start_ns":1767225600200000000,`, ``), "line 2", "no send time"},
		{"jsonl start in ms", aiperf.NewRecords(), rep(apJSONL, `"request_start_ns":1767225600100000000`, `"request_start_ns":1767225600100`), "line 1", "not an epoch time in nanoseconds"},
		{"jsonl ttft after end", aiperf.NewRecords(), rep(apJSONL, `"value":520.0`, `"value":100.0`), "line 1", "after the end"},
		{"jsonl ttft unit", aiperf.NewRecords(), rep(apJSONL, `"value":120.0,"unit":"ms"`, `"value":120.0,"unit":"tokens"`), "line 1", "not a unit of time"},
		{"jsonl error type", aiperf.NewRecords(), rep(apJSONL, `"error":null`, `"error":"boom"`), "line 1", "must be null or an object"},
		{"jsonl metrics type", aiperf.NewRecords(), rep(apJSONL, `"metrics":{"error_isl"`, `"metrics":[],"x":{"error_isl"`), "line 2", "\"metrics\" must be an object"},
		{"jsonl duplicate metric", aiperf.NewRecords(), rep(apJSONL, `"output_sequence_length":{"value":3,"unit":"tokens"}`, `"output_sequence_length":{"value":3,"unit":"tokens"},"output_sequence_length":{"value":3,"unit":"tokens"}`), "line 1", "appears twice"},
		{"jsonl warmup only", aiperf.NewRecords(), strings.ReplaceAll(apJSONL, `"profiling"`, `"warmup"`), "", "no profiling-phase requests"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ingesttest.Parse(tc.p, "bad.file", []byte(tc.data))
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an InputError, got %v", err)
			}
			if ie.File != "bad.file" || !strings.Contains(ie.Place, tc.place) || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got place %q reason %q; want place containing %q, reason containing %q", ie.Place, ie.Reason, tc.place, tc.reason)
			}
		})
	}
}

func TestAIPerfEmitErrorAndCancel(t *testing.T) {
	boom := errors.New("emit failed")
	for _, c := range []struct {
		p    format.Parser
		data string
	}{{aiperf.NewJSON(), apJSON}, {aiperf.NewCSV(), apCSV}, {aiperf.NewRecords(), apJSONL}} {
		err := c.p.Parse(context.Background(), "x", strings.NewReader(c.data), func(*benchrun.Run) error { return boom })
		if !errors.Is(err, boom) {
			t.Errorf("%s: emit's error must come back unchanged, got %v", c.p.ID(), err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err = c.p.Parse(ctx, "x", strings.NewReader(c.data), func(*benchrun.Run) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled parse gave %v", c.p.ID(), err)
		}
	}
}

// TestAIPerfIngestSamples ingests the sample folder into a new archive:
// the three files of the 2025-10 run become one run (records from the
// JSONL, stated figures from the summary), the v0.8 summary another.
func TestAIPerfIngestSamples(t *testing.T) {
	dir := testshared.Dir(t, filepath.Join("samples", "aiperf"))
	a, err := store.Open(filepath.Join(t.TempDir(), "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ingestFiles := func(paths ...string) []ingest.Outcome {
		var outs []ingest.Outcome
		if err := ingest.Batch(context.Background(), paths, ingest.Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o ingest.Outcome) { outs = append(outs, o) }); err != nil {
			t.Fatal(err)
		}
		return outs
	}
	// The full-precision summary first, so its figures are the run's.
	o := ingestFiles(filepath.Join(dir, apSampleJSON))
	if len(o) != 1 || o[0].Status != ingest.StatusNew || o[0].Format != "aiperf-json" {
		t.Fatalf("json: %+v", o)
	}
	id := o[0].RunID
	for _, f := range []string{apSampleJSONL, apSampleCSV} {
		o := ingestFiles(filepath.Join(dir, f))
		if len(o) != 1 || o[0].Status != ingest.StatusCompleted || o[0].Companion != apSampleKey {
			t.Fatalf("%s must complete run %s: %+v", f, id, o)
		}
		// The records name the run (benchrun.Rank): the JSONL renames it.
		if f == apSampleJSONL {
			id = o[0].RunID
		} else if o[0].RunID != id {
			t.Fatalf("%s must complete run %s: %+v", f, id, o)
		}
	}
	o = ingestFiles(dir) // the whole folder: the v0.8 summary is new, the rest known
	var news []ingest.Outcome
	for _, x := range o {
		if x.Status == ingest.StatusNew {
			news = append(news, x)
		}
		if x.Status == ingest.StatusRejected {
			t.Errorf("rejected: %+v", x)
		}
	}
	if len(news) != 1 || filepath.Base(news[0].File) != apSampleV08 || news[0].Format != "aiperf-json" {
		t.Fatalf("folder ingest: %+v", o)
	}
	runs, err := a.ListRuns(store.Filter{})
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs (%v), want 2", len(runs), err)
	}
	rec, err := a.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Run
	if r.Format != "aiperf-json" || !r.HasRequests || len(r.Requests) != 100 || r.Clock != benchrun.ClockEpoch || r.Completed != 89 || r.Failed != 11 {
		t.Fatalf("merged run: format %q records %d clock %q completed %d failed %d", r.Format, len(r.Requests), r.Clock, r.Completed, r.Failed)
	}
	apWant(t, r, map[string]float64{"output_throughput": 2320.7222350404572, "ttft.p99": 3833.3894000399996 / 1000, "duration": 9.317788951})
	if a := apCheck(t, r, r, false); len(a.Disagreements()) > 0 {
		t.Errorf("archived run disagrees with its own records: %+v", a.Disagreements())
	}
	files, err := a.RunFiles(id)
	if err != nil || len(files) != 2 {
		t.Errorf("companion files %+v %v", files, err)
	}
}

// FuzzAIPerfJSON, FuzzAIPerfCSV, FuzzAIPerfRecords: whatever the bytes,
// Sniff and Parse must not panic, Parse rejects with an *InputError only,
// and an emitted run is internally consistent.
func FuzzAIPerfJSON(f *testing.F) { apFuzz(f, aiperf.NewJSON(), "*.json", apJSON) }

func FuzzAIPerfCSV(f *testing.F) { apFuzz(f, aiperf.NewCSV(), "*.csv", apCSV) }

func FuzzAIPerfRecords(f *testing.F) { apFuzz(f, aiperf.NewRecords(), "*.jsonl", apJSONL) }

func apFuzz(f *testing.F, p format.Parser, glob, seed string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "aiperf", glob))
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "aiperf", glob))
		paths = append(paths, shared...)
	}
	for _, path := range paths {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{seed, ``, `{}`, `[]`, "\x00\xff", seed[:len(seed)/2]} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz", data[:min(len(data), format.HeadSize)])
		err := p.Parse(context.Background(), "fuzz", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Format != p.ID() || r.Facts == nil || r.Extra == nil || r.Ordinal != 0 {
				t.Fatalf("run %+v", r)
			}
			if r.HasRequests != (len(r.Requests) > 0) {
				t.Fatalf("HasRequests %v with %d requests", r.HasRequests, len(r.Requests))
			}
			for i, q := range r.Requests {
				if q.Index != i || q.InputTokens < -1 || q.OutputTokens < -1 || q.Gaps.Count < 0 || q.TTFT < 0 || q.Latency < 0 ||
					!benchrun.IsKnown(q.Start) || (i > 0 && q.Start < r.Requests[i-1].Start) {
					t.Fatalf("request %d: %+v", i, q)
				}
			}
			ingesttest.FuzzStated(t, r)
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz")
	})
}
