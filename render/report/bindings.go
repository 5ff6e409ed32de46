package report

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
)

// Kind says how a bound value is written.
type Kind string

// The kinds of bound values.
const (
	Quantity Kind = "quantity" // a value with its unit: "41,651 tok/s"
	Percent  Kind = "percent"  // a value in percent: "+131.9%"
	Ratio    Kind = "ratio"    // "2.32x"
	Count    Kind = "count"    // a plain integer: "32,768"
	Date     Kind = "date"     // a calendar date: "18 August 2026"
)

// Binding is one named value a narrative may use as {{name}}. The value is
// the computed one, unrounded; Decimals and Kind say how a locale writes it.
type Binding struct {
	Value    float64
	Kind     Kind
	Unit     string // quantity unit ("tok/s", "s", ...)
	Decimals int
	Signed   bool      // percent: "+" on positive values
	Time     time.Time // date kind: the date (Value is its Unix time)
}

// Format writes the value in the locale.
func (b Binding) Format(l locales.Locale) string {
	switch b.Kind {
	case Percent:
		return l.Percent(b.Value, b.Decimals, b.Signed)
	case Ratio:
		return l.Ratio(b.Value)
	case Count:
		return l.Number(b.Value, 0)
	case Date:
		return l.Date(b.Time.UTC())
	}
	return l.Quantity(b.Value, b.Decimals, b.Unit)
}

// DataValue is the language-neutral value emitted beside every bound number
// (data-value), so two language versions can be compared exactly.
func (b Binding) DataValue() string {
	if b.Kind == Date {
		return b.Time.UTC().Format(time.DateOnly)
	}
	return strconv.FormatFloat(b.Value, 'g', -1, 64)
}

// unitDecimals is the default precision of a quantity by unit.
func unitDecimals(unit string) int {
	switch unit {
	case "tok/s", "tok/s/GPU", "requests", "tokens":
		return 0
	}
	return 2
}

func quantity(v float64, unit string) Binding {
	return Binding{Value: v, Kind: Quantity, Unit: unit, Decimals: unitDecimals(unit)}
}

// Bindings lists every name a narrative of this case study may use
// (docs/casestudy.md "Narrative bindings"). Values that do not exist (a
// sweep without a next level, a node without a reference) are absent.
func Bindings(res *casestudy.Result) map[string]Binding {
	m := map[string]Binding{}
	addQ := func(name string, v float64, unit string) {
		m[name] = quantity(v, unit)
		if unit != "" {
			m[name+".precise"] = Binding{Value: v, Kind: Quantity, Unit: unit, Decimals: 2}
		}
	}
	for n, f := range res.Figures {
		addQ(n, f.Value, f.Unit)
	}
	refs := map[string]bool{}
	for n, c := range res.Comparisons {
		unit := c.Comparison.Unit
		if unit == "" {
			unit = c.Candidate.Unit
		}
		ch := c.Comparison.Change
		addQ(n+".baseline", ch.Baseline, unit)
		addQ(n+".candidate", ch.Candidate, unit)
		addQ(n+".abs", ch.Abs, unit)
		m[n+".pct"] = Binding{Value: ch.Pct, Kind: Percent, Decimals: pctDecimals(ch.Pct), Signed: true}
		m[n+".ratio"] = Binding{Value: ch.Ratio, Kind: Ratio, Decimals: 2}
		for _, s := range []*figuresSide{side(c.Comparison.Baseline.Reference), side(c.Comparison.Candidate.Reference)} {
			if s == nil || refs[s.id] {
				continue
			}
			refs[s.id] = true
			addQ("ref."+s.id+".value", s.value, s.unit)
			m["ref."+s.id+".captured"] = dateBinding(s.captured)
			m["ref."+s.id+".checked"] = dateBinding(s.checked)
		}
	}
	for n, nd := range res.Nodes {
		cons := nd.Runs[nd.Conservative]
		addQ(n, nd.Throughput.Value, "tok/s")
		m[n+".window"] = Binding{Value: cons.Window, Kind: Quantity, Unit: "s", Decimals: 2}
		m[n+".requests"] = Binding{Value: float64(cons.Completed), Kind: Count}
		m[n+".sent"] = Binding{Value: float64(cons.Sent), Kind: Count}
		m[n+".tokens"] = Binding{Value: float64(cons.OutputTokens), Kind: Count}
		m[n+".failed"] = Binding{Value: float64(cons.Failed), Kind: Count}
		m[n+".replicas"] = Binding{Value: float64(cons.Replicas), Kind: Count}
		hi := math.Inf(-1)
		for _, r := range nd.Runs {
			hi = math.Max(hi, r.OutputThroughput)
		}
		addQ(n+".max", hi, "tok/s")
		addQ(n+".sum_of_rates", cons.SumOfRates, "tok/s")
		m[n+".overstatement"] = Binding{Value: cons.Overstatement, Kind: Percent, Decimals: 2, Signed: true}
		if sc := nd.Scaling; sc != nil {
			m[n+".efficiency"] = Binding{Value: sc.Pct, Kind: Percent, Decimals: 2}
			m[n+".single"] = Binding{Value: sc.Single, Kind: Quantity, Unit: "tok/s", Decimals: 2}
		}
	}
	for sel, w := range res.Workload {
		for f, v := range w {
			m[sel+"."+f] = Binding{Value: v, Kind: Count}
		}
	}
	for n, sw := range res.Sweeps {
		r := sw.Result
		if r.Recommended < 0 || r.Recommended >= len(r.Levels) {
			continue
		}
		lv := r.Levels[r.Recommended]
		addQ(n+".saturation.throughput", lv.Throughput, "tok/s")
		m[n+".saturation.latency"] = Binding{Value: lv.MedianLatency, Kind: Quantity, Unit: "s", Decimals: 2}
		m[n+".saturation.param"] = Binding{Value: lv.Param, Kind: Count}
		if nx := r.Recommended + 1; nx < len(r.Levels) {
			addQ(n+".next.throughput", r.Levels[nx].Throughput, "tok/s")
			m[n+".next.latency"] = Binding{Value: r.Levels[nx].MedianLatency, Kind: Quantity, Unit: "s", Decimals: 2}
			m[n+".next.param"] = Binding{Value: r.Levels[nx].Param, Kind: Count}
			for _, st := range r.Steps {
				if st.From == r.Recommended {
					m[n+".step.gain"] = Binding{Value: st.ThroughputGainPct, Kind: Percent, Decimals: 2, Signed: true}
					m[n+".step.latency_growth"] = Binding{Value: st.LatencyGrowthPct, Kind: Percent, Decimals: 2, Signed: true}
				}
			}
		}
	}
	return m
}

