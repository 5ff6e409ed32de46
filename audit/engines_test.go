package audit

import "testing"

func TestRunEngineFindings(t *testing.T) {
	for _, c := range []struct {
		name  string
		eff   map[string]string
		field string // the field a failure names; "" for none
	}{
		{"vllm command", map[string]string{"runtime.engine": "vllm", "runtime.server_args": "vllm serve Qwen/Qwen3-8B --max-num-seqs 256"}, ""},
		{"sglang command on a vllm run", map[string]string{"runtime.engine": "vllm", "runtime.server_args": "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B"}, "runtime.server_args"},
		{"args only", map[string]string{"runtime.engine": "sglang", "runtime.server_args": "--max-running-requests 512 --served-model-name vllm-compare"}, ""},
		{"trtllm spelled differently", map[string]string{"runtime.engine": "TensorRT-LLM", "runtime.server_args": "trtllm-serve nvidia/Qwen3-30B-A3B-FP4 --backend pytorch"}, ""},
		{"image of another engine", map[string]string{"runtime.engine": "vllm", "runtime.image": "lmsysorg/sglang:v0.4.6"}, "runtime.image"},
		{"image tag matches", map[string]string{"runtime.engine": "vllm", "runtime.version": "0.11.0+cu128", "runtime.image": "vllm/vllm-openai:v0.11.0"}, ""},
		{"image tag differs", map[string]string{"runtime.engine": "vllm", "runtime.version": "0.11.0", "runtime.image": "vllm/vllm-openai:v0.10.1"}, "runtime.image"},
		{"latest tag", map[string]string{"runtime.engine": "vllm", "runtime.version": "0.11.0", "runtime.image": "vllm/vllm-openai:latest"}, ""},
		{"registry port", map[string]string{"runtime.engine": "vllm", "runtime.version": "0.11.0", "runtime.image": "registry:5000/vllm/vllm-openai"}, ""},
		{"no engine", map[string]string{"runtime.server_args": "python3 -m sglang.launch_server"}, ""},
		{"openai backend", map[string]string{"runtime.engine": "sglang", "measurement.backend": "openai-chat"}, ""},
		{"sglang backend on a vllm run", map[string]string{"runtime.engine": "vllm", "measurement.backend": "sglang"}, "measurement.backend"},
	} {
		fs := runEngineFindings(c.eff)
		sayable(t, fs)
		switch {
		case c.field == "" && len(fs) != 0:
			t.Errorf("%s: want no finding, got %+v", c.name, fs)
		case c.field != "" && (len(fs) != 1 || fs[0].Params["field"] != c.field || fs[0].Check != CheckEngine):
			t.Errorf("%s: want one %s finding on %s, got %+v", c.name, CheckEngine, c.field, fs)
		case c.field == "measurement.backend" && fs[0].Severity != Warn, c.field != "" && c.field != "measurement.backend" && fs[0].Severity != Fail:
			t.Errorf("%s: severity %s", c.name, fs[0].Severity)
		}
	}
}

func TestSameVersion(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0.11.0", "0.11.0", true}, {"v0.11.0", "0.11.0", true}, {"0.11.0", "0.11.0+cu128", true},
		{"0.11", "0.11.1", false}, {"0.10.1", "0.11.0", false}, {"1.3.0rc24", "1.3.0", false}, {"", "1.0", false},
	} {
		if got := sameVersion(c.a, c.b); got != c.want {
			t.Errorf("sameVersion(%q, %q) = %v", c.a, c.b, got)
		}
	}
	for img, want := range map[string]string{"vllm/vllm-openai:v0.10.1": "0.10.1", "nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc2": "1.1.0rc2",
		"x:latest": "", "x@sha256:abc": "", "host:5000/x": "", "x:12": ""} {
		if got := imageVersion(img); got != want {
			t.Errorf("imageVersion(%q) = %q, want %q", img, got, want)
		}
	}
}
