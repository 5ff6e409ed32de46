package publish

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// result is a small evaluated case study: one figure, two languages, an
// English narrative file, two runs and a caveat.
func result(t *testing.T, latency float64, narrative string) *casestudy.Result {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "narrative"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "narrative", "en.md"), []byte(narrative), 0o644); err != nil {
		t.Fatal(err)
	}
	return &casestudy.Result{
		Spec: &spec.Spec{Path: filepath.Join(dir, "casestudy.yaml"), ID: "demo", Languages: []string{"en", "zh"},
			Title:     map[string]string{"en": "Batch inference", "zh": "批量推理"},
			Summary:   map[string]string{"en": "Latency was {{median_latency}}."},
			Narrative: map[string]string{"en": "narrative/en.md"}},
		Figures: map[string]casestudy.Value{"median_latency": {Name: "median_latency", Metric: "e2el.median", Value: latency, Unit: "s"}},
		RunIDs:  []string{"bbbbbbbbbbbb", "aaaaaaaaaaaa"},
		Caveats: []caveat.Caveat{{Code: caveat.CodeSingleMeasurement, Params: map[string]string{"figure": "median_latency", "run": "aaaaaaaaaaaa"}}},
	}
}

func TestTake(t *testing.T) {
	res := result(t, 15.9123, "Latency: {{median_latency}}.\n")
	s, err := Take(res)
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Figures["median_latency"]; f.Display != "15.91 s" || f.Value != "15.9123" || f.Unit != "s" || f.Decimals != 2 {
		t.Errorf("median_latency = %+v, want 15.91 s from 15.9123", f)
	}
	if f := s.Figures["median_latency.precise"]; f.Display != "15.91 s" {
		t.Errorf("median_latency.precise = %+v", f)
	}
	wantTexts := []string{"narrative.en", "summary.en", "title.en", "title.zh"}
	if got := slices.Sorted(maps.Keys(s.Texts)); !slices.Equal(got, wantTexts) {
		t.Errorf("texts %v, want %v", got, wantTexts)
	}
	if s.Texts["narrative.en"] != hashHex([]byte("Latency: {{median_latency}}.\n")) || len(s.Texts["title.zh"]) != 64 {
		t.Errorf("text hashes %v", s.Texts)
	}
	if !slices.Equal(s.Runs, []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb"}) {
		t.Errorf("runs %v, want sorted", s.Runs)
	}
	if len(s.Caveats) != 1 || s.Caveats[0].Params["run"] != "aaaaaaaaaaaa" {
		t.Errorf("caveats %+v", s.Caveats)
	}

	// Stored and read back, the same snapshot; stored twice, the same text.
	j1, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Take(res)
	if j2, _ := again.JSON(); j1 != j2 {
		t.Errorf("two snapshots of one result differ:\n%s\n%s", j1, j2)
	}
	back, err := Parse(j1)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("Parse(JSON) = %+v, %v; want %+v", back, err, s)
	}
	// A stored figure is written again in any language.
	b, ok := back.Binding("median_latency")
	if !ok {
		t.Fatal("Binding(median_latency) missing")
	}
	for _, tag := range []string{"en", "zh", "es"} {
		l := locales.MustMatch(tag)
		if want := l.Quantity(15.9123, 2, "s"); b.Format(l) != want {
			t.Errorf("%s: stored binding writes %q, want %q", tag, b.Format(l), want)
		}
	}
	if _, ok := back.Binding("nope"); ok {
		t.Error("Binding of an unknown name")
	}

	// A narrative that cannot be read is an error naming the language.
	res.Spec.Narrative["zh"] = "narrative/zh.md"
	if _, err := Take(res); err == nil || !strings.Contains(err.Error(), "zh") {
		t.Errorf("missing narrative: %v", err)
	}
}

