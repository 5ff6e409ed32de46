// Package provenance describes where a run came from: the field schema, the
// campaign manifest (campaign.yaml) with defaults and per-run overrides,
// --set overrides, the check of file facts against the manifest, and what a
// run still lacks to be publishable.
package provenance

// Field is one provenance field. Names are dotted: "hardware.gpu_model".
type Field struct {
	Name     string
	Doc      string
	Required bool // needed before a run is publishable
}

// Fields is the schema. Manifests and --set may use only these names, plus
// the free-form prefixes "labels." and "metadata.".
var Fields = []Field{
	{"campaign", "campaign name; defaults to the manifest folder's name", false},
	{"synthetic", "true when the run was generated, not measured", false},
	{"role", "baseline, tuned, candidate, sweep-point, replica, repeat, reference or other", false},
	{"group", "runs measured together or as one configuration (a node run, a repeat set)", false},
	{"replica", "k/n: this run is replica k of n measured at the same time", false},
	{"repeat", "r: the r-th repeat of one configuration", false},
	{"sweep.parameter", "the swept load or server parameter, e.g. max_concurrency", false},
	{"sweep.value", "this run's value of the swept parameter", false},

	{"hardware.gpu_model", "GPU model, e.g. NVIDIA H100 80GB HBM3", true},
	{"hardware.gpu_count", "GPUs serving this run", true},
	{"hardware.gpu_memory_gb", "memory per GPU, GB", false},
	{"hardware.node", "host or node name", false},
	{"hardware.driver", "GPU driver / CUDA version", false},

	{"runtime.engine", "serving engine: vllm, sglang, tensorrt-llm, ...", true},
	{"runtime.version", "engine version", true},
	{"runtime.image", "container image reference", false},
	{"runtime.image_digest", "container image digest (sha256:...)", false},
	{"runtime.server_args", "server command line or arguments", false},

	{"checkpoint.repository", "checkpoint repository, e.g. Qwen/Qwen3-30B-A3B", true},
	{"checkpoint.revision", "checkpoint revision (commit hash)", true},
	{"checkpoint.precision", "weight precision / quantisation: bf16, fp8, nvfp4, ...", true},
	{"checkpoint.kv_cache_dtype", "KV-cache dtype", false},
	{"checkpoint.model_id", "model id the client used (may be a served name or local path)", false},
	{"checkpoint.tokenizer", "tokenizer the client used", false},

	{"workload.dataset", "dataset or prompt source", false},
	{"workload.input_len", "input length spec, e.g. 1000 or 63-66", true},
	{"workload.output_len", "output length spec, e.g. 256 (fixed) or 128-512", true},
	{"workload.request_count", "number of requests", true},
	{"workload.concurrency", "client max concurrency (one of concurrency / request_rate is required)", false},
	{"workload.request_rate", "offered request rate, req/s or inf", false},
	{"workload.burstiness", "arrival burstiness (1 = Poisson)", false},
	{"workload.temperature", "sampling temperature", false},
	{"workload.seed", "random seed", false},
	{"workload.thinking", "reasoning/thinking mode on or off", false},
	{"workload.fixed_output", "true when every request was asked for exactly output_len tokens", false},

	{"measurement.client", "client tool, e.g. vllm bench serve", true},
	{"measurement.client_version", "client tool version", false},
	{"measurement.client_host", "where the client ran", false},
	{"measurement.date", "date of the measurement (YYYY-MM-DD, or RFC 3339)", true},
	{"measurement.clock", "clock of per-request times: monotonic or epoch", false},
	{"measurement.label", "the client's run label", false},
	{"measurement.backend", "the client's request backend (vLLM --backend)", false},
	{"measurement.goodput", "the SLO the client's stated goodput used, as vLLM's --goodput takes it: ttft:2000 tpot:50 (ms)", false},
	{"measurement.notes", "free text", false},
}

// FreePrefixes are name prefixes any field may use without being in Fields.
var FreePrefixes = []string{"labels.", "metadata."}

// Lookup returns the field with this name.
func Lookup(name string) (Field, bool) {
	for _, f := range Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}
