package locales

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"

	"github.com/benchledger/benchledger/internal/memo"
)

// symbols are a locale's CLDR number symbols.
type symbols struct {
	minus, group, decimal string
}

// symbolsFor reads the CLDR symbols from x/text by formatting a probe: the
// digits are ours (strconv), so every language shows the same rounded value,
// and only the separators come from the locale.
func symbolsFor(t language.Tag) symbols {
	s := message.NewPrinter(t).Sprint(number.Decimal(-1234.5, number.Scale(1)))
	i := strings.Index(s, "1")
	j := strings.Index(s, "234")
	if i < 0 || j < i {
		return symbols{minus: "-", group: ",", decimal: "."}
	}
	return symbols{minus: s[:i], group: s[i+1 : j], decimal: s[j+3 : len(s)-1]}
}

// Number formats v with exactly decimals fraction digits (rounded half to
// even on the binary value, as strconv does), or with the shortest exact
// representation when decimals < 0. Separators are CLDR's via x/text;
// grouping follows CLDR's minimum grouping digits (es: 9938 but 17.961).
// A value that rounds to zero has no minus sign. NaN is "—".
func (l Locale) Number(v float64, decimals int) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return l.l.syms.minus + "∞"
	}
	var buf [32]byte
	return string(l.appendNumber(buf[:0], v, decimals))
}

// appendNumber appends Number's text of a finite v to b: the digits of
// |v| with the locale's group separators (only when the integer part has
// at least 3 + minimum-grouping digits) and decimal sign, after its
// minus sign unless every digit is 0. One buffer, where a string for the
// digits, the grouped part and each sign added was one allocation each.
func (l Locale) appendNumber(b []byte, v float64, decimals int) []byte {
	var digits [32]byte
	s := strconv.AppendFloat(digits[:0], math.Abs(v), 'f', decimals, 64)
	if v < 0 && slices.ContainsFunc(s, func(c byte) bool { return c >= '1' && c <= '9' }) {
		b = append(b, l.l.syms.minus...)
	}
	ip, fp := s, []byte(nil)
	if i := bytes.IndexByte(s, '.'); i >= 0 {
		ip, fp = s[:i], s[i+1:]
	}
	if len(ip) < 3+l.l.minGroup {
		b = append(b, ip...)
	} else {
		head := len(ip) % 3
		b = append(b, ip[:head]...)
		for i := head; i < len(ip); i += 3 {
			if i > 0 {
				b = append(b, l.l.syms.group...)
			}
			b = append(b, ip[i:i+3]...)
		}
	}
	if len(fp) > 0 {
		b = append(b, l.l.syms.decimal...)
		b = append(b, fp...)
	}
	return b
}

// Integer formats a count with the locale's grouping.
func (l Locale) Integer(v int) string { return l.Number(float64(v), 0) }

// Percent formats a value already in percent (131.9 for +131.9%) with the
// locale's percent pattern (format.percent: es "131,9 %" with a no-break
// space as CLDR has it, es-419 "131.9%" as published and as current CLDR
// has it). signed adds "+" to positive values; zero gets no sign.
func (l Locale) Percent(pct float64, decimals int, signed bool) string {
	n := l.Number(pct, decimals)
	if signed && pct > 0 && !math.IsInf(pct, 1) && strings.Trim(n, "0"+l.l.syms.decimal+l.l.syms.group) != "" {
		n = "+" + n
	}
	return l.T("format.percent", "n", n)
}

// Ratio formats a ratio with two decimals: en "2.32x", es "2.32×" (es-419)
// and "2,32×" (es), zh/ja "2.32 倍" (GLOSSARY.md).
func (l Locale) Ratio(r float64) string { return l.RatioN(r, 2) }

// RatioN is Ratio with decimals fraction digits.
func (l Locale) RatioN(r float64, decimals int) string {
	return l.T("format.ratio", "n", l.Number(r, decimals))
}

// units maps the machine unit names of figures.Definitions to catalogue
// keys. "%" and "ratio" have their own methods.
var units = map[string]string{
	"tok/s":     "unit.tok_per_s",
	"tok/s/GPU": "unit.tok_per_s_per_gpu",
	"req/s":     "unit.req_per_s",
	"s":         "unit.s",
	"ms":        "unit.ms",
	"requests":  "unit.requests",
	"tokens":    "unit.tokens",
}

// Units lists the unit names Quantity knows, besides "%" and "ratio".
func Units() []string {
	out := make([]string, 0, len(units))
	for u := range units {
		out = append(out, u)
	}
	return out
}

// Quantity formats v (see Number for decimals) with its unit as the
// locale writes it ("15.91 秒", "15,91 segundos", "41,651 tok/s"), with the
// plural form chosen by CLDR rules. "%" and "ratio" go to Percent and Ratio;
// an unknown unit is appended as it is.
func (l Locale) Quantity(v float64, decimals int, unit string) string {
	switch unit {
	case "%":
		return l.Percent(v, decimals, false)
	case "ratio", "x":
		return l.Ratio(v)
	case "":
		return l.Number(v, decimals)
	}
	key, ok := units[unit]
	if !ok {
		return l.Number(v, decimals) + " " + unit
	}
	if p := l.unitPattern(key); p.ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
		// The number written between the pattern's parts in one buffer.
		var buf [64]byte
		b := l.appendNumber(append(buf[:0], p.prefix...), v, decimals)
		if startsEndsDigit(b[len(p.prefix):]) {
			return string(append(b, p.suffix...))
		}
	}
	n := l.Number(v, decimals)
	count := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	return l.T(key, "n", n, "count", count)
}

