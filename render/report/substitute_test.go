package report

import (
	"errors"
	"testing"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/locales"
)

// TestSubstitutePrecision: a text's {{x:N}}, {{x.approx}} and
// {{x.unsigned}} write the binding at that precision; a modifier a binding
// cannot take is an unknown name, with the binding it was likely meant to be.
func TestSubstitutePrecision(t *testing.T) {
	t.Parallel()
	b := map[string]casestudy.Binding{
		"tuning.pct":  {Value: 131.914, Kind: casestudy.KindPercent, Decimals: 0, Signed: true},
		"sat.latency": {Value: 20.0412, Kind: casestudy.KindQuantity, Unit: "s", Decimals: 2},
	}
	for _, c := range []struct{ lang, text, want string }{
		{"en", "A gain of {{tuning.pct.unsigned}}, at about {{sat.latency.approx}} ({{ sat.latency }}, {{tuning.pct:1}}).",
			"A gain of 132%, at about 20 s (20.04 s, +131.9%)."},
		{"zh", "提升{{tuning.pct.unsigned}}，延迟约{{sat.latency.approx}}。", "提升 132%，延迟约 20 秒。"},
		{"es-419", "una mejora del {{tuning.pct.unsigned}}", "una mejora del 132%"},
	} {
		l := locales.MustMatch(c.lang)
		got, err := substitute("n.md", c.text, b, cjkSpacing(l), func(_ string, v casestudy.Binding) string { return v.Format(l) })
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.lang, got, err, c.want)
		}
	}
	_, err := substitute("n.md", "x\n{{sat.latency:x}} {{tuning.pct.approx:0}}", b, nil, func(string, casestudy.Binding) string { return "" })
	var ub *UnknownBindingError
	if !errors.As(err, &ub) || len(ub.Unknown) != 2 || ub.Unknown[0].Line != 2 || ub.Unknown[1].Name != "tuning.pct.approx:0" {
		t.Fatalf("err = %v", err)
	}
}

// TestMarkdownNumbersKeepUnits: in Markdown a number is joined to the unit
// or counter after it by a no-break space (a viewer cannot split "15.91 /
// segundos"); the space before a number, and numbers in a row, stay.
func TestMarkdownNumbersKeepUnits(t *testing.T) {
	for in, want := range map[string]string{
		"17,961 tokens/s":  "17,961\u00a0tokens/s",
		"15.91 秒":          "15.91\u00a0秒",
		"由 2,048 条记录重新计算":  "由 2,048\u00a0条记录重新计算",
		"+0.91% más":       "+0.91%\u00a0más",
		"1,024, 2,048":     "1,024, 2,048",
		"Node run 1":       "Node run 1",
		"63–66 tokens 2 3": "63–66\u00a0tokens 2 3",
	} {
		if got := nbspUnit(in); got != want {
			t.Errorf("nbspUnit(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdCell("9,938 token/s | x"); got != "9,938\u00a0token/s \\| x" {
		t.Errorf("mdCell = %q", got)
	}
}
