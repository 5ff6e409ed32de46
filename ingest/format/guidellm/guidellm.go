package guidellm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// NewGuidellm returns the parser for guidellm's benchmark reports
// (vllm-project/guidellm, formerly neuralmagic/guidellm), every envelope from
// 0.2/0.3 ({"benchmarks"}) through 0.4 (+ "args"), 0.5–0.6 (+ "metadata"
// version 1) to 0.7/0.8 ("metadata" version 2 + "config"); JSON as
// guidellm writes it, or the same report as YAML. One run per benchmark:
// a sweep holds one benchmark per rate or concurrency point. FORMATS.md §5.
func New() format.Parser { return guidellmReport{} }

type guidellmReport struct{}

const (
	guidellmID = "guidellm-report"
	// glMaxYAML bounds a YAML report, which is decoded whole.
	glMaxYAML = 256 << 20
	// glEpochMin and glEpochMax bound plausible epoch seconds
	// (2000-01-01 to 2100-01-01 UTC).
	glEpochMin = 946684800
	glEpochMax = 4102444800
)

func (guidellmReport) ID() string { return guidellmID }
func (guidellmReport) Describe() string {
	return "guidellm benchmark report (JSON or YAML, 0.2 to 0.8)"
}

// Sniff accepts a JSON object whose top-level "metadata" names a
// guidellm_version, or whose "benchmarks" list starts with a
// "generative_benchmark"; and YAML holding the same keys. A GPUStack
// benchmark record embeds a guidellm report under "raw_metrics": its own
// top-level keys (model_instance_name, snapshot) are refused here.
func (guidellmReport) Sniff(name string, head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return false
	}
	if t[0] != '{' {
		return glYAMLLooksLike(t) == "guidellm"
	}
	d := pyjson.NewDecoderSize(bytes.NewReader(t), len(t)+16)
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		return false
	}
	found := false
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		if v.Kind == pyjson.EOF {
			return false
		}
		switch key {
		case "model_instance_name", "snapshot", "raw_metrics", "gpu_summary":
			found = false // GPUStack's
			return false
		case "metadata":
			switch v.Kind {
			case pyjson.ObjectStart:
				found = glSniffObjectKey(d, "guidellm_version") || found
			case pyjson.ArrayStart:
				return false // not a report's metadata
			}
		case "benchmarks":
			if v.Kind != pyjson.ArrayStart {
				found = false
				return false
			}
			if e, err := d.Next(); err == nil && e.Kind == pyjson.ObjectStart {
				found = found || glSniffBenchmark(d)
			}
			return false
		}
		return true
	})
	return found
}

// glSniffObjectKey reads the object just opened and reports whether it has
// key with a string value; it consumes the object.
func glSniffObjectKey(d *pyjson.Decoder, key string) bool {
	has := false
	jsonread.SniffObject(d, func(name string, v pyjson.Token) bool {
		has = has || name == key && v.Kind == pyjson.String && len(v.Bytes) > 0
		return true
	})
	return has
}

// glSniffBenchmark reads the first benchmark's keys: guidellm writes type_
// "generative_benchmark" first; older dumps are known by their keys.
func glSniffBenchmark(d *pyjson.Decoder) bool {
	var metrics, scheduler, typed bool
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		if v.Kind == pyjson.EOF {
			return false // the value is cut off: the key does not count
		}
		switch key {
		case "type_":
			typed = v.Kind == pyjson.String && string(v.Bytes) == "generative_benchmark"
			return false
		case "metrics":
			metrics = true
		case "run_stats", "scheduler_metrics", "scheduler_state":
			scheduler = true
		}
		return !(metrics && scheduler)
	})
	return typed || metrics && scheduler
}

// glYAMLLooksLike tells a YAML guidellm report from a GPUStack export by
// their top-level keys and tell-tale values; "" for neither.
func glYAMLLooksLike(t []byte) string {
	first := ""
	for line := range bytes.SplitSeq(t, []byte("\n")) {
		s := strings.TrimRight(string(line), "\r")
		if s == "" || strings.HasPrefix(s, "#") || s == "---" {
			continue
		}
		first = s
		break
	}
	if !strings.HasPrefix(first, "benchmarks:") && !strings.HasPrefix(first, "metadata:") &&
		!strings.HasPrefix(first, "args:") && !strings.HasPrefix(first, "name:") {
		return ""
	}
	switch {
	case bytes.Contains(t, []byte("\nmodel_instance_name:")) || bytes.Contains(t, []byte(" model_instance_name:")):
		return "gpustack"
	case bytes.Contains(t, []byte("generative_benchmark")) || bytes.Contains(t, []byte("guidellm_version:")):
		return "guidellm"
	}
	return ""
}

