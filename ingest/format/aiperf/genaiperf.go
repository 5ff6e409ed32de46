package aiperf

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// GenAI-Perf (triton-inference-server/perf_analyzer, genai-perf/) writes
// three files per run: perf_analyzer's raw profile_export.json (every
// request's epoch-ns timestamps and streamed responses, one "experiment"
// per load level), and its own profile_export_genai_perf.json and .csv
// with the statistics it computed from them. AIPerf replaced it and
// imitates its JSON; the key mapping is shared (aiperf.go).

const (
	genaiPerfJSONID    = "genai-perf-json"
	genaiPerfCSVID     = "genai-perf-csv"
	perfAnalyzerJSONID = "perf-analyzer-json"
	genaiPerfClient    = "genai-perf"
	perfAnalyzerClient = "perf_analyzer"
)

// NewGenAIPerfJSON returns the parser for profile_export_genai_perf.json:
// {"<metric>": {"unit", "avg", "p1".."p99", "min", "max", "std"}, ...,
// "input_config": {...}}.
func NewGenAIPerfJSON() format.Parser { return genaiPerfJSON{} }

type genaiPerfJSON struct{}

func (genaiPerfJSON) ID() string       { return genaiPerfJSONID }
func (genaiPerfJSON) Describe() string { return "GenAI-Perf profile_export_genai_perf.json statistics" }

// genaiPerfMetrics are GenAI-Perf's statistics keys (metrics/statistics.py).
var genaiPerfMetrics = map[string]bool{
	"request_latency": true, "time_to_first_token": true, "time_to_second_token": true, "inter_token_latency": true,
	"output_token_throughput": true, "output_token_throughput_per_request": true, "output_token_throughput_per_user": true,
	"output_sequence_length": true, "input_sequence_length": true, "request_throughput": true, "request_goodput": true,
	"request_count": true, "image_throughput": true, "image_latency": true,
}

// Sniff reads the top-level keys up to "input_config", which GenAI-Perf
// writes after its statistics: at least one GenAI-Perf statistics block and
// none of the keys only AIPerf writes.
func (genaiPerfJSON) Sniff(name string, head []byte) bool {
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	blocks := 0
	found := false
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		switch {
		case aiperfJSONMarkers[key] || key == "records":
			return false
		case key == "input_config":
			found = blocks > 0
			return false
		case genaiPerfMetrics[key] && v.Kind == pyjson.ObjectStart:
			// statistics.py adds "unit" first.
			u, err := d.Next()
			if err != nil || u.Kind == pyjson.ObjectEnd {
				return false // an empty block ends the look, as it always has
			}
			if u.Kind == pyjson.Key && string(u.Bytes) == "unit" {
				blocks++
			}
		}
		return v.Kind != pyjson.EOF
	})
	return found
}

func (genaiPerfJSON) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	root, err := aiperfReadTree(name, r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	run, err := genaiPerfJSONRun(name, root)
	if err != nil {
		return err
	}
	return emit(run)
}

func genaiPerfJSONRun(file string, root *jsonread.Node) (*benchrun.Run, error) {
	if root.Kind != pyjson.ObjectStart {
		return nil, format.Errorf(file, root.Place(), "not a GenAI-Perf result: the file holds a %s, not a JSON object", root.Kind)
	}
	run := &benchrun.Run{
		Location:         "object at " + root.Place(),
		Format:           genaiPerfJSONID,
		FormatVariant:    "statistics + input_config",
		SourceTool:       genaiPerfClient,
		PercentileMethod: "linear",
		Facts:            map[string]string{"measurement.client": genaiPerfClient},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}
	f := newAIPerfFigures(file, run)
	f.stateStd = true // statistics.py: np.std, the population deviation
	var latency []string
	blocks := 0
	for i, key := range root.Keys {
		v := root.Vals[i]
		if key == "input_config" || v.Kind != pyjson.ObjectStart || v.Get("unit") == nil {
			run.Extra[key] = v.Extra()
			continue
		}
		blocks++
		unit, ok := v.Get("unit").Str()
		if !ok {
			return nil, format.Errorf(file, v.Get("unit").Place(), "metric %q: \"unit\" must be a string, found %s", key, v.Get("unit").Describe())
		}
		mapped := false
		for j, stat := range v.Keys {
			x := v.Vals[j]
			if stat == "unit" {
				continue
			}
			if x.Kind != pyjson.Number {
				if x.Kind == pyjson.Null {
					continue
				}
				return nil, format.Errorf(file, x.Place(), "metric %q statistic %q must be a number, found %s", key, stat, x.Describe())
			}
			val, ok := x.Finite()
			if !ok {
				return nil, format.Errorf(file, x.Place(), "metric %q statistic %q is %s, not a measurement", key, stat, x.Text)
			}
			m, err := f.add(x.Place(), key, stat, unit, val, key+"."+stat)
			if err != nil {
				return nil, err
			}
			mapped = mapped || m
		}
		if _, ok := aiperfLatency[key]; ok && mapped {
			latency = append(latency, key)
		}
		if !mapped {
			run.Extra[key] = v.Extra()
		}
	}
	if blocks == 0 {
		return nil, format.Errorf(file, root.Place(), "not a GenAI-Perf result: no statistics blocks (objects with a \"unit\")")
	}
	if run.Completed == 0 {
		return nil, format.Errorf(file, root.Place(), "run has no requests: request_count is 0")
	}
	aiperfSummaryNotes(run, f, latency, false, "", false)
	run.Notes = append(run.Notes,
		"failed is unknown: GenAI-Perf leaves failed requests out of its statistics and does not count them",
		"request_throughput counts every request perf_analyzer sent, while the other statistics skip requests with empty responses")
	if run.Completed < 0 {
		run.Notes = append(run.Notes, "completed is unknown: this GenAI-Perf version writes no request_count")
	}
	if ic := root.Get("input_config"); ic != nil {
		genaiPerfConfigFacts(run, ic)
	}
	return run, nil
}

