// Package caveat derives methodology and limitation notes from the data
// (DESIGN.md principle 5): a run's figures and provenance, a comparison, a
// sweep, a node aggregation, an external reference. A caveat is a stable
// code with parameters, never a sentence: the report layer turns codes into
// sentences in each language, so the same data gives the same caveats in
// zh, ja, es and en. Codes and their parameters are documented in
// docs/metrics.md ("Caveat codes"); a test keeps the two in step.
package caveat

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Caveat is one note: a code from the list below and its parameters.
// Parameter values are machine text: numbers in Go's shortest decimal form
// ("20.04", "8388608"), dates as YYYY-MM-DD, lists comma-separated.
type Caveat struct {
	Code   string            `json:"code"`
	Params map[string]string `json:"params"`
}

// Codes. The comment after each names its parameters; Params holds the same
// list for tests and renderers.
const (
	// A figure rests on one measurement (n = 1).
	CodeSingleMeasurement = "single_measurement" // figure, run
	// benchmath: too few repeats for a confidence interval or a test.
	CodeTooFewSamples = "too_few_samples" // figure, n, need, purpose
	// A difference between repeat groups is not significant.
	CodeNotSignificant = "difference_not_significant" // figure, p, alpha
	// Confounders: a compared field changed that the comparison did not intend.
	CodeHardwareDiffers     = "hardware_differs"      // field, baseline, candidate
	CodeRuntimeDiffers      = "runtime_differs"       // field, baseline, candidate
	CodeCheckpointDiffers   = "checkpoint_differs"    // field, baseline, candidate
	CodePrecisionDiffers    = "precision_differs"     // field, baseline, candidate
	CodeRequestSpecDiffers  = "request_spec_differs"  // field, baseline, candidate
	CodeRequestCountDiffers = "request_count_differs" // field, baseline, candidate
	CodeLoadModeDiffers     = "load_mode_differs"     // field, baseline, candidate
	CodeLoadDiffers         = "load_differs"          // field, baseline, candidate
	CodeClientDiffers       = "client_differs"        // field, baseline, candidate
	CodeConfounder          = "confounder"            // field, baseline, candidate
	// A compared field is stated on one side only.
	CodeFixedUnverified = "held_fixed_unverified" // field, baseline, candidate
	// The intended variable did not change.
	CodeIntendedUnchanged = "intended_unchanged" // field
	// The two sides' percentile methods differ.
	CodePercentileMethodDiffers = "percentile_method_differs" // baseline_method, candidate_method
	// The two sides' windows come from different clocks.
	CodeClocksNotComparable = "clocks_not_comparable" // runs
	// The two runs were measured by different clients, whose own figure of
	// the compared metric means different things; both sides are
	// recomputed from records by one definition.
	CodeSourceDefinitionsDiffer = "source_definitions_differ" // figure, baseline_tool, candidate_tool, baseline_key, candidate_key, baseline_method, candidate_method
	// A figure rests on a value its tool stated: the run has no
	// per-request records, so it cannot be recomputed.
	CodeStatedNotRecomputed = "stated_not_recomputed" // figure, run, tool, key, precision
	// A comparison sets a recomputed value against a stated one.
	CodeSourcesMixed = "stated_and_recomputed_mixed" // figure, baseline_source, candidate_source
	// Fixed output length verifies generated work volume, not quality.
	CodeFixedOutputLength = "fixed_output_length" // output_len
	// Median latency at the recommended (saturation) point is above an
	// interactive threshold.
	CodeSaturationLatency = "saturation_latency" // median_s, threshold_s, param
	// A sweep never saturated: the recommended point is its last.
	CodeSaturationNotFound = "saturation_not_found" // param
	// External references.
	CodeReferenceNotVisible = "external_reference_not_visible" // id, checked
	CodeReferenceStale      = "external_reference_stale"       // id, checked, age_days, max_days
	// Completion.
	CodeFailuresPresent = "failures_present" // run, failed, sent
	CodeShortOutputs    = "short_outputs"    // run, short, completed
	// A figure the run's tool stated is impossible (figures.ImpossibleStated):
	// the run is not publishable.
	CodeStatedImpossible = "stated_impossible" // run, metrics
	// Required provenance fields are missing.
	CodeProvenanceIncomplete = "provenance_incomplete" // run, missing
)