// glRequestOmit are request keys never needed for the records: prompts,
// outputs and request bodies are most of a report's bytes.
var glRequestOmit = map[string]bool{
	"prompt": true, "output": true, "request_args": true, "pdf": true,
	"cumulative_distribution_function": true,
}

// glSummaryOmit are summary keys skipped when building a benchmark's tree:
// probability density arrays can be as long as the run.
var glSummaryOmit = map[string]bool{"pdf": true, "cumulative_distribution_function": true}

// glStatuses are guidellm's request status buckets, in its order.
var glStatuses = []string{"successful", "errored", "incomplete"}

// glRequest is one sampled request as guidellm recorded it; times in
// seconds on the epoch clock, NaN when unknown.
type glRequest struct {
	status              int // index into glStatuses
	start, end          float64
	last                float64 // the last token's time
	latency, ttft       float64
	inTokens, outTokens int32
	err                 string
}

// glBench is one benchmark as read: its tree without the request samples,
// and the samples converted as they streamed past.
type glBench struct {
	index   int
	node    *glNode
	reqs    []glRequest
	samples bool   // a "requests" object with lists was present
	bad     string // why a sample was unreadable; the benchmark is rejected
}

// glEnvelope is the report around the benchmarks.
type glEnvelope struct {
	metadata, args, config *glNode
	extra                  []*glNode // other top-level keys, in order
	extraKeys              []string
	yaml                   bool
}

// generation names the report envelope.
func (e *glEnvelope) generation() string {
	if v := e.metadata.get("version"); v.finite() && v.num >= 2 || e.config != nil {
		return "0.7–0.8 (metadata v2 + config)"
	}
	if e.metadata != nil {
		return "0.5–0.6 (metadata v1 + args)"
	}
	if e.args != nil {
		return "0.4 (args)"
	}
	return "0.2–0.3 (benchmarks only)"
}

// Parse reads the report and emits one run per benchmark, in file order. A
// benchmark that cannot be read is emitted as a rejection so that the
// others still ingest; a file that is not a readable report is an
// InputError.
func (p guidellmReport) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first, ok, err := glFirstByte(br)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if !ok {
		return format.Errorf(name, "", "the file is empty")
	}
	var env *glEnvelope
	var benches []*glBench
	switch first {
	case '{':
		env, benches, err = glReadJSON(ctx, name, br)
	default:
		env, benches, err = glReadYAML(name, br)
	}
	if err != nil {
		return err
	}
	for _, b := range benches {
		if err := ctx.Err(); err != nil {
			return err
		}
		run := glBuildRun(name, env, b, b.index, guidellmID)
		if err := emit(run); err != nil {
			return err
		}
	}
	return nil
}

// glFirstByte peeks at the first byte that is not whitespace or a UTF-8
// byte order mark; ok is false for a file with nothing else.
func glFirstByte(br *bufio.Reader) (c byte, ok bool, err error) {
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	for i := 0; ; i++ {
		b, err := br.Peek(i + 1)
		if len(b) <= i {
			if errors.Is(err, io.EOF) {
				return 0, false, nil
			}
			return 0, false, err
		}
		if c := b[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, true, nil
		}
		if i >= 1<<16-1 {
			// Past this much whitespace the buffer would grow: let the
			// readers report what follows.
			return ' ', true, nil
		}
	}
}

// glSyntax turns a decoder error into an InputError.
func glSyntax(file string, err error) error {
	var tl *glTooLarge
	if errors.As(err, &tl) {
		return &format.InputError{File: file, Place: tl.where, Reason: tl.Error(), Err: err}
	}
	return jsonread.Syntax(file, "", err)
}

