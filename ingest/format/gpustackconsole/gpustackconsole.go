// Package gpustackconsole reads GPUStack's rendering of a guidellm result
// as a vLLM-looking "Serving Benchmark Result" block, as GPUStack's
// performance-lab pages (docs/performance-lab/...) paste it. Source:
// gpustack/gpustack hack/perf/perf_doc_common.py, render_benchmark_result_block
// (FORMATS.md §8). The block borrows vLLM's labels for guidellm's figures,
// which are not vLLM's:
//
//   - "Request/Output/Total token throughput" are guidellm's time-weighted
//     rate-series means (requests_per_second, output_tokens_per_second,
//     tokens_per_second .mean), not count / duration;
//   - "Peak output token throughput" is that series' max, an instantaneous
//     rate, printed under vLLM's label for the most tokens in one second: it
//     is stated as the page presents it (max_output_tokens_per_s), so the
//     audit holds it to that label; "Peak concurrent requests" is
//     request_concurrency's max;
//   - "Total input/generated tokens" are the token-count mean × successful
//     requests, printed to 0 decimals;
//   - the "Latency" section is request_latency in seconds (vLLM has none);
//   - "TPOT" is guidellm's time_per_output_token_ms, which includes TTFT, and
//     "ITL" its inter_token_latency_ms, weighted by output tokens − 1: neither
//     is vLLM's TPOT or ITL, so both are kept in Extra, not stated;
//   - a figure guidellm did not give prints as N/A: unknown, not zero;
//   - there is no failure count.
//
// The percentiles are guidellm's (nearest-rank). The walk over a page is
// ingest/format/vllmconsole's; this package interprets one block.
package gpustackconsole

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
	"github.com/benchledger/benchledger/provenance"
)

// ID is the format id of GPUStack's rendered block.
const ID = "gpustack-console"

// Describe is the format's description.
const Describe = "GPUStack performance-lab rendering of guidellm results (vLLM-looking console block)"

// Tool is the run's client: guidellm, as GPUStack drove and rendered it.
const Tool = "gpustack/guidellm"

// Tell returns the line of the sign of GPUStack's rendering: a "Latency"
// section, or a "Latency(s)" label, which vLLM never prints.
func Tell(lines []textread.Line) int {
	for _, ln := range lines {
		t := strings.TrimSpace(ln.Text)
		if title, ok := textread.Section(t); ok && strings.EqualFold(title, "Latency") {
			return ln.N
		}
		if label, _, ok := strings.Cut(t, ":"); ok && strings.Contains(strings.ToLower(strings.ReplaceAll(label, " ", "")), "latency(s)") {
			return ln.N
		}
	}
	return 0
}

type kind int

const (
	kindFloat kind = iota
	kindCount
	kindFact
)

type field struct {
	metric, unit string
	kind         kind
	note         string // said once when the line is read
}

var fields = map[string]field{
	"successful requests":                  {"completed", "requests", kindCount, ""},
	"maximum request concurrency":          {"workload.concurrency", "", kindFact, ""},
	"benchmark duration (s)":               {"duration", "s", kindFloat, "duration is guidellm's benchmark duration (its measurement window when it has warmup or cooldown)"},
	"total input tokens":                   {"total_input_tokens", "tokens", kindCount, "the token totals are GPUStack's token-count mean × successful requests, printed without decimals"},
	"total generated tokens":               {"total_output_tokens", "tokens", kindCount, ""},
	"request throughput (req/s)":           {"request_rate_series.mean", "req/s", kindFloat, "the throughput lines are guidellm's time-weighted rate-series means (stated as *_rate_series.mean), not count / duration"},
	"output token throughput (tok/s)":      {"output_rate_series.mean", "tok/s", kindFloat, ""},
	"total token throughput (tok/s)":       {"total_token_rate_series.mean", "tok/s", kindFloat, ""},
	"peak output token throughput (tok/s)": {"max_output_tokens_per_s", "tok/s", kindFloat, "Peak output token throughput is the maximum of guidellm's output-token rate series (an instantaneous rate between token events), printed under vLLM's label for the most tokens in one second: stated as that, which the audit holds it to"},
	"peak concurrent requests":             {"max_concurrent_requests", "requests", kindCount, ""},
}

