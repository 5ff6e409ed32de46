package audit

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// Check ids of the claims checks (docs/audit.md).
const (
	CheckClaimsUnbound = "claims.unbound"
	CheckClaimsStated  = "claims.stated"
	CheckClaimsText    = "claims.text"
)

// SortFindings orders findings the way Run does: by run id (findings with
// no run first), then check id, keeping the order within each.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Run != fs[j].Run {
			return fs[i].Run < fs[j].Run
		}
		return fs[i].Check < fs[j].Check
	})
}

// Claims checks the texts of an evaluated case study:
//
//   - claims.unbound (warn): every number-like token of each language's
//     title, summary and narrative that is not a {{name}} binding
//     (ScanNumbers has the rule);
//   - claims.stated (fail): every claim the spec declares names a binding
//     that exists, in the same unit, and agrees with the computed value at
//     the precision the claim is written with.
func Claims(res *casestudy.Result, s *spec.Spec) ([]Finding, error) {
	texts, err := caseTexts(s)
	if err != nil {
		return nil, err
	}
	b := casestudy.Bindings(res)
	var out []Finding
	for _, t := range texts {
		for _, tok := range ScanNumbers(t.Text) {
			out = append(out, numberFinding(res, b, t, tok))
		}
	}
	for i, c := range s.Claims {
		out = append(out, checkClaim(res, s, b, i, c)...)
	}
	return out, nil
}

// caseText is one language's title, summary or narrative.
type caseText struct {
	Field, Lang string // "narrative", "en"
	File        string // the narrative file, or the spec for a title or summary
	Text        string
	line        func(Token) int
}

// Name is the field as messages name it: "narrative.en".
func (t caseText) Name() string { return t.Field + "." + t.Lang }

// caseTexts lists the texts of a spec, in language order, each with a way
// to find a token's line in its file.
func caseTexts(s *spec.Spec) ([]caseText, error) {
	var specLines []string
	var specNode *yaml.Node
	if data, err := os.ReadFile(s.Path); err == nil {
		specLines = strings.Split(string(data), "\n")
		var n yaml.Node
		if yaml.Unmarshal(data, &n) == nil {
			specNode = &n
		}
	}
	var out []caseText
	for _, lang := range s.Languages {
		for _, field := range []string{"title", "summary"} {
			m := s.Title
			if field == "summary" {
				m = s.Summary
			}
			text, ok := m[lang]
			if !ok {
				continue
			}
			start := valueLine(specNode, field, lang)
			out = append(out, caseText{Field: field, Lang: lang, File: s.Path, Text: text,
				line: func(tok Token) int { return lineOf(specLines, start, tok) }})
		}
		rel := s.Narrative[lang]
		if rel == "" {
			continue
		}
		file := rel
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(s.Path), rel)
		}
		_, data, err := s.ReadNarrative(lang)
		if err != nil {
			return nil, err
		}
		out = append(out, caseText{Field: "narrative", Lang: lang, File: file, Text: string(data),
			line: func(tok Token) int { return tok.Line }})
	}
	return out, nil
}

