package audit

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// statedNumber is a number a text states: its value in the unit of the
// bindings it can be compared with, the decimals it is written with, and
// its kind ("%", "x", or a quantity unit such as "tok/s" or "s"; "" for a
// bare number).
type statedNumber struct {
	Value    float64
	Decimals int
	Kind     string
	Signed   bool
}

// separators are a language's decimal and grouping marks, learnt from how
// its locale writes 1234567.5.
func separators(lang string) (decimal, group rune) {
	decimal, group = '.', ','
	l, err := locales.Match(lang)
	if err != nil {
		return
	}
	s := []rune(l.Number(1234567.5, 1))
	for i := len(s) - 1; i >= 0; i-- {
		if !unicode.IsDigit(s[i]) {
			decimal = s[i]
			break
		}
	}
	if len(s) > 1 && !unicode.IsDigit(s[1]) {
		group = s[1]
	}
	return
}

// quantityUnits are the units a number in a text may carry, as written
// after it, and the binding unit each compares with (with a scale).
var quantityUnits = []struct {
	re    *regexp.Regexp
	unit  string
	scale float64
}{
	{regexp.MustCompile(`^(output |total )?(tok|tokens?)/s\b`), "tok/s", 1},
	{regexp.MustCompile(`^(req|requests?)/s\b`), "req/s", 1},
	{regexp.MustCompile(`^(ms|milliseconds?|毫秒|ミリ秒)`), "s", 1e-3},
	{regexp.MustCompile(`^(s|seconds?|segundos?|秒)([^\p{L}/]|$)`), "s", 1},
}

