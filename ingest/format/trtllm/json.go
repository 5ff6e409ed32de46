package trtllm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

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
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		if v.Kind == pyjson.ObjectStart {
			switch key {
			case "engine":
				engine = true
			case "world_info", "request_info", "performance":
				other = true
			}
		}
		return !(engine && other)
	})
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
