// Package benchrun is the domain model shared by every stage: a benchmark run
// as a parser reads it from a raw file, with its per-request records and the
// summary figures the source tool stated. It holds plain data only; parsing,
// storage and computation live in their own packages.
//
// Units are canonical everywhere in this package: durations in seconds,
// token counts as integers, rates per second. Parsers convert from the
// source's units once, when they build a Run (see Stated.SourceUnit for what
// the tool used).
package benchrun

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
)

// Clock names what a run's per-request start times are measured against.
type Clock string

const (
	// ClockNone: the source has no per-request send times.
	ClockNone Clock = ""
	// ClockMonotonic: a process-local monotonic clock (Python's
	// time.perf_counter in vLLM). Times compare only within one client
	// process on one host; they are not dates.
	ClockMonotonic Clock = "monotonic"
	// ClockEpoch: wall-clock seconds since 1970-01-01 UTC; comparable
	// between clients whose hosts keep synchronised time.
	ClockEpoch Clock = "epoch"
)

// Unknown marks an absent float measurement. Absent integers use -1.
var Unknown = math.NaN()

// IsKnown reports whether a float field holds a measurement.
func IsKnown(v float64) bool { return !math.IsNaN(v) }

// GapStats summarises the gaps between streamed chunks of one response (vLLM's
// per-request "itls"). The full arrays stay recoverable from the raw bytes;
// the archive keeps only these four numbers per request.
type GapStats struct {
	Count int32   // number of gaps; 0 when none were recorded
	Sum   float64 // seconds
	Min   float64 // seconds; Unknown when Count == 0
	Max   float64 // seconds; Unknown when Count == 0
}

// Add counts one more gap (seconds) into the summary.
func (g *GapStats) Add(v float64) {
	if g.Count == 0 {
		g.Min, g.Max = v, v
	} else {
		g.Min, g.Max = min(g.Min, v), max(g.Max, v)
	}
	g.Count++
	g.Sum += v
}

// Request is one request as the client recorded it. Floats are seconds and
// Unknown (NaN) when the source did not record them; token counts are -1 when
// unknown.
type Request struct {
	Index        int     // dispatch order within the run, from 0
	Start        float64 // send time on the run's Clock
	QueueTime    float64 // time spent waiting on the client's own concurrency limit
	TTFT         float64 // first streamed content chunk minus send
	Latency      float64 // end to end: last content chunk minus send
	InputTokens  int32
	OutputTokens int32
	Error        string // "" for a successful request
	Gaps         GapStats
}

// Failed reports whether the request did not complete.
func (r *Request) Failed() bool { return r.Error != "" }

// Stated is a summary figure as the source tool stated it, converted to the
// canonical unit. Metric names are the project's own (see docs/metrics.md),
// for example "output_throughput", "ttft.median", "tpot.p99".
type Stated struct {
	Metric     string  // canonical metric name
	Value      float64 // in Unit
	Unit       string  // canonical unit: "s", "tok/s", "req/s", "tokens", "requests", "ratio"
	SourceKey  string  // the key or label in the raw file, e.g. "median_ttft_ms"
	SourceUnit string  // the unit the file used, e.g. "ms"
	// Printed is how many decimals the source printed the value with, in
	// SourceUnit (a console block or CSV: 2); 0 means full precision (JSON).
	// Checks against the records allow for that rounding.
	Printed int
}

