package vllmconsole

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
)

// consoleKind says how a top-level label's value is read.
type consoleKind int

const (
	kindFloat consoleKind = iota // any non-negative number
	kindCount                    // a whole number; vLLM ≤ v0.11 prints some as 13.00
	kindFact                     // a provenance fact, kept as printed
)

type consoleField struct {
	metric string // canonical metric, or provenance field for kindFact
	unit   string // canonical unit
	src    string // unit the label prints
	kind   consoleKind
}

// consoleFields maps top-level labels (lower case, without the colon) to
// what they state. Variants across versions map to one metric.
var consoleFields = map[string]consoleField{
	"successful requests":                  {"completed", "requests", "requests", kindCount},
	"failed requests":                      {"failed", "requests", "requests", kindCount},
	"maximum request concurrency":          {"workload.concurrency", "", "", kindFact},
	"request rate configured (rps)":        {"workload.request_rate", "", "", kindFact},
	"benchmark duration (s)":               {"duration", "s", "s", kindFloat},
	"total input tokens":                   {"total_input_tokens", "tokens", "tokens", kindCount},
	"total generated tokens":               {"total_output_tokens", "tokens", "tokens", kindCount},
	"request throughput (req/s)":           {"request_throughput", "req/s", "req/s", kindFloat},
	"input throughput (inputs/s)":          {"input_sequence_throughput", "inputs/s", "inputs/s", kindFloat},
	"input token throughput (tok/s)":       {"input_throughput", "tok/s", "tok/s", kindFloat},
	"request goodput (req/s)":              {"request_goodput", "req/s", "req/s", kindFloat},
	"output token throughput (tok/s)":      {"output_throughput", "tok/s", "tok/s", kindFloat},
	"peak output token throughput (tok/s)": {"max_output_tokens_per_s", "tok/s", "tok/s", kindFloat},
	"peak concurrent requests":             {"max_concurrent_requests", "requests", "requests", kindCount},
	"total token throughput (tok/s)":       {"total_token_throughput", "tok/s", "tok/s", kindFloat},
}

// consoleKnownExtra are top-level labels kept as text without a note, as
// the JSON parser keeps their keys: known, but no canonical metric yet.
var consoleKnownExtra = map[string]bool{"rtfx (inverse real-time factor)": true}

// consoleStatRE matches latency statistics: "Mean TTFT (ms)", "P99.9 ITL (ms)".
var consoleStatRE = regexp.MustCompile(`^(?i)(mean|median|std|p(\d+(?:\.\d+)?)) (.+) \(ms\)$`)

// consoleStatMetrics maps the metric words of a statistic line (lower case)
// to the canonical metric, as vLLM's JSON keys name them.
var consoleStatMetrics = map[string]string{
	"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2el",
	"client queue time":       "client_queue_time",
	"e2el incl. client queue": "e2el_including_client_queue",
}

// consoleExtraSections hold figures benchledger keeps as text only.
var consoleExtraSections = map[string]bool{
	"speculative decoding": true, "diffusion decoding": true, "probe requests": true,
}

