package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
)

// Change is a relative change between two values of one figure.
type Change struct {
	Baseline  float64   `json:"baseline"`
	Candidate float64   `json:"candidate"`
	Abs       float64   `json:"abs"`   // Candidate − Baseline
	Pct       float64   `json:"pct"`   // (Candidate − Baseline) / Baseline × 100; NaN when Baseline is 0
	Ratio     float64   `json:"ratio"` // Candidate / Baseline (2.32x); NaN when Baseline is 0
	Direction Direction `json:"direction"`
	// Improved: the candidate is better in Direction (higher throughput,
	// lower latency); Regressed: worse. Neither when equal or Direction unknown.
	Improved  bool `json:"improved"`
	Regressed bool `json:"regressed"`
}

// NewChange computes the change from base to cand.
func NewChange(base, cand float64, dir Direction) Change {
	c := Change{Baseline: base, Candidate: cand, Abs: cand - base, Direction: dir, Pct: math.NaN(), Ratio: math.NaN()}
	if base != 0 {
		c.Pct = (cand - base) / base * 100
		c.Ratio = cand / base
	}
	switch {
	case dir == HigherIsBetter && cand > base, dir == LowerIsBetter && cand < base:
		c.Improved = true
	case dir == HigherIsBetter && cand < base, dir == LowerIsBetter && cand > base:
		c.Regressed = true
	}
	return c
}

// ComparisonFields are the provenance fields a comparison checks for being
// held fixed (DESIGN.md principle 4), in report order.
var ComparisonFields = []string{
	"hardware.gpu_model", "hardware.gpu_count", "hardware.node",
	"runtime.engine", "runtime.version", "runtime.image", "runtime.server_args",
	"checkpoint.repository", "checkpoint.revision", "checkpoint.precision", "checkpoint.kv_cache_dtype",
	"workload.input_len", "workload.output_len", "workload.dataset", "workload.request_count",
	"workload.concurrency", "workload.request_rate",
	"measurement.client",
}

// LoadModeField is the derived field that names a run's load mode:
// "concurrency" (closed loop: a client concurrency limit, no finite rate) or
// "request_rate" (open loop: a finite offered rate).
const LoadModeField = "workload.load_mode"

// Fields compared as numbers ("64" = "64.0", "inf" = "Infinity") and without
// regard to case; everything else, versions included, must match exactly.
var (
	numericFields = map[string]bool{"hardware.gpu_count": true, "workload.input_len": true, "workload.output_len": true,
		"workload.request_count": true, "workload.concurrency": true, "workload.request_rate": true}
	foldFields = map[string]bool{"measurement.client": true, "runtime.engine": true}
)

