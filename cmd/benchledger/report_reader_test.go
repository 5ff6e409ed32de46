package main

import (
	"html"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

var (
	// Code, preformatted text and scripts are for copying and machines;
	// the rest of a page is what a reader reads.
	nonReaderRE = regexp.MustCompile(`(?s)<script\b.*?</script>|<style\b.*?</style>|<code\b.*?</code>|<pre\b.*?</pre>`)
	tagRE       = regexp.MustCompile(`(?s)<[^>]*>`)
	rawValueRE  = regexp.MustCompile(`\b(true|false|inf)\b|∞`)
	messageRE   = regexp.MustCompile(`<dd class="message">([^<]*)</dd>`)
	originalRE  = regexp.MustCompile(`<dd class="original" lang="en">([^<]*)</dd>`)
)

// readerText is the text of an HTML page a reader reads.
func readerText(page []byte) string {
	return html.UnescapeString(tagRE.ReplaceAllString(nonReaderRE.ReplaceAllString(string(page), " "), " "))
}

// machineNames are the spec's names a reader must never see: those of its
// selections, figures, comparisons, sweeps, nodes and sweep parameters
// that are not ordinary words (scheduler_tuning, sweep.value).
func machineNames(t *testing.T, specPath string) []string {
	t.Helper()
	s, err := spec.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range [][]string{slices.Collect(maps.Keys(s.Runs)), slices.Collect(maps.Keys(s.Figures)), slices.Collect(maps.Keys(s.Comparisons)),
		slices.Collect(maps.Keys(s.Sweeps)), slices.Collect(maps.Keys(s.Nodes))} {
		names = append(names, m...)
	}
	for _, sw := range s.Sweeps {
		names = append(names, sw.Parameter)
	}
	var out []string
	for _, n := range names {
		if strings.ContainsAny(n, "_.") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkReaderPages: issue 18's mechanical checks on the rendered demo, in
// every language — no spec key, raw boolean or infinity, no recorded
// English text the spec translates, in reader text; a
// synthetic-data badge; the external reference's source URL and dates
// beside its comparison; every audit finding's message in the page's
// language, with the English original beside it.
func checkReaderPages(t *testing.T, out, specPath string, langs []string) {
	t.Helper()
	names := machineNames(t, specPath)
	if !slices.Contains(names, "scheduler_tuning") || !slices.Contains(names, "sweep.value") {
		t.Fatalf("machine names of the demo spec: %v", names)
	}
	for _, l := range langs {
		page, err := os.ReadFile(filepath.Join(out, "qwen3-batch."+l+".html"))
		if err != nil {
			t.Fatal(err)
		}
		text := readerText(page)
		for _, n := range names {
			if i := strings.Index(text, n); i >= 0 {
				t.Errorf("%s: reader text shows the spec key %q: …%s…", l, n, text[max(0, i-60):min(len(text), i+60)])
			}
		}
		// Free text the manifest records in English and the spec translates
		// ("value:" labels) reads in the page's language.
		if l != "en" {
			sp, err := spec.Load(specPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range sp.ValueLabels() {
				if sp.Label(spec.ValueLabel+v, l) != "" && strings.Contains(text, v) {
					t.Errorf("%s: reader text shows %q as recorded, not the spec's label", l, v)
				}
			}
		}
		if m := rawValueRE.FindStringIndex(text); m != nil {
			t.Errorf("%s: reader text shows a raw value: …%s…", l, text[max(0, m[0]-60):min(len(text), m[1]+60)])
		}
		if !strings.Contains(string(page), `id="synthetic" class="badge synthetic"`) {
			t.Errorf("%s: no synthetic-data badge", l)
		}
		row := regexp.MustCompile(`(?s)<tr class="reference-note">.*?</tr>`).Find(page)
		if row == nil || !strings.Contains(string(row), "https://developer.nvidia.com/") || !strings.Contains(string(row), "2026") {
			t.Errorf("%s: the external reference's source and dates are not beside its comparison: %s", l, row)
		}
		audit, err := os.ReadFile(filepath.Join(out, "qwen3-batch.audit."+l+".html"))
		if err != nil {
			t.Fatal(err)
		}
		msgs, origs := messageRE.FindAllSubmatch(audit, -1), originalRE.FindAllSubmatch(audit, -1)
		if len(msgs) == 0 {
			t.Errorf("%s: no audit finding messages", l)
		}
		if l == "en" {
			if len(origs) != 0 {
				t.Errorf("en: the English audit page repeats %d messages as originals", len(origs))
			}
			continue
		}
		if len(origs) != len(msgs) {
			t.Errorf("%s: %d messages, %d English originals", l, len(msgs), len(origs))
			continue
		}
		// The generic sentence ("a finding of the check X; see the English
		// message") is localised too, but says nothing: every demo finding
		// has its own sentence.
		_, generic, _ := strings.Cut(locales.MustMatch(l).T("audit.msg.generic", "check", "\x00"), "\x00")
		for i := range msgs {
			if string(msgs[i][1]) == string(origs[i][1]) {
				t.Errorf("%s: audit message not localised: %s", l, msgs[i][1])
			}
			if m := html.UnescapeString(string(msgs[i][1])); generic != "" && strings.HasSuffix(m, generic) {
				t.Errorf("%s: audit message is the generic sentence: %s", l, m)
			}
		}
	}
}
