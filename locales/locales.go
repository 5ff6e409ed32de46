// Package locales is the language layer of reports (DESIGN.md principle 6):
// message catalogues for zh, ja, es (with an es-419 overlay) and en, a
// glossary of metric terms, locale number/date formatting and caveat
// sentences. Everything is embedded, so a binary needs no files at run time.
//
// Messages use named placeholders ("{figure}") rather than printf verbs so
// that translators can reorder them freely and tests can compare them across
// languages. Numbers inside messages are formatted by the locale.
//
// A key missing in a language is not filled from English at run time: T marks
// it visibly and Message returns an error; only TOrEnglish, which says so,
// falls back. The tests keep every catalogue complete.
package locales

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

//go:embed *.yaml
var dataFS embed.FS

// supported lists the report locales in matcher order; index 0 (English) is
// the fallback. es-419 is its own entry so that Latin-American tags
// (es-MX, es-AR, ...) match it rather than Spain's es.
var supported = []string{"en", "zh", "ja", "es", "es-419"}

// overlays name locales whose file holds only the keys that differ from a
// parent catalogue.
var overlays = map[string]string{"es-419": "es"}

// cjk marks languages that put a space between CJK text and Latin letters
// or digits (GLOSSARY.md: "提升 132%", "2.32 倍").
var cjk = map[string]bool{"zh": true, "ja": true}

// minGrouping is CLDR's minimumGroupingDigits where it is not 1: Spain's
// Spanish leaves four-digit numbers ungrouped (9938, but 17.961). x/text's
// CLDR 32 tables ignore this rule, so it is applied here; es-419 uses 1.
var minGrouping = map[string]int{"es": 2}

// Supported returns the supported locale tags, fallback (en) last.
func Supported() []string {
	return []string{"zh", "ja", "es", "es-419", "en"}
}

// ErrUnsupported is returned (wrapped) by Match for a tag no locale serves.
var ErrUnsupported = errors.New("unsupported language")

// entry is one catalogue message: plain text, or plural forms selected by
// the "count" argument.
type entry struct {
	other string
	one   string // optional
}

type catalogue map[string]entry

type locale struct {
	tag      string
	langTag  language.Tag
	msgs     catalogue
	en       *locale // English, for TOrEnglish; nil for English itself
	terms    map[string]string
	syms     symbols
	cjk      bool
	minGroup int
	// texts is the report locale whose texts a regional variant uses
	// (es-419 for es-AR); "" for a report locale itself.
	texts string
	name  string // the variant's own name ("español (Argentina)")
	cells bool   // Locale.Cells: short units for table cells
}

// Locale formats and translates for one supported locale. Obtain it from
// Match, MustMatch or Fallback; the zero value is not usable.
type Locale struct{ l *locale }

// data is the glossary, and each supported locale made the first time it
// is asked for (a process that writes one language parses one or two of
// the six catalogues, not all).
type data struct {
	terms      map[string]map[string]string // term id -> locale -> text
	locales    map[string]func() (*locale, error)
	catalogues map[string]func() (catalogue, error) // the files as they are, by tag
	parsed     atomic.Int32                         // catalogue files parsed so far
}

// locale is the supported locale tag, made once.
func (d *data) locale(tag string) (*locale, error) {
	get, ok := d.locales[tag]
	if !ok {
		return nil, fmt.Errorf("locales: %q is not a supported locale", tag)
	}
	return get()
}

var loadData = sync.OnceValues(load)

func load() (*data, error) {
	terms, err := loadGlossary()
	if err != nil {
		return nil, err
	}
	d := &data{terms: terms, locales: map[string]func() (*locale, error){}, catalogues: map[string]func() (catalogue, error){}}
	for _, tag := range supported {
		d.catalogues[tag] = sync.OnceValues(func() (catalogue, error) {
			d.parsed.Add(1)
			return loadCatalogue(tag + ".yaml")
		})
		d.locales[tag] = sync.OnceValues(func() (*locale, error) { return d.makeLocale(tag) })
	}
	return d, nil
}

