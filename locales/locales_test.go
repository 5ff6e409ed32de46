package locales

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

func mustData(t *testing.T) *data {
	t.Helper()
	d, err := loadData()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// mustLocale is the supported locale tag of d.
func mustLocale(t *testing.T, d *data, tag string) *locale {
	t.Helper()
	l, err := d.locale(tag)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Every locale has every English key and no key English lacks; the raw
// files are checked too, so an overlay cannot hide a gap in its parent.
func TestCataloguesComplete(t *testing.T) {
	en, err := loadCatalogue("en.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range supported {
		c, err := loadCatalogue(tag + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, overlay := overlays[tag]
		for k := range en {
			if _, ok := c[k]; !ok && !overlay {
				t.Errorf("%s: missing key %q", tag, k)
			}
		}
		for k, m := range c {
			if _, ok := en[k]; !ok && !(overlay && strings.HasPrefix(k, vocabPrefix)) {
				t.Errorf("%s: key %q is not in en.yaml", tag, k)
			}
			if strings.TrimSpace(m.other) == "" {
				t.Errorf("%s: %q is empty", tag, k)
			}
		}
	}
	d := mustData(t)
	for _, tag := range supported {
		if l := mustLocale(t, d, tag); len(l.msgs) != len(en) {
			t.Errorf("%s: %d keys after merging, en has %d", tag, len(l.msgs), len(en))
		}
	}
}

// choosePlaceholders are patterns that pick their parts from a fixed set:
// a date may be written with the month's number or its name.
var choosePlaceholders = map[string][]string{
	"format.date": {"day", "month", "month_name", "year"},
}

// Every form of a message uses the placeholders of the English message.
func TestPlaceholdersConsistent(t *testing.T) {
	d := mustData(t)
	en := mustLocale(t, d, "en").msgs
	for _, tag := range supported {
		for k, m := range mustLocale(t, d, tag).msgs {
			want := placeholders(en[k].other)
			for _, form := range []string{m.other, m.one} {
				if form == "" {
					continue
				}
				got := placeholders(form)
				if set, ok := choosePlaceholders[k]; ok {
					for _, p := range got {
						if !slices.Contains(set, p) {
							t.Errorf("%s: %s: unknown placeholder {%s}", tag, k, p)
						}
					}
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s: placeholders %v, en has %v (%q)", tag, k, got, want, form)
				}
			}
		}
	}
}

func TestGlossaryComplete(t *testing.T) {
	d := mustData(t)
	want := []string{"output_throughput", "total_token_throughput", "request_throughput",
		"ttft", "tpot", "itl", "e2el", "median", "p99", "window", "replica", "node",
		"scaling_efficiency", "saturation_point", "confounder", "baseline", "tuned"}
	for _, id := range want {
		if _, ok := d.terms[id]; !ok {
			t.Errorf("glossary lacks %q", id)
		}
	}
	langs := []string{"en", "zh", "ja", "es"}
	for id, byLang := range d.terms {
		for _, lang := range langs {
			if strings.TrimSpace(byLang[lang]) == "" {
				t.Errorf("glossary %q: no %s term", id, lang)
			}
		}
		for lang := range byLang {
			if !slices.Contains(langs, lang) && lang != "es-419" {
				t.Errorf("glossary %q: unknown language %q", id, lang)
			}
		}
	}
	for _, tag := range supported {
		if n := len(mustLocale(t, d, tag).terms); n != len(d.terms) {
			t.Errorf("%s: %d terms, glossary has %d", tag, n, len(d.terms))
		}
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		in, want string
		err      bool
	}{
		{"zh", "zh", false}, {"zh-CN", "zh", false}, {"zh-Hans-CN", "zh", false},
		{"zh-TW", "zh", false}, // simplified only: a low-confidence match, accepted
		{"ja", "ja", false}, {"ja-JP", "ja", false},
		{"es", "es", false}, {"es-ES", "es", false},
		{"es-419", "es-419", false}, {"es-MX", "es-419", false}, {"es-AR", "es-AR", false}, {"es-CO", "es-CO", false}, {"es-PE", "es-419", false},
		{"es_MX", "es-419", false},
		{"en", "en", false}, {"en-US", "en", false}, {"en-GB", "en", false},
		{"fr", "en", true}, {"pt-BR", "en", true}, {"", "en", true}, {"not a tag!", "en", true},
	}
	for _, c := range cases {
		l, err := Match(c.in)
		if (err != nil) != c.err {
			t.Errorf("Match(%q) error = %v, want error %v", c.in, err, c.err)
		}
		if err != nil {
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "zh, ja, es, es-419, en") {
				t.Errorf("Match(%q) error %q should wrap ErrUnsupported and list the supported tags", c.in, err)
			}
		}
		if l.Tag() != c.want {
			t.Errorf("Match(%q) = %s, want %s", c.in, l.Tag(), c.want)
		}
	}
	got := Supported()
	if !slices.Equal(got, []string{"zh", "ja", "es", "es-419", "en"}) {
		t.Errorf("Supported() = %v", got)
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(supported))) {
		t.Errorf("Supported() %v and the matcher list %v differ", got, supported)
	}
}

func TestNames(t *testing.T) {
	want := map[string]string{"zh": "中文", "ja": "日本語", "es": "Español (España)",
		"es-419": "Español (Latinoamérica)", "en": "English"}
	for tag, name := range want {
		if got := MustMatch(tag).Name(); got != name {
			t.Errorf("%s: Name() = %q, want %q", tag, got, name)
		}
	}
}

func TestMessageArgs(t *testing.T) {
	en := MustMatch("en")
	zh := MustMatch("zh")
	cases := []struct {
		l    Locale
		key  string
		args []any
		want string
		err  bool
	}{
		{en, "footer.digest", []any{"digest", "abc"}, "Archive digest (SHA-256): abc", false},
		{en, "footer.digest", []any{Args{"digest": "abc"}}, "Archive digest (SHA-256): abc", false},
		{en, "footer.digest", []any{map[string]string{"digest": "abc"}}, "Archive digest (SHA-256): abc", false},
		{en, "footer.digest", nil, "", true},                                // missing argument
		{en, "footer.digest", []any{"digest", "a", "extra", "b"}, "", true}, // unused argument
		{en, "no.such.key", nil, "", true},
		// A repeated name's last value counts (as a map of the pairs kept it).
		{en, "footer.digest", []any{"digest", "a", "digest", "b"}, "Archive digest (SHA-256): b", false},
		{en, "unit.requests", []any{"n", "1", "count", 2, "count", 1}, "1 request", false},
		{en, "footer.digest", []any{"count", 1, "digest", "abc"}, "Archive digest (SHA-256): abc", false}, // count may go unused
		{en, "unit.requests", []any{"n", "1", "count", 1}, "1 request", false},
		{en, "unit.requests", []any{"n", "2", "count", 2}, "2 requests", false},
		{en, "unit.requests", []any{"n", "1.0", "count", "1.0"}, "1.0 requests", false}, // CLDR en: 1.0 is "other"
		// Numbers are formatted by the locale, and CJK text gets its space.
		{zh, "unit.requests", []any{"n", 2048, "count", 2048}, "2,048 个请求", false},
		{zh, "caveat.failures_present", []any{Args{"run": "r1", "failed": 3, "sent": 2048}},
			"运行 r1：2,048 个请求中有 3 个失败。", false},
	}
	for _, c := range cases {
		got, err := c.l.Message(c.key, c.args...)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s %s %v = %q, %v; want %q (error %v)", c.l.Tag(), c.key, c.args, got, err, c.want, c.err)
		}
	}
	if got := en.T("no.such.key"); got != "[!no.such.key]" {
		t.Errorf("T on a missing key = %q, want a visible marker", got)
	}
}