type figuresSide struct {
	id, unit          string
	value             float64
	captured, checked time.Time
}

func side(r *figures.ExternalReference) *figuresSide {
	if r == nil {
		return nil
	}
	return &figuresSide{id: r.ID, unit: r.Unit, value: r.Value, captured: r.Captured, checked: r.Checked}
}

func dateBinding(t time.Time) Binding {
	return Binding{Value: float64(t.Unix()), Kind: Date, Time: t}
}

// bindingRE is the {{name}} of a narrative.
var bindingRE = regexp.MustCompile(`\{\{\s*([a-z][a-z0-9_.-]*)\s*\}\}`)

// UnknownBindingError names the unknown bindings of a narrative and lists
// the known ones.
type UnknownBindingError struct {
	File    string
	Unknown []string
	Known   []string
}

func (e *UnknownBindingError) Error() string {
	return fmt.Sprintf("%s: unknown figure name(s) %s; known names: %s", e.File, strings.Join(e.Unknown, ", "), strings.Join(e.Known, ", "))
}

// substitute replaces every {{name}} of text by repl(name, binding); an
// unknown name is an *UnknownBindingError. With cjk (zh, ja: the value as
// shown) a space is put between a value's Latin or digit end and CJK text
// beside it, as GLOSSARY.md writes
// "提升 132%": narratives need not type it.
func substitute(file, text string, b map[string]Binding, cjk func(Binding) string, repl func(name string, v Binding) string) (string, error) {
	var unknown []string
	var out strings.Builder
	last := 0
	for _, ix := range bindingRE.FindAllStringSubmatchIndex(text, -1) {
		name := text[ix[2]:ix[3]]
		out.WriteString(text[last:ix[0]])
		last = ix[1]
		v, ok := b[name]
		if !ok {
			if !slices.Contains(unknown, name) {
				unknown = append(unknown, name)
			}
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(text[:ix[0]])
		after, _ := utf8.DecodeRuneInString(text[ix[1]:])
		var shown string
		if cjk != nil {
			shown = cjk(v)
		}
		if shown != "" && isCJK(before) && !isCJK(firstRune(shown)) {
			out.WriteByte(' ')
		}
		out.WriteString(repl(name, v))
		if shown != "" && isCJK(after) && !isCJK(lastRune(shown)) {
			out.WriteByte(' ')
		}
	}
	out.WriteString(text[last:])
	if len(unknown) > 0 {
		return "", &UnknownBindingError{File: file, Unknown: unknown, Known: slices.Sorted(maps.Keys(b))}
	}
	return out.String(), nil
}

// isCJK: a Han, Hiragana or Katakana character (a bound value always
// starts and ends with a digit, sign or unit, so a CJK neighbour wants a
// space).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// pctDecimals keeps three significant digits of a relative change, the way
// case studies print them: +131.9%, +8.17%, +0.91%.
func pctDecimals(p float64) int {
	if math.Abs(p) >= 10 {
		return 1
	}
	return 2
}
