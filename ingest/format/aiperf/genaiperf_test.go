package aiperf_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
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

var gpDir = filepath.Join("testdata", "genai-perf")

func TestGenAIPerfIdentity(t *testing.T) {
	for _, c := range []struct {
		p        format.Parser
		id, desc string
	}{
		{aiperf.NewGenAIPerfJSON(), "genai-perf-json", "GenAI-Perf profile_export_genai_perf.json statistics"},
		{aiperf.NewGenAIPerfCSV(), "genai-perf-csv", "GenAI-Perf profile_export_genai_perf.csv statistics"},
		{aiperf.NewPerfAnalyzerJSON(), "perf-analyzer-json", "perf_analyzer profile_export.json per-request timestamps (GenAI-Perf)"},
	} {
		if c.p.ID() != c.id || c.p.Describe() != c.desc {
			t.Errorf("ID %q Describe %q", c.p.ID(), c.p.Describe())
		}
		if _, ok := registry.ByID(c.id); !ok {
			t.Errorf("%s is not registered", c.id)
		}
	}
}

// gpRecords parses the perf_analyzer fixture: two experiments.
func gpRecords(t *testing.T) []*benchrun.Run {
	t.Helper()
	runs, err := ingesttest.Parse(aiperf.NewPerfAnalyzerJSON(), "profile_export.json", ingesttest.Read(t, filepath.Join(gpDir, "profile_export.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per experiment (2)", len(runs))
	}
	return runs
}

func TestPerfAnalyzerFixture(t *testing.T) {
	runs := gpRecords(t)
	r := runs[0]
	if r.Format != "perf-analyzer-json" || r.FormatVariant != "experiments, service kind openai" || r.Clock != benchrun.ClockEpoch ||
		r.Location != "experiment 0 at byte 16 (line 1)" || r.Ordinal != 0 {
		t.Errorf("run 0: %q %q %q %q", r.Format, r.FormatVariant, r.Clock, r.Location)
	}
	if len(r.Requests) != 4 || r.Completed != 3 || r.Failed != 1 {
		t.Fatalf("requests %d completed %d failed %d", len(r.Requests), r.Completed, r.Failed)
	}
	// Request 0: the role chunk at +1.0 s and the empty final chunk and
	// [DONE] carry no text; text arrived at +1.2, +1.5, +1.9 s.
	q := r.Requests[0]
	if q.Start != 1767225600 || q.TTFT != 1.2 || q.Latency != 1.9 || q.Gaps.Count != 2 || math.Abs(q.Gaps.Sum-0.7) > 1e-12 ||
		q.Gaps.Max != 0.4 || q.InputTokens != -1 || q.OutputTokens != -1 || q.Failed() {
		t.Errorf("request 0: %+v", q)
	}
	if q := r.Requests[2]; q.TTFT != 1.1 || q.Latency != 1.1 || q.Gaps.Count != 0 {
		t.Errorf("request 2 (one text chunk): %+v", q)
	}
	if q := r.Requests[3]; !q.Failed() || !strings.Contains(q.Error, "no response with content") {
		t.Errorf("request 3 streamed no text: %+v", q)
	}
	want := map[string]string{"workload.concurrency": "2", "measurement.client": "perf_analyzer", "measurement.client_version": "2.45.0",
		"measurement.date": "2026-01-01T00:00:00Z", "measurement.clock": "epoch"}
	for k, v := range want {
		if r.Facts[k] != v {
			t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
		}
	}
	if r.Extra["endpoint"] != `"v1/chat/completions"` || r.Extra["window_boundaries"] != "[1767225600000000000,1767225603200000000]" {
		t.Errorf("extra %v", r.Extra)
	}
	if !ingesttest.HasNote(r, "token counts are unknown") || !ingesttest.HasNote(r, "1 requests had no response with content") {
		t.Errorf("notes %q", r.Notes)
	}
	r1 := runs[1]
	if r1.Ordinal != 1 || r1.Facts["workload.request_rate"] != "5" || len(r1.Requests) != 2 || r1.Completed != 2 ||
		r1.Requests[0].TTFT != 0.8 || r1.Requests[0].Latency != 0.8 {
		t.Errorf("experiment 1: %+v facts %v", r1.Requests, r1.Facts)
	}
}

func TestGenAIPerfFixtures(t *testing.T) {
	records := gpRecords(t)[0]
	jsonRun := apOne(t, aiperf.NewGenAIPerfJSON(), "profile_export_genai_perf.json", ingesttest.Read(t, filepath.Join(gpDir, "profile_export_genai_perf.json")))
	csvRun := apOne(t, aiperf.NewGenAIPerfCSV(), "profile_export_genai_perf.csv", ingesttest.Read(t, filepath.Join(gpDir, "profile_export_genai_perf.csv")))

	r := jsonRun
	if r.Format != "genai-perf-json" || r.SourceTool != "genai-perf" || r.Completed != -1 || r.Failed != -1 {
		t.Errorf("format %q tool %q completed %d failed %d (GenAI-Perf counts neither)", r.Format, r.SourceTool, r.Completed, r.Failed)
	}
	apWant(t, r, map[string]float64{
		"ttft.mean": 1.2, "ttft.p99": 1.298, "ttft.std": 81.64965809277261 / 1000, "e2el.median": 1.9, "e2el.p1": 1.116,
		"tpot.mean": 358.3333335 / 1000, "tpot.max": 0.366666667,
		"request_throughput": 4 / 3.1, "output_throughput": 8 / 3.1,
	})
	for _, m := range []string{"itl.mean", "completed", "failed", "duration"} {
		if _, ok := r.StatedValue(m); ok {
			t.Errorf("stated %s: GenAI-Perf has no such figure", m)
		}
	}
	want := map[string]string{"checkpoint.model_id": "Qwen/Qwen3-0.6B", "workload.concurrency": "2", "checkpoint.tokenizer": "Qwen/Qwen3-0.6B",
		"workload.input_len": "100", "workload.seed": "0", "measurement.backend": "chat", "measurement.client": "genai-perf"}
	for k, v := range want {
		if r.Facts[k] != v {
			t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
		}
	}
	if _, ok := r.Facts["workload.output_len"]; ok {
		t.Error("output_tokens_mean -1 means unset, not a length")
	}
	if !strings.HasPrefix(r.Extra["time_to_second_token"], `{"unit":"ms","avg":350.0`) || !strings.Contains(r.Extra["input_config"], `"num_prompts":4`) {
		t.Errorf("extra %v", r.Extra)
	}

	c := csvRun
	if c.FormatVariant != "two sections, p99 to p1" || c.Completed != -1 {
		t.Errorf("variant %q completed %d", c.FormatVariant, c.Completed)
	}
	apWant(t, c, map[string]float64{"ttft.mean": 1.2, "ttft.p1": 1.102, "e2el.max": 2.4, "e2el.p10": 1.26, "tpot.median": 0.35833, "request_throughput": 1.29, "output_throughput": 2.58})
	if c.Extra["Output Token Throughput Per User (tokens/sec/user)"] == "" || c.Extra["Request Goodput (per sec)"] != `{"avg":"N/A"}` {
		t.Errorf("rows of N/A belong in Extra: %v", c.Extra)
	}

	// Against perf_analyzer's records of the same experiment: latencies
	// agree; two figures cannot, and the check says which.
	for _, s := range []struct {
		run     *benchrun.Run
		rounded bool
	}{{jsonRun, false}, {csvRun, true}} {
		a := apCheck(t, s.run, records, s.rounded)
		var bad []string
		for _, d := range a.Disagreements() {
			bad = append(bad, d.Metric)
		}
		sort.Strings(bad)
		// request_throughput: GenAI-Perf divides every request sent (4)
		// by the duration of the 3 that streamed text. output_throughput:
		// the records have no token counts (a tokenizer's job).
		if !slices.Equal(bad, []string{"output_throughput", "request_throughput"}) {
			t.Errorf("%s: disagreements %v, want output_throughput and request_throughput", s.run.Format, a.Disagreements())
		}
		checked := 0
		for _, ch := range a.Checks {
			if strings.HasPrefix(ch.Metric, "ttft.") || strings.HasPrefix(ch.Metric, "e2el.") {
				checked++
			}
		}
		if checked < 24 {
			t.Errorf("%s: only %d latency figures checked", s.run.Format, checked)
		}
		if !slices.ContainsFunc(a.NotChecked, func(n figures.NotChecked) bool { return n.Metric == "tpot.mean" }) {
			t.Errorf("%s: tpot needs token counts and must be listed as not checked: %+v", s.run.Format, a.NotChecked)
		}
	}
}

func TestGenAIPerfDetect(t *testing.T) {
	for file, want := range map[string]string{
		"profile_export.json": "perf-analyzer-json", "profile_export_genai_perf.json": "genai-perf-json",
		"profile_export_genai_perf.csv": "genai-perf-csv",
	} {
		if got := apDetect(file, ingesttest.Read(t, filepath.Join(gpDir, file))); got != want {
			t.Errorf("%s detected as %q, want %q", file, got, want)
		}
	}
	ours := []format.Parser{aiperf.NewGenAIPerfJSON(), aiperf.NewGenAIPerfCSV(), aiperf.NewPerfAnalyzerJSON()}
	// AIPerf's files, which imitate GenAI-Perf's, are not GenAI-Perf's.
	aiperfFiles, _ := filepath.Glob(filepath.Join("testdata", "aiperf", "*"))
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "*", "*"))
		aiperfFiles = append(aiperfFiles, shared...)
	}
	for _, path := range aiperfFiles {
		data := ingesttest.Read(t, path)
		for _, p := range ours {
			if p.Sniff(filepath.Base(path), data[:min(len(data), format.HeadSize)]) {
				t.Errorf("%s sniffed as %s", path, p.ID())
			}
		}
	}
	for _, s := range []string{``, `{}`, `{"input_config": {}}`, `{"request_latency": {"avg": 1}, "input_config": {}}`,
		`{"experiments": {}}`, `{"experiments": [{"mode": 1}]}`, "Metric,avg,min,max,p1,p5\n"} {
		for _, p := range ours {
			if p.Sniff("x", []byte(s)) {
				t.Errorf("%s sniffed %q", p.ID(), s)
			}
		}
	}
	// A single-value table is told by its name.
	single := []byte("Metric,Value\nRequest Throughput (per sec),1.29\n")
	if !aiperf.NewGenAIPerfCSV().Sniff("run_genai_perf.csv", single) || aiperf.NewGenAIPerfCSV().Sniff("table.csv", single) {
		t.Error("single-value GenAI-Perf table detection by name")
	}
}

