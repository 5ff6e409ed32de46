package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// Value sources: where a run's figure comes from (docs/provenance.md,
// "Where a value comes from").
const (
	// SourceRecomputed: recomputed from the run's per-request records
	// through the figure's definition.
	SourceRecomputed = "recomputed"
	// SourceStated: the figure the run's tool stated in its summary,
	// converted to the canonical unit; it cannot be recomputed.
	SourceStated = "stated"
)

// Origin says where one value of a run came from: recomputed from N
// records, or stated by a tool under a key at a printed precision.
type Origin struct {
	RunID  string `json:"run"`
	Source string `json:"value_source"` // SourceRecomputed or SourceStated
	// Records is the number of per-request records the value was
	// recomputed from; 0 for a stated value.
	Records int `json:"records,omitempty"`
	// Tool, Key, SourceUnit and Printed say what was stated: the client,
	// the key or label in its file, the unit it used and how many decimals
	// it printed (0: full precision).
	Tool       string `json:"tool,omitempty"`
	Key        string `json:"source_key,omitempty"`
	SourceUnit string `json:"source_unit,omitempty"`
	Printed    int    `json:"printed_decimals,omitempty"`
}

// Stated reports whether the value is a stated one.
func (o Origin) Stated() bool { return o.Source == SourceStated }

// Precision describes the printed precision in English: "full precision"
// or "2 decimals in ms".
func (o Origin) Precision() string {
	if o.Printed <= 0 {
		return "full precision"
	}
	return fmt.Sprintf("%d decimals in %s", o.Printed, o.SourceUnit)
}

// String is the origin in English, as the text outputs print it:
// "recomputed from 200 records" or "stated by vllm bench serve
// (mean_ttft_ms, full precision), not recomputable".
func (o Origin) String() string {
	if o.Stated() {
		return fmt.Sprintf("stated by %s (%s, %s), not recomputable", o.Tool, o.Key, o.Precision())
	}
	return fmt.Sprintf("recomputed from %d records", o.Records)
}

// OriginOf says where metric m of figures f comes from, for run runID.
func (f *RunFigures) OriginOf(runID string, m MetricName) Origin {
	if f.Source != SourceStated {
		return Origin{RunID: runID, Source: SourceRecomputed, Records: f.Sent}
	}
	o := Origin{RunID: runID, Source: SourceStated, Tool: f.Tool}
	if s, ok := f.StatedFrom[m.String()]; ok {
		o.Key, o.SourceUnit, o.Printed = s.SourceKey, s.SourceUnit, s.Printed
	} else if m.Stat == "" && m.Metric.Name == "duration" {
		o.Key = "duration"
	}
	return o
}

// FromStated builds a summary-only run's figures from what its tool stated
// (converted to canonical units at ingest): the duration is the window, the
// rates, counts and latency statistics are the tool's own. Figures the tool
// did not state are Unknown; nothing is derived from the stated ones, so
// every value reads as the tool wrote it. Percentiles are the tool's, by
// its method (r.PercentileMethod).
func FromStated(r *benchrun.Run) RunFigures {
	nan := math.NaN()
	f := RunFigures{Source: SourceStated, Tool: r.SourceTool, StatedFrom: map[string]benchrun.Stated{},
		Sent: -1, Completed: -1, Failed: -1, Short: -1, WindowBasis: BasisNone, Window: nan, WindowStart: nan,
		OutputTokens: -1, InputTokens: -1,
		OutputThroughput: nan, TotalTokenThroughput: nan, RequestThroughput: nan, AchievedConcurrency: nan, ITLMean: nan,
		PercentileMethod: MethodLinear, Percentiles: slices.Clone(Percentiles)}
	if f.Tool == "" {
		f.Tool = r.Format
	}
	if m, err := ParsePercentileMethod(r.PercentileMethod); err == nil && r.PercentileMethod != "" {
		f.PercentileMethod = m
	}
	if r.Completed >= 0 {
		f.Completed = int(r.Completed)
	}
	if r.Failed >= 0 {
		f.Failed = int(r.Failed)
	}
	stats := map[string]*Stat{"ttft": &f.TTFT, "tpot": &f.TPOT, "e2el": &f.E2EL}
	for _, st := range stats {
		*st = Stat{N: -1, Mean: nan, Std: nan, Median: nan, Min: nan, Max: nan, Method: f.PercentileMethod, P: map[float64]float64{}}
	}
	for _, s := range r.Stated {
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			continue
		}
		v := s.Value
		set := true
		switch s.Metric {
		case "duration":
			f.Window, f.WindowBasis = v, BasisStatedDuration
		case "output_throughput":
			f.OutputThroughput = v
		case "total_token_throughput":
			f.TotalTokenThroughput = v
		case "request_throughput":
			f.RequestThroughput = v
		case "completed":
			f.Completed = int(v)
		case "failed":
			f.Failed = int(v)
		case "total_output_tokens":
			f.OutputTokens = int64(v)
		case "total_input_tokens":
			f.InputTokens = int64(v)
		case "itl.mean":
			f.ITLMean = v
		default:
			set = setStatedStat(stats, s.Metric, v)
		}
		if set {
			f.StatedFrom[s.Metric] = s
		}
	}
	if f.Completed >= 0 {
		f.Sent = f.Completed + max(f.Failed, 0)
		for _, st := range stats {
			st.N = f.Completed
		}
	}
	return f
}

// setStatedStat sets a stated latency statistic "<family>.<stat>" in its
// Stat; false when the name is not one of them.
func setStatedStat(stats map[string]*Stat, metric string, v float64) bool {
	fam, stat, ok := strings.Cut(metric, ".")
	st := stats[fam]
	if !ok || st == nil {
		return false
	}
	switch stat {
	case "mean":
		st.Mean = v
	case "std":
		st.Std = v
	case "min":
		st.Min = v
	case "max":
		st.Max = v
	case "median":
		st.Median = v
		st.P[50] = v
	default:
		num, ok := strings.CutPrefix(stat, "p")
		p, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil || p <= 0 || p >= 100 {
			return false
		}
		st.P[p] = v
		if p == 50 && math.IsNaN(st.Median) {
			st.Median = v
		}
	}
	return true
}