// checkClaim checks one declared claim against the bindings.
func checkClaim(res *casestudy.Result, s *spec.Spec, b map[string]casestudy.Binding, i int, c spec.Claim) []Finding {
	lang := c.Lang
	if lang == "" {
		lang = "en"
	}
	where := fmt.Sprintf("claims[%d]", i)
	if c.Text != "" {
		where += " (" + c.Text + ")"
	}
	params := map[string]string{"claim": strconv.Itoa(i), "figure": c.Figure, "stated": num(c.Value), "unit": c.Unit, "lang": lang}
	fail := func(key, format string, args ...any) []Finding {
		return []Finding{{Check: CheckClaimsStated, Severity: Fail, File: s.Path, Message: where + ": " + fmt.Sprintf(format, args...), Params: params, MessageKey: key}}
	}
	bd, base, ok := casestudy.Lookup(b, c.Figure)
	if !ok {
		params["known"] = strings.Join(slices.Sorted(maps.Keys(b)), ", ")
		return fail(MsgClaimUnknownFigure, "names figure %q, which is not a figure of case study %s (benchledger figures lists them; docs/casestudy.md \"Narrative bindings\")", c.Figure, s.ID)
	}
	def := definitionOf(res, base)
	params["definition"] = def
	unit := bindingUnit(bd)
	if bd.Kind == casestudy.KindDate {
		return fail(MsgClaimDate, "figure %s is a date, not a number a claim can state", c.Figure)
	}
	if normUnit(c.Unit) != unit {
		params["figure_unit"] = unit
		return fail(MsgClaimUnit, "states %s %s for %s, but that figure is in %s (%s)", num(c.Value), orNone(c.Unit), c.Figure, orNone(unit), def)
	}
	dec := 0
	computed := bd.Value
	switch {
	case c.Decimals != nil:
		dec = *c.Decimals
	case c.Figure != base:
		// A figure named with a precision (x.pct:0, x.approx) is checked
		// at the precision the text shows it with.
		computed, dec = bd.Shown()
	default:
		dec = decimalsOf(c.Value)
	}
	shown := "?"
	if l, err := locales.Match(lang); err == nil {
		shown = bd.Format(l)
	}
	params["decimals"], params["computed"], params["shown"] = strconv.Itoa(dec), num(bd.Value), shown
	if math.IsNaN(bd.Value) || math.IsInf(bd.Value, 0) {
		return fail(MsgClaimValue, "states %s for %s, but the computed value is %s (%s)", withUnit(num(c.Value), c.Unit), c.Figure, num(bd.Value), def)
	}
	want, got := fixed(c.Value, dec), fixed(computed, dec)
	if want != got {
		return fail(MsgClaimValue, "states %s for %s, but the computed value is %s (%s at the claim's %d decimals; the report shows %s)%s; definition: %s",
			withUnit(want, c.Unit), c.Figure, num(bd.Value), got, dec, shown, restsOn(res, base, params), def)
	}
	return nil
}

// restsOn names the two values a comparison's change rests on, with where
// each comes from ("recomputed from 200 records", "stated by vllm bench
// serve (output_throughput, full precision), not recomputable"), and adds
// them to params; "" for a figure that is not a comparison's change.
func restsOn(res *casestudy.Result, figure string, params map[string]string) string {
	base, suffix, ok := strings.Cut(figure, ".")
	c := res.Comparisons[base]
	if !ok || c == nil || suffix == "baseline" || suffix == "candidate" {
		return ""
	}
	en := locales.MustMatch("en")
	side := func(v casestudy.Value) string {
		var from []string
		for _, o := range v.Sources {
			from = append(from, o.String())
		}
		if v.Reference != "" {
			from = []string{"external reference " + v.Reference}
		}
		// Six significant digits: enough to see the change, not the float tail.
		short, _ := strconv.ParseFloat(strconv.FormatFloat(v.Value, 'g', 6, 64), 64)
		return en.Quantity(short, -1, v.Unit) + " (" + strings.Join(from, "; ") + ")"
	}
	params["baseline"], params["candidate"] = num(c.Baseline.Value), num(c.Candidate.Value)
	params["baseline_source"], params["candidate_source"] = c.Baseline.ValueSource, c.Candidate.ValueSource
	return fmt.Sprintf("; it rests on baseline %s and candidate %s", side(c.Baseline), side(c.Candidate))
}

func withUnit(v, unit string) string {
	switch normUnit(unit) {
	case "":
		return v
	case "%", "x":
		return v + unit
	}
	return v + " " + unit
}

func orNone(u string) string {
	if u == "" {
		return "no unit"
	}
	return u
}

// bindingUnit is the unit a claim of this binding must give: "%" for a
// percentage, "x" for a ratio, "" for a count, else the quantity's unit.
func bindingUnit(b casestudy.Binding) string {
	switch b.Kind {
	case casestudy.KindPercent:
		return "%"
	case casestudy.KindRatio:
		return "x"
	case casestudy.KindCount:
		return ""
	}
	return b.Unit
}