// unitFormat is a unit message without plural forms split around its
// number, as rendered with a number of digits (so with the spaces the
// locale puts around digits): a report or site formats thousands of
// quantities, and rendering the message each time was a good part of it.
type unitFormat struct {
	prefix, suffix string
	ok             bool
}

// unitFormats keeps each locale's unitFormat of a unit message.
var unitFormats memo.Map[unitFormatKey, unitFormat]

// unitFormatKey is what a unitFormat is made of.
type unitFormatKey struct {
	tag, key string
	cells    bool
}

func (l Locale) unitPattern(key string) unitFormat {
	return unitFormats.Get(unitFormatKey{l.l.tag, key, l.l.cells}, func() unitFormat {
		var f unitFormat
		if e, ok := l.l.msgs[key]; ok && e.one == "" {
			const probe = "1234567"
			out := l.T(key, "n", probe, "count", "2")
			if strings.Count(out, probe) == 1 {
				i := strings.Index(out, probe)
				f = unitFormat{prefix: out[:i], suffix: out[i+len(probe):], ok: true}
			}
		}
		return f
	})
}

func startsEndsDigit[T string | []byte](s T) bool {
	return len(s) > 0 && s[0] >= '0' && s[0] <= '9' && s[len(s)-1] >= '0' && s[len(s)-1] <= '9'
}

// Date formats the calendar date of t (in t's location: pass UTC for
// archive dates) the way the case studies write it: en "18 August 2026",
// es "18 de agosto de 2026", zh/ja "2026 年 8 月 18 日" (GLOSSARY.md; CLDR's
// long form has no spaces, the published texts do).
func (l Locale) Date(t time.Time) string {
	// Year and day are plain digits: a year is never grouped (2.026).
	return l.loose("format.date", Args{
		"year":       strconv.Itoa(t.Year()),
		"month":      strconv.Itoa(int(t.Month())),
		"month_name": l.T(fmt.Sprintf("month.%d", int(t.Month()))),
		"day":        strconv.Itoa(t.Day()),
	})
}

// DateString formats a YYYY-MM-DD date (the form caveat parameters use).
func (l Locale) DateString(s string) (string, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "", fmt.Errorf("locales: date %q: %w", s, err)
	}
	return l.Date(t), nil
}

// List joins items with the locale's list separator ("a, b" / "a、b").
func (l Locale) List(items []string) string {
	return strings.Join(items, l.T("format.list_sep"))
}

// DecimalSeparator is the decimal separator CLDR gives a language tag,
// any BCP 47 tag (es-AR, de, fr-CA), not only the catalogue's languages:
// "," for es, es-AR, de, fr; "." for en, es-MX, ja, zh. It serves the CSV
// dialects of spreadsheets, which read numbers in their locale's style.
func DecimalSeparator(tag string) (string, error) {
	t, err := language.Parse(tag)
	if err != nil {
		return "", fmt.Errorf("locales: %q: %w", tag, err)
	}
	return symbolsFor(t).decimal, nil
}

// Colon joins a label and its value the way the language writes it:
// "Node: x", full-width "节点：x" in zh and ja.
func (l Locale) Colon(label, value string) string {
	return label + l.T("format.colon") + value
}

// Paren adds a note in parentheses: "output throughput (+1)",
// full-width "输出吞吐量（+1）" in zh and ja.
func (l Locale) Paren(text, note string) string {
	return l.T("format.paren", "text", text, "note", note)
}

// CapFirst upper-cases the first letter, for a label that starts its line
// or cell (es "Rendimiento de salida", not "rendimiento de salida"); CJK
// text is unchanged.
func CapFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Punct is the page's separators for templates: colon (": ", "："),
// colon_end (":", "："; a label before a block), sentence_sep (" ", or
// nothing after "。" in zh and ja), paren_open and paren_close (" (" and
// ")", "（" and "）"), list_sep (", ", "、").
func (l Locale) Punct() map[string]string {
	c, sep := l.T("format.colon"), " "
	if l.l.cjk {
		sep = "" // sentences end in a full-width "。", which has its space in it
	}
	open, close, _ := strings.Cut(strings.TrimPrefix(l.Paren("\x00", "\x01"), "\x00"), "\x01")
	return map[string]string{"colon": c, "colon_end": strings.TrimRight(c, " "), "sentence_sep": sep,
		"paren_open": open, "paren_close": close, "list_sep": l.T("format.list_sep")}
}

// UnitLabel is a unit as the language writes it after a number, for an
// axis or a header: "s" and "tok/s" (en), "秒" and "token/s" (zh),
// "トークン/秒" (ja), "segundos" (es), so a chart says what the text says.
func (l Locale) UnitLabel(unit string) string {
	key, ok := units[unit]
	if !ok {
		return unit
	}
	const probe = "\x00"
	s := l.T(key, "n", probe, "count", "2")
	if !strings.Contains(s, probe) {
		return unit
	}
	return strings.TrimSpace(strings.Replace(s, probe, "", 1))
}

var cellLocales sync.Map // tag -> *locale

// Cells is the locale as table cells write it: a unit with a short form
// (unit.s.cell: es "15,91 s", where a sentence says "15,91 segundos")
// takes it, so a column of numbers stays narrow enough for the page.
func (l Locale) Cells() Locale {
	if c, ok := cellLocales.Load(l.l.tag); ok {
		return Locale{c.(*locale)}
	}
	c := *l.l
	c.cells, c.msgs = true, catalogue{}
	for k, v := range l.l.msgs {
		c.msgs[k] = v
	}
	for k, v := range l.l.msgs {
		if long, ok := strings.CutSuffix(k, ".cell"); ok {
			c.msgs[long] = v
		}
	}
	got, _ := cellLocales.LoadOrStore(c.tag, &c)
	return Locale{got.(*locale)}
}