// A key absent from a locale is marked by T and filled from English only by
// TOrEnglish.
func TestEnglishFallbackIsExplicit(t *testing.T) {
	d := mustData(t)
	ja := mustLocale(t, d, "ja")
	saved := ja.msgs
	ja.msgs = maps.Clone(saved)
	delete(ja.msgs, "section.summary")
	defer func() { ja.msgs = saved }()
	l := Locale{ja}
	if got := l.T("section.summary"); got != "[!section.summary]" {
		t.Errorf("T = %q, want the marker", got)
	}
	if got := l.TOrEnglish("section.summary"); got != "Summary" {
		t.Errorf("TOrEnglish = %q, want the English text", got)
	}
	if got := l.TOrEnglish("section.results"); got != "結果" {
		t.Errorf("TOrEnglish of a present key = %q", got)
	}
}

func TestPositional(t *testing.T) {
	d := mustData(t)
	en := mustLocale(t, d, "en")
	saved := en.msgs
	en.msgs = maps.Clone(saved)
	en.msgs["test.pos"] = entry{other: "{1} before {0}"}
	defer func() { en.msgs = saved }()
	if got, err := (Locale{en}).Message("test.pos", "a", "b"); err != nil || got != "b before a" {
		t.Errorf("positional = %q, %v", got, err)
	}
	if got, err := (Locale{en}).Message("test.pos", 1.5, 2); err != nil || got != "2 before 1.5" {
		t.Errorf("positional numbers = %q, %v", got, err)
	}
}

