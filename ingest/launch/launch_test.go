package launch

import (
	"maps"
	"reflect"
	"testing"
)

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line   string
		kind   Kind
		tool   string
		engine string
		model  string
		args   map[string]string
		text   string
	}{
		{"vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 --max-num-seqs=256 --enforce-eager", Server, "vllm serve", "vllm", "Qwen/Qwen3-32B",
			map[string]string{"tensor_parallel_size": "2", "max_num_seqs": "256", "enforce_eager": "True"}, ""},
		{"$ CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B-FP8 --tp 2", Server, "sglang.launch_server", "sglang", "Qwen/Qwen3-32B-FP8",
			map[string]string{"model_path": "Qwen/Qwen3-32B-FP8", "tp": "2"}, "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B-FP8 --tp 2"},
		{"trtllm-serve serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960", Server, "trtllm-serve", "tensorrt-llm", "Qwen/Qwen3-32B-FP8", map[string]string{"max_seq_len": "40960"}, ""},
		{"vllm serve /models/q --served-model-name qwen # the tuned one", Server, "vllm serve", "vllm", "qwen", map[string]string{"served_model_name": "qwen"}, "vllm serve /models/q --served-model-name qwen"},
		{"vllm bench serve --model Qwen/Qwen3-32B --dataset-name sharegpt --request-rate 4 --num-prompts 1000", Client, "vllm bench serve", "", "",
			map[string]string{"model": "Qwen/Qwen3-32B", "dataset_name": "sharegpt", "request_rate": "4", "num_prompts": "1000"}, ""},
		{"python3 benchmarks/benchmark_serving.py --backend vllm --request-rate inf", Client, "benchmark_serving.py", "", "", map[string]string{"backend": "vllm", "request_rate": "inf"}, ""},
		{`python -m sglang.bench_serving --backend sglang --dataset-name random --random-input 1024 --metadata '{"a": 1}'`, Client, "sglang.bench_serving", "", "",
			map[string]string{"backend": "sglang", "dataset_name": "random", "random_input": "1024", "metadata": `{"a": 1}`}, ""},
		{"guidellm benchmark --target http://localhost:8000 --rate-type concurrent --rate 16 --max-requests 500", Client, "guidellm benchmark", "", "",
			map[string]string{"target": "http://localhost:8000", "rate_type": "concurrent", "rate": "16", "max_requests": "500"}, ""},
	}
	for _, tc := range tests {
		c, ok := Read(tc.line)
		text := tc.text
		if text == "" {
			text = tc.line
		}
		if !ok || c.Kind != tc.kind || c.Tool != tc.tool || c.Engine != tc.engine || c.Model != tc.model || !maps.Equal(c.Args, tc.args) || c.Text != text {
			t.Errorf("Read(%q) = %+v, %v", tc.line, c, ok)
		}
	}
	for _, not := range []string{
		"", "# Benchmark on ShareGPT dataset", "We use vllm to serve the model.", "wget https://example.com/x.json",
		"echo vllm serve x", `vllm serve "unclosed`, "python3 train.py", "vllm --version",
	} {
		if c, ok := Read(not); ok {
			t.Errorf("Read(%q) = %+v, want no command", not, c)
		}
	}
}

func TestEngines(t *testing.T) {
	t.Parallel()
	for s, want := range map[string][]string{
		"vllm serve Qwen/Qwen3-32B":                         {"vllm"},
		"python3 -m sglang.launch_server --model-path m":    {"sglang"},
		"docker.io/vllm/vllm-openai:v0.11.0":                {"vllm"},
		"trtllm-serve m && python3 -m sglang.launch_server": {"sglang", "tensorrt-llm"},
		"--model /models/vllm-test":                         nil,
	} {
		if got := Engines(s); !reflect.DeepEqual(got, want) {
			t.Errorf("Engines(%q) = %v, want %v", s, got, want)
		}
	}
}
