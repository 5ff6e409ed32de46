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
	"time"

	"go.yaml.in/yaml/v3"

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
	for {
		k, err := d.Next()
		if err != nil || k.Kind != pyjson.Key {
			return found
		}
		key := string(k.Bytes)
		v, err := d.Next()
		if err != nil {
			return found
		}
		switch key {
		case "model_instance_name", "snapshot", "raw_metrics", "gpu_summary":
			return false
		case "metadata":
			if v.Kind == pyjson.ObjectStart && glSniffObjectKey(d, "guidellm_version") {
				found = true
			}
			continue
		case "benchmarks":
			if v.Kind != pyjson.ArrayStart {
				return false
			}
			e, err := d.Next()
			if err != nil || e.Kind != pyjson.ObjectStart {
				return found
			}
			return found || glSniffBenchmark(d)
		}
		if d.Skip(v) != nil {
			return found
		}
	}
}

// glSniffObjectKey reads the object just opened and reports whether it has
// key with a string value; it consumes the object.
func glSniffObjectKey(d *pyjson.Decoder, key string) bool {
	has := false
	for {
		k, err := d.Next()
		if err != nil || k.Kind != pyjson.Key {
			return has
		}
		name := string(k.Bytes)
		v, err := d.Next()
		if err != nil {
			return has
		}
		if name == key && v.Kind == pyjson.String && len(v.Bytes) > 0 {
			has = true
		}
		if d.Skip(v) != nil {
			return has
		}
	}
}

// glSniffBenchmark reads the first benchmark's keys: guidellm writes type_
// "generative_benchmark" first; older dumps are known by their keys.
func glSniffBenchmark(d *pyjson.Decoder) bool {
	var metrics, scheduler bool
	for {
		k, err := d.Next()
		if err != nil || k.Kind != pyjson.Key {
			return metrics && scheduler
		}
		key := string(k.Bytes)
		v, err := d.Next()
		if err != nil {
			return metrics && scheduler
		}
		switch key {
		case "type_":
			return v.Kind == pyjson.String && string(v.Bytes) == "generative_benchmark"
		case "metrics":
			metrics = true
		case "run_stats", "scheduler_metrics", "scheduler_state":
			scheduler = true
		}
		if metrics && scheduler {
			return true
		}
		if d.Skip(v) != nil {
			return false
		}
	}
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
	var e *pyjson.Error
	if !errors.As(err, &e) {
		return &format.InputError{File: file, Reason: err.Error(), Err: err}
	}
	reason := "malformed JSON: " + e.Msg
	switch {
	case e.Err != nil:
		reason = e.Msg
	case strings.Contains(e.Msg, "unexpected end of input"):
		reason += " (is the file truncated?)"
	}
	return &format.InputError{File: file, Place: e.Place(), Reason: reason, Err: err}
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
	seen := map[string]bool{}
	for {
		k, err := d.Next()
		if err != nil {
			return nil, nil, glSyntax(name, err)
		}
		if k.Kind == pyjson.ObjectEnd {
			break
		}
		key := string(k.Bytes)
		if seen[key] {
			return nil, nil, format.Errorf(name, fmt.Sprintf("byte %d (line %d)", k.Offset, k.Line), "key %q appears twice in the report", key)
		}
		seen[key] = true
		v, err := d.Next()
		if err != nil {
			return nil, nil, glSyntax(name, err)
		}
		if key != "benchmarks" {
			g.nodes = 0
			n, err := g.value(v, glSummaryOmit)
			if err != nil {
				return nil, nil, glSyntax(name, err)
			}
			env.set(key, n)
			continue
		}
		if v.Kind != pyjson.ArrayStart {
			return nil, nil, format.Errorf(name, fmt.Sprintf("byte %d (line %d)", v.Offset, v.Line),
				"not a guidellm report: \"benchmarks\" holds a %s, not a list", v.Kind)
		}
		haveList = true
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			e, err := d.Next()
			if err != nil {
				return nil, nil, glSyntax(name, err)
			}
			if e.Kind == pyjson.ArrayEnd {
				break
			}
			b, err := glReadBench(g, e, i)
			if err != nil {
				return nil, nil, glSyntax(name, err)
			}
			benches = append(benches, b)
		}
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
	for {
		k, err := g.d.Next()
		if err != nil {
			return nil, err
		}
		if k.Kind == pyjson.ObjectEnd {
			return b, nil
		}
		key := string(k.Bytes)
		v, err := g.d.Next()
		if err != nil {
			return nil, err
		}
		var n *glNode
		if key == "requests" && v.Kind == pyjson.ObjectStart {
			n, err = glStreamRequests(g, v, b)
		} else {
			n, err = g.value(v, glSummaryOmit)
		}
		if err != nil {
			return nil, err
		}
		b.node.keys = append(b.node.keys, key)
		b.node.vals = append(b.node.vals, n)
	}
}