// statRE matches a statistic line: "Mean Latency(s)", "P95 TTFT (ms)".
var statRE = regexp.MustCompile(`^(?i)(mean|median|p(\d+(?:\.\d+)?)) (latency|ttft|tpot|itl) ?\((ms|s)\)$`)

// Interpret turns the lines between a header and its closing rule into a
// summary-only run.
func Interpret(name string, start int, lines []textread.Line) (*benchrun.Run, *format.InputError) {
	run := &benchrun.Run{
		Location:         textread.At(start),
		Format:           ID,
		FormatVariant:    "performance-lab rendering (hack/perf/perf_doc_common.py)",
		SourceTool:       Tool,
		PercentileMethod: "nearest-rank",
		Clock:            benchrun.ClockNone,
		Facts:            map[string]string{"measurement.client": "guidellm"},
		Completed:        -1,
		Failed:           -1,
	}
	extra := map[string]string{}
	seen := map[string]int{}
	noted := map[string]bool{}
	section := ""
	err := textread.Block(lines, func(title string) { section = title }, func(l textread.Labelled) *format.InputError {
		label, val := l.Label, l.Val
		var f field
		if m := statRE.FindStringSubmatch(label); m != nil {
			fam, src := strings.ToLower(m[3]), strings.ToLower(m[4])
			switch fam {
			case "tpot", "itl":
				// guidellm's time_per_output_token_ms and inter_token_latency_ms
				// under vLLM's names: not vLLM's TPOT and ITL.
				extra[label] = val
				if !noted[fam] {
					noted[fam] = true
					what := map[string]string{
						"tpot": "the TPOT lines are guidellm's time_per_output_token_ms, (last token − request start) / output tokens, which includes TTFT: kept in Extra, not stated as tpot",
						"itl":  "the ITL lines are guidellm's inter_token_latency_ms, weighted by output tokens − 1 across requests: kept in Extra, not stated as itl (vLLM's ITL is the gap between chunks)",
					}[fam]
					run.Notes = append(run.Notes, what)
				}
				return nil
			case "latency":
				fam = "e2el"
			}
			f = field{metric: fam + "." + strings.ToLower(m[1]), unit: src, kind: kindFloat}
		} else if known, ok := fields[strings.ToLower(label)]; ok {
			f = known
		} else {
			if section != "" {
				label = section + " / " + label
			}
			extra[label] = val
			run.Notes = append(run.Notes, fmt.Sprintf("unrecognised label %q at line %d kept as text in Extra", label, l.N))
			return nil
		}
		if err := textread.Once(name, seen, f.metric, l); err != nil {
			return err
		}
		if f.note != "" {
			run.Notes = append(run.Notes, f.note)
		}
		if f.kind == kindFact {
			if v, ok, err := textread.Number(val); err == nil && ok && v > 0 {
				s := format.FormatFloat(v)
				if err := provenance.Validate(provenance.Entry{Field: f.metric, Value: s}); err == nil {
					run.Facts[f.metric] = s
				}
			}
			return nil
		}
		v, ok, err := textread.LabelledNumber(name, l.N, label, val, f.kind == kindCount, f.metric == "completed")
		if err != nil {
			return err
		}
		if !ok {
			run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: unknown, not stated", label, val, l.N))
			return nil
		}
		unit, src := f.unit, f.unit
		if f.unit == "ms" {
			v, unit = textread.Milli(val), "s"
		}
		if f.metric == "completed" {
			run.Completed = int64(v)
		}
		run.Stated = append(run.Stated, benchrun.Stated{Metric: f.metric, Value: v, Unit: unit, SourceKey: label, SourceUnit: src, Printed: textread.Decimals(val)})
		return nil
	}, textread.Keep(extra, &run.Notes))
	if err != nil {
		return nil, err
	}

	if _, ok := seen["completed"]; !ok {
		return nil, format.Errorf(name, textread.At(start), "the block has no \"Successful requests\" line")
	}
	if run.Completed == 0 {
		return nil, format.Errorf(name, textread.At(start), "run has no requests (Successful requests 0; the rendering has no failed count)")
	}
	run.Notes = append(run.Notes,
		"GPUStack's rendering prints no failed count: the failed count is unknown",
		"summary only: rendered by GPUStack from a guidellm report, figures rounded to 2 decimals; the record it came from (JSON) holds the full report")
	if len(extra) > 0 {
		run.Extra = extra
	}
	return run, nil
}
