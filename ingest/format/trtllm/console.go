package trtllm

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

// ---------------------------------------------------------------------------
// console report

// trtllmSection is one "= TITLE" section of a console report.
type trtllmSection struct {
	title string // as printed, trimmed
	key   string // upper case, for matching
	line  int    // the "= TITLE" line
	lines []textread.Line
	// closed: a ===== line ended the section. A report cut short ends in an
	// open one.
	closed bool
	endBy  string // what ended an open section: "the end of the file", "a code fence at line N"
}

type trtllmKind int

const (
	trtllmIgnore  trtllmKind = iota // build sections: not part of a run's report
	trtllmHead                      // ENGINE DETAILS, PYTORCH BACKEND, REQUEST DETAILS, WORLD + RUNTIME INFORMATION
	trtllmPerf                      // PERFORMANCE OVERVIEW
	trtllmTrailer                   // DECODING STATISTICS, DATASET DETAILS: printed after the overview
)

func trtllmSectionKind(key string) trtllmKind {
	switch {
	case key == "PERFORMANCE OVERVIEW":
		return trtllmPerf
	case key == "ENGINE DETAILS", key == "PYTORCH BACKEND", key == "REQUEST DETAILS", key == "WORLD + RUNTIME INFORMATION":
		return trtllmHead
	case key == "DATASET DETAILS", strings.HasPrefix(key, "DECODING STATISTICS"):
		return trtllmTrailer
	}
	return trtllmIgnore
}

// trtllmRule matches a ===== line (ten or more).
func trtllmRule(t string) bool { return len(t) >= 10 && strings.Trim(t, "=") == "" }

// trtllmHeader returns the title of a "= TITLE" line.
func trtllmHeader(t string) (string, bool) {
	if !strings.HasPrefix(t, "=") || trtllmRule(t) {
		return "", false
	}
	title := strings.TrimSpace(strings.TrimLeft(t, "="))
	if title == "" || strings.HasSuffix(title, "=") {
		return "", false
	}
	return title, true
}

// trtllmLogLine matches a line the TensorRT-LLM logger prints around the
// report ("[01/18/2025-01:01:42] [TRT-LLM] [I] ...", "[TensorRT-LLM][INFO] ...").
var trtllmLogLine = regexp.MustCompile(`^\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d|TensorRT-LLM)\]`)

// Sniff looks for a framed "= PERFORMANCE OVERVIEW" header in head. The
// report is printed at the end of a log: a log longer than 64 KiB before it
// needs --format trtllm-bench-console.
func (trtllmConsole) Sniff(name string, head []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 4096), len(head)+1)
	prevRule := false
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if title, ok := trtllmHeader(t); ok && prevRule && strings.EqualFold(title, "PERFORMANCE OVERVIEW") {
			return true
		}
		prevRule = trtllmRule(t)
	}
	return false
}

// Parse reads every report in the file: a log may hold several runs.
func (trtllmConsole) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	sections, err := trtllmSections(ctx, name, r)
	if err != nil {
		return err
	}
	groups := trtllmGroups(sections)
	if len(groups) == 0 {
		return format.Errorf(name, "", "no trtllm-bench report found: no \"= PERFORMANCE OVERVIEW\" section")
	}
	runs := make([]*benchrun.Run, 0, len(groups))
	for i, g := range groups {
		run, ierr := trtllmConsoleRun(name, g)
		if ierr != nil {
			// One bad report of several: the others still ingest.
			run = format.Reject(i, ierr)
		}
		run.Ordinal = i
		runs = append(runs, run)
	}
	for _, run := range runs {
		if err := emit(run); err != nil {
			return err
		}
	}
	return nil
}