// Run is one benchmark run read from a raw file. A file may hold several
// (vLLM --append-result, sweep summaries, several console blocks).
type Run struct {
	// Ordinal is the run's position within its file, from 0. Together with
	// the file's SHA-256 it identifies the run.
	Ordinal int
	// Location says where in the file the run was found, for messages:
	// "object 2 at byte 8812", "line 14".
	Location string

	Format        string // parser format id, e.g. "vllm-serve-json"
	FormatVariant string // generation within the format, e.g. "benchmark_serving.py (legacy)"
	SourceTool    string // "vllm bench serve"
	// PercentileMethod is how the source computed the percentiles it stated:
	// "linear" (numpy's default interpolation), "nearest-rank", ...
	PercentileMethod string
	Clock            Clock

	// Facts are provenance fields the raw file itself states, keyed by the
	// provenance field name (e.g. "checkpoint.model_id", "workload.request_count",
	// "metadata.<key>" for vLLM --metadata pairs). Values are the file's text.
	Facts map[string]string
	// FactPlaces says where in the file a fact was stated when that is not
	// the run's Location ("line 187 (the server command)"), so that a
	// contradiction names it. Not archived: the raw file says it again.
	FactPlaces map[string]string `json:"-"`

	Stated []Stated

	// Requests holds the per-request records in dispatch order; nil when the
	// file is summary-only. HasRequests distinguishes "no records in the file"
	// from "zero requests".
	Requests    []Request
	HasRequests bool

	// Counts the file states even without per-request records; -1 unknown.
	Completed int64
	Failed    int64

	// Extra keeps top-level keys the parser does not interpret, as their JSON
	// text, so nothing the tool wrote is dropped from the normalised view.
	// (The raw bytes are archived whole regardless.) The text is the value's
	// bytes as the file wrote them where the parser streams the value past;
	// otherwise (a value read into a tree, or from YAML) one compact
	// encoding: no spaces, numbers as written (YAML's in their shortest
	// form), strings as encoding/json writes them without HTML escaping. A
	// value over 64 KiB is replaced by a quoted "<kept in raw bytes only:
	// N kB>" note. ingest/jsonread (extra.go) implements both.
	Extra map[string]string

	// Rejection, when set, says why this run of a file holding several
	// (appended results, a sweep, JSON Lines, a page of blocks) is bad: the
	// batch reports it as rejected at Location, the place of the problem,
	// and archives the file's other runs (format.Reject makes one;
	// format.Settle is the rule). Only Ordinal and Location need be set
	// beside it.
	Rejection string

	// Companion, when set, names the run across the files that describe
	// it together (AIPerf's summary JSON, CSV and per-request JSONL;
	// llmperf's summary and individual responses): "aiperf:<key>". Files
	// with the same Companion are one run: the later completes the earlier.
	Companion string

	// ToolTimes, when the parser sets it, is what the raw file says about
	// the tool's own definitions beyond the records (guidellm's end of a
	// response, its measurement window), so that a stated figure can be
	// recomputed under the tool's definition. It is not archived: the
	// audit re-parses the raw file to use it.
	ToolTimes *ToolTimes `json:"-"`

	// Notes are what the parser inferred or could not know, one sentence
	// each ("E2E latency derived as TTFT + sum of chunk gaps: the file has no
	// latencies array"), so a reader sees assumptions instead of guessing.
	Notes []string
}

// ToolTimes are per-record times by the tool's own definitions.
type ToolTimes struct {
	// Latency is each record's end-to-end latency as the tool defines it
	// (guidellm: request_end − request_start, after the stream closed,
	// where the record's Latency ends at the last token), in Requests
	// order; Unknown where the file does not record it. Nil when the tool's
	// definition is the record's.
	Latency []float64
	// WindowStart and WindowEnd are the tool's measurement window on the
	// run's clock (guidellm ≥ 0.4: measure_start_time, measure_end_time),
	// which its stated duration is; Unknown when it has none.
	WindowStart, WindowEnd float64
}

// StatedValue returns the stated figure with the given canonical name.
func (r *Run) StatedValue(metric string) (Stated, bool) {
	for _, s := range r.Stated {
		if s.Metric == metric {
			return s, true
		}
	}
	return Stated{}, false
}

// RequestCount is the number of requests the run sent, from the records when
// present, otherwise from the stated counts; -1 when unknown.
func (r *Run) RequestCount() int64 {
	if r.HasRequests {
		return int64(len(r.Requests))
	}
	if r.Completed >= 0 && r.Failed >= 0 {
		return r.Completed + r.Failed
	}
	if r.Completed >= 0 {
		return r.Completed
	}
	return -1
}

// LegacyID is the id archives before schema 0006 gave a run: from the SHA-256
// of the first file it came in and its ordinal there, so it depended on which
// of a run's files arrived first. Such ids stay resolvable as aliases; new
// runs are named by ContentID.
func LegacyID(fileSHA256 string, ordinal int) string {
	h := sha256.Sum256([]byte(fileSHA256 + "/" + strconv.Itoa(ordinal)))
	return hex.EncodeToString(h[:])[:12]
}
