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

// New returns the parser for guidellm's benchmark reports
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
	d, yamlIs := glHead(head, "guidellm")
	if d == nil {
		return yamlIs
	}
	found := false
	jsonread.SniffWhole(d, func(key string, v pyjson.Token) bool {
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

// glHead starts a detector's walk over a report's first bytes (after a
// byte order mark and whitespace): the decoder that has read the opening
// '{' of a JSON object, or else nil and whether the text is YAML that
// looks like kind's ("guidellm" or "gpustack", glYAMLLooksLike).
func glHead(head []byte, kind string) (d *pyjson.Decoder, yamlIs bool) {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(t) == 0:
		return nil, false
	case t[0] != '{':
		return nil, glYAMLLooksLike(t) == kind
	}
	d, _ = jsonread.HeadObject(t)
	return d, false
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
	jsonread.SniffWhole(d, func(key string, v pyjson.Token) bool {
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
	node    *jsonread.Node
	reqs    []glRequest
	samples bool   // a "requests" object with lists was present
	bad     string // why a sample was unreadable; the benchmark is rejected
}

// glEnvelope is the report around the benchmarks.
type glEnvelope struct {
	metadata, args, config *jsonread.Node
	extra                  []*jsonread.Node // other top-level keys, in order
	extraKeys              []string
	yaml                   bool
}

// generation names the report envelope.
func (e *glEnvelope) generation() string {
	if v, ok := e.metadata.Get("version").Finite(); ok && v >= 2 || e.config != nil {
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

// glReadJSON streams a JSON report: envelope keys become trees, each
// benchmark becomes a tree with its request samples converted on the way.
func glReadJSON(ctx context.Context, name string, r io.Reader) (*glEnvelope, []*glBench, error) {
	d := pyjson.NewDecoder(r)
	g := glTree(name, d, glSummaryOmit)
	if _, err := jsonread.Expect(name, d, pyjson.ObjectStart, "a guidellm report", "a JSON object"); err != nil {
		return nil, nil, err
	}
	env := &glEnvelope{}
	var benches []*glBench
	haveList := false
	// The tree and its cursor pass decoder errors on as they are, for
	// glSyntax where the loop returns.
	seen := map[string]bool{}
	_, err := g.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes)
		if seen[key] {
			return format.Errorf(name, jsonread.Place("", kt), "key %q appears twice in the report", key)
		}
		seen[key] = true
		v, err := g.Next("")
		if err != nil {
			return err
		}
		if key != "benchmarks" {
			g.Count = 0
			n, err := g.Value(v)
			if err != nil {
				return err
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
			e, err := g.Next("")
			if err != nil {
				return err
			}
			if e.Kind == pyjson.ArrayEnd {
				return nil
			}
			b, err := glReadBench(g, e, i)
			if err != nil {
				return err
			}
			benches = append(benches, b)
		}
	})
	if err != nil {
		return nil, nil, glSyntax(name, err)
	}
	if t, err := d.Next(); err != nil {
		return nil, nil, glSyntax(name, err)
	} else if t.Kind != pyjson.EOF {
		return nil, nil, format.Errorf(name, jsonread.Place("", t), "more than one JSON value: a guidellm report is one object")
	}
	return env, benches, glCheckEnvelope(name, env, haveList, benches)
}

func (e *glEnvelope) set(key string, n *jsonread.Node) {
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
		n   *jsonread.Node
	}{{"metadata", env.metadata}, {"args", env.args}, {"config", env.config}} {
		if part.n != nil && part.n.Kind != pyjson.ObjectStart && part.n.Kind != pyjson.Null {
			return format.Errorf(name, part.n.Place(), "not a guidellm report: %q holds a %s, not an object", part.key, part.n.Noun())
		}
	}
	return nil
}

// glReadBench reads one element of "benchmarks": the "requests" samples are
// converted one at a time so their texts are never all in memory.
func glReadBench(g *jsonread.TreeReader, t pyjson.Token, index int) (*glBench, error) {
	b := &glBench{index: index}
	if t.Kind != pyjson.ObjectStart {
		g.Count = 0
		n, err := g.Value(t)
		if err != nil {
			return nil, err
		}
		b.node = n
		return b, nil
	}
	g.Count = 1
	b.node = &jsonread.Node{Kind: pyjson.ObjectStart, Offset: t.Offset, Line: t.Line}
	_, err := g.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		var n *jsonread.Node
		var err error
		if key == "requests" && v.Kind == pyjson.ObjectStart {
			n, err = glStreamRequests(g, v, b)
		} else {
			n, err = g.Value(v)
		}
		if err != nil {
			return err
		}
		b.node.Keys = append(b.node.Keys, key)
		b.node.Vals = append(b.node.Vals, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// glStreamRequests reads {"successful": [...], "errored": [...],
// "incomplete": [...], "total": null}, converting each sample as it is
// read; the tree keeps only a placeholder. The samples' own texts are
// skipped (glRequestOmit).
func glStreamRequests(g *jsonread.TreeReader, t pyjson.Token, b *glBench) (*jsonread.Node, error) {
	holder := &jsonread.Node{Kind: pyjson.ObjectStart, Offset: t.Offset, Line: t.Line}
	g.Omit = glRequestOmit
	defer func() { g.Omit = glSummaryOmit }()
	_, err := g.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		status := slices.Index(glStatuses, key)
		if status < 0 || v.Kind != pyjson.ArrayStart {
			n, err := g.Value(v)
			if err != nil {
				return err
			}
			holder.Keys, holder.Vals = append(holder.Keys, key), append(holder.Vals, n)
			return nil
		}
		b.samples = true
		count := 0
		for {
			e, err := g.Next("")
			if err != nil {
				return err
			}
			if e.Kind == pyjson.ArrayEnd {
				break
			}
			g.Count = 0
			n, err := g.Value(e)
			if err != nil {
				return err
			}
			if b.bad == "" {
				q, why := glRequestFromNode(n, status)
				if why != "" {
					b.bad = fmt.Sprintf("key \"requests.%s\" item %d at %s: %s", key, count, n.Place(), why)
				} else {
					b.reqs = append(b.reqs, q)
				}
			}
			count++
		}
		holder.Keys = append(holder.Keys, key)
		holder.Vals = append(holder.Vals, &jsonread.Node{Kind: jsonread.Omitted, Offset: v.Offset, Line: v.Line,
			Text: strconv.Quote(fmt.Sprintf("<%d request samples, read as per-request records>", count))})
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
	root, err := glTree(name, nil, glRequestOmit).YAML(data)
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
func glFromTree(name string, root *jsonread.Node) (*glEnvelope, []*glBench, error) {
	if root == nil || root.Kind != pyjson.ObjectStart {
		kind := "nothing"
		if root != nil {
			kind = "a " + root.Noun()
		}
		return nil, nil, format.Errorf(name, root.Place(), "not a guidellm report: the document holds %s, not an object", kind)
	}
	env := &glEnvelope{}
	var benches []*glBench
	haveList := false
	for i, k := range root.Keys {
		v := root.Vals[i]
		if k != "benchmarks" {
			env.set(k, v)
			continue
		}
		if v.Kind != pyjson.ArrayStart {
			return nil, nil, format.Errorf(name, v.Place(), "not a guidellm report: \"benchmarks\" holds a %s, not a list", v.Noun())
		}
		haveList = true
		for j, it := range v.Vals {
			benches = append(benches, glBenchFromTree(it, j))
		}
	}
	return env, benches, glCheckEnvelope(name, env, haveList, benches)
}

// glBenchFromTree converts the request samples of a benchmark held as a tree.
func glBenchFromTree(n *jsonread.Node, index int) *glBench {
	b := &glBench{index: index, node: n}
	reqs := n.Get("requests")
	if reqs == nil || reqs.Kind != pyjson.ObjectStart {
		return b
	}
	for s, status := range glStatuses {
		list := reqs.Get(status)
		if list == nil || list.Kind != pyjson.ArrayStart {
			continue
		}
		b.samples = true
		for i, it := range list.Vals {
			q, why := glRequestFromNode(it, s)
			if why != "" {
				if b.bad == "" {
					b.bad = fmt.Sprintf("key \"requests.%s\" item %d at %s: %s", status, i, it.Place(), why)
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
func glRequestFromNode(n *jsonread.Node, status int) (glRequest, string) {
	q := glRequest{status: status, start: benchrun.Unknown, end: benchrun.Unknown, last: benchrun.Unknown,
		latency: benchrun.Unknown, ttft: benchrun.Unknown, inTokens: -1, outTokens: -1}
	if n == nil || n.Kind != pyjson.ObjectStart {
		kind := "nothing"
		if n != nil {
			kind = "a " + n.Noun()
		}
		return q, "expected a request object, found " + kind
	}
	timings := n.Path("info", "timings")
	var why string
	read := func(dst *float64, scale float64, candidates ...*jsonread.Node) {
		for _, c := range candidates {
			if why != "" || c.Absent() {
				continue
			}
			if c.Kind != pyjson.Number {
				why = fmt.Sprintf("expected a number of seconds, found %s at %s", c.Noun(), c.Place())
				return
			}
			v, ok := c.Finite()
			if !ok {
				why = fmt.Sprintf("%s at %s is not a valid time", c.Literal(), c.Place())
				return
			}
			if v < 0 {
				why = fmt.Sprintf("negative time %s at %s", c.Literal(), c.Place())
				return
			}
			*dst = v * scale
			return
		}
	}
	read(&q.start, 1, n.Get("request_start_time"), timings.Get("request_start"), n.Get("start_time"), n.Path("scheduler_info", "request_start"))
	read(&q.end, 1, n.Get("request_end_time"), timings.Get("request_end"), n.Get("end_time"), n.Path("scheduler_info", "request_end"))
	read(&q.latency, 1, n.Get("request_latency"))
	read(&q.ttft, 1e-3, n.Get("time_to_first_token_ms"))
	read(&q.last, 1, timings.Get("last_token_iteration"), n.Get("last_token_time"))
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
		read(&first, 1, timings.Get("first_token_iteration"), n.Get("first_token_time"))
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
		c := n.Get(tk.key)
		if c.Absent() {
			continue
		}
		v, ok := c.Finite()
		if c.Kind != pyjson.Number || !ok || v != math.Trunc(v) {
			return q, fmt.Sprintf("%s at %s is not a token count", tk.key, c.Place())
		}
		if v < 0 {
			return q, fmt.Sprintf("negative %s %s at %s", tk.key, c.Literal(), c.Place())
		}
		if v > math.MaxInt32 {
			return q, fmt.Sprintf("%s %s at %s is implausibly large", tk.key, c.Literal(), c.Place())
		}
		*tk.dst = int32(v)
	}
	switch glStatuses[status] {
	case "errored":
		q.err = "errored"
		for _, c := range []*jsonread.Node{n.Path("info", "error"), n.Get("error")} {
			if c != nil && c.Kind == pyjson.String && c.Text != "" {
				q.err = c.Text
				break
			}
		}
	case "incomplete":
		q.err = "incomplete: cancelled when the benchmark's time or request limit ended"
	}
	return q, ""
}