// trtllmSections splits the file into its "= TITLE" sections. Lines outside
// sections (log lines, commands, prose) are not the report's.
func trtllmSections(ctx context.Context, name string, r io.Reader) ([]*trtllmSection, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		out      []*trtllmSection
		cur      *trtllmSection
		opening  bool // cur's header was read; its second ===== line is due
		prevRule bool
		n        int
		any      bool
	)
	end := func(why string) {
		if cur != nil && !opening {
			cur.endBy = why
		}
		cur, opening = nil, false
	}
	for {
		line, err := textread.ReadLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if line == nil && errors.Is(err, io.EOF) {
			break
		}
		n++
		any = true
		if n%4096 == 0 {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
		}
		s := string(line)
		if n == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		t := strings.TrimSpace(s)
		isRule := trtllmRule(t)
		switch {
		case t == "":
			if cur != nil && !opening {
				cur.lines = append(cur.lines, textread.Line{N: n, Text: s})
			}
			isRule = prevRule // a blank line between a rule and a header is allowed
		case isRule:
			switch {
			case opening:
				opening = false
			case cur != nil:
				cur.closed = true
				cur = nil
			}
		case prevRule && cur == nil:
			if title, ok := trtllmHeader(t); ok {
				cur = &trtllmSection{title: title, key: strings.ToUpper(strings.Join(strings.Fields(title), " ")), line: n}
				out = append(out, cur)
				opening = true
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			end(fmt.Sprintf("the code fence at line %d", n))
		case trtllmLogLine.MatchString(t):
			// The logger printed on after the report: the section ended
			// without its rule.
			end(fmt.Sprintf("the log line at line %d", n))
		case opening:
			// A header without its second rule: read on as content.
			opening = false
			cur.lines = append(cur.lines, textread.Line{N: n, Text: s})
		case cur != nil:
			cur.lines = append(cur.lines, textread.Line{N: n, Text: s})
		}
		prevRule = isRule
		if errors.Is(err, io.EOF) {
			break
		}
	}
	end("the end of the file")
	if !any {
		return nil, format.Errorf(name, "", "the file is empty")
	}
	return out, nil
}

// trtllmGroup is the sections of one report: those printed before its
// PERFORMANCE OVERVIEW, the overview, and the trailers after it.
type trtllmGroup struct {
	sections []*trtllmSection
	perf     *trtllmSection
}

// trtllmGroups assigns sections to reports. A report's sections come in one
// of the orders the versions print (ENGINE DETAILS, WORLD, PERFORMANCE;
// REQUEST, WORLD, PERFORMANCE, DATASET; backend, REQUEST, WORLD, PERFORMANCE,
// DECODING, DATASET): a section already present, or any head section after
// the overview, starts the next report. Trailers met before any overview
// (trtllm-bench build prints DATASET DETAILS) belong to no report. A group
// of head sections without an overview is a report cut short and is kept,
// so that it is reported.
func trtllmGroups(sections []*trtllmSection) []*trtllmGroup {
	var out []*trtllmGroup
	cur := &trtllmGroup{}
	has := map[string]bool{}
	flush := func() {
		if cur.perf != nil || len(cur.sections) > 0 {
			out = append(out, cur)
		}
		cur, has = &trtllmGroup{}, map[string]bool{}
	}
	for _, s := range sections {
		switch trtllmSectionKind(s.key) {
		case trtllmIgnore:
			continue
		case trtllmHead:
			if cur.perf != nil || has[s.key] {
				flush()
			}
		case trtllmPerf:
			if cur.perf != nil {
				flush()
			}
			cur.perf = s
		case trtllmTrailer:
			if cur.perf == nil || has[s.key] {
				continue
			}
		}
		has[s.key] = true
		cur.sections = append(cur.sections, s)
	}
	flush()
	return out
}

// trtllmConsoleField is what a console label states.
type trtllmConsoleField struct {
	metric, unit, src string // a stated figure
	fact              string // or a provenance fact ("" for none)
	count             bool   // a whole number (workload.request_count)
}

// trtllmConsoleLabels maps labels (lower case, spaces collapsed, no colon)
// of every layout read to what they state; other labels go to Extra.
var trtllmConsoleLabels = map[string]trtllmConsoleField{
	"request throughput (req/sec)":         {metric: "request_throughput", unit: "req/s", src: "req/s"},
	"total output throughput (tokens/sec)": {metric: "output_throughput", unit: "tok/s", src: "tok/s"},
	// ≤ 0.17: total output tokens / total latency, the same figure.
	"token throughput (tokens/sec)":             {metric: "output_throughput", unit: "tok/s", src: "tok/s"},
	"total token throughput (tokens/sec)":       {metric: "total_token_throughput", unit: "tok/s", src: "tok/s"},
	"total latency (ms)":                        {metric: "duration", unit: "s", src: "ms"},
	"average request latency (ms)":              {metric: "e2el.mean", unit: "s", src: "ms"},
	"average time-to-first-token [ttft] (ms)":   {metric: "ttft.mean", unit: "s", src: "ms"},
	"average time-per-output-token [tpot] (ms)": {metric: "tpot.mean", unit: "s", src: "ms"},
	"number of requests":                        {fact: "workload.request_count", count: true},
	"model":                                     {fact: "checkpoint.model_id"},
	"tensorrt-llm version":                      {fact: "runtime.version"},
	"tensorrt llm version":                      {fact: "runtime.version"},
}

