package vllmconsole_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format/vllmconsole"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
)

// TestCommandsAreFacts: the bare command lines a page or log prints above
// its blocks (a fenced code block, a "$ " prompt) are facts of the runs
// they precede, placed at their line; a contradiction with the block
// rejects the block; two commands of one kind before a block, or a heading
// between, give none.
func TestCommandsAreFacts(t *testing.T) {
	t.Parallel()
	block := func(lines ...string) string {
		return "============ Serving Benchmark Result ============\nSuccessful requests:                     10\n" +
			strings.Join(append(lines, "Benchmark duration (s):                  5.00"), "\n") + "\n==================================================\n"
	}
	sglangBlock := "============ Serving Benchmark Result ============\nBackend:                                 sglang\nTraffic request rate:                    inf\n" +
		"Successful requests:                     10\nBenchmark duration (s):                  5.00\n==================================================\n"
	tests := []struct {
		name  string
		page  string
		facts []map[string]string // per run: field → value ("" = none)
		place map[string]string   // FactPlaces of run 0
		rej   string              // the first run's rejection, "place: reason"
	}{
		{
			name: "a log with $ prompts",
			page: "$ vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 \\\n    --max-num-seqs 64\nINFO started\n" +
				"$ vllm bench serve --model Qwen/Qwen3-8B --dataset-name random --random-input-len 100 --random-output-len 10 --max-concurrency 4 --num-prompts 10\n" +
				block("Maximum request concurrency:             4"),
			facts: []map[string]string{{"runtime.engine": "vllm", "checkpoint.model_id": "Qwen/Qwen3-8B",
				"runtime.server_args": "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-num-seqs 64",
				"workload.dataset":    "random", "workload.concurrency": "4", "workload.request_count": "10",
				"workload.input_len": "100", "workload.output_len": "10"}},
			place: map[string]string{"runtime.engine": "line 1, the server command (vllm serve)", "workload.dataset": "line 4, the client command (vllm bench serve)"},
		},
		{
			name: "a server command holds until the next, a client command likewise",
			page: "```bash\npython3 -m sglang.launch_server --model-path m1\n```\n```bash\npython3 -m sglang.bench_serving --dataset-name sharegpt --num-prompts 10\n```\n" +
				"```\n" + sglangBlock + sglangBlock + "```\n```bash\ntrtllm-serve m2\n```\n```\n" + sglangBlock + "```\n",
			facts: []map[string]string{
				{"runtime.engine": "sglang", "checkpoint.model_id": "m1", "workload.dataset": "sharegpt"},
				{"runtime.engine": "sglang", "checkpoint.model_id": "m1", "workload.dataset": "sharegpt"},
				{"runtime.engine": "tensorrt-llm", "checkpoint.model_id": "m2", "workload.dataset": "sharegpt"},
			},
		},
		{
			name:  "the client's model name wins over the server's path",
			page:  "$ vllm serve /models/q8\n$ vllm bench serve --model Qwen/Qwen3-8B\n" + block(),
			facts: []map[string]string{{"checkpoint.model_id": "Qwen/Qwen3-8B", "runtime.engine": "vllm", "runtime.server_args": "vllm serve /models/q8"}},
		},
		{
			name:  "two client commands before a block say nothing of it",
			page:  "```bash\nvllm bench serve --dataset-name sharegpt --num-prompts 10\nvllm bench serve --dataset-name random --num-prompts 10\n```\n```\n" + block() + "```\n",
			facts: []map[string]string{{"workload.dataset": "", "workload.request_count": ""}},
		},
		{
			name:  "a heading ends what a command says",
			page:  "```bash\nvllm serve m\n```\n\n## Results\n\n```\n" + block() + "```\n",
			facts: []map[string]string{{"runtime.engine": "", "checkpoint.model_id": ""}},
		},
		{
			name:  "prose is not a command",
			page:  "vllm serve m --max-num-seqs 8\n" + block(),
			facts: []map[string]string{{"runtime.engine": ""}},
		},
		{
			name: "a command contradicting its block rejects the block",
			page: "$ vllm bench serve --max-concurrency 8\n" + block("Maximum request concurrency:             16"),
			rej:  `ordinal 0: line 1: the client command (vllm bench serve) is "8" here but the block at line 2 states workload.concurrency "16"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runs, err := ingesttest.Parse(vllmconsole.New(), "page.md", []byte(tc.page))
			if err != nil {
				t.Fatal(err)
			}
			if tc.rej != "" {
				if rej := ingesttest.Rejections(runs); len(rej) != 1 || !strings.HasPrefix(rej[0], tc.rej) {
					t.Errorf("rejections %q, want %q", rej, tc.rej)
				}
				return
			}
			if len(runs) != len(tc.facts) {
				t.Fatalf("%d runs, want %d: %q", len(runs), len(tc.facts), ingesttest.Rejections(runs))
			}
			for i, want := range tc.facts {
				ingesttest.WantFacts(t, runs[i], want)
			}
			for field, at := range tc.place {
				if got := runs[0].FactPlaces[field]; got != at {
					t.Errorf("%s stated at %q, want %q", field, got, at)
				}
			}
		})
	}
}

// TestCommandsOfPublishedPage: on the GPUStack page (cmd/benchledger's
// fixture, SOURCE.md there), each block's serving script is its engine,
// model and server arguments, a script holding for the blocks after it;
// the page's two benchmark commands, above a heading, give no block a
// dataset.
func TestCommandsOfPublishedPage(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "..", "cmd", "benchledger", "testdata", "mistakes-published", "qwen3-32b-h100.md")
	runs, err := ingesttest.Settled(vllmconsole.New(), path, ingesttest.Read(t, path))
	if err != nil || len(runs) != 13 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	want := map[int][2]string{ // ordinal → engine, server command
		0: {"vllm", "vllm serve Qwen/Qwen3-32B"}, 1: {"sglang", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B"},
		2: {"tensorrt-llm", "trtllm-serve Qwen/Qwen3-32B"}, 3: {"sglang", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B-FP8"},
		4: {"tensorrt-llm", "trtllm-serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960 --enable_chunked_prefill"},
		8: {"vllm", "vllm serve Qwen/Qwen3-32B"}, 12: {"tensorrt-llm", "trtllm-serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960 --enable_chunked_prefill"},
	}
	for i, r := range runs {
		if r.Facts["workload.dataset"] != "" || r.Facts["workload.request_count"] != "" {
			t.Errorf("run %d: the benchmark commands above the page's headings were read: %v", i, r.Facts)
		}
		w, ok := want[i]
		if !ok {
			continue
		}
		if r.Facts["runtime.engine"] != w[0] || r.Facts["runtime.server_args"] != w[1] {
			t.Errorf("run %d: engine %q, server args %q; want %q, %q", i, r.Facts["runtime.engine"], r.Facts["runtime.server_args"], w[0], w[1])
		}
	}
	if at := runs[3].FactPlaces["runtime.engine"]; at != "line 187, the server command (sglang.launch_server)" {
		t.Errorf("the fourth block's engine is stated at %q", at)
	}
}
