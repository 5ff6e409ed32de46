package trtllm

import (
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

// Sniff reads the top-level keys: a report dict starts with "engine" and
// has the "world_info", "request_info" and "performance" dicts beside it.
func (trtllmJSON) Sniff(name string, head []byte) bool {
	d, ok := jsonread.HeadObject(head)
	if !ok {
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

func (r *trtllmJSONRun) errAt(path string, n *jsonread.Node, msgf string, args ...any) error {
	return format.Errorf(r.file, jsonread.KeyPlace(path)+n.Place(), msgf, args...)
}

// number reads a numeric leaf; ok is false for NaN, ±Infinity and null,
// which are kept in Extra with a note.
func (r *trtllmJSONRun) number(path string, n *jsonread.Node) (float64, bool, error) {
	switch n.Kind {
	case pyjson.Null:
		r.run.Extra[path] = "null"
		return 0, false, nil
	case pyjson.Number:
	default:
		return 0, false, r.errAt(path, n, "expected a number, found %s", n.Kind)
	}
	if c := strings.TrimPrefix(n.Text, "-"); strings.HasPrefix(c, "N") || strings.HasPrefix(c, "I") {
		// Python's json.dumps writes NaN and ±Infinity bare.
		r.run.Extra[path] = n.Text
		r.run.Notes = append(r.run.Notes, fmt.Sprintf("%s is %s in the file: not stated as a figure", path, n.Text))
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(n.Text, 64)
	if err != nil && (math.IsInf(v, 0) || !errors.Is(err, strconv.ErrRange)) {
		return 0, false, r.errAt(path, n, "number %s is out of range", n.Text)
	}
	return v, true, nil
}

// figure states a non-negative figure in its canonical unit.
func (r *trtllmJSONRun) figure(path string, n *jsonread.Node, metric, unit, srcUnit string) error {
	v, ok, err := r.number(path, n)
	if err != nil || !ok {
		return err
	}
	if v < 0 {
		return r.errAt(path, n, "negative %s %s", metric, n.Text)
	}
	cv := v
	if srcUnit == "ms" {
		cv = trtllmMS(n.Text, v)
	}
	r.stated.add(benchrun.Stated{Metric: metric, Value: cv, Unit: unit, SourceKey: path, SourceUnit: srcUnit}, path, n.Text)
	return nil
}

// count reads a non-negative whole number.
func (r *trtllmJSONRun) count(path string, n *jsonread.Node) (int64, bool, error) {
	v, ok, err := r.number(path, n)
	if err != nil || !ok {
		return 0, false, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, false, r.errAt(path, n, "expected a whole number, found %s", n.Text)
	}
	if v < 0 {
		return 0, false, r.errAt(path, n, "negative count %s", n.Text)
	}
	return int64(v), true, nil
}

// str reads a string leaf; null is absent.
func (r *trtllmJSONRun) str(path string, n *jsonread.Node) (string, bool, error) {
	switch n.Kind {
	case pyjson.String:
		return n.Text, true, nil
	case pyjson.Null:
		return "", false, nil
	}
	return "", false, r.errAt(path, n, "expected a string, found %s", n.Kind)
}

// section returns the dict under key, nil when absent or null.
func (r *trtllmJSONRun) section(root *jsonread.Node, key string) (*jsonread.Node, error) {
	n := root.Get(key)
	if n == nil || n.Kind == pyjson.Null {
		return nil, nil
	}
	if n.Kind != pyjson.ObjectStart {
		return nil, r.errAt(key, n, "expected a dict, found %s", n.Kind)
	}
	return n, nil
}

// percentiles states one PercentileStats dict of a latency metric (ms).
func (r *trtllmJSONRun) percentiles(path string, n *jsonread.Node, metric string) error {
	if n.Kind == pyjson.Null {
		r.run.Extra[path] = "null"
		return nil
	}
	if n.Kind != pyjson.ObjectStart {
		return r.errAt(path, n, "expected a dict of percentiles, found %s", n.Kind)
	}
	for i, k := range n.Keys {
		kid, p := n.Vals[i], path+"."+k
		stat, ok := trtllmStat(k)
		if !ok {
			r.run.Extra[p] = kid.Extra()
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
	first, err := jsonread.Expect(name, d, pyjson.ObjectStart, "a trtllm-bench report", "a JSON object")
	if err != nil {
		return err
	}
	tree := &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d, File: name},
		MaxNodes: trtllmMaxNodes, TooMany: "too large for a trtllm-bench report", Paths: true}
	root, err := tree.Value(first)
	if err != nil {
		return err
	}
	if err := jsonread.End(name, d, "a trtllm-bench report"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &trtllmJSONRun{file: name, run: trtllmRun(trtllmJSONID, fmt.Sprintf("object at byte %d (line %d)", first.Offset, first.Line))}
	r.stated = trtllmStated{run: r.run, tol: 1e-9}
	if err := r.interpret(root); err != nil {
		return err
	}
	return emit(r.run)
}

func (r *trtllmJSONRun) interpret(root *jsonread.Node) error {
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
		for i, k := range eng.Keys {
			n, p := eng.Vals[i], "engine."+k
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
					run.Extra[p] = n.Raw()
				}
			default:
				// dtype, kv_cache_dtype and quantization are TRT-LLM's own
				// spellings (bfloat16, FP8, null): kept as written rather
				// than set as checkpoint.precision, which the manifest
				// states in the project's terms.
				run.Extra[p] = n.Extra()
			}
		}
	}
	if world, err := r.section(root, "world_info"); err != nil {
		return err
	} else if world != nil {
		for i, k := range world.Keys {
			n, p := world.Vals[i], "world_info."+k
			run.Extra[p] = n.Extra()
			if k == "world_size" && n.Kind == pyjson.Number {
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
		for i, k := range req.Keys {
			n, p := req.Vals[i], "request_info."+k
			if k != "num_requests" {
				run.Extra[p] = n.Extra()
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
	for i, k := range perf.Keys {
		n, p := perf.Vals[i], "performance."+k
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
		run.Extra[p] = n.Extra()
	}
	streaming := false
	if sm, err := r.section(root, "streaming_metrics"); err != nil {
		return err
	} else if sm != nil {
		streaming = true
		for i, k := range sm.Keys {
			n, p := sm.Vals[i], "streaming_metrics."+k
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
				run.Extra[p] = n.Extra()
			}
			if err != nil {
				return err
			}
		}
	}
	for i, k := range root.Keys {
		switch k {
		case "engine", "world_info", "request_info", "performance", "streaming_metrics":
			continue
		}
		// decoding_stats, dataset, energy and keys of newer versions.
		run.Extra[k] = root.Vals[i].Extra()
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
	if root.Get("decoding_stats") != nil {
		variant += ", speculative decoding"
	}
	run.FormatVariant = variant
	run.Notes = append(run.Notes, trtllmNotes...)
	if _, ok := run.Facts["hardware.gpu_count"]; ok {
		run.Notes = append(run.Notes, "hardware.gpu_count is world_info.world_size, the number of GPU ranks trtllm-bench ran")
	}
	return nil
}