func TestFigureNames(t *testing.T) {
	cases := []struct{ tag, in, want string }{
		{"en", "output_throughput", "output throughput"},
		{"en", "ttft.median", "median TTFT"},
		{"zh", "ttft.median", "TTFT 中位数"},
		{"zh", "e2el.p99", "请求延迟 p99"},
		{"zh", "e2el.mean", "平均请求延迟"},
		{"ja", "e2el.median", "リクエスト遅延の中央値"},
		{"es", "e2el.median", "mediana de latencia de las solicitudes"},
		{"en", "e2el.mean", "mean request latency"},
		{"ja", "ttft.median", "TTFT の中央値"},
		{"ja", "tpot.p99.9", "TPOT の p99.9"},
		{"es", "ttft.median", "mediana de TTFT"},
		{"es", "node.output_throughput", "rendimiento de salida del nodo"},
		{"en", "custom_figure", "custom_figure"},
		{"en", "ttft.bogus", "ttft.bogus"},
	}
	for _, c := range cases {
		if got := MustMatch(c.tag).Figure(c.in); got != c.want {
			t.Errorf("%s Figure(%q) = %q, want %q", c.tag, c.in, got, c.want)
		}
	}
	if got := MustMatch("zh").Term("total_token_throughput"); got != "总 Token 吞吐量" {
		t.Errorf("zh Term = %q", got)
	}
}

func TestMatchExact(t *testing.T) {
	ls, err := MatchExact([]string{"en", "ja", "en", "es-419"})
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, l := range ls {
		tags = append(tags, l.Tag())
	}
	if strings.Join(tags, ",") != "en,ja,es-419" {
		t.Errorf("tags %v", tags)
	}
	if _, err := MatchExact([]string{"en", "es-MX"}); err == nil || !strings.Contains(err.Error(), "es-419") {
		t.Errorf("near tag: %v", err)
	}
	if _, err := MatchExact([]string{"xx"}); err == nil || !strings.Contains(err.Error(), `"xx"`) {
		t.Errorf("unknown tag: %v", err)
	}
}

func TestFigureSpacesLatinWords(t *testing.T) {
	for tag, want := range map[string]string{"zh": "TTFT p90", "en": "p90 TTFT"} {
		if got := MustMatch(tag).Figure("ttft.p90"); !strings.Contains(got, "TTFT") || (tag == "zh" && got != want) {
			t.Errorf("%s: %q", tag, got)
		}
	}
	if got := MustMatch("zh").Figure("e2el.p90"); strings.Contains(got, "  ") {
		t.Errorf("zh e2el.p90: %q", got)
	}
}

