package figures

import (
	"math"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// ToolDefinitions is how a client defines the figures it states where that
// differs from the project's definitions (docs/metrics.md, "Definitions of
// the tools"): a stated figure that disagrees with the recomputation only by
// such a difference is reported as a difference of definition, not a
// failure, and recomputed under the tool's definition where the raw file
// has what is needed.
type ToolDefinitions struct {
	// Tool names the client, for messages.
	Tool string `json:"tool"`
	// E2E is the tool's end of a request's end-to-end latency when it is
	// not the last token ("" when it is); E2ESlack bounds, relative to the
	// value, how much later that end can be when the raw file's own end
	// times are not at hand (the archive keeps the last-token latency).
	E2E      string  `json:"e2_e"`
	E2ESlack float64 `json:"e2_e_slack"`
	// Percentile is the tool's own percentile algorithm when it differs in
	// edge cases from the named method it approximates; Percentile != nil.
	Percentile     func(sorted []float64, p float64) float64 `json:"percentile"`
	PercentileName string                                    `json:"percentile_name"`
	// Window describes the tool's duration when it is a measurement window
	// that excludes warmup and cooldown while the requests it counts
	// overlap it ("" when the duration is first send to last completion).
	Window string `json:"window"`
}

// Sources of the tools' definitions (cited in docs/metrics.md).
const (
	guidellmSource = "vllm-project/guidellm src/guidellm/schemas/request_stats.py, src/guidellm/schemas/statistics.py, src/guidellm/benchmark/schemas/metrics.py and accumulator.py at ee7a77457ba668b4b5ccb40f110518829893b36a"
)

// DefinitionsOf returns the tool definitions of a run's format, nil when
// the format's figures are defined as the project's.
func DefinitionsOf(format string) *ToolDefinitions {
	switch {
	case strings.HasPrefix(format, "guidellm-"):
		return &ToolDefinitions{Tool: "guidellm",
			E2E:            "request start to the end of the response (request_end, after the last chunk and the stream's close; " + guidellmSource + ")",
			E2ESlack:       0.01,
			Percentile:     PercentileCDF,
			PercentileName: "guidellm's Percentiles.from_pdf: the first value whose float64 cumulative sum of empirical probabilities is ≥ p (numpy searchsorted, side left); nearest-rank up to rounding at the CDF's steps",
			Window:         "guidellm ≥ 0.4 states its measurement window (measure_end_time − measure_start_time: warmup and cooldown excluded) as its duration and counts the requests that overlap it (request end ≥ window start and request start ≤ window end)",
		}
	case strings.HasPrefix(format, "sglang-"):
		// The records end at the last content chunk (TTFT + chunk gaps);
		// SGLang's own E2E ends at the last chunk received, which can be a
		// later usage or [DONE] chunk. The file keeps no per-request end,
		// so the difference can only be bounded.
		return &ToolDefinitions{Tool: "SGLang bench_serving",
			E2E:      "request start to the last chunk received, which can be a usage or [DONE] chunk after the last content chunk (sgl-project/sglang python/sglang/bench_serving.py)",
			E2ESlack: 0.01,
		}
	}
	return nil
}

// DefinitionsOfRun is DefinitionsOf for one run, where what the tool
// defines depends on more than its format: SGLang bench_serving's trt
// backend (async_request_trt_llm) ends a request's latency at its last
// content chunk, as the records do, so its E2E is ours and a difference is
// no matter of definition (sgl-project/sglang python/sglang/bench_serving.py
// at 0033168f0f58b2bc05aa0273bd475d9c01bafb1c; docs/metrics.md).
func DefinitionsOfRun(r *benchrun.Run) *ToolDefinitions {
	td := DefinitionsOf(r.Format)
	if td != nil && strings.HasPrefix(r.Format, "sglang-") && r.Facts["measurement.backend"] == "trt" {
		td.E2E, td.E2ESlack = "", 0
	}
	return td
}

// PercentileCDF is guidellm's percentile (Percentiles.from_pdf over
// DistributionSummary.from_values with unit weights): the sorted unique
// values with their multiplicities as probabilities, their float64
// cumulative sum accumulated in order as numpy.cumsum does, and the first
// value whose cumulative probability is ≥ p/100. It is nearest-rank except
// where the CDF steps exactly at p, where the float sum may fall a hair
// short and pick the next value (the median of 26 values is the 14th, not
// the 13th).
func PercentileCDF(sorted []float64, p float64) float64 {
	n := len(sorted)
	if badPercentile(n, p) {
		return math.NaN()
	}
	vals := slices.Compact(slices.Clone(sorted))
	counts := make([]float64, 0, len(vals))
	j := 0
	for _, v := range vals {
		c := 0
		for j < n && sorted[j] == v {
			c++
			j++
		}
		counts = append(counts, float64(c))
	}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	q := glProbability(p)
	var cum float64
	for i, c := range counts {
		cum += c / total
		if cum >= q {
			return vals[i]
		}
	}
	return vals[len(vals)-1]
}

// glProbability is the probability guidellm asks for at percentile p: its
// literals (0.001, 0.01, ..., 0.999) rather than p / 100, which differ in
// the last bit for some p.
func glProbability(p float64) float64 {
	lit := map[float64]float64{0.1: 0.001, 1: 0.01, 5: 0.05, 10: 0.1, 25: 0.25, 50: 0.5, 75: 0.75, 90: 0.9, 95: 0.95, 99: 0.99, 99.9: 0.999}
	if q, ok := lit[p]; ok {
		return q
	}
	return p / 100
}