// trtllmBreakdownRE matches "[Latency] P50    : 3936.3022" and its kin.
var trtllmBreakdownRE = regexp.MustCompile(`^\[([A-Za-z]+)\]\s*([A-Za-z0-9.]+)\s*:\s*(\S*)$`)

// trtllmBreakdownMetrics maps breakdown tags to canonical latency metrics,
// printed in ms; other tags (GTPS, DT, ADT, DAR, AL) go to Extra.
var trtllmBreakdownMetrics = map[string]string{"latency": "e2el", "ttft": "ttft", "tpot": "tpot"}

// trtllmSubsectionRE matches "-- Request Latency Breakdown (ms) -----".
var trtllmSubsectionRE = regexp.MustCompile(`^--+\s*(.*?)\s*-*$`)

// trtllmValue reads a printed figure. ok is false for the placeholders that
// mean no figure (None, nan, inf, N/A).
func trtllmValue(s string) (float64, bool, error) {
	switch strings.ToLower(s) {
	case "none", "nan", "-nan", "inf", "-inf", "n/a", "":
		return 0, false, nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false, errors.New("not a number")
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, errors.New("not a number")
	}
	if v < 0 {
		return 0, false, errors.New("negative")
	}
	return v, true, nil
}

// trtllmConsoleRun turns one report's sections into a run.
func trtllmConsoleRun(name string, g *trtllmGroup) (*benchrun.Run, *format.InputError) {
	first := g.sections[0]
	run := trtllmRun(trtllmConsoleID, textread.At(first.line))
	if g.perf == nil {
		return nil, format.Errorf(name, textread.At(first.line), "a trtllm-bench report without its \"= PERFORMANCE OVERVIEW\" section: the report is cut short")
	}
	stated := trtllmStated{run: run, tol: 1e-12}
	var (
		oldLayout, request, pytorch, trt, streaming bool
		textLines                                   []string
	)
	addExtra := func(key, val string, n int) {
		if _, dup := run.Extra[key]; dup {
			key = fmt.Sprintf("%s (line %d)", key, n)
		}
		run.Extra[key] = val
	}
	for _, s := range g.sections {
		switch s.key {
		case "PYTORCH BACKEND":
			pytorch = true
		case "ENGINE DETAILS":
			trt = true
		case "REQUEST DETAILS":
			request = true
		}
		seen := map[string]int{}
		sub := ""
		for _, ln := range s.lines {
			t := strings.TrimSpace(ln.Text)
			if t == "" {
				continue
			}
			if m := trtllmSubsectionRE.FindStringSubmatch(t); m != nil {
				sub = m[1]
				if strings.Trim(t, "-") == "" {
					sub = "" // the rule under the dataset table's column titles
				}
				continue
			}
			if m := trtllmBreakdownRE.FindStringSubmatch(t); m != nil {
				tag, statWord, val := m[1], m[2], m[3]
				label := fmt.Sprintf("[%s] %s", tag, strings.ToUpper(statWord))
				if prev, dup := seen[label]; dup {
					return nil, format.Errorf(name, textread.At(ln.N), "%q is printed twice in one section (first at line %d)", label, prev)
				}
				seen[label] = ln.N
				metric, isLatency := trtllmBreakdownMetrics[strings.ToLower(tag)]
				stat, isStat := trtllmStat(statWord)
				if !isLatency || !isStat {
					addExtra(s.title+" / "+label, val, ln.N)
					continue
				}
				v, ok, err := trtllmValue(val)
				if err != nil {
					return nil, format.Errorf(name, textread.At(ln.N), "%s: %q is %v", label, val, err)
				}
				if !ok {
					run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, ln.N))
					continue
				}
				if metric == "ttft" || metric == "tpot" {
					streaming = true
				}
				stated.add(benchrun.Stated{Metric: metric + "." + stat, Value: trtllmMS(val, v), Unit: "s", SourceKey: label, SourceUnit: "ms"},
					s.title+" / "+label, val)
				continue
			}
			label, val, ok := strings.Cut(t, ":")
			if !ok {
				if s.key == "DATASET DETAILS" {
					continue // the table's column titles
				}
				textLines = append(textLines, strconv.Itoa(ln.N))
				addExtra(textread.At(ln.N), t, ln.N)
				continue
			}
			label = strings.Join(strings.Fields(label), " ")
			val = strings.TrimSpace(val)
			key := strings.ToLower(label)
			if prev, dup := seen[key]; dup {
				return nil, format.Errorf(name, textread.At(ln.N), "%q is printed twice in one section (first at line %d)", label, prev)
			}
			seen[key] = ln.N
			f, known := trtllmConsoleLabels[key]
			if key == "token throughput (tokens/sec)" {
				oldLayout = true
			}
			if key == "number of requests" && s.key == "PERFORMANCE OVERVIEW" {
				oldLayout = true
			}
			extraKey := s.title + " / " + label
			if sub != "" {
				extraKey = s.title + " / " + sub + " / " + label
			}
			switch {
			case !known || s.key == "DATASET DETAILS":
				addExtra(extraKey, val, ln.N)
			case f.fact != "":
				if val == "" || strings.EqualFold(val, "none") {
					addExtra(extraKey, val, ln.N)
					continue
				}
				if f.count {
					v, ok, err := trtllmValue(val)
					if err != nil || (ok && (v != math.Trunc(v) || v > 1<<53)) {
						return nil, format.Errorf(name, textread.At(ln.N), "%s: %q is not a whole number", label, val)
					}
					if !ok {
						addExtra(extraKey, val, ln.N)
						continue
					}
					if v == 0 {
						return nil, format.Errorf(name, textread.At(ln.N), "run has no requests: %s is 0", label)
					}
					val = strconv.FormatInt(int64(v), 10)
					if old, dup := run.Facts[f.fact]; dup && old != val {
						return nil, format.Errorf(name, textread.At(ln.N), "%s is %s here but %s earlier in the same report", label, val, old)
					}
				}
				run.Facts[f.fact] = val
				if f.fact == "runtime.version" {
					run.Facts["measurement.client_version"] = val
				}
			default:
				v, ok, err := trtllmValue(val)
				if err != nil {
					return nil, format.Errorf(name, textread.At(ln.N), "%s: %q is %v", label, val, err)
				}
				if !ok {
					addExtra(extraKey, val, ln.N)
					run.Notes = append(run.Notes, fmt.Sprintf("%s is %s at line %d: not stated", label, val, ln.N))
					continue
				}
				if f.metric == "ttft.mean" || f.metric == "tpot.mean" {
					streaming = true
				}
				cv := v
				if f.src == "ms" {
					cv = trtllmMS(val, v)
				}
				stated.add(benchrun.Stated{Metric: f.metric, Value: cv, Unit: f.unit, SourceKey: label, SourceUnit: f.src}, extraKey, val)
			}
		}
	}
	// A report whose last section the file cut off: every layout closes
	// its sections with a ===== line, except that the ≤ 0.17 overview is
	// often pasted without it (the PyTorch-flow example in the docs).
	last := g.sections[len(g.sections)-1]
	if !last.closed && last.endBy != "" {
		if last != g.perf || !oldLayout {
			return nil, format.Errorf(name, textread.At(last.line), "truncated report: the %q section ends at %s, before its closing ===== line", last.title, last.endBy)
		}
		run.Notes = append(run.Notes, fmt.Sprintf("the %q section ends at %s without its closing ===== line", last.title, last.endBy))
	}
	if _, ok := run.StatedValue("output_throughput"); !ok {
		return nil, format.Errorf(name, textread.At(g.perf.line), "the PERFORMANCE OVERVIEW has no output throughput line (\"Total Output Throughput\" or \"Token Throughput\"): the report is incomplete")
	}
	if len(textLines) > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("lines %s inside the report are not \"label: value\" lines: kept as text in Extra", strings.Join(textLines, ", ")))
	}
	switch {
	case oldLayout:
		run.FormatVariant = "console, ≤ 0.17 layout (ENGINE DETAILS, Token Throughput)"
	case request:
		run.FormatVariant = "console, REQUEST DETAILS layout with latency breakdown"
	default:
		run.FormatVariant = "console"
	}
	switch {
	case pytorch:
		run.FormatVariant += ", PyTorch backend"
	case trt:
		run.FormatVariant += ", TRT engine"
	}
	if streaming {
		run.FormatVariant += ", streaming"
	}
	run.Notes = append(run.Notes, trtllmNotes...)
	run.Notes = append(run.Notes, "summary only: no per-request records; figures are as printed, rounded to 4 decimals in the printed unit")
	return run, nil
}
