package casestudy

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
)

// Kind says how a bound value is written.
type Kind string

// The kinds of bound values.
const (
	KindQuantity Kind = "quantity" // a value with its unit: "41,651 tok/s"
	KindPercent  Kind = "percent"  // a value in percent: "+131.9%"
	KindRatio    Kind = "ratio"    // "2.32x"
	KindCount    Kind = "count"    // a plain integer: "32,768"
	KindDate     Kind = "date"     // a calendar date: "18 August 2026"
	KindMoney    Kind = "money"    // an amount in Currency: "$0.56"
)

// Binding is one named value a narrative may use as {{name}}. The value is
// the computed one, unrounded; Decimals and Kind say how a locale writes it.
type Binding struct {
	Value    float64   `json:"value"`
	Kind     Kind      `json:"kind"`
	Unit     string    `json:"unit"` // quantity unit ("tok/s", "s", ...)
	Decimals int       `json:"decimals"`
	Signed   bool      `json:"signed"` // percent and quantity: "+" on positive values
	Time     time.Time `json:"time"`   // date kind: the date (Value is its Unix time)
	// Sig, when above zero, writes the value with that many significant
	// figures instead of Decimals ("about 20 s" for 20.04 s).
	Sig int `json:"sig,omitempty"`
	// Currency is the ISO 4217 code of a money value.
	Currency string `json:"currency,omitempty"`
}

// Shown is the value as written, rounded, and the decimals it is written
// with: what a reader sees, and so what a claim of it is checked against.
func (b Binding) Shown() (float64, int) {
	if b.Sig <= 0 || b.Value == 0 || math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
		return b.Value, b.Decimals
	}
	d := b.Sig - 1 - int(math.Floor(math.Log10(math.Abs(b.Value))))
	if d >= 0 {
		return b.Value, d
	}
	p := math.Pow(10, float64(-d))
	return math.Round(b.Value/p) * p, 0
}

// Format writes the value in the locale.
func (b Binding) Format(l locales.Locale) string {
	v, dec := b.Shown()
	switch b.Kind {
	case KindPercent:
		return l.Percent(v, dec, b.Signed)
	case KindRatio:
		return l.RatioN(v, dec)
	case KindCount:
		return l.Number(v, dec)
	case KindDate:
		return l.Date(b.Time.UTC())
	case KindMoney:
		return l.Money(v, dec, b.Currency)
	}
	s := l.Quantity(v, dec, b.Unit)
	if b.Signed && v > 0 && strings.Trim(l.Number(v, dec), "0.,") != "" {
		s = "+" + s // a rise is signed like a fall: +23,690 tok/s, -4.21 s
	}
	return s
}

// Modifiers a text may add to a binding's name (docs/casestudy.md
// "Precision"): NAME.approx writes two significant figures, NAME.unsigned
// drops the sign ("rose by 132%"), NAME:N writes N decimals.
const (
	ModApprox   = ".approx"
	ModUnsigned = ".unsigned"
)

// Lookup finds the binding a text names, with its modifiers applied, and
// the name without them. ok is false when the name, or a modifier, is not
// known (a date has no precision).
func Lookup(m map[string]Binding, ref string) (b Binding, name string, ok bool) {
	name = ref
	dec := -1
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		n, err := strconv.Atoi(name[i+1:])
		if err != nil || n < 0 || n > 6 || name[i+1:] != strconv.Itoa(n) {
			return Binding{}, name[:i], false
		}
		dec, name = n, name[:i]
	}
	approx, unsigned := false, false
	for {
		if s, cut := strings.CutSuffix(name, ModApprox); cut && !approx {
			name, approx = s, true
		} else if s, cut := strings.CutSuffix(name, ModUnsigned); cut && !unsigned {
			name, unsigned = s, true
		} else {
			break
		}
	}
	b, ok = m[name]
	if !ok {
		return b, name, false
	}
	if b.Kind == KindDate && (approx || dec >= 0) || approx && dec >= 0 {
		return Binding{}, name, false
	}
	if approx {
		b.Sig = 2
	}
	if dec >= 0 {
		b.Decimals, b.Sig = dec, 0
	}
	if unsigned {
		b.Value, b.Signed = math.Abs(b.Value), false
	}
	return b, name, true
}

// DataValue is the language-neutral value emitted beside every bound number
// (data-value), so two language versions can be compared exactly.
func (b Binding) DataValue() string {
	if b.Kind == KindDate {
		return b.Time.UTC().Format(time.DateOnly)
	}
	return strconv.FormatFloat(b.Value, 'g', -1, 64)
}

