package locales

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const nbsp = "\u00a0"

func TestNumber(t *testing.T) {
	cases := []struct {
		tag  string
		v    float64
		d    int
		want string
	}{
		{"en", 17961.2, 1, "17,961.2"},
		{"zh", 17961.2, 1, "17,961.2"},
		{"ja", 17961.2, 1, "17,961.2"},
		{"es-419", 17961.2, 1, "17,961.2"},
		{"es", 17961.2, 1, "17.961,2"},
		// CLDR minimum grouping digits: Spain leaves 4 digits ungrouped.
		{"es", 9938, 0, "9938"},
		{"es-419", 9938, 0, "9,938"},
		{"en", 9938, 0, "9,938"},
		{"es", 17961, 0, "17.961"},
		{"es-419", 17961, 0, "17,961"},
		{"es", 9999.96, 1, "10.000,0"}, // rounding can add the fifth digit
		{"es", 1234567.891, 2, "1.234.567,89"},
		{"en", 361679, 0, "361,679"},
		{"en", 10750.04, 2, "10,750.04"},
		{"en", 8388608, 0, "8,388,608"},
		{"en", 999, 0, "999"},
		{"en", 0.5, 2, "0.50"},
		{"es", 0.5, 2, "0,50"},
		// Negatives, and no "-0".
		{"en", -17961.2, 1, "-17,961.2"},
		{"es", -9938.5, 1, "-9938,5"},
		{"es", -17961.25, 2, "-17.961,25"},
		{"en", -0.04, 1, "0.0"},
		// Shortest form for machine parameters.
		{"en", 20.04, -1, "20.04"},
		{"es", 20.04, -1, "20,04"},
		{"ja", 0.05, -1, "0.05"},
		// Rounding is strconv's, the same digits in every language.
		{"en", 2.5, 0, "2"},
		{"es", 131.85, 1, "131,8"},
		{"en", math.NaN(), 1, "—"},
		{"en", math.Inf(1), 1, "∞"},
	}
	for _, c := range cases {
		if got := MustMatch(c.tag).Number(c.v, c.d); got != c.want {
			t.Errorf("%s Number(%v, %d) = %q, want %q", c.tag, c.v, c.d, got, c.want)
		}
	}
	if got := MustMatch("es").Integer(2048); got != "2048" {
		t.Errorf("es Integer(2048) = %q", got)
	}
	if got := MustMatch("es").Integer(32768); got != "32.768" {
		t.Errorf("es Integer(32768) = %q", got)
	}
}

// The separators come from CLDR through x/text, not from a table here.
func TestSymbolsFromCLDR(t *testing.T) {
	want := map[string]symbols{
		"en": {"-", ",", "."}, "zh": {"-", ",", "."}, "ja": {"-", ",", "."},
		"es": {"-", ".", ","}, "es-419": {"-", ",", "."},
	}
	d := mustData(t)
	for tag, s := range want {
		if got := mustLocale(t, d, tag).syms; got != s {
			t.Errorf("%s symbols = %+v, want %+v", tag, got, s)
		}
	}
}

func TestPercent(t *testing.T) {
	cases := []struct {
		tag    string
		v      float64
		d      int
		signed bool
		want   string
	}{
		{"en", 131.87, 1, true, "+131.9%"},
		{"zh", 131.87, 1, true, "+131.9%"},
		{"ja", 131.87, 1, true, "+131.9%"},
		{"es-419", 131.87, 1, true, "+131.9%"},
		{"es", 131.87, 1, true, "+131,9" + nbsp + "%"},
		{"en", 8.17, 2, true, "+8.17%"},
		{"en", 132, 0, false, "132%"},
		{"en", -8.2, 1, true, "-8.2%"},
		{"es", -8.2, 1, true, "-8,2" + nbsp + "%"},
		{"en", 0.01, 1, true, "0.0%"}, // rounds to zero: no sign
		{"en", 99.31, 2, false, "99.31%"},
		{"es", 12345.6, 1, false, "12.345,6" + nbsp + "%"},
	}
	for _, c := range cases {
		if got := MustMatch(c.tag).Percent(c.v, c.d, c.signed); got != c.want {
			t.Errorf("%s Percent(%v, %d, %v) = %q, want %q", c.tag, c.v, c.d, c.signed, got, c.want)
		}
	}
}

