package vllmthroughput

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

// `vllm bench throughput --output-json` (vllm/benchmarks/throughput.py, and
// benchmarks/benchmark_throughput.py before it) runs vLLM offline, in its
// own process, and writes five numbers (FORMATS.md §1.7; the README beside
// testdata/vllm-throughput cites the lines). There is no serving latency,
// no per-request record, no model, date or engine setting in the file.

const (
	vllmThroughputID   = "vllm-throughput-json"
	vllmThroughputTool = "vllm bench throughput"
)

// New returns the parser for vllm bench throughput
// --output-json files.
func New() format.Parser { return vllmThroughput{} }

type vllmThroughput struct{}

func (vllmThroughput) ID() string { return vllmThroughputID }
func (vllmThroughput) Describe() string {
	return "vllm bench throughput (offline) --output-json"
}

// vllmThroughputKeys are the keys throughput.py writes, all required.
var vllmThroughputKeys = []string{"elapsed_time", "num_requests", "total_num_tokens", "requests_per_second", "tokens_per_second"}

// Sniff reads the top-level keys: the offline result has elapsed_time and
// the two rates, and none of the serving result's keys.
func (vllmThroughput) Sniff(name string, head []byte) bool {
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	have := map[string]bool{}
	serve := false
	jsonread.SniffWhole(d, func(key string, v pyjson.Token) bool {
		switch key {
		case "elapsed_time", "requests_per_second", "tokens_per_second", "num_requests":
			have[key] = v.Kind == pyjson.Number
		case "duration", "completed", "model_id", "date", "ttfts":
			serve = true // a vllm bench serve result
			return false
		}
		return true
	})
	return !serve && have["elapsed_time"] && have["requests_per_second"] && have["tokens_per_second"] && have["num_requests"]
}

// Parse reads the one result object of the file.
func (vllmThroughput) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	d := pyjson.NewDecoder(r)
	first, err := jsonread.Expect(name, d, pyjson.ObjectStart, "a vllm bench throughput result", "a JSON object")
	if err != nil {
		return err
	}
	run := &benchrun.Run{
		Location:      fmt.Sprintf("object at byte %d (line %d)", first.Offset, first.Line),
		Format:        vllmThroughputID,
		FormatVariant: "--output-json",
		SourceTool:    vllmThroughputTool,
		Clock:         benchrun.ClockNone,
		Facts:         map[string]string{"measurement.client": vllmThroughputTool},
		Extra:         map[string]string{},
		Completed:     -1,
		Failed:        -1,
	}
	type value struct {
		v   float64
		raw string
		tok pyjson.Token
	}
	vals := map[string]value{}
	var unknown []string
	c := jsonread.Cursor{Dec: d, File: name, Ctx: ctx}
	_, err = c.Object(map[string]bool{}, func(m jsonread.Member) error {
		key, vt := m.Key, m.Value
		known := false
		for _, k := range vllmThroughputKeys {
			known = known || k == key
		}
		if !known {
			// A fork's additions (extract_tokens, ...) or a newer key.
			var err error
			run.Extra[key], err = c.Keep(jsonread.KeyPlace(key), vt)
			unknown = append(unknown, key)
			return err
		}
		place := jsonread.Place(jsonread.KeyPlace(key), vt)
		v, err := vt.Float() // "expected a number, found …" for any other kind
		switch {
		case err != nil:
			return format.Errorf(name, place, "%v", err)
		case vt.NonFinite():
			return format.Errorf(name, place, "%s is %s: throughput.py computes every figure from a finite elapsed time", key, vt.Bytes)
		case v < 0:
			return format.Errorf(name, place, "negative %s %s", key, vt.Bytes)
		}
		vals[key] = value{v, string(vt.Bytes), pyjson.Token{Offset: vt.Offset, Line: vt.Line}}
		return nil
	})
	if err != nil {
		return err
	}
	if err := jsonread.End(name, d, "a vllm bench throughput result"); err != nil {
		return err
	}
	var missing []string
	for _, k := range vllmThroughputKeys {
		if _, ok := vals[k]; !ok {
			missing = append(missing, strconv.Quote(k))
		}
	}
	if len(missing) > 0 {
		return format.Errorf(name, run.Location, "not a vllm bench throughput result: no %s key", strings.Join(missing, ", "))
	}
	for _, k := range []string{"num_requests", "total_num_tokens"} {
		if v := vals[k]; v.v != math.Trunc(v.v) || v.v > 1<<53 {
			return format.Errorf(name, jsonread.Place(jsonread.KeyPlace(k), v.tok), "expected a whole number, found %s", v.raw)
		}
	}
	nReq, elapsed := vals["num_requests"], vals["elapsed_time"]
	if nReq.v == 0 {
		return format.Errorf(name, jsonread.Place(jsonread.KeyPlace("num_requests"), nReq.tok), "run has no requests: num_requests is 0")
	}
	if elapsed.v == 0 {
		return format.Errorf(name, jsonread.Place(jsonread.KeyPlace("elapsed_time"), elapsed.tok), "elapsed_time is 0: no run took place")
	}
	run.Facts["workload.request_count"] = strconv.FormatInt(int64(nReq.v), 10)
	run.Extra["num_requests"] = nReq.raw
	run.Extra["total_num_tokens"] = vals["total_num_tokens"].raw
	run.Stated = []benchrun.Stated{
		{Metric: "duration", Value: elapsed.v, Unit: "s", SourceKey: "elapsed_time", SourceUnit: "s"},
		{Metric: "request_throughput", Value: vals["requests_per_second"].v, Unit: "req/s", SourceKey: "requests_per_second", SourceUnit: "req/s"},
		// Prompt + output tokens per second: the canonical total token
		// throughput (it includes input tokens).
		{Metric: "total_token_throughput", Value: vals["tokens_per_second"].v, Unit: "tok/s", SourceKey: "tokens_per_second", SourceUnit: "tok/s"},
	}
	// throughput.py divides by elapsed_time itself; a file whose rates do
	// not follow from its counts was edited or written by something else.
	for _, c := range []struct{ rate, count string }{
		{"requests_per_second", "num_requests"}, {"tokens_per_second", "total_num_tokens"},
	} {
		want := vals[c.count].v / elapsed.v
		if got := vals[c.rate].v; math.Abs(got-want) > 1e-9*math.Max(math.Abs(got), math.Abs(want)) {
			run.Notes = append(run.Notes, fmt.Sprintf("%s is %s but %s / elapsed_time is %s: the file's figures disagree",
				c.rate, format.FormatFloat(got), c.count, format.FormatFloat(want)))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		run.Notes = append(run.Notes, fmt.Sprintf("keys throughput.py does not write, kept in Extra: %s", strings.Join(unknown, ", ")))
	}
	run.Notes = append(run.Notes,
		"offline run (vLLM's LLM API in the benchmark's own process): no serving latency, TTFT or per-request records; the window is elapsed_time around the generate call",
		"throughput.py records no failures: the completed and failed counts are unknown (workload.request_count is the requests it submitted)",
		"the output-only token throughput is printed to stdout, not saved: tokens_per_second counts prompt and output tokens",
		"with the vllm and vllm-chat backends the token counts are measured from the outputs; with hf or mii they are the requested lengths, and the file does not say which backend ran",
		"the file has no model, date, backend or engine settings: they must come from the manifest")
	return emit(run)
}
