package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/floatsort"
	"github.com/benchledger/benchledger/internal/memo"
)

// DefaultRelTol is the relative tolerance of a stated-vs-recomputed check
// when the source wrote full-precision numbers (JSON floats): enough for the
// float round trip through text and a different summation order, far below
// any difference that would matter in a published figure.
const DefaultRelTol = 1e-6

// StatedOptions say how the source stated its figures.
type StatedOptions struct {
	// RelTol is the relative tolerance; 0 means DefaultRelTol.
	RelTol float64 `json:"rel_tol"`
	// Rounded says the source printed values rounded to Decimals decimals in
	// its own unit (Stated.SourceUnit): a console block prints "12.34" ms,
	// which is Decimals 2 and half a unit of 0.005 ms = 5e-6 s.
	Rounded  bool `json:"rounded"`
	Decimals int  `json:"decimals"`
	// MetricDecimals overrides Decimals per metric (and implies rounding for
	// that metric), e.g. {"completed": 0}.
	MetricDecimals map[string]int `json:"metric_decimals"`
	// SourceMethod is the percentile method the source used
	// (benchrun.Run.PercentileMethod); "" means the same as the figures'.
	SourceMethod string `json:"source_method"`
	// DurationIsWindow says the source's duration is defined as first send to
	// last completion (AIPerf, guidellm, trtllm-bench), so it is compared as a
	// value. Otherwise (vLLM) it only has to contain the records' window.
	DurationIsWindow bool `json:"duration_is_window"`
	// Tool is the source's own definitions where they differ from ours
	// (DefinitionsOf); nil when they do not.
	Tool *ToolDefinitions `json:"tool"`
	// ToolE2E are the completed requests' E2E latencies by the tool's
	// definition, read from the raw file (benchrun.ToolTimes); nil when not
	// at hand.
	ToolE2E []float64 `json:"tool_e2_e"`
}

// DefinitionDifference says that a stated figure differs from our
// recomputation by a documented difference of definition (docs/metrics.md,
// "Definitions of the tools"), and by how much.
type DefinitionDifference struct {
	Ours  string  `json:"ours"`
	Tools string  `json:"tools"` // the two definitions
	Diff  float64 `json:"diff"`  // Stated − Recomputed (by our definition), in the check's unit
	Pct   float64 `json:"pct"`   // Diff / Recomputed × 100
	// ToolValue is the figure recomputed under the tool's definition;
	// Recomputed says whether it could be (the raw file's own times were
	// at hand, or only the percentile algorithm differs): then the stated
	// value agrees with it within the check's tolerance. Otherwise the
	// difference only lies within what the definition can explain.
	ToolValue  float64 `json:"tool_value"`
	Recomputed bool    `json:"recomputed"`
}

// StatedCheck is one stated figure compared with its recomputed value.
type StatedCheck struct {
	Metric     string  `json:"metric"`     // canonical metric name, e.g. "ttft.p99"
	Unit       string  `json:"unit"`       // the definition's canonical unit
	Stated     float64 `json:"stated"`     // as the source stated it, converted to Unit
	Recomputed float64 `json:"recomputed"` // from the records, by the same definition as the source's
	// Tolerance is the absolute tolerance in Unit; ToleranceBasis says how
	// it was set ("relative 1e-06", "half a unit of 2 decimals in ms", ...).
	Tolerance      float64 `json:"tolerance"`
	ToleranceBasis string  `json:"tolerance_basis"`
	Definition     string  `json:"definition"`
	// Basis says what Recomputed is: "records", "count / stated duration",
	// "stated duration contains the records' window", ...
	Basis string `json:"basis"`
	// Method is the percentile method of the comparison, for percentile
	// figures (the source's when it differs from the figures').
	Method PercentileMethod `json:"method"`
	OK     bool             `json:"ok"`
	// Reason explains a disagreement, or notes how an agreeing value was
	// compared (another percentile method, a window difference).
	Reason string `json:"reason"`
	// Definitional is set when the stated figure differs from Recomputed
	// only by a difference of definition: OK when it was recomputed under
	// the tool's definition and agrees, not OK (a warning, not a failure)
	// when it could only be bounded.
	Definitional *DefinitionDifference `json:"definitional"`
}