// normUnit accepts the usual spellings of percent and ratio.
func normUnit(u string) string {
	switch u = strings.TrimSpace(u); u {
	case "%", "percent", "pct", "％":
		return "%"
	case "x", "×", "倍", "ratio":
		return "x"
	}
	return u
}

// decimalsOf is the number of decimals of v's shortest decimal form.
func decimalsOf(v float64) int {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// fixed writes v rounded to dec decimals ("-0" as "0").
func fixed(v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// definitionOf describes what a binding name stands for.
func definitionOf(res *casestudy.Result, name string) string {
	base, suffix := name, ""
	for {
		if _, ok := res.Figures[base]; ok {
			break
		}
		if _, ok := res.Comparisons[base]; ok {
			break
		}
		if _, ok := res.Nodes[base]; ok {
			break
		}
		if _, ok := res.Sweeps[base]; ok {
			break
		}
		i := strings.LastIndex(base, ".")
		if i < 0 {
			base, suffix = "", name
			break
		}
		base, suffix = base[:i], strings.TrimPrefix(base[i:]+"."+suffix, ".")
		suffix = strings.TrimSuffix(suffix, ".")
	}
	if f, ok := res.Figures[base]; ok {
		return fmt.Sprintf("figure %s: %s of %s (%s)", base, f.Metric, f.Basis, f.Definition)
	}
	if c, ok := res.Comparisons[base]; ok {
		m := c.Comparison.Metric
		d := c.Baseline.Definition
		if d == "" {
			d = m
			if n, ok := figures.ParseMetric(m); ok {
				d = n.Formula()
			}
		}
		what := map[string]string{
			"pct":      "(candidate − baseline) / baseline × 100",
			"ratio":    "candidate / baseline",
			"abs":      "candidate − baseline",
			"baseline": "the baseline's value", "candidate": "the candidate's value",
		}[strings.TrimSuffix(suffix, ".precise")]
		if what == "" {
			what = suffix
		}
		return fmt.Sprintf("comparison %s: %s of %s, where %s is %s", base, what, m, m, d)
	}
	if _, ok := res.Nodes[base]; ok {
		if suffix == "" {
			return fmt.Sprintf("node %s: total output tokens of all replicas over their common wall-clock window, the lowest of the node runs", base)
		}
		return fmt.Sprintf("node %s: %s of the conservative node run", base, suffix)
	}
	if _, ok := res.Sweeps[base]; ok {
		return fmt.Sprintf("sweep %s: %s", base, suffix)
	}
	if strings.HasPrefix(name, "ref.") {
		return "external reference " + strings.TrimPrefix(name, "ref.") + " as captured"
	}
	return name
}

// valueLine is the 1-based line of spec field.lang's value (0 when unknown).
func valueLine(root *yaml.Node, field, lang string) int {
	if root == nil || len(root.Content) == 0 {
		return 0
	}
	get := func(m *yaml.Node, key string) *yaml.Node {
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return nil
	}
	v := get(get(root.Content[0], field), lang)
	if v == nil {
		return 0
	}
	return v.Line
}

// lineOf finds the line of the spec file, from start on, holding tok (the
// text of a folded YAML scalar is joined, so its own line numbers do not
// help); start, or the token's own line, when not found.
func lineOf(lines []string, start int, tok Token) int {
	if start <= 0 {
		return tok.Line
	}
	for i := start - 1; i < len(lines) && i < start+200; i++ {
		if strings.Contains(lines[i], tok.Text) {
			return i + 1
		}
	}
	return start
}

// Token is a number-like token of a text that is not bound to a figure.
type Token struct {
	Text string
	Line int // 1-based
	// After is the text right after the token (a few bytes), where a unit
	// such as "tok/s" would be.
	After string
}

// The parts of Markdown masked before scanning.
var (
	maskREs = []*regexp.Regexp{
		regexp.MustCompile(`(?s)<!--.*?-->`),
		regexp.MustCompile("(?s)``.+?``"),
		regexp.MustCompile("`[^`\n]*`"),
		regexp.MustCompile(`\{\{[^{}\n]*\}\}`),
		regexp.MustCompile(`\]\([^)\n]*\)`),                     // link and image URLs
		regexp.MustCompile(`(?m)^\s*\[[^\]\n]+\]:.*$`),          // reference definitions
		regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*>`), // autolinks
		regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s)>\]]+`),
	}
	fenceRE = regexp.MustCompile("^\\s*(```|~~~)")
)

// mask blanks out (with spaces, keeping newlines and byte offsets) code,
// bindings, URLs and comments.
func mask(text string) string {
	b := []byte(text)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	// Fenced code blocks.
	off, inFence := 0, false
	var fence string
	for _, line := range strings.SplitAfter(text, "\n") {
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case !inFence:
				inFence, fence = true, m[1]
			case m[1] == fence:
				inFence = false
				blank(off, off+len(line))
			}
		}
		if inFence {
			blank(off, off+len(line))
		}
		off += len(line)
	}
	for _, re := range maskREs {
		for _, ix := range re.FindAllIndex(b, -1) {
			from := ix[0]
			if b[from] == ']' {
				from++ // keep the link text's end
			}
			blank(from, ix[1])
		}
	}
	return string(b)
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}

