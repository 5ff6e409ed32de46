// Package inferenceperf reads the lifecycle metrics reports of
// kubernetes-sigs/inference-perf: summary_lifecycle_metrics.json and
// stage_<N>_lifecycle_metrics.json, written by
// inference_perf/reportgen/base.py summarize_requests() (read at
// 010d12fb62cc3157b6bd228ef93dd865c7a05194). A report is summary-only:
//
//	{"benchmark_time_seconds": s,          max(end) − min(start) over all requests
//	 "load_summary": {"count": n, "schedule_delay": {...},
//	                  "send_duration", "requested_rate", "achieved_rate", "concurrency"},  (per stage)
//	 "successes": {"count", "latency": {"request_latency", "time_to_first_token",
//	                "time_per_output_token", "normalized_time_per_output_token",
//	                "inter_token_latency": {"mean","min","max","median","p90",...}},
//	               "throughput": {"input_tokens_per_sec", "output_tokens_per_sec",
//	                "total_tokens_per_sec", "requests_per_sec"},
//	               "prompt_tokens": {"total", ...}, "output_tokens": {"total", ...}},
//	 "failures": {"count", ...}}
//
// Times are seconds; percentiles are numpy's (linear). TTFT is the first
// token's time − start; TPOT (last token − first token) / (output tokens − 1)
// per request, as vLLM's; request_latency end − start. inter_token_latency
// pools the gaps between token times, where every token of a chunk carries
// the chunk's arrival time (gaps of 0 within a chunk): it is not vLLM's
// per-chunk ITL and is kept in Extra, as is the normalized TPOT
// (latency / output tokens). The throughputs divide by
// benchmark_time_seconds, which spans failed requests too.
package inferenceperf

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// ID is the format id.
const ID = "inference-perf-json"

const (
	tool     = "inference-perf"
	maxNodes = 1 << 20
)

// New returns the parser for inference-perf lifecycle metrics reports.
func New() format.Parser { return parser{} }

type parser struct{}

func (parser) ID() string { return ID }
func (parser) Describe() string {
	return "kubernetes-sigs/inference-perf lifecycle metrics report (summary or per-stage JSON)"
}

// Sniff wants the report's top-level keys: benchmark_time_seconds,
// load_summary and successes, or (reports before benchmark_time_seconds,
// inference-perf #430, April 2026) load_summary, successes and failures.
func (parser) Sniff(name string, head []byte) bool {
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	have := map[string]bool{}
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		switch key {
		case "benchmark_time_seconds":
			have[key] = v.Kind == pyjson.Number
		case "load_summary", "successes", "failures":
			have[key] = v.Kind == pyjson.ObjectStart
		}
		return v.Kind != pyjson.EOF && len(have) < 4
	})
	return have["load_summary"] && have["successes"] && (have["benchmark_time_seconds"] || have["failures"])
}

// latencies are the successes.latency distributions stated as figures.
var latencies = []struct{ key, family string }{
	{"request_latency", "e2el"},
	{"time_to_first_token", "ttft"},
	{"time_per_output_token", "tpot"},
}

// throughputs are successes.throughput's rates.
var throughputs = []struct{ key, metric, unit string }{
	{"requests_per_sec", "request_throughput", "req/s"},
	{"input_tokens_per_sec", "input_throughput", "tok/s"},
	{"output_tokens_per_sec", "output_throughput", "tok/s"},
	{"total_tokens_per_sec", "total_token_throughput", "tok/s"},
}

func (parser) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	d := pyjson.NewDecoder(r)
	first, err := jsonread.Expect(name, d, pyjson.ObjectStart, "an inference-perf report", "a JSON object")
	if err != nil {
		return err
	}
	tree := &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d, File: name, Ctx: ctx},
		MaxNodes: maxNodes, TooMany: "too large for an inference-perf report", Paths: true}
	root, err := tree.Value(first)
	if err != nil {
		return err
	}
	if err := jsonread.End(name, d, "an inference-perf report"); err != nil {
		return err
	}
	b := &builder{file: name, run: &benchrun.Run{
		Location:         fmt.Sprintf("object at byte %d (line %d)", first.Offset, first.Line),
		Format:           ID,
		FormatVariant:    "summary_lifecycle_metrics",
		SourceTool:       tool,
		PercentileMethod: "linear", // numpy.percentile's default
		Clock:            benchrun.ClockNone,
		Facts:            map[string]string{"measurement.client": tool},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}}
	if err := b.read(root); err != nil {
		return err
	}
	return emit(b.run)
}

