package casestudy

import (
	"testing"
	"time"

	"github.com/benchledger/benchledger/locales"
)

// TestBindingPrecision: a text chooses a binding's precision ({{x:0}},
// {{x.approx}}, {{x.unsigned}}), and the defaults write figures as the
// published case does (+132%, +8.17%, a signed rise).
func TestBindingPrecision(t *testing.T) {
	t.Parallel()
	m := map[string]Binding{
		"tuning.pct":     {Value: 131.914, Kind: KindPercent, Decimals: PctDecimals(131.914), Signed: true},
		"ref.pct":        {Value: 8.1686, Kind: KindPercent, Decimals: PctDecimals(8.1686), Signed: true},
		"lat.pct":        {Value: -26.47, Kind: KindPercent, Decimals: PctDecimals(-26.47), Signed: true},
		"step.gain":      {Value: 0.9104, Kind: KindPercent, Decimals: PctDecimals(0.9104), Signed: true},
		"tuning.ratio":   {Value: 2.3191, Kind: KindRatio, Decimals: 2},
		"tuning.abs":     {Value: 23690.2, Kind: KindQuantity, Unit: "tok/s", Signed: true},
		"lat.abs":        {Value: -4.2113, Kind: KindQuantity, Unit: "s", Decimals: 2, Signed: true},
		"zero.abs":       {Value: 0.001, Kind: KindQuantity, Unit: "s", Decimals: 2, Signed: true},
		"sat.latency":    {Value: 20.0412, Kind: KindQuantity, Unit: "s", Decimals: 2},
		"tput":           {Value: 41651.3, Kind: KindQuantity, Unit: "tok/s"},
		"node.requests":  {Value: 32768, Kind: KindCount},
		"ref.x.captured": dateBinding(time.Date(2026, 8, 17, 0, 0, 0, 0, time.UTC)),
	}
	for _, c := range []struct {
		lang, ref, want string
	}{
		{"en", "tuning.pct", "+132%"},
		{"en", "ref.pct", "+8.17%"},
		{"en", "lat.pct", "-26.5%"},
		{"en", "step.gain", "+0.91%"},
		{"en", "tuning.pct:1", "+131.9%"},
		{"en", "tuning.pct.unsigned", "132%"},
		{"en", "lat.pct.unsigned:0", "26%"},
		{"en", "tuning.pct.approx", "+130%"},
		{"en", "tuning.ratio:1", "2.3x"},
		{"en", "tuning.abs", "+23,690 tok/s"},
		{"en", "lat.abs", "-4.21 s"},
		{"en", "zero.abs", "0.00 s"},
		{"en", "sat.latency", "20.04 s"},
		{"en", "sat.latency.approx", "20 s"},
		{"en", "sat.latency:0", "20 s"},
		{"en", "tput.approx", "42,000 tok/s"},
		{"en", "node.requests", "32,768"},
		{"zh", "tuning.pct.unsigned", "132%"},
		{"zh", "sat.latency.approx", "20 秒"},
		{"ja", "tuning.abs", "+23,690 トークン/秒"},
		{"es", "tuning.pct:1", "+131,9\u00a0%"},
		{"es-419", "step.gain.unsigned", "0.91%"},
	} {
		b, _, ok := Lookup(m, c.ref)
		if !ok {
			t.Errorf("%s: not found", c.ref)
			continue
		}
		if got := b.Format(locales.MustMatch(c.lang)); got != c.want {
			t.Errorf("%s %s = %q, want %q", c.lang, c.ref, got, c.want)
		}
	}
	for _, ref := range []string{"tuning.pct:x", "tuning.pct:", "tuning.pct:01", "ref.x.captured:0", "ref.x.captured.approx", "tput.approx:0", "nope.approx", "tuning.pct:9"} {
		if _, _, ok := Lookup(m, ref); ok {
			t.Errorf("%s: found, want refused", ref)
		}
	}
	if b, name, _ := Lookup(m, "tuning.pct.unsigned:0"); name != "tuning.pct" || b.Value != 131.914 || b.Signed {
		t.Errorf("Lookup base name %q, binding %+v", name, b)
	}
}

func TestMoneyDecimals(t *testing.T) {
	t.Parallel()
	en := locales.MustMatch("en")
	for v, want := range map[float64]string{22.2222: "$22.22", 0.0149: "$0.0149", 0.14912: "$0.149", 1: "$1.00", 0.000001234: "$0.000001"} {
		b := Binding{Value: v, Kind: KindMoney, Currency: "USD", Decimals: moneyDecimals(v)}
		if got := b.Format(en); got != want {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
}
