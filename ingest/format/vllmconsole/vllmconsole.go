package vllmconsole

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
)

// vllmConsole reads the "Serving Benchmark Result" block that vllm bench
// serve (and the older benchmarks/benchmark_serving.py) prints to stdout,
// as saved from a terminal or pasted into Markdown. See FORMATS.md §1.6.
type vllmConsole struct{}

// NewVLLMConsole returns the parser for vLLM's console result block.
func New() format.Parser { return vllmConsole{} }

func (vllmConsole) ID() string       { return "vllm-serve-console" }
func (vllmConsole) Describe() string { return "vllm bench serve console result block" }

// Title is the header of the result block vllm bench serve prints (GPUStack
// pages quote it too).
const Title = "Serving Benchmark Result"

// Sniff looks for the block's header line anywhere in the head.
func (vllmConsole) Sniff(name string, head []byte) bool {
	if !bytes.Contains(head, []byte(Title)) {
		return false
	}
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		if isConsoleHeader(string(line)) {
			return true
		}
	}
	return false
}

// isConsoleHeader matches "=== Serving Benchmark Result ===" with any number
// of "=" and any surrounding space (Markdown indents pasted blocks).
func isConsoleHeader(line string) bool {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "=") || !strings.HasSuffix(t, "=") {
		return false
	}
	return strings.TrimSpace(strings.Trim(t, "=")) == Title
}

// isConsoleClosing matches the closing rule, 50 "=" in vLLM; ten or more
// are accepted so that a hand-trimmed copy still closes.
func isConsoleClosing(t string) bool {
	return len(t) >= 10 && strings.Trim(t, "=") == ""
}

// Section returns the title of a "----Title----" line.
func Section(t string) (string, bool) {
	if len(t) < 3 || !strings.HasPrefix(t, "-") || !strings.HasSuffix(t, "-") {
		return "", false
	}
	return strings.TrimSpace(strings.Trim(t, "-")), true
}

func (p vllmConsole) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		runs  []*benchrun.Run
		block []textread.Line
		start int // header line of the open block; 0 when none is open
		n     int
	)
	for {
		line, err := textread.ReadLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		if line == nil && errors.Is(err, io.EOF) {
			break
		}
		n++
		if n%4096 == 0 {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
		}
		s := string(line)
		if n == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		t := strings.TrimSpace(s)
		switch {
		case isConsoleHeader(t):
			if start > 0 {
				return format.Errorf(name, textread.At(start), "truncated block: no closing ===== line before the next block at line %d", n)
			}
			start, block = n, block[:0]
		case start == 0:
			// Text around the blocks (commands, logs, prose) is not ours.
		case isConsoleClosing(t):
			run, ierr := p.interpret(name, start, block)
			if ierr != nil {
				return ierr
			}
			run.Ordinal = len(runs)
			runs = append(runs, run)
			start = 0
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			// A Markdown fence closes the pasted copy: the block was cut.
			return format.Errorf(name, textread.At(start), "truncated block: the code fence at line %d ends it before its closing ===== line", n)
		default:
			block = append(block, textread.Line{N: n, Text: s})
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if start > 0 {
		return format.Errorf(name, textread.At(start), "truncated block: the file ends before its closing ===== line")
	}
	if len(runs) == 0 {
		return format.Errorf(name, "", "no %q block found", Title)
	}
	// Every block is checked before the first is handed on, so a bad block
	// rejects the whole file rather than leaving half of it archived.
	for _, run := range runs {
		if err := emit(run); err != nil {
			return err
		}
	}
	return nil
}

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

// msToS converts a printed millisecond figure (already checked by
// consoleNumber) to the canonical seconds. It shifts the decimal exponent
// instead of dividing, so 0.12 ms becomes the double nearest 0.00012 s.
func msToS(ms string) float64 {
	v, err := strconv.ParseFloat(ms+"e-3", 64)
	if err != nil {
		return benchrun.Unknown
	}
	return v
}

// interpret turns the lines between a header and its closing line into a run.
func (vllmConsole) interpret(name string, start int, lines []textread.Line) (*benchrun.Run, *format.InputError) {
	if err := consoleLookAlike(name, lines); err != nil {
		return nil, err
	}
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
	for _, ln := range lines {
		t := strings.TrimSpace(ln.Text)
		if t == "" {
			continue
		}
		if title, ok := Section(t); ok {
			section, sub = title, ""
			continue
		}
		label, val, ok := strings.Cut(t, ":")
		if !ok {
			addExtra(textread.At(ln.N), t, ln.N)
			run.Notes = append(run.Notes, fmt.Sprintf("line %d inside the block is not a \"label: value\" line; kept as text in Extra", ln.N))
			continue
		}
		label = strings.Join(strings.Fields(label), " ")
		val = strings.TrimSpace(val)
		key := strings.ToLower(label)
		inExtraSection := consoleExtraSections[strings.ToLower(section)]

		if inExtraSection {
			// Speculative decoding, diffusion and probe figures: no canonical
			// metric yet, kept whole. A label without a value heads a list
			// ("Per-position acceptance (%):" then "Position 0: ...").
			if val == "" {
				sub = label
				continue
			}
			k := section + " / " + label
			if sub != "" {
				k = section + " / " + sub + " / " + label
			}
			addExtra(k, val, ln.N)
			continue
		}

		if m := consoleStatRE.FindStringSubmatch(label); m != nil {
			if metric, ok := consoleStatMetrics[strings.ToLower(m[3])]; ok {
				stat := strings.ToLower(m[1])
				canon := metric + "." + stat
				if first, dup := seen[canon]; dup {
					return nil, format.Errorf(name, textread.At(ln.N), "%q stated twice in one block (first at line %d)", label, first)
				}
				seen[canon] = ln.N
				_, ok, err := consoleNumber(val)
				if err != nil {
					return nil, format.Errorf(name, textread.At(ln.N), "%s: %q is not a number", label, val)
				}
				if !ok {
					run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, ln.N))
					continue
				}
				run.Stated = append(run.Stated, benchrun.Stated{
					Metric: canon, Value: msToS(val), Unit: "s", SourceKey: label, SourceUnit: "ms",
				})
				continue
			}
		}

		if consoleKnownExtra[key] && section == "" {
			addExtra(label, val, ln.N)
			continue
		}
		f, known := consoleFields[key]
		if !known {
			if section != "" {
				label = section + " / " + label
			}
			addExtra(label, val, ln.N)
			run.Notes = append(run.Notes, fmt.Sprintf("unrecognised label %q at line %d kept as text in Extra", label, ln.N))
			continue
		}
		if first, dup := seen[f.metric]; dup {
			return nil, format.Errorf(name, textread.At(ln.N), "%q stated twice in one block (first at line %d)", label, first)
		}
		seen[f.metric] = ln.N
		if f.metric == "max_concurrent_requests" || f.metric == "max_output_tokens_per_s" {
			hasPeak = true
		}
		v, ok, err := consoleNumber(val)
		if err != nil {
			return nil, format.Errorf(name, textread.At(ln.N), "%s: %q is not a number", label, val)
		}
		if !ok {
			if f.metric == "completed" {
				return nil, format.Errorf(name, textread.At(ln.N), "Successful requests is %s: the run's request count is unknown", val)
			}
			run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, ln.N))
			continue
		}
		if f.kind == kindFact {
			run.Facts[f.metric] = val
			continue
		}
		if f.kind == kindCount && (v != math.Trunc(v) || v > 1<<53) {
			return nil, format.Errorf(name, textread.At(ln.N), "%s: %q is not a whole number", label, val)
		}
		switch f.metric {
		case "completed":
			run.Completed = int64(v)
		case "failed":
			run.Failed = int64(v)
		}
		run.Stated = append(run.Stated, benchrun.Stated{
			Metric: f.metric, Value: v, Unit: f.unit, SourceKey: label, SourceUnit: f.src,
		})
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

