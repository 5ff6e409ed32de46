package locales

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/currency"
	"golang.org/x/text/message"
)

// Money formats an amount in a currency (ISO 4217 code) as the locale
// writes it: the currency's symbol in the locale from CLDR via
// golang.org/x/text/currency (en "$", zh "US$", es-419 "USD"), the digits
// by Number with the currency's standard decimals (JPY 0, USD 2) unless
// decimals ≥ 0 asks for others, placed by the catalogue's format.money
// ("{symbol}{n}"; es "{n} {symbol}"). A symbol of letters is kept apart
// from the digits by a no-break space, as CLDR's currency spacing does.
// An unknown code is written as given.
func (l Locale) Money(v float64, decimals int, code string) string {
	sym := code
	if u, err := currency.ParseISO(code); err == nil {
		if decimals < 0 {
			decimals, _ = currency.Standard.Rounding(u)
		}
		sym = strings.TrimFunc(message.NewPrinter(l.l.langTag).Sprint(currency.Symbol(u.Amount(0))), func(r rune) bool {
			return unicode.IsDigit(r) || unicode.IsSpace(r) || r == '.' || r == ',' || r == '\u00a0'
		})
	}
	if decimals < 0 {
		decimals = 2
	}
	n := l.Number(v, decimals)
	out := l.T("format.money", "n", n, "symbol", sym)
	// Letters against digits: "USD 2.50", not "USD2.50".
	if i := strings.Index(out, sym+n); i >= 0 && endsInLetter(sym) {
		out = strings.Replace(out, sym+n, sym+"\u00a0"+n, 1)
	}
	if i := strings.Index(out, n+sym); i >= 0 && startsWithLetter(sym) {
		out = strings.Replace(out, n+sym, n+"\u00a0"+sym, 1)
	}
	return out
}

func endsInLetter(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) && r < 0x2e80
}

func startsWithLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) && r < 0x2e80
}
