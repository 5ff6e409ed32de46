// Package sglangconsole reads the summary SGLang's bench_serving prints to
// stdout (`python -m sglang.bench_serving`): a block under vLLM's "Serving
// Benchmark Result" header with SGLang's own lines (Backend, Traffic
// request rate, retokenized counts, Concurrency, Max ITL). Source:
// sgl-project/sglang python/sglang/bench_serving.py, benchmark(), read at
// 0033168f0f58b2bc05aa0273bd475d9c01bafb1c; labels are "{:<40}", figures
// "{:<10.2f}" (2 decimals), times in ms. The walk over a page of blocks is
// ingest/format/vllmconsole's; this package interprets one block.
package sglangconsole

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
	"github.com/benchledger/benchledger/provenance"
)

// ID is the format id of SGLang's printed summary.
const ID = "sglang-bench-serving-console"

// Describe is the format's description.
const Describe = "sglang bench_serving printed summary block"

// tool is SGLang's client, named as the JSON parser names it.
const tool = "sglang bench_serving"

// Tell returns the line of the first sign that a block is SGLang's: a label
// only SGLang prints. 0 when there is none.
func Tell(lines []textread.Line) int {
	for _, ln := range lines {
		label, _, ok := strings.Cut(strings.TrimSpace(ln.Text), ":")
		if !ok {
			continue
		}
		l := strings.ToLower(strings.Join(strings.Fields(label), " "))
		switch {
		case l == "backend" || l == "traffic request rate" || l == "max request concurrency",
			strings.Contains(l, "(retokenized)"), strings.Contains(l, "e2e latency (ms)"):
			return ln.N
		}
	}
	return 0
}

type kind int

const (
	kindFloat kind = iota // a non-negative figure
	kindCount             // a whole number
	kindFact              // a provenance fact, kept as printed
	kindExtra             // known, kept as text in Extra
)

type field struct {
	metric string // canonical metric, or provenance field for kindFact
	unit   string
	kind   kind
}

// fields maps the top-level labels (lower case, without the colon), in
// every version read, to what they state. Metric names are the ones the
// JSON parser (ingest/format/sglang) gives the same figures.
var fields = map[string]field{
	"backend":                              {"measurement.backend", "", kindFact},
	"traffic request rate":                 {"workload.request_rate", "", kindFact},
	"max request concurrency":              {"workload.concurrency", "", kindFact},
	"successful requests":                  {"completed", "requests", kindCount},
	"benchmark duration (s)":               {"duration", "s", kindFloat},
	"total input tokens":                   {"total_input_tokens", "tokens", kindCount},
	"total generated tokens":               {"total_output_tokens", "tokens", kindCount},
	"request throughput (req/s)":           {"request_throughput", "req/s", kindFloat},
	"input token throughput (tok/s)":       {"input_throughput", "tok/s", kindFloat},
	"output token throughput (tok/s)":      {"output_throughput", "tok/s", kindFloat},
	"total token throughput (tok/s)":       {"total_token_throughput", "tok/s", kindFloat},
	"total throughput (tok/s)":             {"total_token_throughput", "tok/s", kindFloat},  // mid-2025
	"concurrency":                          {"achieved_concurrency", "requests", kindFloat}, // Σ e2e / duration
	"peak output token throughput (tok/s)": {"max_output_tokens_per_s", "tok/s", kindFloat},
	"peak concurrent requests":             {"max_concurrent_requests", "requests", kindCount},
	"total input text tokens":              {"", "", kindExtra},
	"total input vision tokens":            {"", "", kindExtra},
	"total generated tokens (retokenized)": {"", "", kindExtra},
	"accept length":                        {"", "", kindExtra},
}

// statRE matches a latency statistic: "Mean E2E Latency (ms)", "P99 TTFT (ms)".
var statRE = regexp.MustCompile(`^(?i)(mean|median|std|max|p(\d+(?:\.\d+)?)) (.+) \(ms\)$`)

var statFamilies = map[string]string{"e2e latency": "e2el", "ttft": "ttft", "tpot": "tpot", "itl": "itl"}