func TestDiff(t *testing.T) {
	take := func(latency float64, narrative string, edit func(r *casestudy.Result)) Snapshot {
		res := result(t, latency, narrative)
		if edit != nil {
			edit(res)
		}
		s, err := Take(res)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := take(15.9123, "text\n", nil)
	if d := Diff(base, take(15.9123, "text\n", nil)); len(d) != 0 {
		t.Errorf("same result: %+v", d)
	}
	// A change below the displayed precision is no erratum.
	if d := Diff(base, take(15.9149, "text\n", nil)); len(d) != 0 {
		t.Errorf("sub-display change: %+v", d)
	}
	// A throughput shown without decimals: only its .precise form moved.
	tok := func(v float64) Snapshot {
		return take(15.9123, "text\n", func(r *casestudy.Result) {
			r.Figures["tput"] = casestudy.Value{Metric: "output_throughput", Value: v, Unit: "tok/s"}
		})
	}
	if d := Diff(tok(41651.21), tok(41651.34)); !reflect.DeepEqual(d, []Erratum{{Kind: KindFigure, Name: "tput.precise", Old: "41,651.21 tok/s", New: "41,651.34 tok/s"}}) {
		t.Errorf("a change only .precise shows: %+v", d)
	}

	changed := take(16.02, "new text\n", func(r *casestudy.Result) {
		r.RunIDs = []string{"aaaaaaaaaaaa", "cccccccccccc"}
		r.Figures["ttft"] = casestudy.Value{Metric: "ttft.median", Value: 0.25, Unit: "s"}
		r.Caveats = []caveat.Caveat{{Code: caveat.CodeSingleMeasurement, Params: map[string]string{"figure": "median_latency", "run": "cccccccccccc"}}}
		r.Spec.Title["en"] = "Batch inference, corrected"
	})
	got := Diff(base, changed)
	want := []Erratum{
		{Kind: KindFigure, Name: "median_latency", Old: "15.91 s", New: "16.02 s"},
		{Kind: KindFigure, Name: "ttft", New: "0.25 s"},
		{Kind: KindText, Name: "narrative.en", Old: base.Texts["narrative.en"][:ShortHash], New: changed.Texts["narrative.en"][:ShortHash]},
		{Kind: KindText, Name: "title.en", Old: base.Texts["title.en"][:ShortHash], New: changed.Texts["title.en"][:ShortHash]},
		{Kind: KindRuns, Name: "bbbbbbbbbbbb", Old: "bbbbbbbbbbbb"},
		{Kind: KindRuns, Name: "cccccccccccc", New: "cccccccccccc"},
		{Kind: KindCaveat, Name: caveat.CodeSingleMeasurement, Old: `{"figure":"median_latency","run":"aaaaaaaaaaaa"}`},
		{Kind: KindCaveat, Name: caveat.CodeSingleMeasurement, New: `{"figure":"median_latency","run":"cccccccccccc"}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff =\n%+v\nwant\n%+v", got, want)
	}
	// The other way round: removed figures, the runs and caveats swapped.
	back := Diff(changed, base)
	if len(back) != len(want) || back[1] != (Erratum{Kind: KindFigure, Name: "ttft", Old: "0.25 s"}) ||
		back[4] != (Erratum{Kind: KindRuns, Name: "bbbbbbbbbbbb", New: "bbbbbbbbbbbb"}) {
		t.Errorf("reverse Diff = %+v", back)
	}
	// Deterministic, whatever the map order.
	for range 5 {
		if again := Diff(base, changed); !reflect.DeepEqual(again, got) {
			t.Fatalf("Diff differs between calls: %+v", again)
		}
	}
	// A caveat erratum names a caveat that can be written again.
	c, err := CaveatOf(got[7].Name, got[7].New)
	if err != nil || c.Params["run"] != "cccccccccccc" {
		t.Errorf("CaveatOf = %+v, %v", c, err)
	}
	if s, err := locales.MustMatch("en").Caveat(c); err != nil || !strings.Contains(s, "cccccccccccc") {
		t.Errorf("caveat sentence %q, %v", s, err)
	}
	if _, err := CaveatOf("x", "{"); err == nil {
		t.Error("CaveatOf took broken parameters")
	}
}

func TestChanges(t *testing.T) {
	s, err := Take(result(t, 15.9123, "text\n"))
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	if c := Changes(d1, s, d1, s); len(c) != 0 {
		t.Errorf("nothing changed: %+v", c)
	}
	if c := Changes(d1, s, d2, s); len(c) != 1 || c[0] != (Erratum{Kind: KindDigest, Name: "archive_digest", Old: d1[:ShortHash], New: d2[:ShortHash]}) {
		t.Errorf("only the digest changed: %+v", c)
	}
	moved, _ := Take(result(t, 17, "text\n"))
	if c := Changes(d1, s, d2, moved); len(c) != 1 || c[0].Kind != KindFigure {
		t.Errorf("a figure and the digest changed: %+v, want the figure's errata only", c)
	}
}