// FieldDiff is one provenance field on both sides; "" where a side does not
// state it.
type FieldDiff struct {
	Field     string `json:"field"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
}

// ProvDiff sorts the comparison fields by what happened to them.
type ProvDiff struct {
	Fixed   []FieldDiff `json:"fixed"`   // stated on both sides, equal
	Changed []FieldDiff `json:"changed"` // stated on both sides, different
	Unknown []FieldDiff `json:"unknown"` // stated on one side only: cannot say it was held fixed
	Absent  []string    `json:"absent"`  // stated on neither side
}

func sameValue(field, a, b string) bool {
	if a == b {
		return true
	}
	if numericFields[field] {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 == nil && err2 == nil {
			return x == y
		}
	}
	return foldFields[field] && strings.EqualFold(a, b)
}

// ProvenanceDiff compares two effective provenance maps over fields (nil:
// ComparisonFields), in the order of fields. Values are trimmed.
func ProvenanceDiff(base, cand map[string]string, fields []string) ProvDiff {
	if fields == nil {
		fields = ComparisonFields
	}
	var d ProvDiff
	for _, f := range fields {
		a, b := strings.TrimSpace(base[f]), strings.TrimSpace(cand[f])
		fd := FieldDiff{f, a, b}
		switch {
		case a == "" && b == "":
			d.Absent = append(d.Absent, f)
		case a == "" || b == "":
			d.Unknown = append(d.Unknown, fd)
		case sameValue(f, a, b):
			d.Fixed = append(d.Fixed, fd)
		default:
			d.Changed = append(d.Changed, fd)
		}
	}
	return d
}

// LoadMode derives a run's load mode from its provenance: "request_rate"
// when it states a finite offered rate, "concurrency" when it states a
// concurrency limit and no finite rate, "" when it states neither.
func LoadMode(prov map[string]string) string {
	if r := strings.TrimSpace(prov["workload.request_rate"]); r != "" {
		if v, err := strconv.ParseFloat(r, 64); err != nil || !math.IsInf(v, 1) {
			return "request_rate"
		}
	}
	if strings.TrimSpace(prov["workload.concurrency"]) != "" {
		return "concurrency"
	}
	return ""
}

// ExternalReference is a figure that is not ours: a number published
// elsewhere, kept with where and when it was captured and whether its source
// still shows it.
type ExternalReference struct {
	ID         string            `json:"id"`
	Figure     string            `json:"figure"`
	Unit       string            `json:"unit"`
	Source     string            `json:"source"`
	Title      string            `json:"title"`
	Value      float64           `json:"value"`
	Captured   time.Time         `json:"captured"`
	Checked    time.Time         `json:"checked"` // capture date; last re-check of the source
	Visible    bool              `json:"visible"` // still shown at Source at the last re-check
	Provenance map[string]string `json:"provenance"`
}

// Side is one side of a comparison: our run (or repeat set), or an
// external reference.
type Side struct {
	RunID string  `json:"run_id"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// N is the number of measurements behind Value; 0 means one for a run.
	N int `json:"n"`
	// Values are the repeat values, when there are several, for a
	// significance test.
	Values           []float64          `json:"values"`
	Provenance       map[string]string  `json:"provenance"`
	PercentileMethod string             `json:"percentile_method"` // method behind Value, for percentile figures
	Clock            benchrun.Clock     `json:"clock"`
	Reference        *ExternalReference `json:"reference"` // set for an external reference
	// SourceTool is the client that measured the run; SourceKey the key
	// under which it stated the compared metric ("mean_tpot_ms",
	// "inter_token_latency.avg"; "" when it did not), and
	// SourcePercentileMethod how it computed its percentiles. They say what
	// the client's own number meant; Value is recomputed from records.
	SourceTool             string `json:"source_tool"`
	SourceKey              string `json:"source_key"`
	SourcePercentileMethod string `json:"source_percentile_method"`
	// ValueSource is SourceRecomputed or SourceStated (a summary-only run:
	// Value is what its tool stated); "" for an external reference.
	ValueSource string `json:"value_source"`
}

// ReferenceSide makes a comparison side of an external reference.
func ReferenceSide(ref ExternalReference) Side {
	r := ref
	return Side{RunID: ref.ID, Value: ref.Value, Unit: ref.Unit, Provenance: ref.Provenance, Reference: &r}
}

// IsReference reports whether the side is an external reference.
func (s Side) IsReference() bool { return s.Reference != nil }

// ComparisonSpec declares what a comparison is about.
type ComparisonSpec struct {
	Metric string `json:"metric"`
	// Direction of the metric; 0 means DirectionOf(Metric).
	Direction Direction `json:"direction"`
	// Intended are the provenance fields the comparison sets out to vary
	// (e.g. runtime.server_args for a scheduler-tuning comparison). Every
	// other changed field is a confounder. Naming workload.concurrency or
	// workload.request_rate also intends a load-mode change.
	Intended []string `json:"intended"`
	// Fields to compare; nil means ComparisonFields.
	Fields []string `json:"fields"`
}

