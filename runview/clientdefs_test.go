package runview

import (
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// TestClientDefinition: a run page's definitions name the client that wrote
// the run and never use vLLM's wording on a run vLLM's client did not
// write; a client's own definitions follow the project's, under its name.
func TestClientDefinition(t *testing.T) {
	for _, tc := range []struct {
		run          benchrun.Run
		metric       string
		want, absent []string
	}{
		{benchrun.Run{Format: "vllm-serve-json", SourceTool: "vllm bench serve"}, "duration", []string{"vLLM starts it"}, nil},
		{benchrun.Run{Format: "guidellm-report", SourceTool: "guidellm"}, "duration", []string{"guidellm's own timed span", "measure_end_time"}, []string{"vLLM"}},
		{benchrun.Run{Format: "benchledger-trace", SourceTool: "openai-batch-client"}, "duration", []string{"openai-batch-client's own timed span"}, []string{"vLLM"}},
		{benchrun.Run{Format: "aiperf-records"}, "duration", []string{"aiperf-records's own"}, []string{"vLLM"}},
		{benchrun.Run{Format: "guidellm-report", SourceTool: "guidellm"}, "e2el.p90", []string{"p90 of last streamed", "guidellm's end-to-end latency: request start", "; guidellm's Percentiles.from_pdf"}, []string{"guidellm's percentile: guidellm's"}},
		{benchrun.Run{Format: "guidellm-report", SourceTool: "guidellm"}, "ttft.mean", []string{"mean of first streamed"}, []string{"guidellm"}},
		{benchrun.Run{Format: "sglang-bench-serving", SourceTool: "sglang bench_serving"}, "e2el.median", []string{"SGLang bench_serving's end-to-end latency: request start to the last chunk"}, []string{"percentile:"}},
		{benchrun.Run{Format: "sglang-bench-serving", SourceTool: "sglang bench_serving", Facts: map[string]string{"measurement.backend": "trt"}}, "e2el.median", nil, []string{"SGLang"}},
	} {
		got := ClientDefinition(&tc.run, tc.metric)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: %q lacks %q", tc.run.Format, tc.metric, got, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s %s: %q says %q", tc.run.Format, tc.metric, got, a)
			}
		}
	}
	if got := Client(&benchrun.Run{Format: "sglang-bench-serving"}); got != "SGLang bench_serving" {
		t.Errorf("client of an SGLang file without a tool name: %q", got)
	}
}
