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
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/ingest/textread"
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

// NewTRTLLMJSON returns the parser for trtllm-bench --report_json files.
func NewJSON() format.Parser { return trtllmJSON{} }

// NewTRTLLMConsole returns the parser for trtllm-bench's console report.
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

// ---------------------------------------------------------------------------
// --report_json

// trtllmNode is one JSON value of a report, kept with where it was.
type trtllmNode struct {
	kind  pyjson.Kind
	raw   string // a scalar's JSON text as written
	str   string // a string's decoded text
	keys  []string
	kids  map[string]*trtllmNode
	items []*trtllmNode
	at    pyjson.Token // Offset and Line of the value's first token
}

// trtllmTree decodes the value that begins with first.
type trtllmTree struct {
	file  string
	d     *pyjson.Decoder
	nodes int
}

func (t *trtllmTree) value(first pyjson.Token, path string) (*trtllmNode, error) {
	t.nodes++
	if t.nodes > trtllmMaxNodes {
		return nil, format.Errorf(t.file, jsonread.Place("", first), "more than %d JSON values: too large for a trtllm-bench report", trtllmMaxNodes)
	}
	n := &trtllmNode{kind: first.Kind, at: pyjson.Token{Offset: first.Offset, Line: first.Line}}
	prefix := ""
	if path != "" {
		prefix = jsonread.KeyPlace(path)
	}
	switch first.Kind {
	case pyjson.ObjectStart:
		n.kids = map[string]*trtllmNode{}
		for {
			kt, err := t.d.Next()
			if err != nil {
				return nil, jsonread.Syntax(t.file, prefix, err)
			}
			if kt.Kind == pyjson.ObjectEnd {
				return n, nil
			}
			key := string(kt.Bytes)
			child := key
			if path != "" {
				child = path + "." + key
			}
			if _, dup := n.kids[key]; dup {
				return nil, format.Errorf(t.file, jsonread.Place("", kt), "key %q appears twice", child)
			}
			vt, err := t.d.Next()
			if err != nil {
				return nil, jsonread.Syntax(t.file, jsonread.KeyPlace(child), err)
			}
			kid, err := t.value(vt, child)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.kids[key] = kid
		}
	case pyjson.ArrayStart:
		for i := 0; ; i++ {
			vt, err := t.d.Next()
			if err != nil {
				return nil, jsonread.Syntax(t.file, prefix, err)
			}
			if vt.Kind == pyjson.ArrayEnd {
				return n, nil
			}
			kid, err := t.value(vt, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, kid)
		}
	case pyjson.String:
		n.str = string(first.Bytes)
		n.raw = string(jsonread.AppendExtraString(nil, n.str))
	case pyjson.Number:
		n.raw = string(first.Bytes)
	case pyjson.True:
		n.raw = "true"
	case pyjson.False:
		n.raw = "false"
	case pyjson.Null:
		n.raw = "null"
	default:
		return nil, format.Errorf(t.file, jsonread.Place(prefix, first), "unexpected %s", first.Kind)
	}
	return n, nil
}

// text is the node's Run.Extra text (jsonread's compact encoding).
func (n *trtllmNode) text() string {
	var b strings.Builder
	n.write(&b)
	return jsonread.Extra(b.String())
}

func (n *trtllmNode) write(b *strings.Builder) {
	switch n.kind {
	case pyjson.ObjectStart:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonread.AppendExtraString(nil, k))
			b.WriteByte(':')
			n.kids[k].write(b)
		}
		b.WriteByte('}')
	case pyjson.ArrayStart:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.raw)
	}
}