func TestRatio(t *testing.T) {
	cases := []struct{ tag, want string }{
		{"en", "2.32x"}, {"zh", "2.32 倍"}, {"ja", "2.32 倍"}, {"es-419", "2.32×"}, {"es", "2,32×"},
	}
	for _, c := range cases {
		if got := MustMatch(c.tag).Ratio(41651.0 / 17961.0); got != c.want {
			t.Errorf("%s Ratio = %q, want %q", c.tag, got, c.want)
		}
	}
}

func TestQuantity(t *testing.T) {
	cases := []struct {
		tag  string
		v    float64
		d    int
		unit string
		want string
	}{
		{"en", 41651, 0, "tok/s", "41,651 tok/s"},
		{"zh", 41651, 0, "tok/s", "41,651 token/s"},
		{"ja", 41651, 0, "tok/s", "41,651 トークン/秒"},
		{"es", 41651, 0, "tok/s", "41.651 tokens/s"},
		{"en", 15.91, 2, "s", "15.91 s"},
		{"zh", 15.91, 2, "s", "15.91 秒"},
		{"ja", 15.91, 2, "s", "15.91 秒"},
		{"es-419", 15.91, 2, "s", "15.91 segundos"},
		{"es", 15.91, 2, "s", "15,91 segundos"},
		{"es", 1, 0, "s", "1 segundo"},
		{"en", 1, 0, "requests", "1 request"},
		{"en", 2048, 0, "requests", "2,048 requests"},
		{"zh", 2048, 0, "requests", "2,048 个请求"},
		{"ja", 2048, 0, "requests", "2,048 件のリクエスト"},
		{"es", 2048, 0, "requests", "2048 solicitudes"},
		{"zh", 256, 0, "tokens", "256 个 token"},
		{"en", 120, 0, "ms", "120 ms"},
		{"en", 3.5, 1, "req/s", "3.5 req/s"},
		{"en", 10750.04, 2, "tok/s/GPU", "10,750.04 tok/s per GPU"},
		{"en", 132, 0, "%", "132%"},
		{"en", 2.32, 2, "ratio", "2.32x"},
		{"en", 5, 0, "widgets", "5 widgets"},
	}
	for _, c := range cases {
		if got := MustMatch(c.tag).Quantity(c.v, c.d, c.unit); got != c.want {
			t.Errorf("%s Quantity(%v, %d, %q) = %q, want %q", c.tag, c.v, c.d, c.unit, got, c.want)
		}
	}
}