const gpJSON = `{"request_latency": {"unit": "ms", "avg": 1800.0, "p99": 2390.0, "min": 1100.0, "max": 2400.0, "std": 530.0},
 "request_throughput": {"unit": "requests/sec", "avg": 1.29},
 "input_config": {"model": ["m"]}}`

const gpCSV = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n" +
	"Request Latency (ms),\"1,800.00\",\"1,100.00\",\"2,400.00\",\"2,390.00\",\"2,350.00\",\"2,300.00\",\"2,150.00\",\"1,900.00\",\"1,500.00\"\n\n" +
	"Metric,Value\nRequest Throughput (per sec),1.29\n"

const gpPA = `{"experiments":[` +
	`{"experiment":{"mode":"concurrency","value":1},"requests":[{"timestamp":1767225600000000000,"request_inputs":{},"response_timestamps":[1767225600500000000],"response_outputs":[{"text_output":"x"}]}],"window_boundaries":[]},` +
	`{"experiment":{"mode":"concurrency","value":2},"requests":[{"timestamp":1767225601000000000,"request_inputs":{},"response_timestamps":[1767225601500000000],"response_outputs":[{"text_output":"x"}]}],"window_boundaries":[]}` +
	`],"version":"2.0","service_kind":"triton","endpoint":""}`