type builder struct {
	file string
	run  *benchrun.Run
}

func (b *builder) errorf(n *jsonread.Node, path, msgf string, args ...any) error {
	place := "key " + strconv.Quote(path)
	if n != nil {
		place = jsonread.KeyPlace(path) + n.Place()
	}
	return format.Errorf(b.file, place, msgf, args...)
}

// number reads a finite non-negative number at path; absent is ok=false.
func (b *builder) number(root *jsonread.Node, path string) (float64, bool, error) {
	n := root.Path(strings.Split(path, ".")...)
	if n == nil || n.Kind == pyjson.Null {
		return 0, false, nil
	}
	v, ok := n.Finite()
	if !ok {
		return 0, false, b.errorf(n, path, "expected a finite number, found %s", n.Describe())
	}
	if v < 0 {
		return 0, false, b.errorf(n, path, "negative %s", n.Text)
	}
	return v, true, nil
}

// count reads a whole number at path.
func (b *builder) count(root *jsonread.Node, path string) (int64, bool, error) {
	v, ok, err := b.number(root, path)
	if err != nil || !ok {
		return 0, ok, err
	}
	if v != math.Trunc(v) || v > 1<<53 {
		n := root.Path(strings.Split(path, ".")...)
		return 0, false, b.errorf(n, path, "expected a whole number, found %s", n.Text)
	}
	return int64(v), true, nil
}

func (b *builder) state(metric, unit, key string, v float64) {
	b.run.Stated = append(b.run.Stated, benchrun.Stated{Metric: metric, Value: v, Unit: unit, SourceKey: key, SourceUnit: unit})
}