// Interpret turns the lines between a header and its closing rule into a
// summary-only run.
func Interpret(name string, start int, lines []textread.Line) (*benchrun.Run, *format.InputError) {
	run := &benchrun.Run{
		Location:         textread.At(start),
		Format:           ID,
		FormatVariant:    "bench_serving printed summary",
		SourceTool:       tool,
		PercentileMethod: "linear", // numpy's default, as in the JSON
		Clock:            benchrun.ClockNone,
		Facts:            map[string]string{"measurement.client": tool},
		Completed:        -1,
		Failed:           -1,
	}
	extra := map[string]string{}
	seen := map[string]int{}
	section := ""
	err := textread.Block(lines, func(title string) { section = title }, func(l textread.Labelled) *format.InputError {
		label, val := l.Label, l.Val
		key := strings.ToLower(label)
		var (
			metric, unit, src = "", "", ""
			k                 kind
		)
		if m := statRE.FindStringSubmatch(label); m != nil && statFamilies[strings.ToLower(m[3])] != "" {
			metric, unit, src, k = statFamilies[strings.ToLower(m[3])]+"."+strings.ToLower(m[1]), "s", "ms", kindFloat
		} else if f, known := fields[key]; known {
			metric, unit, src, k = f.metric, f.unit, f.unit, f.kind
		} else {
			if section != "" {
				label = section + " / " + label
			}
			extra[label] = val
			run.Notes = append(run.Notes, fmt.Sprintf("unrecognised label %q at line %d kept as text in Extra", label, l.N))
			return nil
		}
		if k == kindExtra {
			extra[label] = val
			return nil
		}
		if err := textread.Once(name, seen, metric, l); err != nil {
			return err
		}
		if k == kindFact {
			if v, ok := factValue(metric, val); ok {
				if err := provenance.Validate(provenance.Entry{Field: metric, Value: v}); err != nil {
					run.Notes = append(run.Notes, fmt.Sprintf("%s %q at line %d is not a valid %s (%v); not recorded", label, val, l.N, metric, err))
				} else {
					run.Facts[metric] = v
				}
			} else if val == "trace" {
				run.Notes = append(run.Notes, "Traffic request rate is \"trace\": requests followed the trace's own timestamps; no request rate recorded")
			}
			return nil
		}
		v, ok, err := textread.LabelledNumber(name, l.N, label, val, k == kindCount, metric == "completed")
		if err != nil {
			return err
		}
		if !ok {
			run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, l.N))
			return nil
		}
		if src == "ms" {
			v = textread.Milli(val)
		}
		if metric == "completed" {
			run.Completed = int64(v)
		}
		run.Stated = append(run.Stated, benchrun.Stated{Metric: metric, Value: v, Unit: unit, SourceKey: label, SourceUnit: src, Printed: textread.Decimals(val)})
		return nil
	}, textread.Keep(extra, &run.Notes))
	if err != nil {
		return nil, err
	}

	if _, ok := seen["completed"]; !ok {
		return nil, format.Errorf(name, textread.At(start), "the block has no \"Successful requests\" line")
	}
	if run.Completed == 0 {
		return nil, format.Errorf(name, textread.At(start), "run has no requests (Successful requests 0; SGLang prints no failed count)")
	}
	run.Notes = append(run.Notes,
		"SGLang's summary prints no failed count: the failed count is unknown",
		"summary only: no per-request records; figures are as printed, rounded to 2 decimals in the printed unit",
		"SGLang counts output tokens from the server's usage when it reports them, otherwise as the requested output length; the retokenized count is kept in Extra")
	if len(extra) > 0 {
		run.Extra = extra
	}
	return run, nil
}

// factValue reads a fact line's value: "not set" and "None" are no value,
// an infinite rate is "inf", a rate printed as 16.00 is 16.
func factValue(field, val string) (string, bool) {
	switch strings.ToLower(val) {
	case "", "not set", "none", "trace":
		return "", false
	case "inf":
		return "inf", true
	}
	if field == "workload.request_rate" || field == "workload.concurrency" {
		if v, ok, err := textread.Number(val); err == nil && ok {
			return format.FormatFloat(v), true
		}
	}
	return val, true
}
