package provenance

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParseSet(t *testing.T) {
	tests := []struct {
		in      string
		field   string
		value   string
		wantErr string // substring; "" = no error
	}{
		{"hardware.gpu_count=8", "hardware.gpu_count", "8", ""},
		{" hardware.gpu_model = NVIDIA H100 80GB HBM3 ", "hardware.gpu_model", "NVIDIA H100 80GB HBM3", ""},
		{"runtime.server_args=--max-num-seqs=256 --tp 2", "runtime.server_args", "--max-num-seqs=256 --tp 2", ""}, // split at the first =
		{"synthetic=TRUE", "synthetic", "true", ""},
		{"role=Baseline", "role", "baseline", ""},
		{"replica=3/8", "replica", "3/8", ""},
		{"workload.request_rate=Infinity", "workload.request_rate", "inf", ""},
		{"workload.request_rate=2.5", "workload.request_rate", "2.5", ""},
		{"measurement.date=2026-09-05T10:00:00+09:00", "measurement.date", "2026-09-05T10:00:00+09:00", ""},
		{"labels.customer=acme", "labels.customer", "acme", ""},
		{"metadata.prefill_replicas=0", "metadata.prefill_replicas", "0", ""},
		{"campaign=other", "campaign", "other", ""},
		{"hardware.gpu_count", "", "", "want key=value"},
		{"=8", "", "", "no field name"},
		{"hardware.gpu_count=", "", "", "empty value"},
		{"hardware.gpu_count=  ", "", "", "empty value"},
		{"hardware.gpu_cnt=8", "", "", `did you mean "hardware.gpu_count"`},
		{"gpu_model=H100", "", "", `did you mean "hardware.gpu_model"`},
		{"labels.=x", "", "", "bad field name"},
		{"hardware.gpu_count=two", "", "", "positive whole number"},
		{"workload.request_count=-5", "", "", "positive whole number"},
		{"workload.request_rate=0", "", "", "positive number"},
		{"workload.request_rate=nan", "", "", "positive number"},
		{"replica=0/8", "", "", "1 ≤ k ≤ n"},
		{"replica=2", "", "", "k/n"},
		{"measurement.date=2026-13-01", "", "", "YYYY-MM-DD"},
		{"measurement.clock=perf_counter", "", "", "monotonic or epoch"},
		{"workload.thinking=on", "", "", "true or false"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			e, err := ParseSet(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e != (Entry{Field: tc.field, Value: tc.value, Source: FromCLI}) {
				t.Errorf("got %+v", e)
			}
			if err := Validate(e); err != nil {
				t.Errorf("Validate(%+v) = %v", e, err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := []Entry{
		{Field: "workload.fixed_output", Value: "false"},
		{Field: "runtime.image_digest", Value: "sha256:" + strings.Repeat("ab", 32)},
		{Field: "workload.temperature", Value: "0"},
		{Field: "workload.seed", Value: "-1"},
		{Field: "workload.input_len", Value: "63-66"},
		{Field: "labels.x.y", Value: "z"},
	}
	for _, e := range ok {
		if err := Validate(e); err != nil {
			t.Errorf("Validate(%+v) = %v", e, err)
		}
	}
	bad := []Entry{
		{Field: "nope", Value: "x"},
		{Field: "hardware.gpu_count", Value: "1.5"},
		{Field: "workload.temperature", Value: "-0.1"},
		{Field: "hardware.gpu_memory_gb", Value: "0x50"},
		{Field: "workload.seed", Value: "1e3"},
		{Field: "runtime.engine", Value: ""},
	}
	for _, e := range bad {
		if err := Validate(e); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", e)
		}
	}
}

func complete() map[string]string {
	eff := map[string]string{"workload.concurrency": "64"}
	for _, f := range Fields {
		if f.Required {
			eff[f.Name] = "x"
		}
	}
	return eff
}

func TestMissing(t *testing.T) {
	if got := Missing(complete()); len(got) != 0 {
		t.Errorf("complete record misses %v", got)
	}

	eff := complete()
	delete(eff, "workload.concurrency")
	if got := Missing(eff); !slices.Equal(got, []string{RateOrConcurrency}) {
		t.Errorf("without load: %v", got)
	}
	eff["workload.request_rate"] = "inf"
	if got := Missing(eff); len(got) != 0 {
		t.Errorf("a rate is enough: %v", got)
	}

	eff = complete()
	delete(eff, "runtime.version")
	eff["checkpoint.revision"] = "  " // blank counts as absent
	if got := Missing(eff); !slices.Equal(got, []string{"checkpoint.revision", "runtime.version"}) {
		t.Errorf("got %v", got)
	}

	// The list is made once, whatever its length.
	if n := testing.AllocsPerRun(10, func() { Missing(nil) }); n != 1 {
		t.Errorf("Missing(nil): %v allocations, want 1", n)
	}
	if n := testing.AllocsPerRun(10, func() { Missing(complete()) }); n > testing.AllocsPerRun(10, func() { complete() }) {
		t.Errorf("a complete record's Missing allocates %v", n)
	}

	got := Missing(nil)
	if !slices.IsSorted(got) {
		t.Errorf("not sorted: %v", got)
	}
	var want []string
	for _, f := range Fields {
		if f.Required {
			want = append(want, f.Name)
		}
	}
	want = append(want, RateOrConcurrency)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Missing(nil) = %v\nwant %v", got, want)
	}
}

func TestEffectivePrecedence(t *testing.T) {
	m := loadGood(t)
	rec := Record{
		{Field: "checkpoint.model_id", Value: "/models/Qwen3-30B-A3B-FP4", Source: FromFile},
		{Field: "workload.concurrency", Value: "512", Source: FromFile},
		{Field: "measurement.client", Value: "vllm bench serve", Source: FromFile},
	}
	// A --set given before the manifest entries still wins: precedence is
	// by source, not by order.
	set, err := ParseSet("hardware.gpu_count=2")
	if err != nil {
		t.Fatal(err)
	}
	rec = append(rec, set)
	rec = append(rec, m.For("baseline-2.json", 0)...)
	rec = append(rec, Entry{Field: "workload.concurrency", Value: "100", Source: FromFile})

	eff := rec.Effective()
	want := map[string]string{
		"hardware.gpu_count":   "2",                         // cli over manifest
		"workload.concurrency": "256",                       // manifest override over default and over file
		"checkpoint.model_id":  "/models/Qwen3-30B-A3B-FP4", // only the file states it
		"role":                 "baseline",
	}
	for k, v := range want {
		if eff[k] != v {
			t.Errorf("%s = %q, want %q", k, eff[k], v)
		}
	}
	// Every statement is kept.
	n := 0
	for _, e := range rec {
		if e.Field == "workload.concurrency" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d concurrency entries kept, want 4", n)
	}
}

func TestContradictions(t *testing.T) {
	f := func(field, v string) Entry { return Entry{Field: field, Value: v, Source: FromFile} }
	mf := func(field, v string) Entry { return Entry{Field: field, Value: v, Source: FromManifest} }
	cli := func(field, v string) Entry { return Entry{Field: field, Value: v, Source: FromCLI} }
	tests := []struct {
		name string
		rec  Record
		want []string // "field|file|declared|source"
	}{
		{"agree", Record{f("workload.concurrency", "64"), mf("workload.concurrency", "64")}, nil},
		{"numeric spelling", Record{f("workload.concurrency", "64.0"), mf("workload.concurrency", "64")}, nil},
		{"rounded console rate", Record{f("workload.request_rate", "0.33"), mf("workload.request_rate", "0.333333")}, nil},
		{"rate inf vs Infinity", Record{f("workload.request_rate", "Infinity"), mf("workload.request_rate", "inf")}, nil},
		{"rate differs", Record{f("workload.request_rate", "inf"), mf("workload.request_rate", "4")},
			[]string{"workload.request_rate|inf|4|manifest"}},
		{"concurrency differs", Record{f("workload.concurrency", "64"), mf("workload.concurrency", "65")},
			[]string{"workload.concurrency|64|65|manifest"}},
		{"integers are exact", Record{f("workload.request_count", "1000"), mf("workload.request_count", "1001")},
			[]string{"workload.request_count|1000|1001|manifest"}},
		{"date next day", Record{f("measurement.date", "20260906-004512"), mf("measurement.date", "2026-09-05")}, nil},
		{"date previous day", Record{f("measurement.date", "2026-09-04T23:59:00"), mf("measurement.date", "2026-09-05")}, nil},
		{"date rfc3339 declared", Record{f("measurement.date", "20260905-101500"), cli("measurement.date", "2026-09-05T10:15:00+09:00")}, nil},
		{"date two days off", Record{f("measurement.date", "20260907-120000"), mf("measurement.date", "2026-09-05")},
			[]string{"measurement.date|20260907-120000|2026-09-05|manifest"}},
		{"client case", Record{f("measurement.client", "vLLM bench serve"), mf("measurement.client", "vllm bench serve")}, nil},
		{"client differs", Record{f("measurement.client", "guidellm"), mf("measurement.client", "vllm bench serve")},
			[]string{"measurement.client|guidellm|vllm bench serve|manifest"}},
		{"bool spelling", Record{f("workload.thinking", "False"), mf("workload.thinking", "false")}, nil},
		{"strings exact", Record{f("measurement.backend", "openai-chat"), mf("measurement.backend", "openai")},
			[]string{"measurement.backend|openai-chat|openai|manifest"}},
		{"version is not a number", Record{f("metadata.version", "0.10"), mf("metadata.version", "0.1")},
			[]string{"metadata.version|0.10|0.1|manifest"}},
		{"nothing declared", Record{f("workload.concurrency", "64")}, nil},
		{"cli corrects a stale manifest", Record{f("workload.concurrency", "64"), mf("workload.concurrency", "32"), cli("workload.concurrency", "64")}, nil},
		{"cli contradicts", Record{f("workload.concurrency", "64"), cli("workload.concurrency", "32"), mf("workload.concurrency", "64")},
			[]string{"workload.concurrency|64|32|cli"}},
		{"later manifest override is the one checked", Record{f("workload.concurrency", "64"), mf("workload.concurrency", "32"), mf("workload.concurrency", "64")}, nil},

		{"model path matches repository", Record{f("checkpoint.model_id", "/models/Qwen3-30B-A3B-FP4"), mf("checkpoint.repository", "nvidia/Qwen3-30B-A3B-FP4")}, nil},
		{"model id equals repository (case)", Record{f("checkpoint.model_id", "qwen/qwen3-8b"), mf("checkpoint.repository", "Qwen/Qwen3-8B")}, nil},
		{"hf cache path", Record{f("checkpoint.model_id", "/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/b968826d9c46dd6066d109eabc6255188de91218"), mf("checkpoint.repository", "Qwen/Qwen3-8B")}, nil},
		{"windows path", Record{f("checkpoint.model_id", `D:\models\Qwen3-8B\`), mf("checkpoint.repository", "Qwen/Qwen3-8B")}, nil},
		{"other model", Record{f("checkpoint.model_id", "meta-llama/Llama-3.1-8B-Instruct"), mf("checkpoint.repository", "Qwen/Qwen3-8B")},
			[]string{"checkpoint.model_id|meta-llama/Llama-3.1-8B-Instruct|Qwen/Qwen3-8B|manifest"}},
		{"served name", Record{f("checkpoint.model_id", "nemotron-3-super"), mf("checkpoint.repository", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4")},
			[]string{"checkpoint.model_id|nemotron-3-super|nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4|manifest"}},
		{"served name vouched for by a declared model id", Record{f("checkpoint.model_id", "nemotron-3-super"),
			mf("checkpoint.repository", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"), mf("checkpoint.model_id", "nemotron-3-super")}, nil},
		{"declared model id differs", Record{f("checkpoint.model_id", "/models/Qwen3-8B"), cli("checkpoint.model_id", "Qwen/Qwen3-8B"), mf("checkpoint.repository", "Qwen/Qwen3-8B")},
			[]string{"checkpoint.model_id|/models/Qwen3-8B|Qwen/Qwen3-8B|cli"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range Contradictions(tc.rec) {
				got = append(got, c.Field+"|"+c.FileValue+"|"+c.DeclaredValue+"|"+string(c.Source))
				if c.Reason == "" {
					t.Errorf("%s: empty Reason", c.Field)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The user documentation must describe every field of the schema.
func TestDocsMentionEveryField(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "provenance.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Fields {
		if !strings.Contains(string(doc), "`"+f.Name+"`") {
			t.Errorf("docs/provenance.md does not mention `%s`", f.Name)
		}
	}
	for _, r := range Roles {
		if !strings.Contains(string(doc), "`"+r+"`") {
			t.Errorf("docs/provenance.md does not mention the role `%s`", r)
		}
	}
}

// The annotated example in the documentation must load.
func TestDocsExampleLoads(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "provenance.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("no ```yaml block in docs/provenance.md")
	}
	dir := filepath.Join(t.TempDir(), "qwen3-batch")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ManifestName)
	if err := os.WriteFile(p, blocks[0][1], 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(p)
	if err != nil {
		t.Fatalf("the documented example does not load: %v", err)
	}
	if len(m.Runs) == 0 || len(m.Defaults) == 0 {
		t.Errorf("example has %d defaults and %d runs", len(m.Defaults), len(m.Runs))
	}
}