// makeLocale makes a supported locale from its catalogue: an overlay's
// is its parent's texts with its vocabulary, and its own texts over them.
func (d *data) makeLocale(tag string) (*locale, error) {
	c, err := d.catalogues[tag]()
	if err != nil {
		return nil, err
	}
	if parent, ok := overlays[tag]; ok {
		pc, err := d.catalogues[parent]()
		if err != nil {
			return nil, err
		}
		vocab := vocabulary(c)
		merged := catalogue{}
		for k, v := range pc {
			merged[k] = entry{other: vocab.Replace(v.other), one: vocab.Replace(v.one)}
		}
		for k, v := range c {
			if !strings.HasPrefix(k, vocabPrefix) {
				merged[k] = v
			}
		}
		c = merged
	}
	lt := language.MustParse(tag)
	base, _ := lt.Base()
	l := &locale{tag: tag, langTag: lt, msgs: c, cjk: cjk[base.String()],
		syms: symbolsFor(lt), minGroup: max(1, minGrouping[tag]), terms: map[string]string{}}
	for id, byLang := range d.terms {
		if s, ok := byLang[tag]; ok {
			l.terms[id] = s
		} else if p, ok := overlays[tag]; ok {
			if s, ok := byLang[p]; ok {
				l.terms[id] = s
			}
		}
	}
	if tag != "en" {
		if l.en, err = d.locale("en"); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func loadCatalogue(name string) (catalogue, error) {
	b, err := dataFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("locales: %w", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("locales: %s: %w", name, err)
	}
	c := catalogue{}
	for k, v := range m {
		switch v := v.(type) {
		case string:
			c[k] = entry{other: v}
		case map[string]any:
			var msg entry
			for form, s := range v {
				str, ok := s.(string)
				if !ok {
					return nil, fmt.Errorf("locales: %s: %s.%s is not text", name, k, form)
				}
				switch form {
				case "one":
					msg.one = str
				case "other":
					msg.other = str
				default:
					return nil, fmt.Errorf("locales: %s: %s: unknown plural form %q", name, k, form)
				}
			}
			if msg.other == "" {
				return nil, fmt.Errorf("locales: %s: %s has no 'other' form", name, k)
			}
			c[k] = msg
		default:
			return nil, fmt.Errorf("locales: %s: %s is neither text nor plural forms", name, k)
		}
	}
	return c, nil
}

// vocabPrefix marks an overlay's vocabulary: "vocab.comprobación:
// verificación" writes every text the overlay inherits with the word of
// its variety (es-419: verificación, entorno de ejecución, estudio de
// caso), so a text added to the parent later gets it too.
const vocabPrefix = "vocab."

// vocabReplacer replaces whole words only, keeping a capital first letter.
type vocabReplacer struct {
	res  []*regexp.Regexp
	with []string
	// rests are each word after its first letter, which a text must hold
	// for the word's pattern to match: most texts hold none, and are not
	// run through the patterns (every process loads the catalogues).
	rests []string
}

func vocabulary(c catalogue) vocabReplacer {
	var v vocabReplacer
	for _, k := range slices.Sorted(maps.Keys(c)) {
		from, ok := strings.CutPrefix(k, vocabPrefix)
		if !ok {
			continue
		}
		r, w := utf8.DecodeRuneInString(from)
		v.res = append(v.res, regexp.MustCompile(`(^|[^\p{L}])([`+string(r)+string(unicode.ToUpper(r))+`]`+regexp.QuoteMeta(from[w:])+`)($|[^\p{L}])`))
		v.with = append(v.with, c[k].other)
		v.rests = append(v.rests, from[w:])
	}
	return v
}

func (v vocabReplacer) Replace(s string) string {
	for i, re := range v.res {
		if !strings.Contains(s, v.rests[i]) {
			continue
		}
		with := v.with[i]
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.FindStringSubmatch(m)
			w := with
			if r, _ := utf8.DecodeRuneInString(sub[2]); unicode.IsUpper(r) {
				fr, n := utf8.DecodeRuneInString(w)
				w = string(unicode.ToUpper(fr)) + w[n:]
			}
			return sub[1] + w + sub[3]
		})
	}
	return s
}

func loadGlossary() (map[string]map[string]string, error) {
	b, err := dataFS.ReadFile("glossary.yaml")
	if err != nil {
		return nil, fmt.Errorf("locales: %w", err)
	}
	var m map[string]map[string]string
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("locales: glossary.yaml: %w", err)
	}
	return m, nil
}