func TestGenAIPerfMinimal(t *testing.T) {
	j := apOne(t, aiperf.NewGenAIPerfJSON(), "x.json", []byte(gpJSON))
	c := apOne(t, aiperf.NewGenAIPerfCSV(), "x.csv", []byte(gpCSV))
	apWant(t, j, map[string]float64{"e2el.mean": 1.8, "e2el.p99": 2.39, "e2el.std": 0.53, "request_throughput": 1.29})
	apWant(t, c, map[string]float64{"e2el.mean": 1.8, "e2el.p99": 2.39, "e2el.p25": 1.5, "request_throughput": 1.29})
	if c.FormatVariant != "two sections, p99 to p25" {
		t.Errorf("variant %q", c.FormatVariant)
	}
	runs, err := ingesttest.Parse(aiperf.NewPerfAnalyzerJSON(), "x.json", []byte(gpPA))
	if err != nil || len(runs) != 2 || runs[1].Requests[0].Latency != 0.5 || runs[1].FormatVariant != "experiments, service kind triton" {
		t.Fatalf("%v %+v", err, runs)
	}
}

func TestGenAIPerfBadInput(t *testing.T) {
	rep := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			panic("test edit does not apply: " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
	tests := []struct {
		name   string
		p      format.Parser
		data   string
		place  string
		reason string
	}{
		{"json empty", aiperf.NewGenAIPerfJSON(), ``, "", "the file is empty"},
		{"json truncated", aiperf.NewGenAIPerfJSON(), gpJSON[:50], "line 1", "truncated"},
		{"json not object", aiperf.NewGenAIPerfJSON(), `"x"`, "byte 0 (line 1)", "not a GenAI-Perf result"},
		{"json NaN", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"avg": 1800.0`, `"avg": NaN`), "line 1", "NaN, not a measurement"},
		{"json -Infinity", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"std": 530.0`, `"std": -Infinity`), "line 1", "not a measurement"},
		{"json string stat", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"avg": 1.29`, `"avg": "1.29"`), "line 2", "must be a number"},
		{"json negative", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"avg": 1.29`, `"avg": -1.29`), "line 2", "negative"},
		{"json unit type", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"unit": "ms"`, `"unit": 3`), "line 1", "\"unit\" must be a string"},
		{"json unit of time", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"unit": "ms"`, `"unit": "tokens"`), "line 1", "not a unit of time"},
		{"json no blocks", aiperf.NewGenAIPerfJSON(), `{"input_config": {}}`, "byte 0 (line 1)", "no statistics blocks"},
		{"json zero requests", aiperf.NewGenAIPerfJSON(), rep(gpJSON, `"input_config"`, `"request_count": {"unit": "count", "avg": 0}, "input_config"`), "byte 0 (line 1)", "run has no requests"},
		{"csv empty", aiperf.NewGenAIPerfCSV(), ``, "", "the file is empty"},
		{"csv bad thousands", aiperf.NewGenAIPerfCSV(), rep(gpCSV, `"1,800.00"`, `"1,80.00"`), "line 2", `"1,80.00" is not a number`},
		{"csv unquoted thousands", aiperf.NewGenAIPerfCSV(), rep(gpCSV, `"1,800.00"`, `1,800.00`), "line 2", "must be quoted"},
		{"csv nan", aiperf.NewGenAIPerfCSV(), rep(gpCSV, "1.29", "nan"), "line 5", `"nan" is not a number`},
		{"csv negative", aiperf.NewGenAIPerfCSV(), rep(gpCSV, "1.29", "-1.29"), "line 5", "negative"},
		{"pa empty", aiperf.NewPerfAnalyzerJSON(), ``, "", "the file is empty"},
		{"pa not object", aiperf.NewPerfAnalyzerJSON(), `[]`, "byte 0 (line 1)", "not a perf_analyzer profile export"},
		{"pa no experiments", aiperf.NewPerfAnalyzerJSON(), `{"version": "1"}`, "", "no \"experiments\""},
		{"pa experiments not list", aiperf.NewPerfAnalyzerJSON(), `{"experiments": {}}`, "byte 16 (line 1)", "must be a list"},
		{"pa empty experiments", aiperf.NewPerfAnalyzerJSON(), `{"experiments": []}`, "", "\"experiments\" is empty"},
		{"pa truncated", aiperf.NewPerfAnalyzerJSON(), gpPA[:120], "line 1", "truncated"},
		{"pa second value", aiperf.NewPerfAnalyzerJSON(), gpPA + " {}", "line 1", "a second JSON value"},
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