// nameChar: a character that makes a digit run beside it part of a name
// (Qwen3, A3B, TP1, v1.2, FP8): a non-CJK letter, a digit, '_', '#', '^', '@'.
func nameChar(r rune) bool {
	return (unicode.IsLetter(r) && !isCJK(r)) || unicode.IsDigit(r) || r == '_' || r == '#' || r == '^' || r == '@'
}

func isSpace(r rune) bool { return r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009' }

// inner separators of a number: grouping and decimal marks of the locales.
func isSep(r rune) bool {
	return r == ',' || r == '.' || r == '\'' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

// ScanNumbers lists the number-like tokens of a Markdown text that are not
// bound to a figure. The rule (docs/audit.md):
//
//   - code (fenced blocks, `spans`), {{name}} bindings, link URLs,
//     reference definitions, autolinks, bare URLs and HTML comments are
//     skipped;
//   - a token is a run of digits with inner grouping or decimal marks
//     (1,000  41.651  8.17  17 961), with a sign before it (+, -, −, ±) when
//     the sign is not itself glued to a name, and a suffix after it: a
//     percent sign (with at most one space), "x" or "×" right after the
//     digits, or "倍" (with at most one space);
//   - a digit run glued on either side to a Latin (non-CJK) letter, a
//     digit, '_', '#', '^', '@' or a hyphen is part of a name and not a
//     token: Qwen3-30B-A3B, TP1, v1.2, FP8, 256-token, p95, 2026-08-18;
//   - a bare digit run (no sign, mark or suffix) after one space following
//     an upper-case Latin word of two or more letters is part of a product
//     name: RTX PRO 6000, RTX 4090;
//   - a dotted run with two or more dots that is not thousands grouping
//     (1.3.0) is a version, not a token; so is a number after a serving
//     engine's name and one space (vLLM 0.23, TensorRT-LLM 1.1), which
//     the engine check reads instead;
//   - an ordered-list marker ("1. " or "1) " at the start of a line) is
//     not a token.
func ScanNumbers(text string) []Token {
	m := mask(text)
	var out []Token
	prev := func(i int) (rune, int) { return utf8.DecodeLastRuneInString(m[:i]) }
	at := func(i int) (rune, int) { return utf8.DecodeRuneInString(m[i:]) }
	isDigit := func(i int) bool {
		if i >= len(m) {
			return false
		}
		r, _ := at(i)
		return unicode.IsDigit(r)
	}
	for i := 0; i < len(m); {
		r, w := at(i)
		if !unicode.IsDigit(r) {
			i += w
			continue
		}
		start := i
		// Consume the number: digits and inner separators followed by a digit.
		dots, badGroup := 0, false
		j := i
		for j < len(m) {
			for isDigit(j) {
				_, w := at(j)
				j += w
			}
			s, sw := at(j)
			if j < len(m) && isSep(s) && isDigit(j+sw) {
				if s == '.' {
					dots++
				}
				j += sw
				g := j
				for isDigit(g) {
					_, w := at(g)
					g += w
				}
				if s == '.' && utf8.RuneCountInString(m[j:g]) != 3 {
					badGroup = true
				}
				continue
			}
			break
		}
		end := j
		glued := false
		// Before: a name character, or a hyphen/dot joined to one.
		if start > 0 {
			p, pw := prev(start)
			switch {
			case nameChar(p):
				glued = true
			case p == '-' || p == '.':
				if q, _ := prev(start - pw); start-pw > 0 && nameChar(q) {
					glued = true
				} else if p == '-' {
					start -= pw
				}
			case p == '+' || p == '−' || p == '±':
				if q, _ := prev(start - pw); start-pw == 0 || !nameChar(q) {
					start -= pw
				}
			}
		}
		// Suffix.
		if end < len(m) {
			s, sw := at(end)
			k := end
			if isSpace(s) {
				k += sw
			}
			switch t, tw := at(k); {
			case k < len(m) && (t == '%' || t == '％' || t == '‰' || t == '倍'):
				end = k + tw
			case (s == 'x' || s == '×') && (end+sw >= len(m) || !nameChar(firstRune(m[end+sw:]))):
				end += sw
			}
		}
		// After: a name character or a hyphen.
		if end < len(m) {
			if a, _ := at(end); nameChar(a) || a == '-' {
				glued = true
			}
		}
		if start == i && end == j && !strings.ContainsFunc(m[start:end], isSep) && acronymBefore(m[:start]) {
			glued = true // RTX PRO 6000, RTX 4090 (but "NVIDIA 1.1" is a number)
		}
		if start == i && engineBefore(m[:start]) {
			glued = true // vLLM 0.23, TensorRT-LLM 1.1: a version, which the engine check reads
		}
		if dots >= 2 && badGroup {
			glued = true // a version
		}
		lineStart := strings.LastIndexByte(m[:start], '\n') + 1
		if strings.TrimSpace(m[lineStart:start]) == "" && end < len(m) && (m[end] == '.' || m[end] == ')') &&
			(end+1 >= len(m) || m[end+1] == ' ' || m[end+1] == '\n') {
			glued = true // an ordered-list marker
		}
		if !glued {
			out = append(out, Token{Text: text[start:end], Line: bytes.Count([]byte(m[:start]), []byte("\n")) + 1,
				After: m[end:min(len(m), end+24)]})
		}
		i = max(end, j)
		// Skip the rest of a glued run (letters and digits) so that its
		// later digits are not taken for a new token.
		for i < len(m) {
			r, w := at(i)
			if !nameChar(r) && r != '-' && r != '.' {
				break
			}
			if r == '.' && !isDigit(i+w) {
				break
			}
			i += w
		}
	}
	return out
}

// engineBefore: text ends with a serving engine's name and one space
// ("vLLM ", "TensorRT-LLM "), so the number after it is that engine's
// version, in every language alike.
func engineBefore(text string) bool {
	w, ok := strings.CutSuffix(text, " ")
	if !ok {
		return false
	}
	w = w[max(0, len(w)-40):]
	for _, e := range engines {
		for _, ix := range e.Text.FindAllStringIndex(w, -1) {
			if ix[1] == len(w) {
				return true
			}
		}
	}
	return false
}

// acronymBefore: text ends with one space after an upper-case Latin word
// of two or more letters (a product name: "PRO ", "RTX ").
func acronymBefore(text string) bool {
	if !strings.HasSuffix(text, " ") {
		return false
	}
	w := text[:len(text)-1]
	n := 0
	for len(w) > 0 {
		r, rw := utf8.DecodeLastRuneInString(w)
		if r > unicode.MaxASCII || !unicode.IsUpper(r) {
			break
		}
		w, n = w[:len(w)-rw], n+1
	}
	if n < 2 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(w)
	return w == "" || !nameChar(r)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