// Diff is Stated − Recomputed.
func (c StatedCheck) Diff() float64 { return c.Stated - c.Recomputed }

// WindowDifference compares the source's stated duration with the records'
// window. They differ by definition in vLLM (its duration starts before the
// first send), so this is reported, not judged.
type WindowDifference struct {
	Known          bool    `json:"known"`
	StatedDuration float64 `json:"stated_duration"` // s
	RecordsWindow  float64 `json:"records_window"`  // s
	Diff           float64 `json:"diff"`            // StatedDuration − RecordsWindow, s
	Pct            float64 `json:"pct"`             // Diff / RecordsWindow × 100
	// Output throughput over each window (tok/s).
	OverStatedDuration float64 `json:"over_stated_duration"`
	OverRecordsWindow  float64 `json:"over_records_window"`
}

// NotChecked is a stated figure that has no recomputed counterpart.
type NotChecked struct {
	Metric string `json:"metric"`
	Reason string `json:"reason"`
}

// StatedAudit is the outcome of CheckStated.
type StatedAudit struct {
	Checks       []StatedCheck    `json:"checks"`
	Window       WindowDifference `json:"window"`
	SourceMethod PercentileMethod `json:"source_method"` // the method percentile comparisons used
	NotChecked   []NotChecked     `json:"not_checked"`
}