// glReadJSON streams a JSON report: envelope keys become trees, each
// benchmark becomes a tree with its request samples converted on the way.
func glReadJSON(ctx context.Context, name string, r io.Reader) (*glEnvelope, []*glBench, error) {
	d := pyjson.NewDecoder(r)
	g := &glJSONReader{d: d}
	tok, err := d.Next()
	if err != nil {
		return nil, nil, glSyntax(name, err)
	}
	if tok.Kind != pyjson.ObjectStart {
		return nil, nil, format.Errorf(name, fmt.Sprintf("byte %d (line %d)", tok.Offset, tok.Line),
			"not a guidellm report: the file holds a %s, not a JSON object", tok.Kind)
	}
	env := &glEnvelope{}
	var benches []*glBench
	haveList := false
	// The cursor passes decoder errors on as they are, for glSyntax where
	// the loop returns.
	c := jsonread.Cursor{Dec: d, File: name, Wrap: jsonread.Raw}
	seen := map[string]bool{}
	_, err = c.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes)
		if seen[key] {
			return format.Errorf(name, jsonread.Place("", kt), "key %q appears twice in the report", key)
		}
		seen[key] = true
		v, err := c.Next("")
		if err != nil {
			return err
		}
		if key != "benchmarks" {
			g.nodes = 0
			n, err := g.value(v, glSummaryOmit)
			if err != nil {
				return glSyntax(name, err)
			}
			env.set(key, n)
			return nil
		}
		if v.Kind != pyjson.ArrayStart {
			return format.Errorf(name, jsonread.Place("", v), "not a guidellm report: \"benchmarks\" holds a %s, not a list", v.Kind)
		}
		haveList = true
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			e, err := c.Next("")
			if err != nil {
				return err
			}
			if e.Kind == pyjson.ArrayEnd {
				return nil
			}
			b, err := glReadBench(g, e, i)
			if err != nil {
				return glSyntax(name, err)
			}
			benches = append(benches, b)
		}
	})
	if err != nil {
		return nil, nil, jsonread.Placed(err, func(err error) error { return glSyntax(name, err) })
	}
	if t, err := d.Next(); err != nil {
		return nil, nil, glSyntax(name, err)
	} else if t.Kind != pyjson.EOF {
		return nil, nil, format.Errorf(name, fmt.Sprintf("byte %d (line %d)", t.Offset, t.Line),
			"more than one JSON value: a guidellm report is one object")
	}
	return env, benches, glCheckEnvelope(name, env, haveList, benches)
}

func (e *glEnvelope) set(key string, n *glNode) {
	switch key {
	case "metadata":
		e.metadata = n
	case "args":
		e.args = n
	case "config":
		e.config = n
	default:
		e.extraKeys = append(e.extraKeys, key)
		e.extra = append(e.extra, n)
	}
}

// glCheckEnvelope refuses files that are JSON or YAML but not a report.
func glCheckEnvelope(name string, env *glEnvelope, haveList bool, benches []*glBench) error {
	if !haveList {
		return format.Errorf(name, "", "not a guidellm report: no \"benchmarks\" list")
	}
	if len(benches) == 0 {
		return format.Errorf(name, "", "the report's \"benchmarks\" list is empty: no runs")
	}
	for _, part := range []struct {
		key string
		n   *glNode
	}{{"metadata", env.metadata}, {"args", env.args}, {"config", env.config}} {
		if part.n != nil && part.n.kind != glObj && part.n.kind != glNull {
			return format.Errorf(name, part.n.where(), "not a guidellm report: %q holds a %s, not an object", part.key, part.n.kind)
		}
	}
	return nil
}

