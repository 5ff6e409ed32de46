package vllmconsole_test

import (
	"testing"

	"github.com/benchledger/benchledger/ingest/format"

	"github.com/benchledger/benchledger/ingest/format/vllmconsole"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
)

// TestConsolePageMixedLayouts: a Markdown page pasting a vLLM log, an
// SGLang summary and GPUStack's rendering gives one run per block, each
// read by its layout, at its header's line, with the facts the log printed
// before the vLLM block.
func TestConsolePageMixedLayouts(t *testing.T) {
	t.Parallel()
	path := consoleFixture("mixed_page.md")
	runs := mustConsole(t, path)
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	want := []struct{ format, loc, tool string }{
		{"vllm-serve-console", "line 10", "vllm bench serve"},
		{"sglang-bench-serving-console", "line 32", "sglang bench_serving"},
		{"gpustack-console", "line 69", "gpustack/guidellm"},
	}
	for i, w := range want {
		r := runs[i]
		if r.Format != w.format || r.Location != w.loc || r.SourceTool != w.tool || r.Ordinal != i || r.HasRequests {
			t.Errorf("run %d: format %q at %q tool %q ordinal %d", i, r.Format, r.Location, r.SourceTool, r.Ordinal)
		}
	}
	v := runs[0]
	for field, val := range map[string]string{
		"checkpoint.model_id": "Qwen/Qwen3-8B", "workload.request_count": "200", "workload.request_rate": "inf",
		"workload.concurrency": "16", "workload.burstiness": "1.0", "workload.dataset": "random",
		"workload.input_len": "1024", "workload.output_len": "128", "workload.seed": "0", "measurement.backend": "vllm",
	} {
		if v.Facts[field] != val {
			t.Errorf("vLLM block: fact %s = %q, want %q", field, v.Facts[field], val)
		}
	}
	if _, ok := v.Facts["checkpoint.tokenizer"]; ok {
		t.Errorf("tokenizer=None recorded as %q", v.Facts["checkpoint.tokenizer"])
	}
	// The preamble belongs to the block after it only.
	s := runs[1]
	if _, ok := s.Facts["checkpoint.model_id"]; ok {
		t.Errorf("SGLang block took the vLLM block's model: %v", s.Facts)
	}
	if s.Facts["workload.concurrency"] != "16" || s.Facts["workload.request_rate"] != "inf" || s.Facts["measurement.backend"] != "sglang-oai" {
		t.Errorf("SGLang facts %v", s.Facts)
	}
	checkStated(t, s, map[string]float64{"e2el.mean": 1.406, "itl.max": 0.25, "itl.p95": 0.014, "tpot.p99": 0.012,
		"achieved_concurrency": 15.2, "input_throughput": 11070.27, "total_token_throughput": 12454.05, "completed": 200})
	if s.Failed != -1 || s.Extra["Total generated tokens (retokenized)"] != "25590" {
		t.Errorf("failed %d extra %v", s.Failed, s.Extra)
	}
	g := runs[2]
	checkStated(t, g, map[string]float64{"e2el.mean": 24.11, "ttft.median": 0.64601})
	if _, ok := g.StatedValue("e2el.p95"); ok {
		t.Error("N/A stated")
	}
	if g.Facts["workload.concurrency"] != "512" || g.Facts["measurement.client"] != "guidellm" {
		t.Errorf("GPUStack facts %v", g.Facts)
	}
}

// TestConsoleLayoutParsersAgree: whichever of the three ids a page is read
// with (detection, --format, the audit's re-parse), it gives the same runs.
func TestConsoleLayoutParsersAgree(t *testing.T) {
	t.Parallel()
	path := consoleFixture("mixed_page.md")
	data := ingesttest.Read(t, path)
	first := mustConsole(t, path)
	for _, id := range []string{"sglang-bench-serving-console", "gpustack-console"} {
		p, ok := registry.ByID(id)
		if !ok {
			t.Fatalf("%s not registered", id)
		}
		runs, err := ingesttest.Parse(p, path, data)
		if err != nil || len(runs) != len(first) {
			t.Fatalf("%s: %d runs, %v", id, len(runs), err)
		}
		for i := range runs {
			if runs[i].Format != first[i].Format || len(runs[i].Stated) != len(first[i].Stated) {
				t.Errorf("%s run %d differs", id, i)
			}
		}
	}
	if !vllmconsole.NewSGLang().Sniff("x.txt", ingesttest.Read(t, consoleFixture("sglang_short.txt"))) ||
		vllmconsole.NewSGLang().Sniff("x.txt", ingesttest.Read(t, consoleFixture("two_blocks.txt"))) ||
		!vllmconsole.NewGPUStack().Sniff("x.txt", ingesttest.Read(t, consoleFixture("gpustack_like.txt"))) {
		t.Error("a layout's Sniff does not tell its blocks")
	}
}

func TestConsoleSGLangShort(t *testing.T) {
	t.Parallel()
	r := mustConsole(t, consoleFixture("sglang_short.txt"))[0]
	if r.Format != "sglang-bench-serving-console" || r.Completed != 960 || r.Facts["workload.request_rate"] != "16" {
		t.Errorf("format %q completed %d facts %v", r.Format, r.Completed, r.Facts)
	}
	if _, ok := r.Facts["workload.concurrency"]; ok {
		t.Error(`"not set" recorded as a concurrency`)
	}
}

// FuzzConsolePage: whatever the bytes, the page walk and every layout's
// interpreter reject with an *InputError only and state no impossible
// figure.
func FuzzConsolePage(f *testing.F) {
	for _, name := range []string{"mixed_page.md", "two_blocks.txt", "sglang_short.txt", "gpustack_like.txt", "old_v08.txt"} {
		f.Add(ingesttest.Read(f, consoleFixture(name)))
	}
	f.Add([]byte("Namespace(model='a', x=[1, (2, 3)], y='it\\'s')\n==== Serving Benchmark Result ====\nSuccessful requests: 1\n=========="))
	p := vllmconsole.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.md", data[:min(len(data), format.HeadSize)])
		runs, err := parseConsoleBytes("fuzz.md", data)
		ingesttest.FuzzError(t, err, "fuzz.md")
		for _, r := range runs {
			ingesttest.FuzzStated(t, r)
		}
	})
}

// TestConsoleNamespaceLengths: random_range_ratio means a fixed length at
// 0.0 for vllm bench serve and at 1.0 for SGLang; the lengths are facts
// only then.
func TestConsoleNamespaceLengths(t *testing.T) {
	t.Parallel()
	sg := string(ingesttest.Read(t, consoleFixture("sglang_short.txt")))
	ns := func(ratio string) string {
		return "benchmark_args=Namespace(backend='sglang-oai', dataset_name='random', random_input_len=1024, random_output_len=128, random_range_ratio=" + ratio + ", num_prompts=960)\n"
	}
	for _, tc := range []struct {
		ratio, in string
	}{{"1.0", "1024"}, {"0.0", ""}} {
		runs, err := parseConsoleBytes("s.txt", []byte(ns(tc.ratio)+sg))
		if err != nil || len(runs) != 1 {
			t.Fatalf("ratio %s: %d runs, %v", tc.ratio, len(runs), err)
		}
		r := runs[0]
		if r.Facts["workload.input_len"] != tc.in || r.Facts["workload.request_count"] != "960" {
			t.Errorf("ratio %s: facts %v", tc.ratio, r.Facts)
		}
		if tc.in == "" && !ingesttest.HasNote(r, "input and output lengths not recorded as fixed") {
			t.Errorf("ratio %s: notes %q", tc.ratio, r.Notes)
		}
	}
}
