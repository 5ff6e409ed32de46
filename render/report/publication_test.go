package report

import (
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
)

// TestErrataItems writes every kind of erratum in every language: each is
// a catalogue sentence (no "[!key]" marker), the name or run id is split
// out as code, and a figure's values are written in the page's style.
func TestErrataItems(t *testing.T) {
	old := casestudy.Binding{Value: 173.0412, Kind: casestudy.KindQuantity, Unit: "s", Decimals: 2}
	cur := casestudy.Binding{Value: 186.4099, Kind: casestudy.KindQuantity, Unit: "s", Decimals: 2}
	cav := caveat.Caveat{Code: caveat.CodeSingleMeasurement, Params: map[string]string{"figure": "tput", "run": "3f2a9c1b7d4e"}}
	errata := []publish.Erratum{
		{Kind: "figure", Name: "lat", Old: "173.04 s", New: "186.41 s", OldValue: &old, NewValue: &cur},
		{Kind: "figure", Name: "added_fig", New: "1 s"},
		{Kind: "figure", Name: "removed_fig", Old: "2 s"},
		{Kind: "text", Name: "narrative.en", Old: "aaaaaaaaaaaa", New: "bbbbbbbbbbbb"},
		{Kind: "text", Name: "summary.zh", New: "bbbbbbbbbbbb"},
		{Kind: "text", Name: "title.ja", Old: "aaaaaaaaaaaa"},
		{Kind: "runs", Name: "3f2a9c1b7d4e", New: "3f2a9c1b7d4e"},
		{Kind: "runs", Name: "8e41d0aa0000", Old: "8e41d0aa0000"},
		{Kind: "caveat", Name: cav.Code, New: `{"figure":"tput","run":"3f2a9c1b7d4e"}`, Caveat: &cav},
		{Kind: "caveat", Name: "no_such_code", Old: "{}"},
		{Kind: "digest", Name: "archive_digest", Old: "aaaaaaaaaaaa", New: "bbbbbbbbbbbb"},
		{Kind: "future", Name: "thing", Old: "x", New: "y"},
	}
	for _, tag := range locales.Supported() {
		l := locales.MustMatch(tag)
		for _, e := range errata {
			it := erratumItem(l, e)
			text := it.Before + it.Code + it.After
			if strings.Contains(text, "[!") || strings.Contains(text, codeMark) {
				t.Errorf("%s: %s %s: %q", tag, e.Kind, e.Name, text)
			}
			switch e.Kind {
			case "figure", "runs", "future":
				if it.Code != e.Name {
					t.Errorf("%s: %s %s: code %q, want the name", tag, e.Kind, e.Name, it.Code)
				}
			default:
				if it.Code != "" {
					t.Errorf("%s: %s %s: code %q, want none", tag, e.Kind, e.Name, it.Code)
				}
			}
		}
		lat := erratumItem(l, errata[0])
		if want := l.Quantity(173.0412, 2, "s") + " → " + l.Quantity(186.4099, 2, "s"); !strings.Contains(lat.After, want) {
			t.Errorf("%s: figure change %q, want %q", tag, lat.After, want)
		}
		if c := ErratumText(l, errata[8]); !strings.Contains(c, "3f2a9c1b7d4e") {
			t.Errorf("%s: caveat erratum %q does not write the caveat", tag, c)
		}
	}
	if got := ErratumText(locales.MustMatch("en"), errata[3]); got != "Narrative (en) changed" {
		t.Errorf("text erratum %q", got)
	}
	// Without the snapshot's binding, a figure shows what was recorded.
	if got := ErratumText(locales.MustMatch("zh"), publish.Erratum{Kind: "figure", Name: "x", Old: "1 s", New: "2 s"}); got != "x：1 s → 2 s" {
		t.Errorf("figure without bindings %q", got)
	}
}

// TestPublicationView: the version line, and the errata of later versions
// newest first; version 1 alone has no errata section.
func TestPublicationView(t *testing.T) {
	en := locales.MustMatch("en")
	day := func(d int) time.Time { return time.Date(2026, 8, d, 23, 30, 0, 0, time.FixedZone("X", -5*3600)) }
	history := []publish.Version{
		{Version: 1, Recorded: day(18)},
		{Version: 2, Recorded: day(19), Errata: []publish.Erratum{{Kind: "runs", Name: "abc", New: "abc"}}},
		{Version: 3, Recorded: day(20), Errata: []publish.Erratum{{Kind: "text", Name: "title.en", Old: "a", New: "b"}}},
	}
	view := func(pub *publish.Publication) *page {
		p := &page{}
		(&builder{pub: pub}).publication(en, p)
		return p
	}
	if p := view(nil); p.Version != nil || p.Errata != nil {
		t.Errorf("no publication: %+v %+v", p.Version, p.Errata)
	}
	p := view(&publish.Publication{Version: 1, Recorded: day(18), History: history[:1]})
	// Dates are the UTC day: 23:30 at UTC-5 is the next day.
	if p.Version == nil || p.Version.Text != "Version 1, recorded 19 August 2026" || p.Version.Draft || p.Errata != nil {
		t.Errorf("version 1: %+v %+v", p.Version, p.Errata)
	}
	p = view(&publish.Publication{Version: 3, Recorded: day(20), History: history})
	if p.Errata == nil || len(p.Errata.Versions) != 2 || p.Errata.Versions[0].Version != 3 || p.Errata.Versions[1].Version != 2 ||
		p.Errata.Title != "Errata" || p.Errata.Versions[0].Heading != "Version 3, recorded 21 August 2026" {
		t.Errorf("version 3: %+v", p.Errata)
	}
	if p := view(&publish.Publication{Draft: true}); p.Version == nil || !p.Version.Draft || p.Version.Text != "Draft, not yet published." {
		t.Errorf("unpublished draft: %+v", p.Version)
	}
	if p := view(&publish.Publication{Draft: true, Version: 3, Recorded: day(20), History: history}); p.Version == nil || !p.Version.Draft ||
		!strings.Contains(p.Version.Text, "latest recorded version is 3") || p.Errata == nil {
		t.Errorf("draft of version 3: %+v", p.Version)
	}
}