// parseStated reads a token of a text in a language. ok is false when the
// token is not a number in that language's style.
func parseStated(tok Token, lang string) (statedNumber, bool) {
	t := strings.TrimSpace(tok.Text)
	var n statedNumber
	switch r, w := utf8.DecodeRuneInString(t); r {
	case '+', '±':
		n.Signed, t = true, t[w:]
	case '-', '−':
		n.Signed, t = true, "-"+t[w:]
	}
	for _, suf := range []struct{ s, kind string }{{"%", "%"}, {"％", "%"}, {"倍", "x"}, {"x", "x"}, {"×", "x"}} {
		if strings.HasSuffix(t, suf.s) {
			t, n.Kind = strings.TrimRightFunc(strings.TrimSuffix(t, suf.s), isSpace), suf.kind
			break
		}
	}
	dec, group := separators(lang)
	var b strings.Builder
	seenDec := false
	for _, r := range t {
		switch {
		case r == '-' || unicode.IsDigit(r):
			b.WriteRune(r)
			if seenDec && r != '-' {
				n.Decimals++
			}
		case r == dec && !seenDec:
			seenDec = true
			b.WriteByte('.')
		case r == group || isSpace(r):
		default:
			return n, false
		}
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	if err != nil {
		return n, false
	}
	n.Value = v
	if n.Kind == "" {
		after := strings.TrimLeftFunc(tok.After, isSpace)
		for _, u := range quantityUnits {
			if u.re.MatchString(after) {
				n.Kind, n.Value = u.unit, v*u.scale
				if u.scale == 1e-3 {
					n.Decimals += 3
				}
				break
			}
		}
	}
	return n, true
}

// numberFinding judges one number of a text that is not a binding:
// claims.text (fail) when it has a kind (%, x, a unit) and no figure of the
// case study of that kind shows it at the precision it is written with;
// claims.unbound (warn) otherwise, naming the binding it equals, if any.
func numberFinding(res *casestudy.Result, b map[string]casestudy.Binding, t caseText, tok Token) Finding {
	line := t.line(tok)
	params := map[string]string{"field": t.Name(), "lang": t.Lang, "line": strconv.Itoa(line), "token": tok.Text}
	n, ok := parseStated(tok, t.Lang)
	if !ok || n.Kind == "" {
		return Finding{Check: CheckClaimsUnbound, Severity: Warn, File: t.File, Params: params, MessageKey: MsgUnbound,
			Message: fmt.Sprintf("line %d: %q in the %s text (%s) is a number not bound to a figure: write it as {{name}} or declare it as a claim in the spec",
				line, tok.Text, t.Lang, t.Name())}
	}
	names := make([]string, 0, len(b))
	for name, bd := range b {
		if n.Kind != "" && bindingUnit(bd) == n.Kind && !strings.HasSuffix(name, ".precise") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		params["kind"] = n.Kind
		return Finding{Check: CheckClaimsUnbound, Severity: Warn, File: t.File, Params: params, MessageKey: MsgUnboundNoKind,
			Message: fmt.Sprintf("line %d: %q in the %s text (%s) is a number not bound to a figure, and the case study has no figure in %s to check it against: write it as {{name}} or declare it as a claim in the spec",
				line, tok.Text, t.Lang, t.Name(), n.Kind)}
	}
	shown := func(v float64) float64 {
		if !n.Signed && n.Kind == "%" {
			return math.Abs(v) // "fell by 27%" states a magnitude
		}
		return v
	}
	want := fixed(n.Value, n.Decimals)
	nearest, dist := "", math.Inf(1)
	for _, name := range names {
		v := b[name].Value
		approx := b[name]
		approx.Sig, approx.Value = 2, shown(v)
		av, ad := approx.Shown()
		if fixed(shown(v), n.Decimals) == want || ad == n.Decimals && fixed(av, ad) == want {
			ref := asWritten(name, b[name], n)
			params["equals"], params["binding"] = name, ref
			return Finding{Check: CheckClaimsUnbound, Severity: Warn, File: t.File, Params: params, MessageKey: MsgUnboundEquals,
				Message: fmt.Sprintf("line %d: %q in the %s text (%s) is not bound to a figure; it equals {{%s}} at its precision: write it as {{%s}} so that it follows the data",
					line, tok.Text, t.Lang, t.Name(), name, ref)}
		}
		if d := math.Abs(shown(v) - n.Value); d < dist {
			nearest, dist = name, d
		}
	}
	nb := b[nearest]
	display := "?"
	if l, err := locales.Match(t.Lang); err == nil {
		display = nb.Format(l)
	}
	params["nearest"], params["computed"], params["shown"], params["stated"] = nearest, num(nb.Value), display, num(n.Value)
	params["definition"] = definitionOf(res, nearest)
	return Finding{Check: CheckClaimsText, Severity: Fail, File: t.File, Params: params, MessageKey: MsgClaimsText,
		Message: fmt.Sprintf("line %d: the %s text (%s) states %q, but no figure of this case study in %s has that value at %d decimals; the nearest is %s = %s (the report shows %s%s; definition: %s)",
			line, t.Lang, t.Name(), tok.Text, n.Kind, n.Decimals, nearest, num(nb.Value), display, restsOn(res, nearest, params), params["definition"])}
}

// asWritten is the reference to binding name that writes it as the text
// typed it: with the typed decimals ({{x.pct:0}} for "132%") and without a
// sign where the text has none ({{x.pct.unsigned}} for "rose by 8.17%").
func asWritten(name string, bd casestudy.Binding, n statedNumber) string {
	ref := name
	if bd.Kind == casestudy.KindPercent && bd.Signed && !n.Signed {
		ref += casestudy.ModUnsigned
	}
	approx := bd
	approx.Sig = 2
	av, ad := approx.Shown()
	switch {
	case fixed(math.Abs(bd.Value), n.Decimals) == fixed(math.Abs(n.Value), n.Decimals):
		if n.Decimals != bd.Decimals {
			ref += ":" + strconv.Itoa(n.Decimals)
		}
	case ad == n.Decimals && fixed(math.Abs(av), ad) == fixed(math.Abs(n.Value), ad):
		ref += casestudy.ModApprox // "about 18,000" for 17,961
	}
	return ref
}

// versionAfter matches a version written right after an engine's name:
// "vLLM 0.10.1", "SGLang v0.4.6.post1".
var versionAfter = regexp.MustCompile(`^[ \x{00a0}]?[vV]?(\d+(?:\.\d+)+(?:[.+-]?[A-Za-z0-9]+)*)`)

// engineTextFindings reports engines (and engine versions) a case study's
// texts name that none of its runs or external references used: in a
// title or summary a failure (the heading attributes the figures), in a
// narrative a warning (it may discuss alternatives).
func engineTextFindings(a *store.Archive, res *casestudy.Result, texts []caseText) ([]Finding, error) {
	versions := map[string][]string{} // engine id -> versions used
	used := map[string]bool{}
	note := func(eng, ver string) {
		eng = normEngine(eng)
		if eng == "" {
			return
		}
		used[eng] = true
		if ver != "" {
			versions[eng] = append(versions[eng], ver)
		}
	}
	for _, id := range res.RunIDs {
		rec, err := a.RunMeta(id)
		if err != nil {
			return nil, err
		}
		eff := provenance.Record(rec.Provenance).Effective()
		note(eff["runtime.engine"], eff["runtime.version"])
	}
	for _, c := range res.Comparisons {
		for _, r := range []*figures.ExternalReference{c.Comparison.Baseline.Reference, c.Comparison.Candidate.Reference} {
			if r != nil {
				note(r.Provenance["runtime.engine"], r.Provenance["runtime.version"])
			}
		}
	}
	var usedList []string
	for e := range used {
		usedList = append(usedList, e)
	}
	sort.Strings(usedList)
	var out []Finding
	for _, t := range texts {
		sev := Warn
		if t.Field != "narrative" {
			sev = Fail
		}
		m := mask(t.Text)
		for _, e := range engines {
			for _, ix := range e.Text.FindAllStringIndex(m, -1) {
				name := t.Text[ix[0]:ix[1]]
				line := strings.Count(m[:ix[0]], "\n") + 1
				if t.Field != "narrative" {
					line = t.line(Token{Text: name, Line: 1})
				}
				params := map[string]string{"field": t.Name(), "lang": t.Lang, "line": strconv.Itoa(line), "engine": e.ID, "used": strings.Join(usedList, ",")}
				if !used[e.ID] {
					out = append(out, Finding{Check: CheckEngine, Severity: sev, File: t.File, Params: params, MessageKey: MsgEngineTextUnused,
						Message: fmt.Sprintf("line %d: the %s text (%s) names %s, but no run or reference of this case study used it (runtime.engine: %s)",
							line, t.Lang, t.Name(), name, orNone(strings.Join(usedList, ", ")))})
					continue
				}
				vm := versionAfter.FindStringSubmatch(m[ix[1]:])
				if vm == nil || len(versions[e.ID]) == 0 {
					continue
				}
				ok := false
				for _, v := range versions[e.ID] {
					ok = ok || sameVersion(vm[1], v)
				}
				if !ok {
					params["version"], params["versions"] = vm[1], strings.Join(versions[e.ID], ",")
					out = append(out, Finding{Check: CheckEngine, Severity: sev, File: t.File, Params: params, MessageKey: MsgEngineTextVersion,
						Message: fmt.Sprintf("line %d: the %s text (%s) names %s %s, but the case study's %s runs and references ran %s",
							line, t.Lang, t.Name(), name, vm[1], e.ID, strings.Join(versions[e.ID], ", "))})
				}
			}
		}
	}
	return out, nil
}