var matcher = language.NewMatcher(func() []language.Tag {
	ts := make([]language.Tag, len(supported))
	for i, s := range supported {
		ts[i] = language.MustParse(s)
	}
	return ts
}())

// Match returns the locale serving tag ("zh-CN", "es-MX", "en-US", ...),
// matched with x/text's CLDR-based matcher: es-MX and other Latin-American
// tags get es-419, es-ES gets es, zh-TW gets zh (simplified; a low-confidence
// match). For an unknown or malformed tag it returns the English fallback
// together with an error wrapping ErrUnsupported that lists the supported
// tags, so a caller can either stop or knowingly fall back.
func Match(tag string) (Locale, error) {
	d, err := loadData()
	if err != nil {
		return Locale{}, err
	}
	en, err := d.locale("en")
	if err != nil {
		return Locale{}, err
	}
	fallback := Locale{en}
	t, perr := language.Parse(strings.TrimSpace(tag))
	if perr != nil || tag == "" {
		return fallback, fmt.Errorf("locales: %q: %w (supported: %s)", tag, ErrUnsupported, strings.Join(Supported(), ", "))
	}
	_, idx, conf := matcher.Match(t)
	if conf == language.No {
		return fallback, fmt.Errorf("locales: %q: %w (supported: %s)", tag, ErrUnsupported, strings.Join(Supported(), ", "))
	}
	l, err := d.locale(supported[idx])
	if err != nil {
		return Locale{}, err
	}
	return Locale{variant(t, l)}, nil
}

var variants sync.Map // tag -> *locale

// variant is the locale of a regional tag whose CLDR parent is the report
// locale l but whose number rules differ (es-AR, es-CO, es-CL: decimal
// comma, where es-419 has a point): l's texts with the region's CLDR
// symbols, so an Argentine reader sees 17.961 tokens/s, not 17,961. Any
// other tag is served by l itself.
func variant(t language.Tag, l *locale) *locale {
	if t.Parent().String() != l.tag {
		return l
	}
	syms := symbolsFor(t)
	if syms == l.syms {
		return l
	}
	if v, ok := variants.Load(t.String()); ok {
		return v.(*locale)
	}
	v := *l
	v.tag, v.langTag, v.syms, v.texts = t.String(), t, syms, l.tag
	// The language's own name with the region's ("Español (Argentina)").
	reg, _ := t.Region()
	v.name = display.Self.Name(t.Parent().Parent()) + " (" + display.Regions(t).Name(reg) + ")"
	got, _ := variants.LoadOrStore(v.tag, &v)
	return got.(*locale)
}

// Texts is the tag of the texts this locale uses: its own, or for a
// regional variant its CLDR parent's ("es-419" for es-AR), so a spec
// written in es-419 renders in es-AR with es-AR's numbers.
func (l Locale) Texts() string {
	if l.l.texts != "" {
		return l.l.texts
	}
	return l.l.tag
}

// HTMLLang is the tag for a page's lang attribute: zh is written
// zh-Hans (the catalogue is Simplified Chinese), so a browser picks
// Simplified glyphs and fonts.
func (l Locale) HTMLLang() string {
	if l.l.tag == "zh" {
		return "zh-Hans"
	}
	return l.l.tag
}