// Comparison is a baseline-vs-candidate figure with what was held fixed and
// what changed.
type Comparison struct {
	Metric    string   `json:"metric"`
	Unit      string   `json:"unit"`
	Baseline  Side     `json:"baseline"`
	Candidate Side     `json:"candidate"`
	Change    Change   `json:"change"`
	Intended  []string `json:"intended"`
	// IntendedUnchanged are intended fields that did not change: the
	// comparison does not show what it set out to.
	IntendedUnchanged []string    `json:"intended_unchanged"`
	Fixed             []FieldDiff `json:"fixed"`
	Changed           []FieldDiff `json:"changed"` // including intended ones
	Unknown           []FieldDiff `json:"unknown"`
	Absent            []string    `json:"absent"`
	// Confounders are changed fields that were not intended, in field order.
	Confounders []FieldDiff `json:"confounders"`
	// PercentileMethodDiffers is set for a percentile figure whose two sides
	// used different percentile methods.
	PercentileMethodDiffers bool `json:"percentile_method_differs"`
	// ClocksComparable is false when both sides are runs whose windows come
	// from different clocks (one from send times, one from a tool's stated
	// duration; or epoch against monotonic).
	ClocksComparable bool `json:"clocks_comparable"`
	// SourcesMixed is set when one run side is recomputed from records and
	// the other stated by its tool: the change sets a figure by our
	// definition against one by the tool's.
	SourcesMixed bool `json:"sources_mixed"`
	// Significance is set when both sides carry repeat values.
	Significance *Significance `json:"significance"`
	// SourceDefinitionsDiffer is set when the two runs come from different
	// clients: each states the metric under its own name and definition
	// (vLLM's TPOT against AIPerf's inter-token latency, guidellm's
	// nearest-rank percentiles against interpolated ones), so their own
	// summaries are not comparable even though Value is recomputed alike.
	SourceDefinitionsDiffer bool `json:"source_definitions_differ"`
}

// Compare builds a comparison. It refuses sides in different units and
// missing values: such a change would be meaningless, not merely caveated.
func Compare(base, cand Side, spec ComparisonSpec) (Comparison, error) {
	for _, s := range []Side{base, cand} {
		if !benchrun.IsKnown(s.Value) || math.IsInf(s.Value, 0) {
			return Comparison{}, fmt.Errorf("compare %s: %s has no value", spec.Metric, s.RunID)
		}
	}
	if base.Unit != cand.Unit {
		return Comparison{}, fmt.Errorf("compare %s: %s is in %q, %s in %q", spec.Metric, base.RunID, base.Unit, cand.RunID, cand.Unit)
	}
	dir := spec.Direction
	if dir == 0 {
		dir = DirectionOf(spec.Metric)
	}
	for _, s := range []*Side{&base, &cand} {
		if s.N == 0 && !s.IsReference() {
			s.N = max(1, len(s.Values))
		}
	}
	c := Comparison{Metric: spec.Metric, Unit: base.Unit, Baseline: base, Candidate: cand,
		Change: NewChange(base.Value, cand.Value, dir), Intended: slices.Clone(spec.Intended), ClocksComparable: true}
	pd := ProvenanceDiff(base.Provenance, cand.Provenance, spec.Fields)
	c.Fixed, c.Changed, c.Unknown, c.Absent = pd.Fixed, pd.Changed, pd.Unknown, pd.Absent
	if bm, cm := LoadMode(base.Provenance), LoadMode(cand.Provenance); bm != "" && cm != "" && bm != cm {
		c.Changed = append(c.Changed, FieldDiff{LoadModeField, bm, cm})
	}
	intended := map[string]bool{}
	for _, f := range spec.Intended {
		intended[f] = true
	}
	if intended["workload.concurrency"] || intended["workload.request_rate"] {
		intended[LoadModeField] = true
	}
	changed := map[string]bool{}
	for _, d := range c.Changed {
		changed[d.Field] = true
		if !intended[d.Field] {
			c.Confounders = append(c.Confounders, d)
		}
	}
	for _, f := range spec.Intended {
		if !changed[f] {
			c.IntendedUnchanged = append(c.IntendedUnchanged, f)
		}
	}
	if usesPercentile(spec.Metric) {
		bm, err1 := ParsePercentileMethod(base.PercentileMethod)
		cm, err2 := ParsePercentileMethod(cand.PercentileMethod)
		c.PercentileMethodDiffers = err1 != nil || err2 != nil || bm != cm
		if base.IsReference() && base.PercentileMethod == "" || cand.IsReference() && cand.PercentileMethod == "" {
			c.PercentileMethodDiffers = false // not stated by the reference: nothing to compare
		}
	}
	if !base.IsReference() && !cand.IsReference() && base.Clock != cand.Clock {
		c.ClocksComparable = false
	}
	// Only when both values are recomputed alike: a stated value already
	// carries its own tool's definition (CodeStatedNotRecomputed).
	if !base.IsReference() && !cand.IsReference() && base.SourceTool != "" && cand.SourceTool != "" &&
		base.ValueSource != SourceStated && cand.ValueSource != SourceStated &&
		!strings.EqualFold(base.SourceTool, cand.SourceTool) {
		c.SourceDefinitionsDiffer = true
	}
	if !base.IsReference() && !cand.IsReference() && base.ValueSource != "" && cand.ValueSource != "" && base.ValueSource != cand.ValueSource {
		c.SourcesMixed = true
	}
	if len(base.Values) > 0 && len(cand.Values) > 0 {
		s := CompareRepeats(base.Values, cand.Values)
		c.Significance = &s
	}
	return c, nil
}