func (b *builder) read(root *jsonread.Node) error {
	run := b.run
	for _, k := range []string{"load_summary", "successes"} {
		if n := root.Get(k); n == nil || n.Kind != pyjson.ObjectStart {
			return format.Errorf(b.file, run.Location, "not an inference-perf report: no %q object", k)
		}
	}
	dur, hasDur, err := b.number(root, "benchmark_time_seconds")
	if err != nil {
		return err
	}
	ok2, okS, err := b.count(root, "successes.count")
	if err != nil {
		return err
	}
	if !okS {
		return format.Errorf(b.file, run.Location, "the report has no successes.count: the run's request count is unknown")
	}
	sent, okSent, err := b.count(root, "load_summary.count")
	if err != nil {
		return err
	}
	failed, okF, err := b.count(root, "failures.count")
	if err != nil {
		return err
	}
	run.Completed = ok2
	b.state("completed", "requests", "successes.count", float64(ok2))
	if okF {
		run.Failed = failed
		b.state("failed", "requests", "failures.count", float64(failed))
	} else {
		run.Notes = append(run.Notes, "the report has no failures.count: the failed count is unknown")
	}
	if okSent {
		run.Facts["workload.request_count"] = strconv.FormatInt(sent, 10)
		if okF && sent != ok2+failed {
			return b.errorf(root.Path("load_summary", "count"), "load_summary.count", "%d requests sent but successes.count %d + failures.count %d = %d", sent, ok2, failed, ok2+failed)
		}
	}
	if ok2+max(failed, 0) == 0 {
		return format.Errorf(b.file, run.Location, "run has no requests (successes.count and failures.count are 0)")
	}
	switch {
	case hasDur && dur == 0:
		return b.errorf(root.Get("benchmark_time_seconds"), "benchmark_time_seconds", "benchmark_time_seconds is 0: no run took place")
	case hasDur:
		b.state("duration", "s", "benchmark_time_seconds", dur)
	default:
		// Before #430 the report did not write the time it divided by
		// (max(end) − min(start) over every request); requests_per_sec
		// is successes.count over it, so the count over the rate gives it
		// back.
		rps, ok, err := b.number(root, "successes.throughput.requests_per_sec")
		if err != nil {
			return err
		}
		if !ok || rps == 0 || ok2 == 0 {
			return format.Errorf(b.file, run.Location, "the report has no benchmark_time_seconds and no successful requests per second to derive it from: the run's duration is unknown")
		}
		run.FormatVariant += " (before benchmark_time_seconds)"
		run.Stated = append(run.Stated, benchrun.Stated{Metric: "duration", Value: float64(ok2) / rps, Unit: "s",
			SourceKey: "successes.count / successes.throughput.requests_per_sec", SourceUnit: "s"})
		run.Notes = append(run.Notes, "the report predates benchmark_time_seconds (inference-perf #430): the duration is successes.count / successes.throughput.requests_per_sec, the max(end) − min(start) its throughputs divide by")
	}

	if rate, ok, err := b.number(root, "load_summary.requested_rate"); err != nil {
		return err
	} else if ok {
		run.FormatVariant = strings.Replace(run.FormatVariant, "summary_lifecycle_metrics", "stage_lifecycle_metrics (one load stage)", 1)
		run.Facts["workload.request_rate"] = format.FormatFloat(rate)
	}
	if c, ok, err := b.count(root, "load_summary.concurrency"); err != nil {
		return err
	} else if ok {
		run.Facts["workload.concurrency"] = strconv.FormatInt(c, 10)
	}
	for _, k := range []string{"achieved_rate", "send_duration", "schedule_delay"} {
		if n := root.Path("load_summary", k); n != nil {
			run.Extra["load_summary."+k] = n.Extra()
		}
	}

	for _, t := range throughputs {
		v, ok, err := b.number(root, "successes.throughput."+t.key)
		if err != nil {
			return err
		}
		if ok {
			b.state(t.metric, t.unit, "successes.throughput."+t.key, v)
		}
	}
	for _, t := range []struct{ key, metric string }{{"prompt_tokens.total", "total_input_tokens"}, {"output_tokens.total", "total_output_tokens"}} {
		v, ok, err := b.number(root, "successes."+t.key)
		if err != nil {
			return err
		}
		if ok {
			b.state(t.metric, "tokens", "successes."+t.key, v)
		}
	}
	for _, l := range latencies {
		path := "successes.latency." + l.key
		n := root.Path("successes", "latency", l.key)
		if n == nil || n.Kind == pyjson.Null {
			continue
		}
		if n.Kind != pyjson.ObjectStart {
			return b.errorf(n, path, "expected an object of statistics, found %s", n.Describe())
		}
		for i, stat := range n.Keys {
			metricStat := stat
			switch {
			case stat == "mean" || stat == "median" || stat == "min" || stat == "max":
			case format.IsPercentileWord(stat):
			default:
				run.Extra[path+"."+stat] = n.Vals[i].Extra()
				continue
			}
			v, ok, err := b.number(root, path+"."+stat)
			if err != nil {
				return err
			}
			if ok {
				b.state(l.family+"."+metricStat, "s", path+"."+stat, v)
			}
		}
	}
	if n := root.Path("successes", "latency"); n != nil {
		for i, k := range n.Keys {
			switch k {
			case "request_latency", "time_to_first_token", "time_per_output_token":
			default:
				run.Extra["successes.latency."+k] = n.Vals[i].Extra()
			}
		}
	}
	var kept []string
	for i, k := range root.Keys {
		switch k {
		case "benchmark_time_seconds", "load_summary":
		case "successes", "failures":
			for j, sk := range root.Vals[i].Keys {
				switch sk {
				case "count", "latency", "throughput":
				default:
					run.Extra[k+"."+sk] = root.Vals[i].Vals[j].Extra()
				}
			}
		default:
			run.Extra[k] = root.Vals[i].Extra()
			kept = append(kept, k)
		}
	}
	if len(kept) > 0 {
		sort.Strings(kept)
		run.Notes = append(run.Notes, "keys summarize_requests does not write, kept in Extra: "+strings.Join(kept, ", "))
	}
	run.Notes = append(run.Notes,
		"summary only: inference-perf's lifecycle report has no per-request records (its per-request report is a separate file)",
		"inter_token_latency pools the gaps between token times, each token of a chunk carrying the chunk's arrival time: not the per-chunk ITL, kept in Extra",
		"the duration is max(end) − min(start) over every request, failed ones included; the throughputs divide by it",
		"the report has no model, date or engine: they must come from the manifest (inference-perf writes its config to a separate config.yaml)")
	return nil
}