// Digest is a SHA-256 over every catalogue and the glossary as built into
// the binary: what a cache of rendered text must key on besides the text's
// own inputs.
var Digest = sync.OnceValue(func() string {
	h := sha256.New()
	names, _ := fs.Glob(dataFS, "*.yaml")
	sort.Strings(names)
	for _, n := range names {
		data, _ := dataFS.ReadFile(n)
		fmt.Fprintf(h, "%s %d\n", n, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
})

// MatchExact returns the locale of each tag, in order and without
// repeats. Each tag must name a supported locale exactly: a near one (es-MX
// for es-419) is refused with the closest, so output is never silently in
// another variety than asked.
func MatchExact(tags []string) ([]Locale, error) {
	var out []Locale
	for _, tag := range tags {
		l, err := Match(tag)
		if err != nil {
			return nil, fmt.Errorf("language %q: %w", tag, err)
		}
		if l.Tag() != tag {
			return nil, fmt.Errorf("language %q: not one of the languages (did you mean %s? known: %s)", tag, l.Tag(), strings.Join(Supported(), ", "))
		}
		if !slices.ContainsFunc(out, func(x Locale) bool { return x.Tag() == l.Tag() }) {
			out = append(out, l)
		}
	}
	return out, nil
}

// MustMatch is Match for tags known to be supported; it panics otherwise.
func MustMatch(tag string) Locale {
	l, err := Match(tag)
	if err != nil {
		panic(err)
	}
	return l
}

// Fallback returns English, the documented fallback locale.
func Fallback() Locale { return MustMatch("en") }

// Tag returns the locale's tag as listed by Supported ("es-419").
func (l Locale) Tag() string { return l.l.tag }

// Name returns the language's own name, for a language switcher.
func (l Locale) Name() string {
	if n := l.l.name; n != "" {
		r, w := utf8.DecodeRuneInString(n)
		return string(unicode.ToUpper(r)) + n[w:] // "Español (Argentina)"
	}
	return l.T("meta.name")
}

// Message returns the message key with its placeholders filled. Arguments
// are either name/value pairs ("figure", "TTFT", "run", id), one map
// (Args, map[string]any, map[string]string), or positional values for
// messages written with {0}, {1}, ... A plural message picks its form by
// the "count" argument. Values are formatted by the locale: integers by
// Integer, floats by Number with the shortest exact decimals, time.Time by
// Date. An unknown key, a missing argument or an unused one is an error.
func (l Locale) Message(key string, args ...any) (string, error) {
	m, ok := l.l.msgs[key]
	if !ok {
		return "", fmt.Errorf("locales: %s: no message %q", l.l.tag, key)
	}
	return l.render(key, m, args, true)
}

// MessageSubset is Message with named arguments the sentence may leave
// unused (an audit finding's parameters, of which a sentence names some);
// an unknown key or a missing argument is still an error.
func (l Locale) MessageSubset(key string, args Args) (string, error) {
	m, ok := l.l.msgs[key]
	if !ok {
		return "", fmt.Errorf("locales: %s: no message %q", l.l.tag, key)
	}
	return l.render(key, m, []any{args}, false)
}

// loose renders key with named arguments it may leave unused (a date
// pattern names only some of the date parts).
func (l Locale) loose(key string, args Args) string {
	m, ok := l.l.msgs[key]
	if !ok {
		return "[!" + key + "]"
	}
	s, err := l.render(key, m, []any{args}, false)
	if err != nil {
		return "[!" + key + "]"
	}
	return s
}

// Keys lists the catalogue's keys that start with prefix, sorted.
func (l Locale) Keys(prefix string) []string {
	var out []string
	for k := range l.l.msgs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// T is Message for templates: on error it returns a visible marker
// "[!key]" (never English text), so a gap cannot pass unnoticed.
func (l Locale) T(key string, args ...any) string {
	s, err := l.Message(key, args...)
	if err != nil {
		return "[!" + key + "]"
	}
	return s
}

// TOrEnglish is T, except that a key missing from this locale's catalogue is
// rendered from the English one: the documented fallback, for callers that
// prefer English text over a marker.
func (l Locale) TOrEnglish(key string, args ...any) string {
	if _, ok := l.l.msgs[key]; !ok && l.l.en != nil {
		return Locale{l.l.en}.T(key, args...)
	}
	return l.T(key, args...)
}

// Args are named message arguments.
type Args = map[string]any

func (l Locale) render(key string, m entry, args []any, strict bool) (string, error) {
	if len(args) == 0 && strings.IndexByte(m.other, '{') < 0 {
		return m.other, nil // a label or a punctuation mark: nothing to fill
	}
	named, positional, err := splitArgs(args)
	if err != nil {
		return "", fmt.Errorf("locales: %s: %s: %w", l.l.tag, key, err)
	}
	text := m.other
	if m.one != "" {
		if c, ok := named.get("count"); ok && l.isOne(c) {
			text = m.one
		}
	}
	used := map[string]bool{}
	usedPositional := false
	var b strings.Builder
	b.Grow(len(text) + 32) // the text and a few values' room: one allocation for most messages
	for i := 0; i < len(text); {
		open := strings.IndexByte(text[i:], '{')
		if open < 0 {
			b.WriteString(text[i:])
			break
		}
		open += i
		end := strings.IndexByte(text[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("locales: %s: %s: unclosed placeholder", l.l.tag, key)
		}
		end += open
		name := text[open+1 : end]
		var v any
		var ok bool
		// A name is parsed as an index only when there are positional
		// arguments (name/value pairs are both) and it starts as a number
		// does: a name failing strconv.Atoi was an error allocated for
		// every placeholder of every message.
		n, err := -1, strconv.ErrSyntax
		if positional != nil && name != "" && (name[0] >= '0' && name[0] <= '9' || name[0] == '+' || name[0] == '-') {
			n, err = strconv.Atoi(name)
		}
		if err == nil {
			if ok = n >= 0 && n < len(positional); ok {
				v = positional[n]
				usedPositional = true
			}
		} else {
			v, ok = named.get(name)
		}
		if !ok {
			return "", fmt.Errorf("locales: %s: %s: no argument for {%s}", l.l.tag, key, name)
		}
		used[name] = true
		before := text[i:open]
		b.WriteString(before)
		val := l.value(v)
		if l.l.cjk {
			val = l.spaceAround(lastRune(b.String()), val, firstRune(text[end+1:]))
		}
		b.WriteString(val)
		i = end + 1
	}
	if strict && !usedPositional {
		if k, ok := named.unused(used); ok {
			return "", fmt.Errorf("locales: %s: %s: argument %q is not used", l.l.tag, key, k)
		}
	}
	return b.String(), nil
}

// namedArgs are a message's named arguments: a map, or the name/value
// pairs a call passed, read where they are (a map made for every message
// was most of a short message's cost).
type namedArgs struct {
	m     map[string]any
	pairs []any // name, value, ...; a repeated name's last value counts, as in a map
}

// get is the value named k.
func (a namedArgs) get(k string) (any, bool) {
	if a.pairs == nil {
		v, ok := a.m[k]
		return v, ok
	}
	for i := len(a.pairs) - 2; i >= 0; i -= 2 {
		if a.pairs[i].(string) == k {
			return a.pairs[i+1], true
		}
	}
	return nil, false
}

// unused is a name, other than count, that used does not hold.
func (a namedArgs) unused(used map[string]bool) (string, bool) {
	if a.pairs == nil {
		for k := range a.m {
			if !used[k] && k != "count" {
				return k, true
			}
		}
		return "", false
	}
	for i := 0; i < len(a.pairs); i += 2 {
		if k := a.pairs[i].(string); !used[k] && k != "count" {
			return k, true
		}
	}
	return "", false
}

func splitArgs(args []any) (namedArgs, []any, error) {
	if len(args) == 1 {
		switch m := args[0].(type) {
		case map[string]any:
			return namedArgs{m: m}, nil, nil
		case map[string]string:
			out := make(map[string]any, len(m))
			for k, v := range m {
				out[k] = v
			}
			return namedArgs{m: out}, nil, nil
		}
	}
	// Name/value pairs when every even argument is a string and the count is
	// even; otherwise positional.
	if len(args)%2 == 0 {
		pairs := true
		for i := 0; i < len(args); i += 2 {
			k, ok := args[i].(string)
			if !ok || k == "" || strings.ContainsAny(k, "{} ") {
				pairs = false
				break
			}
		}
		if pairs {
			return namedArgs{pairs: args}, args, nil
		}
	}
	return namedArgs{}, args, nil
}

// value formats one message argument.
func (l Locale) value(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return l.Number(v, -1)
	case float32:
		return l.Number(float64(v), -1)
	case time.Time:
		return l.Date(v)
	case fmt.Stringer:
		return v.String()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return l.Integer(int(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return l.Integer(int(rv.Uint()))
	}
	return fmt.Sprint(v)
}

// isOne reports whether a count selects the "one" plural form, by CLDR
// plural rules from x/text (en: 1 but not 1.0; es: 1).
func (l Locale) isOne(c any) bool {
	var s string
	switch c := c.(type) {
	case string:
		s = c
	case float64:
		s = strconv.FormatFloat(math.Abs(c), 'f', -1, 64)
	default:
		rv := reflect.ValueOf(c)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			s = strconv.FormatInt(rv.Int(), 10)
		default:
			return false
		}
	}
	return pluralOne(l.l.langTag, strings.TrimPrefix(s, "-"))
}

// pluralOne applies CLDR's cardinal rule to a plain decimal string
// ("1", "1.0", "21").
func pluralOne(t language.Tag, s string) bool {
	ip, fp, _ := strings.Cut(s, ".")
	i, err := strconv.Atoi(ip)
	if err != nil {
		return false
	}
	f := 0
	if fp != "" {
		if len(fp) > 6 {
			fp = fp[:6]
		}
		f, _ = strconv.Atoi(fp)
	}
	trimmed := strings.TrimRight(fp, "0")
	tv, _ := strconv.Atoi("0" + trimmed)
	return plural.Cardinal.MatchPlural(t, i, len(fp), len(trimmed), f, tv) == plural.One
}

// Term returns the glossary term for a metric or concept id (the names in
// figures.Definitions plus the concepts in glossary.yaml). An unknown id is
// returned unchanged, so a new metric still shows its machine name.
func (l Locale) Term(id string) string {
	if s, ok := l.l.terms[id]; ok {
		return s
	}
	return id
}

// HasTerm reports whether the glossary has id in this locale.
func (l Locale) HasTerm(id string) bool {
	_, ok := l.l.terms[id]
	return ok
}

// Figure names a figure such as "output_throughput", "ttft.median" or
// "e2el.p99": a glossary term, or a metric term combined with a statistic
// ("median TTFT", "TTFT 中位数", "mediana de TTFT"). Unknown names are
// returned unchanged.
func (l Locale) Figure(name string) string {
	if l.HasTerm(name) {
		return l.Term(name)
	}
	if t, ok := figureTerms[name]; ok && l.HasTerm(t) {
		return l.Term(t)
	}
	metric, stat, ok := strings.Cut(name, ".")
	if !ok || !l.HasTerm(metric) {
		return name
	}
	var st string
	switch {
	case l.HasTerm(stat):
		st = l.Term(stat)
	case len(stat) > 1 && stat[0] == 'p' && isNumber(stat[1:]):
		st = stat // p90, p99.9: written the same in every language
	default:
		return name
	}
	m := l.Term(metric)
	out := l.T("format.figure", "metric", m, "stat", st)
	// zh writes the two together ("{metric}{stat}"): two Latin words
	// then need the space a reader expects ("TTFT P90", not "TTFTP90").
	if m != "" && st != "" && isLatinAlnum(rune(m[len(m)-1])) && isLatinAlnum(rune(st[0])) {
		out = strings.Replace(out, m+st, m+" "+st, 1)
	}
	return out
}

// figureTerms are figures the published case studies name with a term of
// their own, not "statistic of metric": a table row and the text around it
// then say the same ("median request latency", not "median E2E latency").
var figureTerms = map[string]string{"e2el.median": "median_request_latency", "e2el.mean": "mean_request_latency"}

func isLatinAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}

// latinSide is a rune that wants a space next to CJK text: Latin letters,
// digits and the signs that stick to numbers.
func latinSide(r rune) bool {
	if r < 0x80 {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("%+-)]×", r)
	}
	return unicode.IsLetter(r) && !isCJK(r) || r == '×' || r == '−'
}

// spaceAround puts the CJK–Latin space between a substituted value and the
// text on either side, as GLOSSARY.md asks; the catalogues write static
// text with its spaces already.
func (l Locale) spaceAround(before rune, val string, after rune) string {
	if val == "" {
		return val
	}
	if isCJK(before) && latinSide(firstRune(val)) || latinSide(before) && isCJK(firstRune(val)) {
		val = " " + val
	}
	if isCJK(after) && latinSide(lastRune(val)) || latinSide(after) && isCJK(lastRune(val)) {
		val += " "
	}
	return val
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

func lastRune(s string) rune {
	var last rune
	for _, r := range s {
		last = r
	}
	return last
}