// codeRank is each code's place in Codes, made once (a site sorts the
// caveats of every run).
var codeRank = sync.OnceValue(func() map[string]int {
	rank := make(map[string]int, len(Codes))
	for i, c := range Codes {
		rank[c] = i
	}
	return rank
})

// Codes lists every code in report order: caveats sort by it.
var Codes = []string{
	CodeSingleMeasurement, CodeTooFewSamples, CodeNotSignificant,
	CodeHardwareDiffers, CodeRuntimeDiffers, CodeCheckpointDiffers, CodePrecisionDiffers,
	CodeRequestSpecDiffers, CodeRequestCountDiffers, CodeLoadModeDiffers, CodeLoadDiffers,
	CodeClientDiffers, CodeConfounder, CodeFixedUnverified, CodeIntendedUnchanged,
	CodePercentileMethodDiffers, CodeClocksNotComparable, CodeSourceDefinitionsDiffer,
	CodeStatedNotRecomputed, CodeSourcesMixed,
	CodeFixedOutputLength, CodeSaturationLatency, CodeSaturationNotFound,
	CodeReferenceNotVisible, CodeReferenceStale,
	CodeFailuresPresent, CodeShortOutputs, CodeStatedImpossible, CodeProvenanceIncomplete,
}

var diffParams = []string{"field", "baseline", "candidate"}

// Params names each code's parameters.
var Params = map[string][]string{
	CodeSingleMeasurement:       {"figure", "run"},
	CodeTooFewSamples:           {"figure", "n", "need", "purpose"},
	CodeNotSignificant:          {"figure", "p", "alpha"},
	CodeHardwareDiffers:         diffParams,
	CodeRuntimeDiffers:          diffParams,
	CodeCheckpointDiffers:       diffParams,
	CodePrecisionDiffers:        diffParams,
	CodeRequestSpecDiffers:      diffParams,
	CodeRequestCountDiffers:     diffParams,
	CodeLoadModeDiffers:         diffParams,
	CodeLoadDiffers:             diffParams,
	CodeClientDiffers:           diffParams,
	CodeConfounder:              diffParams,
	CodeFixedUnverified:         diffParams,
	CodeIntendedUnchanged:       {"field"},
	CodePercentileMethodDiffers: {"baseline_method", "candidate_method"},
	CodeClocksNotComparable:     {"runs"},
	CodeSourceDefinitionsDiffer: {"figure", "baseline_tool", "candidate_tool", "baseline_key", "candidate_key", "baseline_method", "candidate_method"},
	CodeStatedNotRecomputed:     {"figure", "run", "tool", "key", "precision"},
	CodeSourcesMixed:            {"figure", "baseline_source", "candidate_source"},
	CodeFixedOutputLength:       {"output_len"},
	CodeSaturationLatency:       {"median_s", "threshold_s", "param"},
	CodeSaturationNotFound:      {"param"},
	CodeReferenceNotVisible:     {"id", "checked"},
	CodeReferenceStale:          {"id", "checked", "age_days", "max_days"},
	CodeFailuresPresent:         {"run", "failed", "sent"},
	CodeShortOutputs:            {"run", "short", "completed"},
	CodeStatedImpossible:        {"run", "metrics"},
	CodeProvenanceIncomplete:    {"run", "missing"},
}

// Defaults of Options.
const (
	DefaultInteractiveLatency  = 10.0 // s of median E2E latency
	DefaultMaxReferenceAgeDays = 180
)