// consoleNumber reads a printed value. ok is false for the placeholders
// that mean "no figure" (N/A in look-alike blocks; nan, inf, None from
// Python); err is set for anything else that is not a plain number.
func consoleNumber(s string) (v float64, ok bool, err error) {
	switch strings.ToLower(s) {
	case "n/a", "na", "nan", "-nan", "inf", "-inf", "none", "":
		return 0, false, nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '.' && !(i == 0 && (c == '-' || c == '+')) {
			return 0, false, fmt.Errorf("not a number")
		}
	}
	v, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, false, perr
	}
	if v < 0 {
		return 0, false, fmt.Errorf("negative")
	}
	return v, true, nil
}

// consoleLookAlike refuses blocks that share vLLM's header but were not
// printed by vLLM: GPUStack renders one from guidellm results (a "Latency"
// section in seconds is the tell), and SGLang's bench_serving prints its own
// (Backend, Traffic request rate, retokenized counts).
func consoleLookAlike(name string, lines []textread.Line) *format.InputError {
	for _, ln := range lines {
		t := strings.TrimSpace(ln.Text)
		if title, ok := Section(t); ok && strings.EqualFold(title, "Latency") {
			return format.Errorf(name, textread.At(ln.N), "a GPUStack-rendered block derived from guidellm data (its \"Latency\" section is in seconds), not vllm bench serve output")
		}
		label, _, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		l := strings.ToLower(strings.Join(strings.Fields(label), " "))
		switch {
		case strings.Contains(l, "latency(s)"):
			return format.Errorf(name, textread.At(ln.N), "a GPUStack-rendered block derived from guidellm data (%q is in seconds), not vllm bench serve output", strings.TrimSpace(label))
		case l == "backend" || l == "traffic request rate" || l == "max request concurrency" || strings.Contains(l, "(retokenized)"):
			return format.Errorf(name, textread.At(ln.N), "an SGLang bench_serving result block (%q), not vllm bench serve output", strings.TrimSpace(label))
		}
	}
	return nil
}