// glReadBench reads one element of "benchmarks": the "requests" samples are
// converted one at a time so their texts are never all in memory.
func glReadBench(g *glJSONReader, t pyjson.Token, index int) (*glBench, error) {
	b := &glBench{index: index}
	if t.Kind != pyjson.ObjectStart {
		g.nodes = 0
		n, err := g.value(t, glSummaryOmit)
		if err != nil {
			return nil, err
		}
		b.node = n
		return b, nil
	}
	g.nodes = 1
	b.node = &glNode{kind: glObj, line: t.Line, off: t.Offset}
	c := g.cursor()
	_, err := c.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		var n *glNode
		var err error
		if key == "requests" && v.Kind == pyjson.ObjectStart {
			n, err = glStreamRequests(g, v, b)
		} else {
			n, err = g.value(v, glSummaryOmit)
		}
		if err != nil {
			return err
		}
		b.node.keys = append(b.node.keys, key)
		b.node.vals = append(b.node.vals, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// glStreamRequests reads {"successful": [...], "errored": [...],
// "incomplete": [...], "total": null}, converting each sample as it is
// read; the tree keeps only a placeholder.
func glStreamRequests(g *glJSONReader, t pyjson.Token, b *glBench) (*glNode, error) {
	holder := &glNode{kind: glObj, line: t.Line, off: t.Offset}
	c := g.cursor()
	_, err := c.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		status := slices.Index(glStatuses, key)
		if status < 0 || v.Kind != pyjson.ArrayStart {
			n, err := g.value(v, glRequestOmit)
			if err != nil {
				return err
			}
			holder.keys, holder.vals = append(holder.keys, key), append(holder.vals, n)
			return nil
		}
		b.samples = true
		count := 0
		for {
			e, err := g.d.Next()
			if err != nil {
				return err
			}
			if e.Kind == pyjson.ArrayEnd {
				break
			}
			g.nodes = 0
			n, err := g.value(e, glRequestOmit)
			if err != nil {
				return err
			}
			if b.bad == "" {
				q, why := glRequestFromNode(n, status)
				if why != "" {
					b.bad = fmt.Sprintf("key \"requests.%s\" item %d at %s: %s", key, count, n.where(), why)
				} else {
					b.reqs = append(b.reqs, q)
				}
			}
			count++
		}
		holder.keys = append(holder.keys, key)
		holder.vals = append(holder.vals, &glNode{kind: glOmitted, line: v.Line, off: v.Offset,
			text: strconv.Quote(fmt.Sprintf("<%d request samples, read as per-request records>", count))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return holder, nil
}

// glReadYAML reads a report written as YAML (guidellm's .yaml output).
func glReadYAML(name string, r io.Reader) (*glEnvelope, []*glBench, error) {
	data, err := io.ReadAll(io.LimitReader(r, glMaxYAML+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(data) > glMaxYAML {
		return nil, nil, format.Errorf(name, "", "a YAML report larger than %d MiB is not read: convert it to JSON", glMaxYAML>>20)
	}
	root, err := glParseYAML(data, glRequestOmit)
	if err != nil {
		return nil, nil, format.Errorf(name, "", "not a guidellm report (neither JSON nor YAML): %v", err)
	}
	env, benches, ierr := glFromTree(name, root)
	if ierr != nil {
		return nil, nil, ierr
	}
	env.yaml = true
	return env, benches, nil
}

// glFromTree splits a report already in memory (YAML, or the report a
// GPUStack record embeds) into its envelope and benchmarks.
func glFromTree(name string, root *glNode) (*glEnvelope, []*glBench, error) {
	if root == nil || root.kind != glObj {
		kind := "nothing"
		if root != nil {
			kind = "a " + root.kind.String()
		}
		return nil, nil, format.Errorf(name, root.where(), "not a guidellm report: the document holds %s, not an object", kind)
	}
	env := &glEnvelope{}
	var benches []*glBench
	haveList := false
	for i, k := range root.keys {
		v := root.vals[i]
		if k != "benchmarks" {
			env.set(k, v)
			continue
		}
		if v.kind != glArr {
			return nil, nil, format.Errorf(name, v.where(), "not a guidellm report: \"benchmarks\" holds a %s, not a list", v.kind)
		}
		haveList = true
		for j, it := range v.items {
			benches = append(benches, glBenchFromTree(it, j))
		}
	}
	return env, benches, glCheckEnvelope(name, env, haveList, benches)
}

// glBenchFromTree converts the request samples of a benchmark held as a tree.
func glBenchFromTree(n *glNode, index int) *glBench {
	b := &glBench{index: index, node: n}
	reqs := n.get("requests")
	if reqs == nil || reqs.kind != glObj {
		return b
	}
	for s, status := range glStatuses {
		list := reqs.get(status)
		if list == nil || list.kind != glArr {
			continue
		}
		b.samples = true
		for i, it := range list.items {
			q, why := glRequestFromNode(it, s)
			if why != "" {
				if b.bad == "" {
					b.bad = fmt.Sprintf("key \"requests.%s\" item %d at %s: %s", status, i, it.where(), why)
				}
				continue
			}
			b.reqs = append(b.reqs, q)
		}
	}
	return b
}

// glRequestFromNode reads one request sample. 0.2/0.3 write start_time,
// end_time, first_token_time and scheduler_info; 0.4+ write
// request_start_time, request_end_time and info.timings; both write
// request_latency (s), time_to_first_token_ms, prompt_tokens and
// output_tokens. why is set for a sample that cannot be a record.
func glRequestFromNode(n *glNode, status int) (glRequest, string) {
	q := glRequest{status: status, start: benchrun.Unknown, end: benchrun.Unknown, last: benchrun.Unknown,
		latency: benchrun.Unknown, ttft: benchrun.Unknown, inTokens: -1, outTokens: -1}
	if n == nil || n.kind != glObj {
		kind := "nothing"
		if n != nil {
			kind = "a " + n.kind.String()
		}
		return q, "expected a request object, found " + kind
	}
	timings := n.at("info", "timings")
	var why string
	read := func(dst *float64, scale float64, candidates ...*glNode) {
		for _, c := range candidates {
			if why != "" || c.absent() {
				continue
			}
			if c.kind != glNum {
				why = fmt.Sprintf("expected a number of seconds, found %s at %s", c.kind, c.where())
				return
			}
			if !c.finite() {
				why = fmt.Sprintf("%s at %s is not a valid time", c.text, c.where())
				return
			}
			if c.num < 0 {
				why = fmt.Sprintf("negative time %s at %s", c.text, c.where())
				return
			}
			*dst = c.num * scale
			return
		}
	}
	read(&q.start, 1, n.get("request_start_time"), timings.get("request_start"), n.get("start_time"), n.at("scheduler_info", "request_start"))
	read(&q.end, 1, n.get("request_end_time"), timings.get("request_end"), n.get("end_time"), n.at("scheduler_info", "request_end"))
	read(&q.latency, 1, n.get("request_latency"))
	read(&q.ttft, 1e-3, n.get("time_to_first_token_ms"))
	read(&q.last, 1, timings.get("last_token_iteration"), n.get("last_token_time"))
	if why != "" {
		return q, why
	}
	// The record's latency is the canonical E2E latency, request start to
	// the last token (docs/metrics.md), so that (latency − TTFT) /
	// (output tokens − 1) is guidellm's own inter_token_latency_ms.
	// guidellm's request_latency runs on to request_end, after the stream
	// closed; it is used only when the last token's time is not recorded.
	switch {
	case benchrun.IsKnown(q.last) && benchrun.IsKnown(q.start) && q.last >= q.start:
		q.latency = q.last - q.start
	case !benchrun.IsKnown(q.latency) && benchrun.IsKnown(q.start) && benchrun.IsKnown(q.end) && q.end >= q.start:
		q.latency = q.end - q.start
	}
	if !benchrun.IsKnown(q.ttft) && benchrun.IsKnown(q.start) {
		var first float64 = benchrun.Unknown
		read(&first, 1, timings.get("first_token_iteration"), n.get("first_token_time"))
		if why != "" {
			return q, why
		}
		if benchrun.IsKnown(first) && first >= q.start {
			q.ttft = first - q.start
		}
	}
	for _, tk := range []struct {
		dst *int32
		key string
	}{{&q.inTokens, "prompt_tokens"}, {&q.outTokens, "output_tokens"}} {
		c := n.get(tk.key)
		if c.absent() {
			continue
		}
		if c.kind != glNum || !c.finite() || c.num != math.Trunc(c.num) {
			return q, fmt.Sprintf("%s at %s is not a token count", tk.key, c.where())
		}
		if c.num < 0 {
			return q, fmt.Sprintf("negative %s %s at %s", tk.key, c.text, c.where())
		}
		if c.num > math.MaxInt32 {
			return q, fmt.Sprintf("%s %s at %s is implausibly large", tk.key, c.text, c.where())
		}
		*tk.dst = int32(c.num)
	}
	switch glStatuses[status] {
	case "errored":
		q.err = "errored"
		for _, c := range []*glNode{n.at("info", "error"), n.get("error")} {
			if c != nil && c.kind == glStr && c.text != "" {
				q.err = c.text
				break
			}
		}
	case "incomplete":
		q.err = "incomplete: cancelled when the benchmark's time or request limit ended"
	}
	return q, ""
}