// Sniff reads the top-level keys: a report dict starts with "engine" and
// has the "world_info", "request_info" and "performance" dicts beside it.
func (trtllmJSON) Sniff(name string, head []byte) bool {
	d := pyjson.NewDecoderSize(bytes.NewReader(head), len(head)+16)
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		return false
	}
	var engine, other bool
	for !(engine && other) {
		k, err := d.Next()
		if err != nil || k.Kind != pyjson.Key {
			break
		}
		key := string(k.Bytes)
		v, err := d.Next()
		if err != nil {
			break
		}
		if v.Kind == pyjson.ObjectStart {
			switch key {
			case "engine":
				engine = true
			case "world_info", "request_info", "performance":
				other = true
			}
		}
		if d.Skip(v) != nil {
			break
		}
	}
	return engine && other
}

// trtllmJSONRun interprets a decoded report.
type trtllmJSONRun struct {
	file   string
	run    *benchrun.Run
	stated trtllmStated
}

func (r *trtllmJSONRun) errAt(path string, n *trtllmNode, msgf string, args ...any) error {
	return format.Errorf(r.file, jsonread.Place(jsonread.KeyPlace(path), n.at), msgf, args...)
}

// number reads a numeric leaf; ok is false for NaN, ±Infinity and null,
// which are kept in Extra with a note.
func (r *trtllmJSONRun) number(path string, n *trtllmNode) (float64, bool, error) {
	switch n.kind {
	case pyjson.Null:
		r.run.Extra[path] = "null"
		return 0, false, nil
	case pyjson.Number:
	default:
		return 0, false, r.errAt(path, n, "expected a number, found %s", n.kind)
	}
	if c := strings.TrimPrefix(n.raw, "-"); strings.HasPrefix(c, "N") || strings.HasPrefix(c, "I") {
		// Python's json.dumps writes NaN and ±Infinity bare.
		r.run.Extra[path] = n.raw
		r.run.Notes = append(r.run.Notes, fmt.Sprintf("%s is %s in the file: not stated as a figure", path, n.raw))
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(n.raw, 64)
	if err != nil && (math.IsInf(v, 0) || !errors.Is(err, strconv.ErrRange)) {
		return 0, false, r.errAt(path, n, "number %s is out of range", n.raw)
	}
	return v, true, nil
}

// figure states a non-negative figure in its canonical unit.
func (r *trtllmJSONRun) figure(path string, n *trtllmNode, metric, unit, srcUnit string) error {
	v, ok, err := r.number(path, n)
	if err != nil || !ok {
		return err
	}
	if v < 0 {
		return r.errAt(path, n, "negative %s %s", metric, n.raw)
	}
	cv := v
	if srcUnit == "ms" {
		cv = trtllmMS(n.raw, v)
	}
	r.stated.add(benchrun.Stated{Metric: metric, Value: cv, Unit: unit, SourceKey: path, SourceUnit: srcUnit}, path, n.raw)
	return nil
}

// count reads a non-negative whole number.
func (r *trtllmJSONRun) count(path string, n *trtllmNode) (int64, bool, error) {
	v, ok, err := r.number(path, n)
	if err != nil || !ok {
		return 0, false, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, false, r.errAt(path, n, "expected a whole number, found %s", n.raw)
	}
	if v < 0 {
		return 0, false, r.errAt(path, n, "negative count %s", n.raw)
	}
	return int64(v), true, nil
}

// str reads a string leaf; null is absent.
func (r *trtllmJSONRun) str(path string, n *trtllmNode) (string, bool, error) {
	switch n.kind {
	case pyjson.String:
		return n.str, true, nil
	case pyjson.Null:
		return "", false, nil
	}
	return "", false, r.errAt(path, n, "expected a string, found %s", n.kind)
}

// section returns the dict under key, nil when absent or null.
func (r *trtllmJSONRun) section(root *trtllmNode, key string) (*trtllmNode, error) {
	n, ok := root.kids[key]
	if !ok || n.kind == pyjson.Null {
		return nil, nil
	}
	if n.kind != pyjson.ObjectStart {
		return nil, r.errAt(key, n, "expected a dict, found %s", n.kind)
	}
	return n, nil
}

// percentiles states one PercentileStats dict of a latency metric (ms).
func (r *trtllmJSONRun) percentiles(path string, n *trtllmNode, metric string) error {
	if n.kind == pyjson.Null {
		r.run.Extra[path] = "null"
		return nil
	}
	if n.kind != pyjson.ObjectStart {
		return r.errAt(path, n, "expected a dict of percentiles, found %s", n.kind)
	}
	for _, k := range n.keys {
		kid, p := n.kids[k], path+"."+k
		stat, ok := trtllmStat(k)
		if !ok {
			r.run.Extra[p] = kid.text()
			continue
		}
		if err := r.figure(p, kid, metric+"."+stat, "s", "ms"); err != nil {
			return err
		}
	}
	return nil
}

var trtllmPerformanceKeys = map[string]struct{ metric, unit, src string }{
	// total_latency: last request end − first request start.
	"total_latency_ms":               {"duration", "s", "ms"},
	"avg_request_latency_ms":         {"e2el.mean", "s", "ms"},
	"request_throughput_req_s":       {"request_throughput", "req/s", "req/s"},
	"system_output_throughput_tok_s": {"output_throughput", "tok/s", "tok/s"},
	"system_total_throughput_tok_s":  {"total_token_throughput", "tok/s", "tok/s"},
}

// Parse reads the one report dict of the file.
func (trtllmJSON) Parse(ctx context.Context, name string, rd io.Reader, emit func(*benchrun.Run) error) error {
	d := pyjson.NewDecoder(rd)
	first, err := jsonread.Start(name, d)
	if err != nil {
		return err
	}
	if first.Kind != pyjson.ObjectStart {
		return format.Errorf(name, jsonread.Place("", first), "not a trtllm-bench report: the file holds a %s, not a JSON object", first.Kind)
	}
	tree := &trtllmTree{file: name, d: d}
	root, err := tree.value(first, "")
	if err != nil {
		return err
	}
	if err := jsonread.End(name, d, "a trtllm-bench report"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &trtllmJSONRun{file: name, run: &benchrun.Run{
		Location:         fmt.Sprintf("object at byte %d (line %d)", first.Offset, first.Line),
		Format:           trtllmJSONID,
		SourceTool:       trtllmTool,
		PercentileMethod: "lower-index",
		Facts:            map[string]string{"measurement.client": trtllmTool, "runtime.engine": trtllmEngine},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}}
	r.stated = trtllmStated{run: r.run, tol: 1e-9}
	if err := r.interpret(root); err != nil {
		return err
	}
	return emit(r.run)
}

func (r *trtllmJSONRun) interpret(root *trtllmNode) error {
	run := r.run
	perf, err := r.section(root, "performance")
	if err != nil {
		return err
	}
	if perf == nil {
		return format.Errorf(r.file, run.Location, "not a trtllm-bench report: no \"performance\" dict")
	}
	backend := ""
	if eng, err := r.section(root, "engine"); err != nil {
		return err
	} else if eng != nil {
		for _, k := range eng.keys {
			n, p := eng.kids[k], "engine."+k
			switch k {
			case "model", "version", "backend":
				s, ok, err := r.str(p, n)
				if err != nil {
					return err
				}
				switch {
				case !ok || s == "":
				case k == "model":
					run.Facts["checkpoint.model_id"] = s
				case k == "version":
					run.Facts["runtime.version"] = s
					run.Facts["measurement.client_version"] = s
				default:
					backend = s
					run.Extra[p] = n.raw
				}
			default:
				// dtype, kv_cache_dtype and quantization are TRT-LLM's own
				// spellings (bfloat16, FP8, null): kept as written rather
				// than set as checkpoint.precision, which the manifest
				// states in the project's terms.
				run.Extra[p] = n.text()
			}
		}
	}
	if world, err := r.section(root, "world_info"); err != nil {
		return err
	} else if world != nil {
		for _, k := range world.keys {
			n, p := world.kids[k], "world_info."+k
			run.Extra[p] = n.text()
			if k == "world_size" && n.kind == pyjson.Number {
				if c, ok, err := r.count(p, n); err != nil {
					return err
				} else if ok && c > 0 {
					run.Facts["hardware.gpu_count"] = strconv.FormatInt(c, 10)
				}
			}
		}
	}
	if req, err := r.section(root, "request_info"); err != nil {
		return err
	} else if req != nil {
		for _, k := range req.keys {
			n, p := req.kids[k], "request_info."+k
			if k != "num_requests" {
				run.Extra[p] = n.text()
				continue
			}
			c, ok, err := r.count(p, n)
			if err != nil {
				return err
			}
			if ok {
				if c == 0 {
					return r.errAt(p, n, "run has no requests: num_requests is 0")
				}
				run.Facts["workload.request_count"] = strconv.FormatInt(c, 10)
			}
		}
	}
	for _, k := range perf.keys {
		n, p := perf.kids[k], "performance."+k
		if m, ok := trtllmPerformanceKeys[k]; ok {
			if err := r.figure(p, n, m.metric, m.unit, m.src); err != nil {
				return err
			}
			continue
		}
		if k == "request_latency_percentiles_ms" {
			if err := r.percentiles(p, n, "e2el"); err != nil {
				return err
			}
			continue
		}
		// Per-user and per-GPU output throughput have no canonical metric.
		run.Extra[p] = n.text()
	}
	streaming := false
	if sm, err := r.section(root, "streaming_metrics"); err != nil {
		return err
	} else if sm != nil {
		streaming = true
		for _, k := range sm.keys {
			n, p := sm.kids[k], "streaming_metrics."+k
			var err error
			switch k {
			case "avg_ttft_ms":
				err = r.figure(p, n, "ttft.mean", "s", "ms")
			case "avg_tpot_ms":
				err = r.figure(p, n, "tpot.mean", "s", "ms")
			case "ttft_percentiles":
				err = r.percentiles(p, n, "ttft")
			case "tpot_percentiles":
				err = r.percentiles(p, n, "tpot")
			default:
				// token_output_speed_tok_s, gen_tps_percentiles: generation
				// speed per user, no canonical metric.
				run.Extra[p] = n.text()
			}
			if err != nil {
				return err
			}
		}
	}
	for _, k := range root.keys {
		switch k {
		case "engine", "world_info", "request_info", "performance", "streaming_metrics":
			continue
		}
		// decoding_stats, dataset, energy and keys of newer versions.
		run.Extra[k] = root.kids[k].text()
	}
	if _, ok := run.StatedValue("output_throughput"); !ok {
		if _, ok := run.StatedValue("duration"); !ok {
			return format.Errorf(r.file, run.Location, "the \"performance\" dict has neither system_output_throughput_tok_s nor total_latency_ms: not a trtllm-bench result")
		}
	}
	variant := "report JSON"
	switch strings.ToLower(backend) {
	case "":
	case "trt":
		variant += ", TRT engine"
	case "pytorch":
		variant += ", PyTorch backend"
	default:
		variant += ", " + backend + " backend"
	}
	if streaming {
		variant += ", streaming"
	}
	if _, ok := root.kids["decoding_stats"]; ok {
		variant += ", speculative decoding"
	}
	run.FormatVariant = variant
	run.Notes = append(run.Notes, trtllmNotes...)
	if _, ok := run.Facts["hardware.gpu_count"]; ok {
		run.Notes = append(run.Notes, "hardware.gpu_count is world_info.world_size, the number of GPU ranks trtllm-bench ran")
	}
	return nil
}

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
			if len(groups) == 1 {
				return ierr
			}
			// One bad report of several: the others still ingest.
			run = &benchrun.Run{Location: ierr.Place, Rejection: ierr.Reason}
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
	run := &benchrun.Run{
		Location:         textread.At(first.line),
		Format:           trtllmConsoleID,
		SourceTool:       trtllmTool,
		PercentileMethod: "lower-index",
		Facts:            map[string]string{"measurement.client": trtllmTool, "runtime.engine": trtllmEngine},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}
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