func TestDigest(t *testing.T) {
	d := Digest()
	if len(d) != 64 || d != Digest() {
		t.Errorf("digest %q", d)
	}
}

// TestReviewedTerms: the reviewers' term for the request's latency is
// 请求延迟 / リクエスト遅延 (the published case's); no message of the zh or
// ja catalogue says it the old way, in the report or on the site.
func TestReviewedTerms(t *testing.T) {
	d := mustData(t)
	for tag, old := range map[string][]string{"zh": {"端到端延迟", "端到端的延迟"}, "ja": {"エンドツーエンド遅延", "エンドツーエンドの遅延"}} {
		for k, m := range mustLocale(t, d, tag).msgs {
			for _, o := range old {
				if strings.Contains(m.other, o) {
					t.Errorf("%s %s = %q says %q", tag, k, m.other, o)
				}
			}
		}
	}
}

// TestPercentilesOneCase: a percentile is written one way on a page — the
// way chart marks and captions write it in every language (p50, p90, …, as
// the published case writes p95/p99) — so a zh table row never says
// "TTFT P90" beside a caption's "p50".
func TestPercentilesOneCase(t *testing.T) {
	for _, tag := range supported {
		l := MustMatch(tag)
		for _, p := range []string{"p50", "p90", "p95", "p99"} {
			if got := l.Term(p); got != p {
				t.Errorf("%s: the percentile %s is written %q", tag, p, got)
			}
			if got := l.Figure("ttft." + p); !strings.Contains(got, p) {
				t.Errorf("%s: ttft.%s reads %q", tag, p, got)
			}
		}
	}
}

// TestVocabularyReplacesAsThePatterns: an overlay's vocabulary, which
// runs a word's pattern only on texts that hold the word after its first
// letter, writes every text of its parent's catalogue (and capitalised,
// at a text's ends and beside punctuation) as the patterns alone write it.
func TestVocabularyReplacesAsThePatterns(t *testing.T) {
	for tag, parent := range overlays {
		c, err := loadCatalogue(tag + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := loadCatalogue(parent + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		v := vocabulary(c)
		if len(v.res) == 0 {
			t.Fatalf("%s: no vocabulary", tag)
		}
		patterns := func(s string) string {
			for i, re := range v.res {
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
		texts := []string{""}
		for _, e := range p {
			texts = append(texts, e.other, e.one)
		}
		for k := range c {
			if w, ok := strings.CutPrefix(k, vocabPrefix); ok {
				texts = append(texts, w, strings.ToUpper(w[:1])+w[1:]+".", "«"+w+"»", "x"+w, w+"s")
			}
		}
		changed := 0
		for _, s := range texts {
			got, want := v.Replace(s), patterns(s)
			if got != want {
				t.Errorf("%s: %q: got %q, want %q", tag, s, got, want)
			}
			if got != s {
				changed++
			}
		}
		if changed == 0 {
			t.Errorf("%s: the vocabulary changed no text", tag)
		}
	}
}

// BenchmarkLoad: what a process that writes English loads once, the
// glossary and English's catalogue.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		d, err := load()
		if err == nil {
			_, err = d.locale("en")
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestLocalesMadeWhenAskedFor: a catalogue is parsed when a locale that
// needs it is first asked for, once: es-419 needs its own, es's and
// English's; English then needs nothing more.
func TestLocalesMadeWhenAskedFor(t *testing.T) {
	d, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		tag    string
		parsed int32
	}{{"", 0}, {"es-419", 3}, {"en", 3}, {"es", 3}, {"zh", 4}, {"zh", 4}} {
		if step.tag != "" {
			mustLocale(t, d, step.tag)
		}
		if n := d.parsed.Load(); n != step.parsed {
			t.Errorf("after %q: %d catalogues parsed, want %d", step.tag, n, step.parsed)
		}
	}
	if _, err := d.locale("xx"); err == nil {
		t.Error("an unsupported tag: no error")
	}
}