// TestPerfAnalyzerOneBadExperiment: a bad experiment is a rejection at its
// place; the file's other experiments are runs.
func TestPerfAnalyzerOneBadExperiment(t *testing.T) {
	for _, c := range []struct {
		name, old, new, reason string
	}{
		{"timestamp in ms", `"timestamp":1767225601000000000`, `"timestamp":1767225601000`, "not an epoch time in nanoseconds"},
		{"negative value", `"value":2`, `"value":-2`, "non-negative number"},
		{"unknown mode", `"mode":"concurrency","value":2`, `"mode":"sweep","value":2`, "\"concurrency\" or \"request_rate\""},
		{"response before request", `"response_timestamps":[1767225601500000000]`, `"response_timestamps":[1767225600900000000]`, "not in order"},
		{"no requests", `"requests":[{"timestamp":1767225601000000000,"request_inputs":{},"response_timestamps":[1767225601500000000],"response_outputs":[{"text_output":"x"}]}]`, `"requests":[]`, "run has no requests"},
		{"outputs mismatch", `"response_outputs":[{"text_output":"x"}]}],"window_boundaries":[]}]`, `"response_outputs":[]}],"window_boundaries":[]}]`, "1 response timestamps but 0 response outputs"},
		{"request not object", `"requests":[{"timestamp":1767225601000000000,"request_inputs":{},"response_timestamps":[1767225601500000000],"response_outputs":[{"text_output":"x"}]}]`, `"requests":[7]`, "must be an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := strings.Replace(gpPA, c.old, c.new, 1)
			if data == gpPA {
				t.Fatal("edit does not apply")
			}
			runs, err := ingesttest.Parse(aiperf.NewPerfAnalyzerJSON(), "x.json", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 2 || runs[0].Rejection != "" || len(runs[0].Requests) != 1 {
				t.Fatalf("experiment 0 must still be a run: %+v", runs)
			}
			if runs[1].Ordinal != 1 || !strings.Contains(runs[1].Rejection, c.reason) || !strings.HasPrefix(runs[1].Location, "experiment 1 at byte ") {
				t.Errorf("experiment 1: rejection %q at %q", runs[1].Rejection, runs[1].Location)
			}
		})
	}
}