// Disagreements returns the checks beyond tolerance.
func (a StatedAudit) Disagreements() []StatedCheck {
	var out []StatedCheck
	for _, c := range a.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

// unitFactor converts a value in source unit from to canonical unit to.
func unitFactor(from, to string) (float64, bool) {
	if from == "" || from == to {
		return 1, true
	}
	scale := map[string]float64{"s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9, "min": 60}
	f, ok1 := scale[from]
	t, ok2 := scale[to]
	if ok1 && ok2 {
		return f / t, true
	}
	return 1, false
}

// CheckStated compares each stated figure that the records can reproduce
// with its recomputed value, in the order stated.
//
// Rules (docs/metrics.md, "Stated vs recomputed"):
//   - Tolerance: RelTol × |stated|, widened to half a unit of the last printed
//     decimal (converted to the canonical unit) when the source rounded.
//   - Rates (output_throughput, total_token_throughput, input_throughput,
//     request_throughput) are compared with count / stated duration, the
//     tool's own definition; the rounding of a printed duration is carried
//     into the tolerance. The window difference is reported in Window.
//   - duration: must contain the records' window (or equal it with
//     DurationIsWindow).
//   - Percentiles and medians use the source's method when it differs from
//     the figures', and the check says so.
func CheckStated(stated []benchrun.Stated, f RunFigures, opt StatedOptions) StatedAudit {
	rel := opt.RelTol
	if rel <= 0 {
		rel = DefaultRelTol
	}
	var a StatedAudit
	ours := f.PercentileMethod.orDefault()
	a.SourceMethod = ours
	methodKnown := true
	if opt.SourceMethod != "" {
		m, err := ParsePercentileMethod(opt.SourceMethod)
		if err != nil {
			methodKnown = false
		} else {
			a.SourceMethod = m
		}
	}

	// half returns half a unit of the last printed decimal of a stated
	// figure, in its canonical unit, and a description; 0 when not rounded.
	half := func(s benchrun.Stated) (float64, string) {
		d, ok := opt.MetricDecimals[s.Metric]
		if !ok {
			if !opt.Rounded {
				return 0, ""
			}
			d = opt.Decimals
		}
		src := s.SourceUnit
		if src == "" {
			src = s.Unit
		}
		fac, _ := unitFactor(src, s.Unit)
		return 0.5 * math.Pow(10, -float64(d)) * fac, fmt.Sprintf("half a unit of %d decimals in %s", d, src)
	}
	relWhy := defaultRelWhy
	if rel != DefaultRelTol {
		relWhy = "relative " + strconv.FormatFloat(rel, 'g', -1, 64)
	}
	tolerance := func(s benchrun.Stated, extra float64, extraWhy string) (float64, string) {
		tol := rel * math.Abs(s.Value)
		why := relWhy
		h, hwhy := half(s)
		if h+extra > tol {
			tol = h + extra
			switch {
			case hwhy != "" && extraWhy != "":
				why = hwhy + " + " + extraWhy
			case hwhy != "":
				why = hwhy
			default:
				why = extraWhy
			}
		}
		return tol, why
	}

	var dur benchrun.Stated
	haveDur := false
	for _, s := range stated {
		if s.Metric == "duration" && s.Value > 0 && benchrun.IsKnown(s.Value) {
			dur, haveDur = s, true
		}
	}
	records := f.WindowBasis == BasisRecords && f.Window > 0
	if haveDur && records {
		a.Window = WindowDifference{Known: true, StatedDuration: dur.Value, RecordsWindow: f.Window,
			Diff: dur.Value - f.Window, Pct: (dur.Value - f.Window) / f.Window * 100,
			OverStatedDuration: float64(f.OutputTokens) / dur.Value, OverRecordsWindow: f.OutputThroughput}
	}

	skip := func(s benchrun.Stated, why string) {
		if a.NotChecked == nil {
			a.NotChecked = make([]NotChecked, 0, min(len(stated), 8)) // a vLLM run has 6
		}
		a.NotChecked = append(a.NotChecked, NotChecked{s.Metric, why})
	}
	for _, s := range stated {
		c := StatedCheck{Metric: s.Metric, Stated: s.Value, Basis: "records"}
		var extra float64
		var extraWhy string
		switch s.Metric {
		case "completed", "failed":
			c.Unit = "requests"
			c.Recomputed = float64(f.Completed)
			if s.Metric == "failed" {
				c.Recomputed = float64(f.Failed)
			}
		case "total_output_tokens":
			c.Unit, c.Recomputed = "tokens", float64(f.OutputTokens)
		case "total_input_tokens":
			c.Unit, c.Recomputed = "tokens", float64(f.InputTokens)
		case "duration":
			if !records {
				skip(s, "the records carry no send times: the window is the stated duration itself")
				continue
			}
			c.Unit, c.Recomputed = "s", f.Window
			if !opt.DurationIsWindow {
				c.Basis = "stated duration contains the records' window"
			}
		case "output_throughput", "total_token_throughput", "input_throughput", "request_throughput", "request_goodput":
			var count float64
			c.Unit = "tok/s"
			switch s.Metric {
			case "request_goodput":
				g := f.ToolSLO
				if g == nil {
					skip(s, "the SLO the tool judged by (--goodput) is not stated: set "+ToolSLOField+" in the manifest")
					continue
				}
				if !g.Recomputable() {
					skip(s, g.Reason)
					continue
				}
				count, c.Unit = float64(g.Good), "req/s"
			case "output_throughput":
				count = float64(f.OutputTokens)
			case "total_token_throughput":
				count = float64(f.OutputTokens + f.InputTokens)
			case "input_throughput":
				count = float64(f.InputTokens)
			case "request_throughput":
				count, c.Unit = float64(f.Completed), "req/s"
			}
			switch {
			case haveDur:
				c.Basis = "count / stated duration"
				c.Recomputed = count / dur.Value
				if h, _ := half(dur); h > 0 {
					// A printed duration is itself rounded: its relative
					// error carries into the rate computed from it.
					extra = math.Abs(c.Recomputed) * h / (dur.Value - h)
					extraWhy = "rounding of the stated duration"
				}
			case f.Window > 0:
				c.Basis = "count / " + f.WindowBasis
				c.Recomputed = count / f.Window
			default:
				skip(s, "no window: neither send times nor a stated duration")
				continue
			}
		default:
			v, unit, method, why := statedLatency(&f, s.Metric, a.SourceMethod, methodKnown)
			if why != "" {
				skip(s, why)
				continue
			}
			c.Unit, c.Recomputed, c.Method = unit, v, method
		}
		if !benchrun.IsKnown(c.Recomputed) || math.IsInf(c.Recomputed, 0) {
			skip(s, "the records hold no samples for it")
			continue
		}
		c.Definition = definitionOf(s.Metric, c.Method)
		c.Tolerance, c.ToleranceBasis = tolerance(s, extra, extraWhy)
		judge(&c, s, opt.DurationIsWindow)
		if !c.OK && opt.Tool != nil {
			byDefinition(&c, f, opt)
		}
		if c.Method != "" && c.Method != ours {
			c.Reason = join(c.Reason, fmt.Sprintf("compared with the source's %s percentile (ours: %s)", c.Method, ours))
		}
		if c.Basis == "count / stated duration" && a.Window.Known {
			c.Reason = join(c.Reason, overRecordsWindow(a.Window.RecordsWindow, a.Window.StatedDuration, c.Recomputed*a.Window.StatedDuration/a.Window.RecordsWindow, c.Unit))
		}
		if a.Checks == nil {
			a.Checks = make([]StatedCheck, 0, len(stated)) // one allocation, not a doubling per figure
		}
		a.Checks = append(a.Checks, c)
	}
	return a
}

// judge sets OK and the reason of a check.
func judge(c *StatedCheck, s benchrun.Stated, durationIsWindow bool) {
	if s.Unit != c.Unit {
		c.OK = false
		c.Reason = fmt.Sprintf("stated in %q, the definition's unit is %q", s.Unit, c.Unit)
		return
	}
	d := c.Stated - c.Recomputed
	if c.Metric == "duration" && !durationIsWindow {
		// vLLM's duration starts before the first send and ends after the
		// last completion: only a duration shorter than the window is wrong.
		c.OK = d >= -c.Tolerance
		if !c.OK {
			c.Reason = fmt.Sprintf("the stated duration is %.6g s shorter than the records' window: it cannot contain it", -d)
		} else if d > c.Tolerance {
			// fmt's "longer than the records' window by %.6g s (%.3g%%), by
			// definition", without fmt: every vLLM run says it.
			var buf [96]byte
			b := strconv.AppendFloat(append(buf[:0], "longer than the records' window by "...), d, 'g', 6, 64)
			b = strconv.AppendFloat(append(b, " s ("...), d/c.Recomputed*100, 'g', 3, 64)
			c.Reason = string(append(b, "%), by definition"...))
		}
		return
	}
	c.OK = math.Abs(d) <= c.Tolerance
	if c.OK {
		return
	}
	c.Reason = fmt.Sprintf("differs by %.6g %s beyond the tolerance %.3g %s", d, c.Unit, c.Tolerance, c.Unit)
	if c.Recomputed != 0 {
		c.Reason = fmt.Sprintf("differs by %.6g %s (%+.4g%%) beyond the tolerance %.3g %s", d, c.Unit, d/c.Recomputed*100, c.Tolerance, c.Unit)
		if r := c.Stated / c.Recomputed; math.Abs(r/1000-1) < 0.01 || math.Abs(r*1000-1) < 0.01 {
			c.Reason += fmt.Sprintf("; stated/recomputed = %.4g, a ms/s unit mix-up?", r)
		}
	}
}

// defaultRelWhy is the tolerance basis of DefaultRelTol.
var defaultRelWhy = "relative " + strconv.FormatFloat(DefaultRelTol, 'g', -1, 64)

// overRecordsWindow says what a rate checked over the stated duration is
// over the records' window: fmt's "over the records' window (%.6g s
// instead of %.6g s) it is %.6g %s; the windows differ by definition",
// without fmt (a vLLM run says it of each rate).
func overRecordsWindow(window, duration, v float64, unit string) string {
	var buf [160]byte
	b := strconv.AppendFloat(append(buf[:0], "over the records' window ("...), window, 'g', 6, 64)
	b = strconv.AppendFloat(append(b, " s instead of "...), duration, 'g', 6, 64)
	b = strconv.AppendFloat(append(b, " s) it is "...), v, 'g', 6, 64)
	b = append(append(append(b, ' '), unit...), "; the windows differ by definition"...)
	return string(b)
}

// itlNotRecomputed is why a stated ITL statistic other than the mean is not
// checked, made once per statistic (a vLLM run states three).
func itlNotRecomputed(stat string) string {
	switch stat {
	case "median":
		return itlMedian
	case "std":
		return itlStd
	case "p99":
		return itlP99
	}
	return itlReason(stat)
}

func itlReason(stat string) string {
	return "the archive keeps per-request gap sums only: ITL " + stat + " is not recomputed"
}

var itlMedian, itlStd, itlP99 = itlReason("median"), itlReason("std"), itlReason("p99")

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// statedLatency finds the recomputed value for a latency statistic named
// "<metric>.<stat>": mean, std, median, min, max or p<P>. It returns a reason
// when there is none.
func statedLatency(f *RunFigures, metric string, method PercentileMethod, methodKnown bool) (float64, string, PercentileMethod, string) {
	name, stat, ok := strings.Cut(metric, ".")
	if !ok {
		return 0, "", "", "no recomputed counterpart"
	}
	if name == "itl" {
		if stat == "mean" {
			return f.ITLMean, "s", "", ""
		}
		return 0, "", "", itlNotRecomputed(stat)
	}
	st, ok := f.StatOf(name)
	if !ok {
		return 0, "", "", "no recomputed counterpart"
	}
	switch stat {
	case "mean":
		return st.Mean, "s", "", ""
	case "std":
		return st.Std, "s", "", ""
	case "min":
		return st.Min, "s", "", ""
	case "max":
		return st.Max, "s", "", ""
	}
	p := 50.0
	if stat != "median" {
		num, ok := strings.CutPrefix(stat, "p")
		v, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil || v < 0 || v > 100 {
			return 0, "", "", "no recomputed counterpart"
		}
		p = v
	}
	if !methodKnown {
		return 0, "", "", "the source's percentile method is unknown"
	}
	if st.sorted == nil && st.N > 0 {
		// A Stat built without its values (by hand): only its own method.
		if method != st.Method {
			return 0, "", "", "the figures do not keep the values to apply the source's method"
		}
		if stat == "median" {
			return st.Median, "s", method, ""
		}
		if v, ok := st.P[p]; ok {
			return v, "s", method, ""
		}
		return 0, "", "", "percentile not computed"
	}
	return st.Percentile(p, method), "s", method, ""
}

// definitionOf spells out a stated metric's definition: the figure's own,
// and for a statistic over requests which statistic, with the percentile
// method's formula.
func definitionOf(metric string, m PercentileMethod) string {
	return definitionsMade.Get(definitionKey{metric, m}, func() string { return makeDefinition(metric, m) })
}

// definitionKey is what definitionOf's text is made of.
type definitionKey struct {
	metric string
	method PercentileMethod
}

// definitionsMade keeps definitionOf's texts: a site checks the same few
// dozen stated figures of 10,000 runs.
var definitionsMade memo.Map[definitionKey, string]

func makeDefinition(metric string, m PercentileMethod) string {
	if d, ok := Definitions[metric]; ok {
		return d.Formula
	}
	name, stat, ok := strings.Cut(metric, ".")
	if !ok {
		return ""
	}
	base := Definitions[name].Formula
	switch {
	case stat == "std":
		return base + "; " + Definitions["std"].Formula
	case stat == "median" || strings.HasPrefix(stat, "p"):
		p := "50"
		if stat != "median" {
			p = stat[1:]
		}
		return base + "; percentile p = " + p + " by " + string(m) + ": " + Definitions["percentile."+string(m)].Formula
	}
	return base + "; " + stat
}

// byDefinition looks at a disagreeing latency check under the tool's own
// definitions: the tool's percentile algorithm, and its end of the E2E
// latency (recomputed from the tool's own end times when given, else
// bounded by ToolDefinitions.E2ESlack). A difference these explain is
// recorded in c.Definitional; one they do not leaves the check failed.
func byDefinition(c *StatedCheck, f RunFigures, opt StatedOptions) {
	td := opt.Tool
	if c.Metric == "duration" && td.Window != "" && f.WindowBasis == BasisRecords {
		// The tool's duration is its measurement window and the requests
		// it counts overlap it: their span exceeds it by at most the
		// longest request at each end (audit: plausibility.duration and
		// recompute.definition judge it with the file's window).
		if d := f.Window - c.Stated; d > 0 && f.E2EL.N > 0 && d <= 2*f.E2EL.Max+c.Tolerance {
			c.Definitional = &DefinitionDifference{Ours: Definitions["window"].Formula, Tools: td.Window, Diff: c.Stated - f.Window,
				Pct: (c.Stated - f.Window) / f.Window * 100, ToolValue: c.Stated}
			c.OK = true
			c.Reason = fmt.Sprintf("shorter than the records' window by %.6g s, within twice the longest request (%.6g s) that overlapping the window explains", d, f.E2EL.Max)
		}
		return
	}
	name, stat, ok := strings.Cut(c.Metric, ".")
	if !ok {
		return
	}
	st, ok := f.StatOf(name)
	if !ok || st.sorted == nil {
		return
	}
	p, isPct := math.NaN(), false
	switch {
	case stat == "median":
		p, isPct = 50, true
	case strings.HasPrefix(stat, "p"):
		if v, err := strconv.ParseFloat(stat[1:], 64); err == nil {
			p, isPct = v, true
		}
	}
	var ours, tools []string
	vals := st.sorted
	e2e := name == "e2el" && td.E2E != ""
	if e2e {
		ours = append(ours, "E2E latency from send to the last token ("+Definitions["e2el"].Formula+")")
		tools = append(tools, td.Tool+": E2E latency from "+td.E2E)
		if opt.ToolE2E != nil {
			vals = slices.Clone(opt.ToolE2E)
			floatsort.Sort(vals)
		}
	}
	if isPct && td.Percentile != nil {
		ours = append(ours, "percentile by "+string(c.Method)+": "+Definitions["percentile."+string(c.Method)].Formula)
		tools = append(tools, td.Tool+"'s percentile: "+td.PercentileName)
	}
	if len(tools) == 0 {
		return
	}
	var v float64
	switch {
	case isPct && td.Percentile != nil:
		v = td.Percentile(vals, p)
	case isPct:
		v = Percentile(vals, p, c.Method)
	default:
		sum := SummariseWith(slices.Clone(vals), []float64{50}, MethodLinear)
		switch stat {
		case "mean":
			v = sum.Mean
		case "std":
			v = sum.Std
		case "min":
			v = sum.Min
		case "max":
			v = sum.Max
		default:
			return
		}
	}
	dd := &DefinitionDifference{Ours: strings.Join(ours, "; "), Tools: strings.Join(tools, "; "), Diff: c.Stated - c.Recomputed, ToolValue: v}
	if c.Recomputed != 0 {
		dd.Pct = dd.Diff / c.Recomputed * 100
	}
	recomputedAll := !e2e || opt.ToolE2E != nil
	if recomputedAll {
		if math.Abs(c.Stated-v) <= c.Tolerance {
			dd.Recomputed = true
			c.Definitional, c.OK = dd, true
			c.Reason = fmt.Sprintf("differs from our definition by %.6g %s (%+.4g%%); recomputed under %s's definition it is %.6g %s and agrees", dd.Diff, c.Unit, dd.Pct, td.Tool, v, c.Unit)
		}
		return
	}
	// The E2E end times are not at hand: the tool's end is later than the
	// last token, by at most E2ESlack of the value.
	d := c.Stated - v
	if d >= -c.Tolerance && d <= td.E2ESlack*math.Abs(v)+c.Tolerance {
		c.Definitional = dd
		c.Reason = fmt.Sprintf("%s ends E2E latency later than the last token: the stated value is %.6g %s (%+.4g%%) above ours, within the %.3g%% that definition can explain; the raw file's own end times (benchledger audit re-reads them) recompute it exactly",
			td.Tool, d, c.Unit, d/v*100, td.E2ESlack*100)
	}
}
