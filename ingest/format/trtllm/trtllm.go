package trtllm

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
)

// TensorRT-LLM's trtllm-bench (throughput and latency subcommands) reports a
// run twice: as a JSON dict with --report_json (ReportUtility.
// get_statistics_dict, tensorrt_llm/bench/dataclasses/reporting.py) and as a
// console report printed through its logger (report_statistics). FORMATS.md
// §7.1; the README beside the fixtures in testdata/trtllm cites the lines.

const (
	trtllmJSONID    = "trtllm-bench-json"
	trtllmConsoleID = "trtllm-bench-console"
	trtllmTool      = "trtllm-bench"
	// trtllmEngine is runtime.engine's spelling of TensorRT-LLM
	// (provenance.Fields, audit's engine ids): trtllm-bench runs the engine
	// in its own process, so the report's version is the engine's.
	trtllmEngine = "tensorrt-llm"
	// trtllmMaxNodes bounds the values of one report JSON: a real one has a
	// few hundred; a hostile file must not make the tree unbounded.
	trtllmMaxNodes = 1 << 18
)

// NewJSON returns the parser for trtllm-bench --report_json files.
func NewJSON() format.Parser { return trtllmJSON{} }

// NewConsole returns the parser for trtllm-bench's console report.
func NewConsole() format.Parser { return trtllmConsole{} }

type trtllmJSON struct{}

type trtllmConsole struct{}

func (trtllmJSON) ID() string       { return trtllmJSONID }
func (trtllmJSON) Describe() string { return "trtllm-bench throughput/latency --report_json" }

func (trtllmConsole) ID() string { return trtllmConsoleID }
func (trtllmConsole) Describe() string {
	return "trtllm-bench throughput/latency console report (PERFORMANCE OVERVIEW)"
}

// Notes every trtllm-bench run carries: what the report does not say, and
// how its figures are defined.
// trtllmRun is a report's run before its figures, in either layout.
func trtllmRun(format, location string) *benchrun.Run {
	return &benchrun.Run{
		Location:         location,
		Format:           format,
		SourceTool:       trtllmTool,
		PercentileMethod: "lower-index",
		Facts:            map[string]string{"measurement.client": trtllmTool, "runtime.engine": trtllmEngine},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}
}

var trtllmNotes = []string{
	"trtllm-bench reports no failed requests: the completed and failed counts are unknown",
	"trtllm-bench's percentiles are sorted[int(n·p)] (lower-index), not interpolated: with fewer than 100 requests p99 is the maximum",
	"trtllm-bench's output tokens include the first token; its TPOT is (end − first token) / (output tokens − 1), the canonical TPOT",
	"duration is trtllm-bench's total latency: last response − first request",
	"the report has no date, GPU model or checkpoint revision: they must come from the manifest",
}

// trtllmStat maps a percentile-stats key (PercentileStats: p50, p90, p95,
// p99, minimum, maximum, average) to the canonical statistic.
func trtllmStat(key string) (string, bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	switch k {
	case "p50":
		return "median", true
	case "minimum":
		return "min", true
	case "maximum":
		return "max", true
	case "average":
		return "mean", true
	}
	if format.IsPercentileWord(k) {
		return k, true
	}
	return "", false
}

// trtllmMS converts a millisecond figure to seconds. For a plain decimal it
// shifts the exponent in the text, so 3936.3022 ms is the double nearest
// 3.9363022 s.
func trtllmMS(raw string, v float64) float64 {
	if !strings.ContainsAny(raw, "eE") {
		if s, err := strconv.ParseFloat(raw+"e-3", 64); err == nil {
			return s
		}
	}
	return v / 1000
}

// trtllmStated collects a run's stated figures. A metric stated twice (the
// report prints the mean request latency both as "Average request latency"
// and as the breakdown's AVERAGE) keeps the first; a second value that
// differs is noted.
type trtllmStated struct {
	run *benchrun.Run
	tol float64 // relative; the console prints 4 decimals
}

func (t *trtllmStated) add(s benchrun.Stated, extraKey, extraText string) {
	if old, ok := t.run.StatedValue(s.Metric); ok {
		t.run.Extra[extraKey] = extraText
		if math.Abs(old.Value-s.Value) > t.tol*math.Max(math.Abs(old.Value), math.Abs(s.Value)) {
			t.run.Notes = append(t.run.Notes, fmt.Sprintf("%s is stated twice with different values: %s gives %s %s, %s gives %s %s; the first is kept",
				s.Metric, old.SourceKey, format.FormatFloat(old.Value), old.Unit, s.SourceKey, format.FormatFloat(s.Value), s.Unit))
		}
		return
	}
	t.run.Stated = append(t.run.Stated, s)
}