// interpret turns the lines between a header and its closing line into a run.
func interpretVLLM(name string, start int, lines []textread.Line) (*benchrun.Run, *format.InputError) {
	run := &benchrun.Run{
		Location:         textread.At(start),
		Format:           "vllm-serve-console",
		SourceTool:       "vllm bench serve",
		PercentileMethod: "linear",
		Clock:            benchrun.ClockNone,
		Facts:            map[string]string{"measurement.client": "vllm bench serve"},
		Completed:        -1,
		Failed:           -1,
	}
	extra := map[string]string{}
	seen := map[string]int{} // canonical name → line, to refuse a figure stated twice
	section, sub := "", ""
	hasPeak := false

	addExtra := func(key, val string, n int) {
		if _, dup := extra[key]; dup {
			key = fmt.Sprintf("%s (line %d)", key, n)
		}
		extra[key] = val
	}
	err := textread.Block(lines, func(title string) { section, sub = title, "" }, func(l textread.Labelled) *format.InputError {
		label, val := l.Label, l.Val
		key := strings.ToLower(label)
		inExtraSection := consoleExtraSections[strings.ToLower(section)]

		if inExtraSection {
			// Speculative decoding, diffusion and probe figures: no canonical
			// metric yet, kept whole. A label without a value heads a list
			// ("Per-position acceptance (%):" then "Position 0: ...").
			if val == "" {
				sub = label
				return nil
			}
			k := section + " / " + label
			if sub != "" {
				k = section + " / " + sub + " / " + label
			}
			addExtra(k, val, l.N)
			return nil
		}

		if m := consoleStatRE.FindStringSubmatch(label); m != nil {
			if metric, ok := consoleStatMetrics[strings.ToLower(m[3])]; ok {
				stat := strings.ToLower(m[1])
				canon := metric + "." + stat
				if err := textread.Once(name, seen, canon, l); err != nil {
					return err
				}
				_, ok, err := textread.Number(val)
				if err != nil {
					return format.Errorf(name, textread.At(l.N), "%s: %q is not a number", label, val)
				}
				if !ok {
					run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, l.N))
					return nil
				}
				run.Stated = append(run.Stated, benchrun.Stated{
					Metric: canon, Value: textread.Milli(val), Unit: "s", SourceKey: label, SourceUnit: "ms", Printed: textread.Decimals(val),
				})
				return nil
			}
		}

		if consoleKnownExtra[key] && section == "" {
			addExtra(label, val, l.N)
			return nil
		}
		f, known := consoleFields[key]
		if !known {
			if section != "" {
				label = section + " / " + label
			}
			addExtra(label, val, l.N)
			run.Notes = append(run.Notes, fmt.Sprintf("unrecognised label %q at line %d kept as text in Extra", label, l.N))
			return nil
		}
		if err := textread.Once(name, seen, f.metric, l); err != nil {
			return err
		}
		if f.metric == "max_concurrent_requests" || f.metric == "max_output_tokens_per_s" {
			hasPeak = true
		}
		v, ok, err := textread.LabelledNumber(name, l.N, label, val, f.kind == kindCount, f.metric == "completed")
		if err != nil {
			return err
		}
		if !ok {
			run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, l.N))
			return nil
		}
		if f.kind == kindFact {
			run.Facts[f.metric] = val
			return nil
		}
		switch f.metric {
		case "completed":
			run.Completed = int64(v)
		case "failed":
			run.Failed = int64(v)
		}
		run.Stated = append(run.Stated, benchrun.Stated{
			Metric: f.metric, Value: v, Unit: f.unit, SourceKey: label, SourceUnit: f.src, Printed: textread.Decimals(val),
		})
		return nil
	}, func(n int, t string) {
		addExtra(textread.At(n), t, n)
		run.Notes = append(run.Notes, textread.NotLabelled(n))
	})
	if err != nil {
		return nil, err
	}

	if _, ok := seen["completed"]; !ok {
		return nil, format.Errorf(name, textread.At(start), "the block has no \"Successful requests\" line")
	}
	if run.Completed == 0 && run.Failed <= 0 {
		return nil, format.Errorf(name, textread.At(start), "run has no requests (Successful requests 0 and no failed requests)")
	}
	_, hasFailed := seen["failed"]
	switch {
	case hasFailed:
		run.FormatVariant = "vllm bench serve (with failed count)"
	case hasPeak:
		run.FormatVariant = "vllm bench serve ≤ v0.11 (no failed count)"
	default:
		run.FormatVariant = "benchmark_serving.py ≤ v0.8 (no peak lines)"
	}
	if !hasFailed {
		run.Notes = append(run.Notes, "the block has no \"Failed requests\" line (vLLM printed none before late 2025): the failed count is unknown")
	}
	run.Notes = append(run.Notes,
		"summary only: no per-request records; figures are as printed, rounded to 2 decimals in the printed unit")
	if len(extra) > 0 {
		run.Extra = extra
	}
	return run, nil
}