func TestDate(t *testing.T) {
	day := time.Date(2026, 8, 18, 23, 30, 0, 0, time.UTC)
	cases := []struct{ tag, want string }{
		{"en", "18 August 2026"},
		{"zh", "2026 年 8 月 18 日"},
		{"ja", "2026 年 8 月 18 日"},
		{"es", "18 de agosto de 2026"},
		{"es-419", "18 de agosto de 2026"},
	}
	for _, c := range cases {
		if got := MustMatch(c.tag).Date(day); got != c.want {
			t.Errorf("%s Date = %q, want %q", c.tag, got, c.want)
		}
	}
	for m := 1; m <= 12; m++ {
		d := time.Date(2026, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
		for _, tag := range Supported() {
			if got := MustMatch(tag).Date(d); got == "" || got[0] == '[' {
				t.Errorf("%s month %d: %q", tag, m, got)
			}
		}
	}
	if got, err := MustMatch("es").DateString("2026-08-17"); err != nil || got != "17 de agosto de 2026" {
		t.Errorf("DateString = %q, %v", got, err)
	}
	if _, err := MustMatch("es").DateString("17/08/2026"); err == nil {
		t.Error("DateString accepted a non-ISO date")
	}
}

// TestQuantityPatternEqualsRendering: the cached split of a unit message
// gives what rendering it does, for every locale, unit and many numbers.
func TestQuantityPatternEqualsRendering(t *testing.T) {
	values := []float64{0, 1, 1.5, 2, 12.345, 999.5, 1000, 23190.4, 1234567.891, -3, -0.5}
	for _, tag := range Supported() {
		l := MustMatch(tag)
		for unit, key := range units {
			for _, v := range values {
				for _, dec := range []int{0, 2} {
					got := l.Quantity(v, dec, unit)
					n := l.Number(v, dec)
					want := l.T(key, "n", n, "count", strconv.FormatFloat(math.Abs(v), 'f', dec, 64))
					if got != want {
						t.Errorf("%s %s %v (%d): %q, rendering gives %q", tag, unit, v, dec, got, want)
					}
				}
			}
		}
	}
}

// TestRegionalVariants: a Spanish tag of a country that writes a decimal
// comma (CLDR) renders with its own number rules and es-419's texts; a
// country that writes like es-419 is es-419.
func TestRegionalVariants(t *testing.T) {
	t.Parallel()
	es419 := MustMatch("es-419")
	for _, c := range []struct {
		tag, number, pct, secs, ratio, name string
	}{
		{"es-AR", "17.961,25", "0,91%", "15,91 segundos", "2,32×", "Español (Argentina)"},
		{"es-CO", "17.961,25", "0,91%", "15,91 segundos", "2,32×", "Español (Colombia)"},
		{"es-CL", "17.961,25", "0,91%", "15,91 segundos", "2,32×", "Español (Chile)"},
		{"es-MX", "17,961.25", "0.91%", "15.91 segundos", "2.32×", "Español (Latinoamérica)"},
		{"es-419", "17,961.25", "0.91%", "15.91 segundos", "2.32×", "Español (Latinoamérica)"},
	} {
		l, err := Match(c.tag)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Number(17961.25, 2); got != c.number {
			t.Errorf("%s: Number = %q, want %q", c.tag, got, c.number)
		}
		if got := l.Percent(0.91, 2, false); got != c.pct {
			t.Errorf("%s: Percent = %q, want %q", c.tag, got, c.pct)
		}
		if got := l.Quantity(15.91, 2, "s"); got != c.secs {
			t.Errorf("%s: Quantity = %q, want %q", c.tag, got, c.secs)
		}
		if got := l.Ratio(2.3191); got != c.ratio {
			t.Errorf("%s: Ratio = %q, want %q", c.tag, got, c.ratio)
		}
		if l.Name() != c.name || l.Texts() != "es-419" || l.T("section.summary") != es419.T("section.summary") {
			t.Errorf("%s: name %q, texts %s, %q", c.tag, l.Name(), l.Texts(), l.T("section.summary"))
		}
	}
	if ls, err := MatchExact([]string{"es-AR", "es-419"}); err != nil || len(ls) != 2 || ls[0].Tag() != "es-AR" {
		t.Errorf("MatchExact(es-AR, es-419) = %v, %v", ls, err)
	}
	if MustMatch("zh").HTMLLang() != "zh-Hans" || MustMatch("ja").HTMLLang() != "ja" || MustMatch("es-AR").HTMLLang() != "es-AR" {
		t.Error("HTMLLang: zh is written zh-Hans")
	}
}

// TestCJKPunctuation: zh and ja write labels and notes with full-width
// "：" and "（）", and no catalogue text of theirs puts an ASCII colon or
// parenthesis next to CJK text; units on axes are the words of the text.
func TestCJKPunctuation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tag, colon, paren, sep, secs, tps string
	}{
		{"en", "Node: x", "output throughput (+1)", " ", "s", "tok/s"},
		{"es-419", "Nodo: x", "rendimiento (+1)", " ", "segundos", "tokens/s"},
		{"zh", "节点：x", "输出吞吐量（+1）", "", "秒", "token/s"},
		{"ja", "ノード：x", "出力スループット（+1）", "", "秒", "トークン/秒"},
	} {
		l := MustMatch(c.tag)
		pair := map[string][2]string{"en": {"Node", "output throughput"}, "es-419": {"Nodo", "rendimiento"},
			"zh": {"节点", "输出吞吐量"}, "ja": {"ノード", "出力スループット"}}[c.tag]
		label, note := pair[0], pair[1]
		if got := l.Colon(label, "x"); got != c.colon {
			t.Errorf("%s: Colon = %q, want %q", c.tag, got, c.colon)
		}
		if got := l.Paren(note, "+1"); got != c.paren {
			t.Errorf("%s: Paren = %q, want %q", c.tag, got, c.paren)
		}
		if p := l.Punct(); p["sentence_sep"] != c.sep || p["colon_end"] != strings.TrimSpace(l.T("format.colon")) {
			t.Errorf("%s: Punct = %q", c.tag, p)
		}
		if got := l.UnitLabel("s"); got != c.secs {
			t.Errorf("%s: UnitLabel(s) = %q, want %q", c.tag, got, c.secs)
		}
		if got := l.UnitLabel("tok/s"); got != c.tps {
			t.Errorf("%s: UnitLabel(tok/s) = %q, want %q", c.tag, got, c.tps)
		}
	}
	ascii := regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}ー]\s?[:(]|[(:]\s?[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{Han}\p{Hiragana}\p{Katakana}ー]\s?\)|\)\s?[\p{Han}\p{Hiragana}\p{Katakana}]|。 `)
	for _, tag := range []string{"zh", "ja"} {
		l := MustMatch(tag)
		for _, k := range l.Keys("") {
			m := l.l.msgs[k]
			for _, s := range []string{m.other, m.one} {
				if ascii.MatchString(s) {
					t.Errorf("%s %s: ASCII punctuation beside CJK text: %q", tag, k, s)
				}
			}
		}
		for id := range l.l.terms {
			if s := l.Term(id); ascii.MatchString(s) {
				t.Errorf("%s glossary %s: ASCII punctuation beside CJK text: %q", tag, id, s)
			}
		}
	}
}

// TestSpanishVocabulary: es-419 writes its own words where Latin America
// differs from Spain, in every text it inherits from es.yaml, with
// agreement ("no disponible" for any field), and Spain keeps its own.
func TestSpanishVocabulary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, es, es419 string }{
		{"audit.verdict.pass", "Ninguna comprobación falló.", "Ninguna verificación falló."},
		{"audit.checks_run", "Comprobaciones realizadas", "Verificaciones realizadas"},
		{"method.runtime_image", "Runtime e imagen", "Entorno de ejecución e imagen"},
		{"export.cover.case_study", "Caso de estudio", "Estudio de caso"},
		{"site.index.case_studies", "Casos de estudio", "Estudios de caso"},
		{"table.candidate", "Comparada", "Candidata"},
		{"value.unknown", "desconocido", "no disponible"},
	} {
		if got := MustMatch("es").T(c.key); got != c.es {
			t.Errorf("es %s = %q, want %q", c.key, got, c.es)
		}
		for _, tag := range []string{"es-419", "es-AR"} {
			if got := MustMatch(tag).T(c.key); got != c.es419 {
				t.Errorf("%s %s = %q, want %q", tag, c.key, got, c.es419)
			}
		}
	}
	got := MustMatch("es-419").T("caveat.runtime_differs", "field", "f", "baseline", "a", "candidate", "b")
	if !strings.Contains(got, "El entorno de ejecución no es el mismo") || !strings.Contains(got, "configuración candidata") {
		t.Errorf("es-419 caveat.runtime_differs = %q", got)
	}
}

// TestCells: table cells write a unit's short form where the language has
// one (es "15,91 s"), sentences the long one; other text is unchanged.
func TestCells(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ tag, sentence, cell string }{
		{"es-AR", "15,91 segundos", "15,91 s"},
		{"es-419", "15.91 segundos", "15.91 s"},
		{"en", "15.91 s", "15.91 s"},
		{"ja", "15.91 秒", "15.91 秒"},
	} {
		l := MustMatch(c.tag)
		if got := l.Quantity(15.91, 2, "s"); got != c.sentence {
			t.Errorf("%s sentence: %q, want %q", c.tag, got, c.sentence)
		}
		if got := l.Cells().Quantity(15.91, 2, "s"); got != c.cell {
			t.Errorf("%s cell: %q, want %q", c.tag, got, c.cell)
		}
		if got := l.Quantity(15.91, 2, "s"); got != c.sentence {
			t.Errorf("%s sentence after a cell: %q, want %q", c.tag, got, c.sentence)
		}
		if l.Cells().T("section.summary") != l.T("section.summary") || l.Cells().Tag() != l.Tag() {
			t.Errorf("%s: cells change more than units", c.tag)
		}
	}
}

func TestMoney(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tag, code string
		v         float64
		want      string
	}{
		{"en", "USD", 1234.5, "$1,234.50"},
		{"zh", "USD", 0.5, "US$0.50"},
		{"zh", "CNY", 3.2, "￥3.20"},
		{"ja", "JPY", 1234.4, "￥1,234"},
		{"es", "EUR", 1234.5, "1234,50\u00a0€"},
		{"es-419", "USD", 2.5, "USD\u00a02.50"},
		{"en", "XYZ", 2.5, "XYZ\u00a02.50"},
	} {
		l := MustMatch(c.tag)
		if got := l.Money(c.v, -1, c.code); got != c.want {
			t.Errorf("%s %s %v: %q, want %q", c.tag, c.code, c.v, got, c.want)
		}
	}
}

// numberRef is Number of a finite v as it was written with strings
// (before its one buffer): the text the new one must match. TestNumber
// holds NaN and the infinities.
func numberRef(l Locale, v float64, decimals int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	ip, fp, _ := strings.Cut(s, ".")
	out := ip
	if len(ip) >= 3+l.l.minGroup {
		var b strings.Builder
		head := len(ip) % 3
		if head > 0 {
			b.WriteString(ip[:head])
		}
		for i := head; i < len(ip); i += 3 {
			if b.Len() > 0 {
				b.WriteString(l.l.syms.group)
			}
			b.WriteString(ip[i : i+3])
		}
		out = b.String()
	}
	if fp != "" {
		out += l.l.syms.decimal + fp
	}
	if v < 0 && strings.Trim(s, "0.") != "" {
		out = l.l.syms.minus + out
	}
	return out
}

// TestNumberMatchesRef: Number and a quantity's number write the
// reference's text in every locale and in a regional variant with other
// symbols (es-AR), for values of every size and both signs, ones that
// round to zero, huge ones beyond the digits' buffer, NaN and infinities,
// at every number of decimals.
func TestNumberMatchesRef(t *testing.T) {
	t.Parallel()
	values := []float64{0, math.Copysign(0, -1), 1, -1, 0.4, -0.4, -0.004, 0.5, 12.345, 999, 1000, 9999, 10000, -12345.678, 123456, 1234567.891,
		-98765432.1, 1e21, -1e21, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1 + 0.2,
		math.NaN(), math.Inf(1), math.Inf(-1)}
	for i := range 200 {
		values = append(values, math.Pow(10, float64(i%24-6))*float64(i*7919%1000)/37*float64(1-2*(i%2)))
	}
	for _, tag := range append(Supported(), "es-AR") {
		l := MustMatch(tag)
		for _, c := range []Locale{l, l.Cells()} {
			for _, v := range values {
				for dec := -1; dec <= 4; dec++ {
					n := c.Number(v, dec) // NaN and ±∞: TestNumber's
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						if want := numberRef(c, v, dec); n != want {
							t.Fatalf("%s %v (%d): %q, want %q", tag, v, dec, n, want)
						}
					}
					if got, want := c.Quantity(v, dec, "ms"), c.T("unit.ms", "n", n, "count", strconv.FormatFloat(math.Abs(v), 'f', dec, 64)); got != want {
						t.Fatalf("%s %v ms (%d): %q, want %q", tag, v, dec, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkQuantity: a run page's figures, as Quantity writes them.
func BenchmarkQuantity(b *testing.B) {
	l := MustMatch("es")
	b.ReportAllocs()
	for b.Loop() {
		_ = l.Quantity(1234.5678, 2, "tok/s")
		_ = l.Quantity(0.0421, 4, "s")
		_ = l.Number(-17.25, 1)
		_ = l.Integer(12000)
	}
}