func TestPerfAnalyzerAllExperimentsBad(t *testing.T) {
	runs, err := ingesttest.Parse(aiperf.NewPerfAnalyzerJSON(), "x.json", []byte(strings.ReplaceAll(gpPA, `"timestamp":`, `"timestamp":-`)))
	if err != nil || len(runs) != 2 || runs[0].Rejection == "" || runs[1].Rejection == "" {
		t.Fatalf("every experiment rejected, each at its place (the batch then rejects the file): %v %+v", err, runs)
	}
}

func TestGenAIPerfEmitErrorAndCancel(t *testing.T) {
	boom := errors.New("emit failed")
	for _, c := range []struct {
		p    format.Parser
		data string
	}{{aiperf.NewGenAIPerfJSON(), gpJSON}, {aiperf.NewGenAIPerfCSV(), gpCSV}, {aiperf.NewPerfAnalyzerJSON(), gpPA}} {
		if err := c.p.Parse(context.Background(), "x", strings.NewReader(c.data), func(*benchrun.Run) error { return boom }); !errors.Is(err, boom) {
			t.Errorf("%s: emit's error must come back unchanged, got %v", c.p.ID(), err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := c.p.Parse(ctx, "x", strings.NewReader(c.data), func(*benchrun.Run) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled parse gave %v", c.p.ID(), err)
		}
	}
}

// TestGenAIPerfIngest ingests the fixture folder into a new archive: the
// perf_analyzer export gives one run per experiment; the README is skipped.
func TestGenAIPerfIngest(t *testing.T) {
	a, err := store.Open(filepath.Join(t.TempDir(), "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var outs []ingest.Outcome
	if err := ingest.Batch(context.Background(), []string{gpDir}, ingest.Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o ingest.Outcome) { outs = append(outs, o) }); err != nil {
		t.Fatal(err)
	}
	formats := map[string]int{}
	for _, o := range outs {
		switch o.Status {
		case ingest.StatusNew:
			formats[o.Format]++
		case ingest.StatusRejected:
			t.Errorf("rejected %+v", o)
		}
	}
	if formats["perf-analyzer-json"] != 2 || formats["genai-perf-json"] != 1 || formats["genai-perf-csv"] != 1 {
		t.Fatalf("outcomes %+v", outs)
	}
	for _, o := range outs {
		if o.Format != "genai-perf-json" {
			continue
		}
		rec, err := a.Run(o.RunID)
		if err != nil {
			t.Fatal(err)
		}
		apWant(t, rec.Run, map[string]float64{"ttft.p99": 1.298, "request_throughput": 4 / 3.1})
		if rec.Run.Facts["checkpoint.model_id"] != "Qwen/Qwen3-0.6B" {
			t.Errorf("facts %v", rec.Run.Facts)
		}
	}
}

// FuzzGenAIPerfJSON, FuzzGenAIPerfCSV: as FuzzAIPerfJSON.
func FuzzGenAIPerfJSON(f *testing.F) {
	gpFuzz(f, aiperf.NewGenAIPerfJSON(), "*genai_perf.json", gpJSON)
}

func FuzzGenAIPerfCSV(f *testing.F) { gpFuzz(f, aiperf.NewGenAIPerfCSV(), "*.csv", gpCSV) }

// FuzzPerfAnalyzerJSON: runs come in ordinal order; a rejected experiment
// carries only its place and reason.
func FuzzPerfAnalyzerJSON(f *testing.F) {
	gpFuzz(f, aiperf.NewPerfAnalyzerJSON(), "profile_export.json", gpPA)
}

func gpFuzz(f *testing.F, p format.Parser, glob, seed string) {
	paths, _ := filepath.Glob(filepath.Join(gpDir, glob))
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
		ordinal := 0
		err := p.Parse(context.Background(), "fuzz", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Ordinal != ordinal || r.Location == "" {
				t.Fatalf("run %d: ordinal %d location %q", ordinal, r.Ordinal, r.Location)
			}
			ordinal++
			if r.Rejection != "" {
				return nil
			}
			if r.Format != p.ID() || r.Facts == nil || r.Extra == nil || r.HasRequests != (len(r.Requests) > 0) {
				t.Fatalf("run %+v", r)
			}
			for i, q := range r.Requests {
				if q.Index != i || q.TTFT < 0 || q.Latency < 0 || q.Gaps.Count < 0 || !benchrun.IsKnown(q.Start) ||
					(!q.Failed() && (!benchrun.IsKnown(q.TTFT) || q.TTFT > q.Latency)) {
					t.Fatalf("request %d: %+v", i, q)
				}
			}
			ingesttest.FuzzStated(t, r)
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz")
	})
}