// Options tune the thresholds.
type Options struct {
	// InteractiveLatency is the median latency (s) above which a
	// recommended operating point is flagged; 0 means 10 s.
	InteractiveLatency float64 `json:"interactive_latency"`
	// MaxReferenceAgeDays is how long since its last re-check an external
	// reference stays fresh; 0 means 180 days.
	MaxReferenceAgeDays int `json:"max_reference_age_days"`
	// Now is the report date, for the age of external references. When zero
	// no staleness is judged: a caveat must not depend on the clock of the
	// machine that renders it.
	Now time.Time `json:"now"`
}

func (o Options) interactive() float64 {
	if o.InteractiveLatency > 0 {
		return o.InteractiveLatency
	}
	return DefaultInteractiveLatency
}

func (o Options) maxAge() int {
	if o.MaxReferenceAgeDays > 0 {
		return o.MaxReferenceAgeDays
	}
	return DefaultMaxReferenceAgeDays
}

// New makes a caveat from alternating parameter names and values.
func New(code string, kv ...string) Caveat {
	c := Caveat{Code: code, Params: make(map[string]string, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Params[kv[i]] = kv[i+1]
	}
	return c
}

// Key is a canonical text of the caveat: the code, then its parameters in
// their documented order (Params), then any others by name.
func (c Caveat) Key() string {
	ks := c.paramOrder()
	n := len(c.Code)
	for _, k := range ks {
		n += 2 + len(k) + len(c.Params[k])
	}
	// Written piece by piece into a builder made at its size (a string
	// concatenated per parameter was an allocation each).
	var b strings.Builder
	b.Grow(n)
	b.WriteString(c.Code)
	for _, k := range ks {
		b.WriteByte('|')
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(c.Params[k])
	}
	return b.String()
}

// paramOrder lists the caveat's parameter names: documented ones first, in
// Params order, then undocumented ones by name.
func (c Caveat) paramOrder() []string {
	doc := Params[c.Code]
	names := make([]string, 0, len(c.Params))
	for _, k := range doc {
		if _, ok := c.Params[k]; ok {
			names = append(names, k)
		}
	}
	var rest []string
	for k := range c.Params {
		if !slices.Contains(doc, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// Sort orders caveats by code (in Codes order), then by parameter values in
// their documented order (so by field, then values, for a confounder), and
// drops duplicates: the same caveats in any order give the same list.
func Sort(cs []Caveat) []Caveat {
	rank := codeRank()
	r := func(code string) int {
		if i, ok := rank[code]; ok {
			return i
		}
		return len(Codes)
	}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Caveat) int {
		if ra, rb := r(a.Code), r(b.Code); ra != rb {
			return ra - rb
		}
		if a.Code != b.Code {
			return strings.Compare(a.Code, b.Code)
		}
		return slices.Compare(a.values(), b.values())
	})
	return slices.CompactFunc(out, func(a, b Caveat) bool { return a.Key() == b.Key() })
}

func (c Caveat) values() []string {
	ks := c.paramOrder()
	vs := make([]string, 0, 2*len(ks))
	for _, k := range ks {
		vs = append(vs, k, c.Params[k])
	}
	return vs
}

// num writes a float parameter: nine significant digits drop the
// binary-representation tail (20.040000000000003 → 20.04) and keep every
// figure a report displays.
func num(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func date(t time.Time) string { return t.Format(time.DateOnly) }

// Redactor rewrites text before it leaves the archive (package redact).
type Redactor interface {
	Field(field, value string) string
	Text(s string) string
}

// Redact returns c with its parameters redacted by r: the values of a
// compared field (baseline, candidate) as that field's values (so
// hardware.node is hashed in the sentence as it is in the comparison), every
// other parameter as text. A nil r returns c.
func (c Caveat) Redact(r Redactor) Caveat {
	if r == nil || len(c.Params) == 0 {
		return c
	}
	out := Caveat{Code: c.Code, Params: make(map[string]string, len(c.Params))}
	field := c.Params["field"]
	for k, v := range c.Params {
		switch {
		case field != "" && (k == "baseline" || k == "candidate"):
			out.Params[k] = r.Field(field, v)
		case k == "field" || k == "figure" || k == "code":
			out.Params[k] = v
		default:
			out.Params[k] = r.Text(v)
		}
	}
	return out
}
