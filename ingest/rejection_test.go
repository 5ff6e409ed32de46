package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// sweepObject is point n of a vllm bench sweep as serve.py writes it,
// indented by indent within its file (run=N.json at the top level,
// summary.json one level down in a list).
func sweepObject(n int, indent string) string {
	kv := [][2]string{
		{"date", `"20251002-101500"`}, {"endpoint_type", `"vllm"`}, {"backend", `"vllm"`}, {"label", "null"},
		{"model_id", `"Qwen/Qwen3-8B"`}, {"tokenizer_id", `"Qwen/Qwen3-8B"`}, {"num_prompts", "4"},
		{"request_rate", `"inf"`}, {"burstiness", "1.0"}, {"max_concurrency", fmt.Sprint(8 * (n + 1))},
		{"duration", "2.5"}, {"completed", "4"}, {"failed", "0"}, {"total_input_tokens", "400"},
		{"total_output_tokens", "40"}, {"request_throughput", "1.6"}, {"output_throughput", "16.0"},
		{"mean_e2el_ms", fmt.Sprintf("%.1f", 1050.0+float64(n))},
		{"latencies", fmt.Sprintf("[\n%[1]s        1.0,\n%[1]s        1.2,\n%[1]s        0.9,\n%[1]s        %.3f\n%[1]s    ]", indent, 1.1+0.004*float64(n))},
		{"run_number", fmt.Sprint(n)}, {"max_num_seqs", "64"},
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, e := range kv {
		fmt.Fprintf(&b, "%s    %q: %s", indent, e[0], e[1])
		if i < len(kv)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

// TestSweepFolderNoDuplicate: a bench sweep folder's summary.json holds the
// same runs as its run=N.json files; the folder ingests as one run per
// point, in any order, the summary attached to them.
func TestSweepFolderNoDuplicate(t *testing.T) {
	t.Parallel()
	for _, summaryFirst := range []bool{false, true} {
		dir := t.TempDir()
		write := func(name, body string) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		r0 := write("run=0.json", sweepObject(0, "")+"\n")
		r1 := write("run=1.json", sweepObject(1, "")+"\n")
		sum := write("summary.json", "[\n    "+sweepObject(0, "    ")+",\n    "+sweepObject(1, "    ")+"\n]\n")
		a := openTestArchive(t)
		order := []string{r0, r1, sum}
		if summaryFirst {
			order = []string{sum, r1, r0}
		}
		var outs []Outcome
		for _, p := range order {
			outs = append(outs, ingestPaths(t, a, p)...)
		}
		runs, err := a.ListRuns(store.Filter{})
		if err != nil || len(runs) != 2 {
			t.Fatalf("summary first %v: %d runs (%v), want one per point: %+v", summaryFirst, len(runs), err, outs)
		}
		dups := 0
		for _, o := range outs {
			if o.Status == StatusDuplicate {
				dups++
				if !strings.Contains(o.Note, "the same run as") {
					t.Errorf("duplicate without saying of which file: %+v", o)
				}
			}
		}
		if dups != 2 {
			t.Errorf("summary first %v: %d outcomes name an existing run, want 2: %+v", summaryFirst, dups, outs)
		}
	}
}

// TestOneContradictingRunOfSeven: in a 7-run SGLang JSONL whose manifest's
// workload.dataset contradicts line 2, the 6 good runs are archived and the
// bad one is rejected at its place (before, the whole file was).
func TestOneContradictingRunOfSeven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 7; i++ {
		dataset := "random"
		if i == 2 {
			dataset = "sharegpt"
		}
		lines = append(lines, fmt.Sprintf(`{"backend": "sglang", "dataset_name": %q, "request_rate": %d.0, "max_concurrency": null, "total_input_tokens": 152612, "total_output_tokens": 160347, "mean_e2e_latency_ms": %d.5, "median_e2e_latency_ms": 7819.0, "median_ttft_ms": 85.7, "median_itl_ms": 13.6, "output_throughput": %d.25, "random_input_len": 1024, "random_output_len": 1024, "duration": 298.4, "completed": 300}`,
			dataset, i, 7800+i, 530+i))
	}
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte("campaign: c\ndefaults:\n  workload:\n    dataset: random\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sweep.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := openTestArchive(t)
	outs := ingestPaths(t, a, p)
	var news int
	var rejected []Outcome
	for _, o := range outs {
		switch o.Status {
		case StatusNew:
			news++
		case StatusRejected:
			rejected = append(rejected, o)
		}
	}
	if news != 6 || len(rejected) != 1 {
		t.Fatalf("%d archived, %d rejected, want 6 and 1: %+v", news, len(rejected), outs)
	}
	if r := rejected[0]; !strings.Contains(r.Place, "line 2") || !strings.Contains(r.Reason, "workload.dataset") {
		t.Errorf("rejection must name line 2 and the field: %+v", r)
	}
	if runs, _ := a.ListRuns(store.Filter{}); len(runs) != 6 {
		t.Errorf("%d runs archived, want 6", len(runs))
	}
}

// TestDeclaredAgainstMeasured: a declared input length the records do not
// bear out is an ingest warning and an audit finding; one they do is
// neither.
func TestDeclaredAgainstMeasured(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := openTestArchive(t)
	ingestWith := func(name string, set ...provenance.Entry) Outcome {
		p := filepath.Join(dir, name)
		// Ten records of 10 input and 20 output tokens, sent 1 s apart,
		// 1 s each (the test format's records; the name keeps contents apart).
		if err := os.WriteFile(p, []byte("model=m/"+name+"\nrequests=10\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var outs []Outcome
		if err := Batch(context.Background(), []string{p}, Options{Archive: a, Set: set}, func(o Outcome) { outs = append(outs, o) }); err != nil {
			t.Fatal(err)
		}
		if len(outs) != 1 || outs[0].Status != StatusNew {
			t.Fatalf("%+v", outs)
		}
		return outs[0]
	}
	cli := func(f, v string) provenance.Entry {
		return provenance.Entry{Field: f, Value: v, Source: provenance.FromCLI}
	}
	bad := ingestWith("bad.bltest", cli("workload.input_len", "8"), cli("workload.request_count", "12"), cli("workload.output_len", "20"))
	for _, want := range []string{"workload.input_len is declared as 8 but the 10 completed requests average 10.00 input tokens", "workload.request_count is declared as 12"} {
		if !strings.Contains(bad.Note, want) {
			t.Errorf("ingest warning %q lacks %q", bad.Note, want)
		}
	}
	if strings.Contains(bad.Note, "output_len") {
		t.Errorf("outputs of the declared length are no mismatch: %q", bad.Note)
	}
	good := ingestWith("good.bltest", cli("workload.input_len", "9-11"), cli("workload.request_count", "10"))
	if good.Note != "" {
		t.Errorf("declared values the records bear out: warning %q", good.Note)
	}
	rec, err := a.Run(bad.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range audit.Stored(rec, nil) {
		if f.Check == audit.CheckDeclaredMeasured {
			found = append(found, f.Params["field"])
		}
	}
	if strings.Join(found, ",") != "workload.input_len,workload.request_count" {
		t.Errorf("audit findings for fields %v, want input_len and request_count", found)
	}
}

// TestManifestSelectsRunsByContent: one runs: item per point of a 7-run
// SGLang sweep file, selected by the request rate the file states instead
// of seven ordinal: entries; a sweep parameter (any key of the result)
// selects too.
func TestManifestSelectsRunsByContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 7; i++ {
		lines = append(lines, fmt.Sprintf(`{"backend": "sglang", "dataset_name": "random", "request_rate": %d.0, "max_concurrency": %d, "total_input_tokens": 1000, "total_output_tokens": 2000, "output_throughput": %d.5, "duration": 10.0, "completed": 10, "random_input_len": 100}`,
			i, 16*i, 100+i))
	}
	manifest := "campaign: c\nruns:\n" +
		"  - files: sweep.jsonl\n    match: {request_rate: 4}\n    role: sweep-point\n    labels.point: knee\n" +
		"  - files: sweep.jsonl\n    match: {max_concurrency: 112, dataset: random}\n    role: sweep-point\n    labels.point: last\n" +
		"  - files: sweep.jsonl\n    match: {random_input_len: 100}\n    labels.swept: request_rate\n"
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sweep.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := openTestArchive(t)
	roles := map[int]string{}
	swept := 0
	for _, o := range ingestPaths(t, a, p) {
		if o.Status != StatusNew {
			t.Fatalf("%+v", o)
		}
		rec, err := a.RunMeta(o.RunID)
		if err != nil {
			t.Fatal(err)
		}
		eff := rec.Provenance.Effective()
		roles[o.Ordinal] = eff["labels.point"]
		if eff["labels.swept"] == "request_rate" {
			swept++
		}
	}
	if roles[3] != "knee" || roles[6] != "last" || roles[0] != "" || len(roles) != 7 || swept != 7 {
		t.Errorf("roles by ordinal %v, %d runs labelled by the sweep key; want knee at 3 (rate 4), last at 6 (concurrency 112), 7 labelled", roles, swept)
	}
}