// glStreamRequests reads {"successful": [...], "errored": [...],
// "incomplete": [...], "total": null}, converting each sample as it is
// read; the tree keeps only a placeholder.
func glStreamRequests(g *glJSONReader, t pyjson.Token, b *glBench) (*glNode, error) {
	holder := &glNode{kind: glObj, line: t.Line, off: t.Offset}
	for {
		k, err := g.d.Next()
		if err != nil {
			return nil, err
		}
		if k.Kind == pyjson.ObjectEnd {
			return holder, nil
		}
		key := string(k.Bytes)
		v, err := g.d.Next()
		if err != nil {
			return nil, err
		}
		status := slices.Index(glStatuses, key)
		if status < 0 || v.Kind != pyjson.ArrayStart {
			n, err := g.value(v, glRequestOmit)
			if err != nil {
				return nil, err
			}
			holder.keys, holder.vals = append(holder.keys, key), append(holder.vals, n)
			continue
		}
		b.samples = true
		count := 0
		for {
			e, err := g.d.Next()
			if err != nil {
				return nil, err
			}
			if e.Kind == pyjson.ArrayEnd {
				break
			}
			g.nodes = 0
			n, err := g.value(e, glRequestOmit)
			if err != nil {
				return nil, err
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
	}
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

// glRunBuilder collects one benchmark's run; the first problem found makes
// it a rejection.
type glRunBuilder struct {
	run     *benchrun.Run
	env     *glEnvelope
	b       *glBench
	metrics *glNode
	fail    string
	legacy  bool // a 0.2/0.3 benchmark (args, run_stats, top-level request_totals)
}

func (rb *glRunBuilder) failf(n *glNode, msgf string, args ...any) {
	if rb.fail != "" {
		return
	}
	rb.fail = fmt.Sprintf(msgf, args...)
	if n != nil {
		rb.fail += " (at " + n.where() + ")"
	}
}

func (rb *glRunBuilder) note(msgf string, args ...any) {
	rb.run.Notes = append(rb.run.Notes, fmt.Sprintf(msgf, args...))
}

func (rb *glRunBuilder) fact(field string, n *glNode) {
	if s, ok := n.scalarText(); ok {
		rb.run.Facts[field] = s
	}
}

// glBuildRun turns one benchmark into a run, or a rejection naming the
// benchmark and what is wrong with it.
func glBuildRun(file string, env *glEnvelope, b *glBench, ordinal int, format string) *benchrun.Run {
	where := b.node.where()
	loc := fmt.Sprintf("benchmark %d at %s", b.index, where)
	rb := &glRunBuilder{
		env: env, b: b,
		run: &benchrun.Run{
			Ordinal: ordinal, Location: loc, Format: format, SourceTool: "guidellm",
			PercentileMethod: "nearest-rank", Facts: map[string]string{}, Extra: map[string]string{},
			Completed: -1, Failed: -1,
		},
	}
	if b.node.kind != glObj {
		return &benchrun.Run{Ordinal: ordinal, Location: loc,
			Rejection: fmt.Sprintf("benchmark %d is a %s, not a benchmark object", b.index, b.node.kind)}
	}
	rb.build()
	if rb.fail == "" && b.bad != "" {
		rb.fail = b.bad
	}
	if rb.fail != "" {
		return &benchrun.Run{Ordinal: ordinal, Location: loc, Rejection: fmt.Sprintf("benchmark %d: %s", b.index, rb.fail)}
	}
	return rb.run
}

func (rb *glRunBuilder) build() {
	n := rb.b.node
	if t := n.get("type_"); t != nil && t.kind == glStr && t.text != "generative_benchmark" {
		rb.failf(t, "type_ %q is not a generative benchmark (only text generation benchmarks are read)", t.text)
		return
	}
	rb.metrics = n.get("metrics")
	if rb.metrics == nil || rb.metrics.kind != glObj {
		rb.failf(n, "no \"metrics\" object")
		return
	}
	rb.legacy = n.get("run_stats") != nil || n.get("args") != nil && n.get("config") == nil
	rb.run.FormatVariant = rb.env.generation()
	if rb.env.yaml {
		rb.run.FormatVariant += ", YAML"
	}
	rb.run.Facts["measurement.client"] = "guidellm"
	rb.fact("measurement.client_version", rb.env.metadata.get("guidellm_version"))

	rb.counts()
	rb.duration()
	rb.latencies()
	rb.rates()
	rb.facts()
	rb.records()
	rb.extras()
}

// counts states completed and failed from request_totals (top-level in
// 0.2/0.3, inside metrics from 0.4). guidellm splits the requests that did
// not complete into errored and incomplete (cancelled when the benchmark's
// limit ended): both count as failed here, and a note says how many of each.
func (rb *glRunBuilder) counts() {
	totals := rb.metrics.get("request_totals")
	key := "metrics.request_totals"
	if totals == nil {
		totals, key = rb.b.node.get("request_totals"), "request_totals"
	}
	if totals == nil || totals.kind != glObj {
		rb.failf(rb.b.node, "no request_totals: the benchmark does not say how many requests completed")
		return
	}
	var c [3]int64
	for i, s := range glStatuses {
		v := totals.get(s)
		if v.absent() {
			rb.failf(totals, "%s.%s is missing", key, s)
			return
		}
		n, ok := rb.count(v, key+"."+s)
		if !ok {
			return
		}
		c[i] = n
	}
	if tot := totals.get("total"); tot.finite() && tot.num != float64(c[0]+c[1]+c[2]) {
		rb.note("%s.total is %s but successful + errored + incomplete = %d", key, tot.text, c[0]+c[1]+c[2])
	}
	if c[0]+c[1]+c[2] == 0 {
		rb.failf(totals, "no requests: %s counts 0 successful, 0 errored and 0 incomplete", key)
		return
	}
	rb.run.Completed, rb.run.Failed = c[0], c[1]+c[2]
	rb.run.Stated = append(rb.run.Stated,
		benchrun.Stated{Metric: "completed", Value: float64(c[0]), Unit: "requests", SourceKey: key + ".successful", SourceUnit: "requests"},
		benchrun.Stated{Metric: "failed", Value: float64(c[1] + c[2]), Unit: "requests", SourceKey: key + ".errored + incomplete", SourceUnit: "requests"})
	if c[2] > 0 {
		rb.note("failed counts %d errored and %d incomplete requests (guidellm's \"incomplete\" were cancelled when the benchmark's time or request limit ended)", c[1], c[2])
	}
}

// count reads a non-negative whole number.
func (rb *glRunBuilder) count(v *glNode, key string) (int64, bool) {
	switch {
	case v.kind != glNum:
		rb.failf(v, "%s: expected a count, found %s", key, v.kind)
	case !v.finite():
		rb.failf(v, "%s is %s, not a count", key, v.text)
	case v.num < 0:
		rb.failf(v, "%s: negative count %s", key, v.text)
	case v.num != math.Trunc(v.num) || v.num > 1<<53:
		rb.failf(v, "%s: %s is not a whole number", key, v.text)
	default:
		return int64(v.num), true
	}
	return 0, false
}

// number reads a stated figure: ok is false for null (nothing stated) and
// for NaN or ±Infinity, which are kept in Extra with a note.
func (rb *glRunBuilder) number(v *glNode, key string, nonNegative bool) (float64, bool) {
	switch {
	case v.absent():
		return 0, false
	case v.kind != glNum:
		rb.failf(v, "%s: expected a number, found %s", key, v.kind)
		return 0, false
	case !v.finite():
		rb.run.Extra[key] = glText(v)
		rb.note("%s is %s in the file; not kept as a stated figure", key, glText(v))
		return 0, false
	case nonNegative && v.num < 0:
		rb.failf(v, "%s: negative value %s", key, v.text)
		return 0, false
	}
	return v.num, true
}

func (rb *glRunBuilder) state(metric, unit, key, sourceUnit string, v float64) {
	cv, cu := format.ToCanonicalUnit(v, sourceUnit)
	if sourceUnit != "ms" {
		cu = unit
	}
	rb.run.Stated = append(rb.run.Stated, benchrun.Stated{Metric: metric, Value: cv, Unit: cu, SourceKey: key, SourceUnit: sourceUnit})
}

// duration states the benchmark's duration: from the first request's start
// to the last request's end in 0.2/0.3, the measurement window
// (measure_start_time to measure_end_time) from 0.4.
func (rb *glRunBuilder) duration() {
	v := rb.b.node.get("duration")
	d, ok := rb.number(v, "duration", true)
	if !ok {
		return
	}
	if d == 0 {
		rb.note("duration is 0 in the file; not stated")
		return
	}
	rb.state("duration", "s", "duration", "s", d)
	sm := rb.b.node.get("scheduler_metrics")
	if sm == nil {
		return
	}
	end, reqEnd := sm.get("measure_end_time"), sm.get("request_end_time")
	if end.finite() && reqEnd.finite() && end.num > reqEnd.num+1e-3 {
		rb.note("guidellm's measurement window (duration %.6g s) ends %.6g s after the last request completed: its duration and the rates over it include time with no request in flight", d, end.num-reqEnd.num)
	}
}

// glPercentiles maps guidellm's percentile keys to canonical suffixes; p50 is
// the median, stated once.
var glPercentiles = []struct{ key, canon string }{
	{"p001", "p0.1"}, {"p01", "p1"}, {"p05", "p5"}, {"p10", "p10"}, {"p25", "p25"},
	{"p75", "p75"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}, {"p999", "p99.9"},
}

// successful returns metrics.<name>.successful, failing on a wrong shape;
// nil when the metric is absent or had no successful samples.
func (rb *glRunBuilder) successful(name string) *glNode {
	m := rb.metrics.get(name)
	if m.absent() {
		return nil
	}
	if m.kind != glObj {
		rb.failf(m, "metrics.%s: expected a distribution summary object, found %s", name, m.kind)
		return nil
	}
	s := m.get("successful")
	if s.absent() {
		return nil
	}
	if s.kind != glObj {
		rb.failf(s, "metrics.%s.successful: expected a distribution summary object, found %s", name, s.kind)
		return nil
	}
	if c := s.get("count"); c != nil {
		if n, ok := rb.count(c, "metrics."+name+".successful.count"); !ok || n == 0 {
			return nil
		}
	}
	return s
}

// distribution states mean, median, std, min, max and the percentiles of a
// distribution of per-request values as canon.<stat>.
func (rb *glRunBuilder) distribution(name, canon, sourceUnit string) bool {
	s := rb.successful(name)
	if s == nil {
		return false
	}
	base := "metrics." + name + ".successful."
	for _, st := range []struct{ key, stat string }{
		{"mean", "mean"}, {"median", "median"}, {"std_dev", "std"}, {"min", "min"}, {"max", "max"},
	} {
		if v, ok := rb.number(s.get(st.key), base+st.key, true); ok {
			rb.state(canon+"."+st.stat, "s", base+st.key, sourceUnit, v)
		}
	}
	pct := s.get("percentiles")
	if pct.absent() {
		return true
	}
	if pct.kind != glObj {
		rb.failf(pct, "%spercentiles: expected an object, found %s", base, pct.kind)
		return true
	}
	for _, p := range glPercentiles {
		if v, ok := rb.number(pct.get(p.key), base+"percentiles."+p.key, true); ok {
			rb.state(canon+"."+p.canon, "s", base+"percentiles."+p.key, sourceUnit, v)
		}
	}
	return true
}

// latencies states TTFT, E2E latency, TPOT and per-chunk ITL where guidellm's
// metric means the canonical one (docs/metrics.md, FORMATS.md §9).
func (rb *glRunBuilder) latencies() {
	rb.distribution("time_to_first_token_ms", "ttft", "ms")
	rb.distribution("request_latency", "e2el", "s")
	// benchmark-runner (GPUStack) adds the pooled gaps between streamed
	// chunks: vLLM's ITL.
	rb.distribution("inter_token_latency_per_chunk_ms", "itl", "ms")

	// inter_token_latency_ms is (last token − first token) / (output tokens − 1)
	// per request: vLLM's TPOT. But guidellm weights each request by its
	// output tokens − 1 (a pooled, token-weighted distribution), so its mean
	// and percentiles are TPOT's only when every request has the same output
	// length and the weights are equal.
	if s := rb.successful("inter_token_latency_ms"); s != nil {
		out := rb.successful("output_token_count")
		lo, hi := out.get("min"), out.get("max")
		if out != nil && lo.finite() && hi.finite() && lo.num == hi.num {
			rb.distribution("inter_token_latency_ms", "tpot", "ms")
			rb.note("tpot is guidellm's inter_token_latency_ms, (last token − first token) / (output tokens − 1): guidellm weights it by output tokens − 1, and every successful request produced %s output tokens, so the weights are equal and it is the per-request TPOT", lo.text)
		} else {
			rb.run.Extra["metrics.inter_token_latency_ms"] = glText(rb.metrics.get("inter_token_latency_ms"))
			rb.note("inter_token_latency_ms (vLLM's TPOT per request) is weighted by output tokens − 1 across requests of different output lengths, so its mean and percentiles are not TPOT over requests: kept in Extra, not stated as tpot")
		}
	}
	if m := rb.metrics.get("time_per_output_token_ms"); !m.absent() {
		rb.run.Extra["metrics.time_per_output_token_ms"] = glText(m)
		what := "(last token − request start) / output tokens, so it includes TTFT"
		if rb.legacy {
			what = "(last token − first token) / output tokens, dividing the decode time by every output token"
		}
		rb.note("time_per_output_token_ms is guidellm's %s: it is not TPOT, so it is kept in Extra and not stated as tpot", what)
	}
}

// glRateSeries are guidellm's time-weighted rate and concurrency series.
// Their means are the tool's headline throughput, but they are not count /
// duration (the rates are weighted by the interval around each event, and
// token rates span the token events rather than the benchmark's window): they
// are stated under their own names, never as output_throughput.
var glRateSeries = []struct{ key, metric, unit string }{
	{"requests_per_second", "request_rate_series.mean", "req/s"},
	{"output_tokens_per_second", "output_rate_series.mean", "tok/s"},
	{"tokens_per_second", "total_token_rate_series.mean", "tok/s"},
	{"prompt_tokens_per_second", "input_rate_series.mean", "tok/s"},
	{"request_concurrency", "concurrency_series.mean", "requests"},
}

// rates states token totals and the rate-series means.
func (rb *glRunBuilder) rates() {
	for _, tk := range []struct{ key, metric string }{
		{"prompt_token_count", "total_input_tokens"}, {"output_token_count", "total_output_tokens"},
	} {
		s := rb.successful(tk.key)
		if s == nil {
			continue
		}
		key := "metrics." + tk.key + ".successful.total_sum"
		v, ok := rb.number(s.get("total_sum"), key, true)
		if !ok {
			continue
		}
		// From 0.4 total_sum is mean × count, a float a rounding step away
		// from the whole number of tokens it sums.
		if r := math.Round(v); math.Abs(v-r) <= 1e-6*math.Max(1, r) {
			v = r
		} else {
			rb.note("%s is %s, not a whole number of tokens", key, s.get("total_sum").text)
		}
		rb.state(tk.metric, "tokens", key, "tokens", v)
	}
	stated := false
	for _, rs := range glRateSeries {
		s := rb.successful(rs.key)
		if s == nil {
			continue
		}
		key := "metrics." + rs.key + ".successful.mean"
		if v, ok := rb.number(s.get("mean"), key, true); ok {
			rb.state(rs.metric, rs.unit, key, rs.unit, v)
			stated = true
		}
	}
	if stated {
		rb.note("the *_rate_series.mean figures are guidellm's time-weighted rate means (its headline throughput), not count / duration: output and total token throughput are the counts over the window, computed from the records or the stated totals and duration")
	}
}

// facts records what the report says about the run's provenance.
func (rb *glRunBuilder) facts() {
	n, env := rb.b.node, rb.env
	cfg := n.get("config") // 0.4+: the benchmark's own configuration
	spec := env.config.get("spec")
	args := env.args
	legacyArgs := n.get("args") // 0.2/0.3

	first := func(cands ...*glNode) *glNode {
		for _, c := range cands {
			if _, ok := c.scalarText(); ok {
				return c
			}
		}
		return nil
	}
	rb.fact("checkpoint.model_id", first(cfg.at("backend", "model"), spec.at("backend", "model"), args.get("model"), n.at("worker", "backend_model")))
	rb.fact("checkpoint.tokenizer", first(spec.at("tokenizer", "model"), args.get("processor"), n.at("request_loader", "processor")))
	rb.fact("measurement.backend", first(cfg.at("backend", "kind"), spec.at("backend", "kind"), args.get("backend"), n.at("worker", "backend_type")))
	rb.fact("metadata.target", first(cfg.at("backend", "target"), spec.at("backend", "target"), args.get("target"), n.at("worker", "backend_target")))
	rb.fact("workload.seed", first(spec.at("seed", "value"), cfg.at("requests", "random_seed"), args.get("random_seed"), legacyArgs.at("profile", "random_seed")))
	rb.fact("metadata.client_platform", env.metadata.get("platform"))
	rb.fact("metadata.python_version", env.metadata.get("python_version"))
	rb.fact("metadata.guidellm_run_id", first(cfg.get("run_id"), n.get("run_id")))
	rb.fact("metadata.guidellm_benchmark_id", first(cfg.get("id_"), n.get("id_")))
	rb.fact("metadata.guidellm_profile", first(cfg.at("profile", "type_"), cfg.at("profile", "kind"), spec.at("profile", "kind"), legacyArgs.at("profile", "type_"), args.get("profile")))
	if labels := env.config.at("metadata", "labels"); labels != nil && labels.kind == glObj {
		for i, k := range labels.keys {
			rb.fact("metadata."+k, labels.vals[i])
		}
	}

	// The load: guidellm's strategy of this benchmark.
	strategy := first(cfg.at("strategy", "type_"), legacyArgs.at("strategy", "type_"))
	st := cfg.get("strategy")
	if st == nil {
		st = legacyArgs.get("strategy")
	}
	if strategy != nil {
		rb.fact("metadata.guidellm_strategy", strategy)
		switch strategy.text {
		case "synchronous":
			rb.run.Facts["workload.concurrency"] = "1"
		case "concurrent":
			rb.fact("workload.concurrency", st.get("streams"))
		case "throughput":
			rb.run.Facts["workload.request_rate"] = "inf"
			rb.fact("workload.concurrency", st.get("max_concurrency"))
		case "constant", "poisson", "async":
			rb.fact("workload.request_rate", st.get("rate"))
		}
	}

	// The request count is the benchmark's max-requests limit, as vLLM's
	// num_prompts is its request count.
	limit := first(cfg.at("constraints", "max_requests", "max_num"), cfg.at("constraints", "max_requests", "args", "count"),
		cfg.at("constraints", "max_requests", "max_requests"), legacyArgs.get("max_number"), args.get("max_requests"))
	if limit != nil && limit.finite() && limit.num > 0 {
		rb.fact("workload.request_count", limit)
	}

	rb.dataset(first(n.at("request_loader", "data"), cfg.at("requests", "data")), args.get("data"), spec.get("data"))

	if v := n.get("start_time"); v.finite() {
		if v.num >= glEpochMin && v.num < glEpochMax {
			sec, frac := math.Modf(v.num)
			rb.run.Facts["measurement.date"] = time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(time.RFC3339)
		} else {
			rb.note("start_time %s is not a plausible epoch time; no measurement.date recorded", v.text)
		}
	}
}

// dataset records the data source and, for guidellm's synthetic data with
// fixed lengths, the input and output lengths.
func (rb *glRunBuilder) dataset(text, list, spec *glNode) {
	var sources []string
	var synth []map[string]string
	add := func(s string) {
		if s == "" {
			return
		}
		sources = append(sources, s)
		if kv := glSyntheticSpec(s); kv != nil {
			synth = append(synth, kv)
		}
	}
	// The report's own argument list first: the benchmark's copy
	// (config.requests.data) is its Python repr, "['/path']".
	if list != nil && list.kind == glArr {
		for _, it := range list.items {
			if s, ok := it.scalarText(); ok {
				add(s)
			}
		}
	}
	if s, ok := text.scalarText(); ok && len(sources) == 0 {
		add(s)
	}
	if spec != nil && spec.kind == glArr && len(sources) == 0 {
		for _, it := range spec.items {
			kv := map[string]string{}
			for i, k := range it.keys {
				if s, ok := it.vals[i].scalarText(); ok {
					kv[k] = s
				}
			}
			name := kv["kind"]
			if p := kv["path"]; p != "" {
				name = p
			}
			if name != "" {
				sources = append(sources, name)
			}
			if kv["prompt_tokens"] != "" || kv["output_tokens"] != "" {
				synth = append(synth, kv)
			}
		}
	}
	if len(sources) > 0 {
		rb.run.Facts["workload.dataset"] = strings.Join(sources, ", ")
	}
	if len(synth) != 1 {
		return
	}
	fixed := func(prefix string) string {
		v := synth[0][prefix]
		if v == "" {
			return ""
		}
		for _, s := range []string{"_stdev", "_min", "_max"} {
			if x := synth[0][prefix+s]; x != "" && x != "0" && x != v {
				return ""
			}
		}
		return v
	}
	if v := fixed("prompt_tokens"); v != "" {
		rb.run.Facts["workload.input_len"] = v
	}
	if v := fixed("output_tokens"); v != "" {
		rb.run.Facts["workload.output_len"] = v
	}
}

// glSyntheticSpec reads guidellm's synthetic data argument,
// "prompt_tokens=256,output_tokens=128" or the same as a JSON object; nil
// when s is a path or a dataset name.
func glSyntheticSpec(s string) map[string]string {
	s = strings.TrimSpace(s)
	kv := map[string]string{}
	if strings.HasPrefix(s, "{") {
		d := pyjson.NewDecoder(strings.NewReader(s))
		g := &glJSONReader{d: d}
		t, err := d.Next()
		if err != nil {
			return nil
		}
		n, err := g.value(t, nil)
		if err != nil || n.kind != glObj {
			return nil
		}
		for i, k := range n.keys {
			if v, ok := n.vals[i].scalarText(); ok {
				kv[k] = v
			}
		}
	} else {
		for part := range strings.SplitSeq(s, ",") {
			k, v, ok := strings.Cut(part, "=")
			if !ok {
				return nil
			}
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if kv["prompt_tokens"] == "" && kv["output_tokens"] == "" {
		return nil
	}
	return kv
}

// records turns the request samples into the run's per-request records when
// they are the whole run: every request guidellm counted, in every status.
// guidellm keeps a sample of them (--sample-requests); a sample is not the
// run, so then no records are kept and the figures are guidellm's own.
func (rb *glRunBuilder) records() {
	b := rb.b
	if !b.samples || rb.fail != "" {
		if rb.run.Completed+rb.run.Failed > 0 {
			rb.note("summary only: the report keeps no request samples")
		}
		return
	}
	reqs := b.reqs
	// From 0.4 guidellm computes its figures over the requests that overlap
	// its measurement window (RequestsAccumulator.get_within_range), while
	// the samples also hold the warmup and cooldown requests.
	if sm := rb.b.node.get("scheduler_metrics"); sm != nil {
		ms, me := sm.get("measure_start_time"), sm.get("measure_end_time")
		if ms.finite() && me.finite() {
			kept := reqs[:0:0]
			for _, q := range reqs {
				if !benchrun.IsKnown(q.end) || q.end < ms.num {
					continue
				}
				if benchrun.IsKnown(q.start) && q.start > me.num || !benchrun.IsKnown(q.start) && q.end > me.num {
					continue
				}
				kept = append(kept, q)
			}
			if out := len(reqs) - len(kept); out > 0 {
				rb.note("%d of the %d request samples fall outside guidellm's measurement window (warmup or cooldown): they are not the run's records", out, len(reqs))
			}
			reqs = kept
		}
	}
	if len(reqs) == 0 {
		rb.note("summary only: the report keeps no request samples of this benchmark")
		return
	}
	var have [3]int64
	for _, q := range reqs {
		have[q.status]++
	}
	want := [3]int64{rb.run.Completed, -1, -1}
	totals := rb.metrics.get("request_totals")
	if totals == nil {
		totals = rb.b.node.get("request_totals")
	}
	for i, s := range glStatuses[1:] {
		if v := totals.get(s); v.finite() {
			want[i+1] = int64(v.num)
		}
	}
	if have != want {
		rb.note("the report keeps %d successful, %d errored and %d incomplete request samples of the %d, %d and %d it counted: a sample is not the run, so no per-request records are kept",
			have[0], have[1], have[2], want[0], want[1], want[2])
		return
	}
	slices.SortStableFunc(reqs, func(a, c glRequest) int {
		switch {
		case !benchrun.IsKnown(a.start) && !benchrun.IsKnown(c.start):
			return 0
		case !benchrun.IsKnown(a.start):
			return 1
		case !benchrun.IsKnown(c.start):
			return -1
		case a.start < c.start:
			return -1
		case a.start > c.start:
			return 1
		}
		return 0
	})
	epoch := true
	out := make([]benchrun.Request, len(reqs))
	for i, q := range reqs {
		r := format.NewRequest(i)
		r.Start, r.TTFT, r.Latency = q.start, q.ttft, q.latency
		r.InputTokens, r.OutputTokens, r.Error = q.inTokens, q.outTokens, q.err
		out[i] = r
		if !benchrun.IsKnown(q.start) || q.start < glEpochMin || q.start >= glEpochMax {
			epoch = false
		}
	}
	rb.run.Requests, rb.run.HasRequests = out, true
	rb.run.FormatVariant += ", request samples"
	var tail float64
	tails := 0
	for _, q := range reqs {
		if q.status == 0 && benchrun.IsKnown(q.last) && benchrun.IsKnown(q.end) && benchrun.IsKnown(q.start) && q.end >= q.last {
			tail += q.end - q.last
			tails++
		}
	}
	if tails > 0 {
		rb.note("the records' latency runs from request start to the last token (the canonical E2E latency); guidellm's request_latency, stated as e2el, runs on to the end of the response, on average %.6g s later", tail/float64(tails))
	}
	if epoch {
		rb.run.Clock = benchrun.ClockEpoch
		rb.run.Facts["measurement.clock"] = string(benchrun.ClockEpoch)
	} else {
		rb.note("some request start times are missing or not epoch seconds: the records carry no clock")
	}
}

// glHandled are benchmark keys read into stated figures or records; every
// other key is kept in Extra as written.
var glHandled = map[string]bool{"metrics": true, "duration": true, "requests": true, "request_totals": true}

// glMetricsHandled are metrics read into stated figures (or kept in Extra by
// latencies with a note).
var glMetricsHandled = map[string]bool{
	"request_totals": true, "time_to_first_token_ms": true, "request_latency": true,
	"inter_token_latency_per_chunk_ms": true, "inter_token_latency_ms": true, "time_per_output_token_ms": true,
	"prompt_token_count": true, "output_token_count": true, "requests_per_second": true,
	"output_tokens_per_second": true, "tokens_per_second": true, "prompt_tokens_per_second": true,
	"request_concurrency": true,
}

// extras keeps what was not interpreted: the benchmark's other keys, the
// other metrics, and the report's envelope.
func (rb *glRunBuilder) extras() {
	n := rb.b.node
	for i, k := range n.keys {
		if !glHandled[k] {
			rb.run.Extra[k] = glText(n.vals[i])
		}
	}
	for i, k := range rb.metrics.keys {
		if !glMetricsHandled[k] {
			rb.run.Extra["metrics."+k] = glText(rb.metrics.vals[i])
		}
	}
	env := rb.env
	for _, part := range []struct {
		key string
		n   *glNode
	}{{"metadata", env.metadata}, {"args", env.args}, {"config", env.config}} {
		if part.n != nil {
			rb.run.Extra["report."+part.key] = glText(part.n)
		}
	}
	for i, k := range env.extraKeys {
		rb.run.Extra["report."+k] = glText(env.extra[i])
	}
}

// glNode is a JSON or YAML value held in memory, with where it was found.
// guidellm and GPUStack reports are read into these one benchmark at a time
// (a guidellm report's per-request samples are converted as they stream past
// instead), so a benchmark's many small summaries can be looked up by path
// without a Go struct per report generation: the layout changed with every
// guidellm release and unknown keys must be kept, not rejected.
type glNode struct {
	kind  glKind
	num   float64
	text  string // a number's literal, a string's value, an omitted value's size note
	b     bool
	keys  []string
	vals  []*glNode
	items []*glNode
	line  int
	off   int64 // byte offset in a JSON file; -1 for YAML
}

type glKind uint8

const (
	glNull glKind = iota
	glBool
	glNum
	glStr
	glArr
	glObj
	// glOmitted stands for a value skipped while reading (prompt and output
	// texts, probability density arrays): the raw bytes keep it.
	glOmitted
)

var glKindNames = [...]string{glNull: "null", glBool: "boolean", glNum: "number", glStr: "string",
	glArr: "list", glObj: "object", glOmitted: "omitted value"}

func (k glKind) String() string { return glKindNames[k] }

// get returns an object's value for key; nil when n is not an object or has
// no such key.
func (n *glNode) get(key string) *glNode {
	if n == nil || n.kind != glObj {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// at follows a path of object keys.
func (n *glNode) at(keys ...string) *glNode {
	for _, k := range keys {
		n = n.get(k)
	}
	return n
}

// absent reports whether a value is missing or null: guidellm writes null
// for what it did not compute.
func (n *glNode) absent() bool { return n == nil || n.kind == glNull }

// where is the node's position for messages.
func (n *glNode) where() string {
	if n == nil {
		return ""
	}
	if n.off >= 0 {
		return fmt.Sprintf("byte %d (line %d)", n.off, n.line)
	}
	return fmt.Sprintf("line %d", n.line)
}

// finite reports whether a number node holds a finite value.
func (n *glNode) finite() bool {
	return n != nil && n.kind == glNum && !math.IsNaN(n.num) && !math.IsInf(n.num, 0)
}

// scalarText renders a string, number or boolean as provenance text; ok is
// false for null, lists, objects, empty strings and non-finite numbers.
func (n *glNode) scalarText() (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.kind {
	case glStr:
		return n.text, n.text != ""
	case glNum:
		if !n.finite() {
			return "", false
		}
		if n.text != "" && n.off >= 0 {
			return n.text, true
		}
		return strconv.FormatFloat(n.num, 'g', -1, 64), true
	case glBool:
		return strconv.FormatBool(n.b), true
	}
	return "", false
}

// glMaxNodes bounds one tree: a benchmark summary has a few thousand values,
// a GPUStack record a few more, and a hostile file (YAML aliases expand)
// must not make the reader build millions.
const glMaxNodes = 1 << 20

// glTooLarge is a tree past glMaxNodes.
type glTooLarge struct{ where string }

func (e *glTooLarge) Error() string {
	return fmt.Sprintf("the value starting at %s holds more than %d items: too large to read as one report part", e.where, glMaxNodes)
}

// glJSONReader builds glNodes from a pyjson token stream.
type glJSONReader struct {
	d     *pyjson.Decoder
	nodes int
}

// value reads the value that begins with t. Keys in omit, at any depth, are
// skipped and stand as glOmitted nodes.
func (g *glJSONReader) value(t pyjson.Token, omit map[string]bool) (*glNode, error) {
	g.nodes++
	if g.nodes > glMaxNodes {
		return nil, &glTooLarge{fmt.Sprintf("byte %d (line %d)", t.Offset, t.Line)}
	}
	n := &glNode{line: t.Line, off: t.Offset}
	switch t.Kind {
	case pyjson.Null:
		n.kind = glNull
	case pyjson.True, pyjson.False:
		n.kind, n.b = glBool, t.Kind == pyjson.True
	case pyjson.String:
		n.kind, n.text = glStr, string(t.Bytes)
	case pyjson.Number:
		v, err := t.Float()
		if err != nil {
			return nil, &pyjson.Error{Offset: t.Offset, Line: t.Line, Msg: err.Error()}
		}
		n.kind, n.num, n.text = glNum, v, string(t.Bytes)
	case pyjson.ArrayStart:
		n.kind = glArr
		for {
			e, err := g.d.Next()
			if err != nil {
				return nil, err
			}
			if e.Kind == pyjson.ArrayEnd {
				break
			}
			v, err := g.value(e, omit)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	case pyjson.ObjectStart:
		n.kind = glObj
		for {
			k, err := g.d.Next()
			if err != nil {
				return nil, err
			}
			if k.Kind == pyjson.ObjectEnd {
				break
			}
			key := string(k.Bytes)
			vt, err := g.d.Next()
			if err != nil {
				return nil, err
			}
			var v *glNode
			if omit[key] && vt.Kind != pyjson.Null {
				v, err = g.omitted(vt)
			} else {
				v, err = g.value(vt, omit)
			}
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, v)
		}
	default:
		return nil, &pyjson.Error{Offset: t.Offset, Line: t.Line, Msg: "unexpected " + t.Kind.String()}
	}
	return n, nil
}

// omitted consumes a value without building it, keeping only its size.
func (g *glJSONReader) omitted(t pyjson.Token) (*glNode, error) {
	n := &glNode{kind: glOmitted, line: t.Line, off: t.Offset}
	size := int64(len(t.Bytes))
	if t.Kind == pyjson.ObjectStart || t.Kind == pyjson.ArrayStart {
		_, s, err := g.d.Capture(t, 0, nil)
		if err != nil {
			return nil, err
		}
		size = s
	}
	n.text = jsonread.OversizeNote(size)
	return n, nil
}

// glFromYAML converts a decoded YAML document. Python's yaml.safe_dump
// (GPUStack's export, guidellm's .yaml output) writes plain mappings,
// sequences and scalars; aliases are followed within the node budget.
func glFromYAML(y *yaml.Node, omit map[string]bool) (*glNode, error) {
	count := 0
	var conv func(y *yaml.Node, depth int) (*glNode, error)
	conv = func(y *yaml.Node, depth int) (*glNode, error) {
		count++
		if count > glMaxNodes {
			return nil, &glTooLarge{fmt.Sprintf("line %d", y.Line)}
		}
		if depth > pyjson.DefaultMaxDepth {
			return nil, fmt.Errorf("line %d: nested deeper than %d levels", y.Line, pyjson.DefaultMaxDepth)
		}
		n := &glNode{line: y.Line, off: -1}
		switch y.Kind {
		case yaml.DocumentNode:
			if len(y.Content) == 0 {
				n.kind = glNull
				return n, nil
			}
			return conv(y.Content[0], depth+1)
		case yaml.AliasNode:
			if y.Alias == nil {
				return nil, fmt.Errorf("line %d: an alias without its anchor", y.Line)
			}
			return conv(y.Alias, depth+1)
		case yaml.MappingNode:
			n.kind = glObj
			for i := 0; i+1 < len(y.Content); i += 2 {
				k, v := y.Content[i], y.Content[i+1]
				if k.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("line %d: a mapping key that is not a plain value", k.Line)
				}
				var cv *glNode
				if omit[k.Value] && !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null") {
					cv = &glNode{kind: glOmitted, line: v.Line, off: -1, text: strconv.Quote("<kept in raw bytes only>")}
				} else {
					var err error
					if cv, err = conv(v, depth+1); err != nil {
						return nil, err
					}
				}
				n.keys = append(n.keys, k.Value)
				n.vals = append(n.vals, cv)
			}
		case yaml.SequenceNode:
			n.kind = glArr
			for _, c := range y.Content {
				cv, err := conv(c, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, cv)
			}
		case yaml.ScalarNode:
			switch y.ShortTag() {
			case "!!null":
				n.kind = glNull
			case "!!bool":
				var b bool
				if err := y.Decode(&b); err != nil {
					return nil, fmt.Errorf("line %d: %w", y.Line, err)
				}
				n.kind, n.b = glBool, b
			case "!!int", "!!float":
				var f float64
				if err := y.Decode(&f); err != nil {
					return nil, fmt.Errorf("line %d: %q is not a number", y.Line, y.Value)
				}
				n.kind, n.num, n.text = glNum, f, y.Value
			default:
				n.kind, n.text = glStr, y.Value
			}
		default:
			return nil, fmt.Errorf("line %d: unexpected YAML node", y.Line)
		}
		return n, nil
	}
	return conv(y, 0)
}

// glParseYAML decodes YAML text into a tree, skipping the keys in omit.
func glParseYAML(data []byte, omit map[string]bool) (*glNode, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, errors.New("the file holds no YAML document")
	}
	return glFromYAML(&doc, omit)
}

// glText renders a node as JSON text for Run.Extra, at most jsonread.ExtraLimit bytes
// (a longer value is replaced by a note: the raw bytes keep it).
func glText(n *glNode) string {
	var sb strings.Builder
	glWrite(&sb, n)
	return jsonread.Extra(sb.String())
}

func glWrite(sb *strings.Builder, n *glNode) {
	if sb.Len() > jsonread.ExtraLimit {
		return
	}
	if n == nil {
		sb.WriteString("null")
		return
	}
	switch n.kind {
	case glNull:
		sb.WriteString("null")
	case glBool:
		sb.WriteString(strconv.FormatBool(n.b))
	case glNum:
		switch {
		case math.IsNaN(n.num):
			sb.WriteString("NaN")
		case math.IsInf(n.num, 1):
			sb.WriteString("Infinity")
		case math.IsInf(n.num, -1):
			sb.WriteString("-Infinity")
		case n.off >= 0 && n.text != "":
			sb.WriteString(n.text)
		default:
			sb.WriteString(strconv.FormatFloat(n.num, 'g', -1, 64))
		}
	case glStr:
		glQuote(sb, n.text)
	case glOmitted:
		sb.WriteString(n.text)
	case glArr:
		sb.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				sb.WriteByte(',')
			}
			glWrite(sb, it)
		}
		sb.WriteByte(']')
	case glObj:
		sb.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			glQuote(sb, k)
			sb.WriteByte(':')
			glWrite(sb, n.vals[i])
		}
		sb.WriteByte('}')
	}
}

// glQuote writes s as a JSON string of an Extra value.
func glQuote(sb *strings.Builder, s string) { sb.Write(jsonread.AppendExtraString(nil, s)) }