// genaiPerfConfigFacts reads input_config in its two shapes: the argparse
// namespace of GenAI-Perf ≤ 0.0.x ("model", "concurrency", ...) and the
// later ConfigCommand ("model_names", "perf_analyzer.stimulus", ...).
func genaiPerfConfigFacts(run *benchrun.Run, ic *jsonread.Node) {
	set := func(field string, n *jsonread.Node) {
		if s, ok := n.Str(); ok && strings.TrimSpace(s) != "" {
			run.Facts[field] = strings.TrimSpace(s)
		} else if s, ok := aiperfNumberFact(n); ok {
			run.Facts[field] = s
		}
	}
	for _, key := range []string{"model", "model_names"} {
		if m := ic.Get(key); m != nil && m.Kind == pyjson.ArrayStart && len(m.Vals) > 0 {
			set("checkpoint.model_id", m.Vals[0])
		} else {
			set("checkpoint.model_id", m)
		}
	}
	set("measurement.backend", ic.Get("endpoint_type"))
	set("measurement.backend", ic.Path("endpoint", "type"))
	set("workload.concurrency", ic.Get("concurrency"))
	set("workload.concurrency", ic.Path("perf_analyzer", "stimulus", "concurrency"))
	set("workload.request_rate", ic.Get("request_rate"))
	set("workload.request_rate", ic.Path("perf_analyzer", "stimulus", "request_rate"))
	set("workload.request_count", ic.Get("request_count"))
	set("workload.request_count", ic.Path("input", "request_count"))
	set("workload.seed", ic.Get("random_seed"))
	set("workload.seed", ic.Path("input", "random_seed"))
	if t, ok := ic.Get("tokenizer").Str(); ok {
		run.Facts["checkpoint.tokenizer"] = t
	}
	set("checkpoint.tokenizer", ic.Path("tokenizer", "name"))
	genaiPerfLength(run, "workload.input_len", ic.Get("synthetic_input_tokens_mean"), ic.Get("synthetic_input_tokens_stddev"))
	genaiPerfLength(run, "workload.input_len", ic.Path("input", "synthetic_tokens", "mean"), ic.Path("input", "synthetic_tokens", "stddev"))
	genaiPerfLength(run, "workload.output_len", ic.Get("output_tokens_mean"), ic.Get("output_tokens_stddev"))
	genaiPerfLength(run, "workload.output_len", ic.Path("input", "output_tokens", "mean"), ic.Path("input", "output_tokens", "stddev"))
}

// genaiPerfLength states a requested length (mean, ± stddev when not 0).
// GenAI-Perf writes -1 for an unset output length.
func genaiPerfLength(run *benchrun.Run, field string, mean, sd *jsonread.Node) {
	m, ok := mean.Finite()
	if !ok || m < 0 {
		return
	}
	s := strconv.FormatFloat(m, 'g', -1, 64)
	if d, ok := sd.Finite(); ok && d > 0 {
		s += "±" + strconv.FormatFloat(d, 'g', -1, 64)
	}
	run.Facts[field] = s
}

// NewGenAIPerfCSV returns the parser for profile_export_genai_perf.csv: the
// statistics table ("Metric,avg,min,max,p99,...,p25[,p10,p5,p1]") and the
// single values ("Metric,Value"), numbers printed f"{v:,.2f}" with
// thousands separators inside quoted fields, "N/A" for a missing one.
func NewGenAIPerfCSV() format.Parser { return genaiPerfCSV{} }

type genaiPerfCSV struct{}

func (genaiPerfCSV) ID() string       { return genaiPerfCSVID }
func (genaiPerfCSV) Describe() string { return "GenAI-Perf profile_export_genai_perf.csv statistics" }

// Sniff: GenAI-Perf's statistics header runs from p99 down (AIPerf's from p1
// up); a file with single values only is told by its name.
func (genaiPerfCSV) Sniff(name string, head []byte) bool {
	first, rest := aiperfFirstLine(head)
	switch {
	case strings.HasPrefix(first, "Metric,avg,min,max,p99,p95,"):
		return true
	case first == "Metric,Value":
		second, _ := aiperfFirstLine(rest)
		return strings.HasSuffix(strings.ToLower(name), "_genai_perf.csv") && strings.Contains(second, " (")
	}
	return false
}

var genaiPerfCSVDialect = aiperfCSVKind{
	id: genaiPerfCSVID, client: genaiPerfClient, tool: genaiPerfClient,
	stdPopulation: func([]string) bool { return true },
	variant: func(cols []string) string {
		switch {
		case len(cols) == 0:
			return "single values only"
		case len(cols) > 0 && cols[len(cols)-1] == "p1":
			return "two sections, p99 to p1"
		}
		return "two sections, p99 to p25"
	},
}

func (genaiPerfCSV) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	t, err := aiperfReadCSV(name, r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	run, err := aiperfCSVRun(name, t, genaiPerfCSVDialect)
	if err != nil {
		return err
	}
	markPrinted(run, 2)
	run.Notes = append(run.Notes, "failed is unknown: GenAI-Perf leaves failed requests out of its statistics and does not count them")
	if run.Completed < 0 {
		run.Notes = append(run.Notes, "completed is unknown: the table has no Request Count row")
	}
	return emit(run)
}