// usesPercentile reports whether a metric name is a percentile statistic
// ("e2el.median", "ttft.p99.9"), the only figures a method changes.
func usesPercentile(metric string) bool {
	_, stat, ok := strings.Cut(metric, ".")
	if !ok {
		return false
	}
	if stat == "median" {
		return true
	}
	num, ok := strings.CutPrefix(stat, "p")
	_, err := strconv.ParseFloat(num, 64)
	return ok && err == nil
}

// MetricChange is one metric of two runs with its change: a row of a
// comparison of every metric (CompareAll).
type MetricChange struct {
	Metric    string    `json:"metric"`
	Unit      string    `json:"unit"`
	Baseline  float64   `json:"baseline"`
	Candidate float64   `json:"candidate"`
	Abs       float64   `json:"abs"` // Candidate − Baseline
	Pct       *float64  `json:"pct"` // (Candidate − Baseline) / Baseline × 100; nil when Baseline is 0
	Direction Direction `json:"-"`
	// Way is Direction by name: "higher-is-better", "lower-is-better" or
	// "neutral".
	Way string `json:"direction"`
	// Better is true when the change goes the metric's better way, false
	// when it goes the other way, and nil when the metric has no better
	// way (Direction 0) or the values are equal (definition
	// "change.better").
	Better *bool `json:"better"`
	// BaselineSource and CandidateSource say where each value comes from
	// (SourceRecomputed or SourceStated).
	BaselineSource  string `json:"baseline_source"`
	CandidateSource string `json:"candidate_source"`
}

// Better is the "change.better" of a change from base to cand in
// direction dir.
func Better(base, cand float64, dir Direction) *bool {
	c := NewChange(base, cand, dir)
	switch {
	case c.Improved:
		t := true
		return &t
	case c.Regressed:
		f := false
		return &f
	}
	return nil
}

// CompareAll compares every metric of the Catalogue (MetricNames, in
// Catalogue order) that both runs have a value for.
func CompareAll(base, cand *RunFigures) []MetricChange {
	var out []MetricChange
	for _, name := range MetricNames() {
		m, _ := ParseMetric(name)
		b, c := m.Of(base), m.Of(cand)
		if !benchrun.IsKnown(b) || !benchrun.IsKnown(c) || math.IsInf(b, 0) || math.IsInf(c, 0) {
			continue
		}
		ch := NewChange(b, c, m.Metric.Direction)
		var pct *float64
		if !math.IsNaN(ch.Pct) {
			pct = &ch.Pct
		}
		out = append(out, MetricChange{Metric: name, Unit: m.Unit(), Baseline: b, Candidate: c, Abs: ch.Abs, Pct: pct,
			Direction: m.Metric.Direction, Way: wayOf(m.Metric.Direction), Better: Better(b, c, m.Metric.Direction),
			BaselineSource: base.OriginOf("", m).Source, CandidateSource: cand.OriginOf("", m).Source})
	}
	return out
}

func wayOf(d Direction) string {
	if d == 0 {
		return "neutral"
	}
	return d.String()
}