// UnitDecimals is the default precision of a quantity by unit: a bound
// quantity and a chart axis of the same unit agree.
func UnitDecimals(unit string) int {
	switch unit {
	case "tok/s", "tok/s/GPU", "requests", "tokens":
		return 0
	}
	return 2
}

func quantity(v float64, unit string) Binding {
	return Binding{Value: v, Kind: KindQuantity, Unit: unit, Decimals: UnitDecimals(unit)}
}

// Bindings lists every name a narrative of this case study may use
// (docs/casestudy.md "Narrative bindings"). Values that do not exist (a
// sweep without a next level, a node without a reference) are absent.
func Bindings(res *Result) map[string]Binding {
	m := map[string]Binding{}
	addQ := func(name string, v float64, unit string) {
		m[name] = quantity(v, unit)
		if unit != "" {
			m[name+".precise"] = Binding{Value: v, Kind: KindQuantity, Unit: unit, Decimals: 2}
		}
	}
	// A cost comes with its inputs: NAME.gpus, NAME.price and
	// NAME.price_date beside NAME.
	money := func(name string, c *figures.CostEstimate) {
		if c == nil {
			return
		}
		m[name] = Binding{Value: c.PerMillionOutputTokens, Kind: KindMoney, Currency: c.Price.Currency, Decimals: moneyDecimals(c.PerMillionOutputTokens)}
		m[name+".gpus"] = Binding{Value: c.GPUs, Kind: KindCount}
		m[name+".price"] = Binding{Value: c.Price.PerGPUHour, Kind: KindMoney, Currency: c.Price.Currency, Decimals: 2}
		if t, err := time.Parse(time.DateOnly, c.Price.Date); err == nil {
			m[name+".price_date"] = dateBinding(t)
		}
	}
	perGPU := func(name string, v *float64) {
		if v != nil {
			m[name] = quantity(*v, "tok/s/GPU")
		}
	}
	for n, f := range res.Figures {
		if f.Unit == "%" {
			m[n] = Binding{Value: f.Value, Kind: KindPercent, Decimals: 1}
		} else {
			addQ(n, f.Value, f.Unit)
		}
		money(n+".cost", f.Cost)
		if f.N > 0 {
			m[n+".n"] = Binding{Value: float64(f.N), Kind: KindCount}
		}
		if f.N > 1 {
			addQ(n+".min", f.Min, f.Unit)
			addQ(n+".max", f.Max, f.Unit)
		}
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
		for _, k := range []string{n + ".abs", n + ".abs.precise"} {
			if abs, ok := m[k]; ok {
				abs.Signed = true
				m[k] = abs
			}
		}
		m[n+".pct"] = Binding{Value: ch.Pct, Kind: KindPercent, Decimals: PctDecimals(ch.Pct), Signed: true}
		m[n+".ratio"] = Binding{Value: ch.Ratio, Kind: KindRatio, Decimals: 2}
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
		m[n+".window"] = Binding{Value: cons.Window, Kind: KindQuantity, Unit: "s", Decimals: 2}
		m[n+".requests"] = Binding{Value: float64(cons.Completed), Kind: KindCount}
		m[n+".sent"] = Binding{Value: float64(cons.Sent), Kind: KindCount}
		m[n+".tokens"] = Binding{Value: float64(cons.OutputTokens), Kind: KindCount}
		m[n+".failed"] = Binding{Value: float64(cons.Failed), Kind: KindCount}
		m[n+".replicas"] = Binding{Value: float64(cons.Replicas), Kind: KindCount}
		hi, failed, fewest := math.Inf(-1), 0, math.Inf(1)
		for _, r := range nd.Runs {
			hi = math.Max(hi, r.OutputThroughput)
			failed += r.Failed
			fewest = math.Min(fewest, float64(r.Completed))
		}
		// Every node run, not only the conservative one: "each run
		// completed all its requests".
		m[n+".runs"] = Binding{Value: float64(len(nd.Runs)), Kind: KindCount}
		m[n+".failed_all"] = Binding{Value: float64(failed), Kind: KindCount}
		m[n+".completed_min"] = Binding{Value: fewest, Kind: KindCount}
		addQ(n+".max", hi, "tok/s")
		addQ(n+".sum_of_rates", cons.SumOfRates, "tok/s")
		m[n+".overstatement"] = Binding{Value: cons.Overstatement, Kind: KindPercent, Decimals: 2, Signed: true}
		perGPU(n+".per_gpu", nd.ThroughputPerGPU)
		money(n+".cost", nd.Cost)
		if sc := nd.Scaling; sc != nil {
			m[n+".efficiency"] = Binding{Value: sc.Pct, Kind: KindPercent, Decimals: 2}
			m[n+".single"] = Binding{Value: sc.Single, Kind: KindQuantity, Unit: "tok/s", Decimals: 2}
		}
	}
	for sel, w := range res.Workload {
		for f, v := range w {
			m[sel+"."+f] = Binding{Value: v, Kind: KindCount}
		}
	}
	for n, sw := range res.Sweeps {
		r := sw.Result
		if r.Recommended < 0 || r.Recommended >= len(r.Levels) {
			continue
		}
		lv := r.Levels[r.Recommended]
		addQ(n+".saturation.throughput", lv.Throughput, "tok/s")
		m[n+".saturation.latency"] = Binding{Value: lv.MedianLatency, Kind: KindQuantity, Unit: "s", Decimals: 2}
		m[n+".saturation.param"] = Binding{Value: lv.Param, Kind: KindCount}
		perGPU(n+".saturation.per_gpu", lv.ThroughputPerGPU)
		money(n+".saturation.cost", lv.Cost)
		if r.SLOPointFound {
			sl := r.Levels[r.SLOPoint]
			addQ(n+".slo.throughput", sl.Throughput, "tok/s")
			m[n+".slo.latency"] = Binding{Value: sl.MedianLatency, Kind: KindQuantity, Unit: "s", Decimals: 2}
			m[n+".slo.param"] = Binding{Value: sl.Param, Kind: KindCount}
			m[n+".slo.attainment"] = Binding{Value: *sl.SLOAttainment, Kind: KindPercent, Decimals: 1}
			m[n+".slo.goodput"] = Binding{Value: *sl.Goodput, Kind: KindQuantity, Unit: "req/s", Decimals: 2}
			perGPU(n+".slo.per_gpu", sl.ThroughputPerGPU)
			money(n+".slo.cost", sl.Cost)
		}
		if nx := r.Recommended + 1; nx < len(r.Levels) {
			addQ(n+".next.throughput", r.Levels[nx].Throughput, "tok/s")
			m[n+".next.latency"] = Binding{Value: r.Levels[nx].MedianLatency, Kind: KindQuantity, Unit: "s", Decimals: 2}
			m[n+".next.param"] = Binding{Value: r.Levels[nx].Param, Kind: KindCount}
			for _, st := range r.Steps {
				if st.From == r.Recommended {
					m[n+".step.gain"] = Binding{Value: st.ThroughputGainPct, Kind: KindPercent, Decimals: 2, Signed: true}
					m[n+".step.latency_growth"] = Binding{Value: st.LatencyGrowthPct, Kind: KindPercent, Decimals: 2, Signed: true}
				}
			}
		}
	}
	if o := res.SLO; o != nil {
		for _, t := range []struct {
			name string
			v    float64
		}{{"ttft", o.TTFT}, {"tpot", o.TPOT}, {"e2el", o.E2EL}} {
			if t.v > 0 {
				m["slo."+t.name] = Binding{Value: t.v * 1000, Kind: KindQuantity, Unit: "ms", Decimals: 0}
			}
		}
		if res.SLOTargetPct > 0 {
			m["slo.target"] = Binding{Value: res.SLOTargetPct, Kind: KindPercent, Decimals: 0}
		}
	}
	if p := res.Price; p != nil {
		m["price.per_gpu_hour"] = Binding{Value: p.PerGPUHour, Kind: KindMoney, Currency: p.Currency, Decimals: 2}
		if t, err := time.Parse(time.DateOnly, p.Date); err == nil {
			m["price.date"] = dateBinding(t)
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
	return Binding{Value: float64(t.Unix()), Kind: KindDate, Time: t}
}

// PctDecimals keeps three significant digits of a relative change, the way
// the published case prints them: +132%, -26.5%, +8.17%, +0.91%. The
// report's bindings and the site's comparison pages both write changes so.
func PctDecimals(p float64) int {
	switch a := math.Abs(p); {
	case a >= 99.95:
		return 0
	case a >= 9.995:
		return 1
	}
	return 2
}

// moneyDecimals writes an amount with 2 decimals, or with three
// significant figures when it is below 1: a cost per million tokens is
// often a fraction of the currency's unit ($0.0149, not $0.01).
func moneyDecimals(v float64) int {
	if !(v > 0) || v >= 1 || math.IsInf(v, 0) {
		return 2
	}
	return min(6, max(2, 2-int(math.Floor(math.Log10(v)))))
}
