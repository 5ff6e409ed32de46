package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
)

// versionView is the version line under the title.
type versionView struct {
	Text  string
	Draft bool
}

// errataView is the errata section: the versions after the first, newest
// first.
type errataView struct {
	Title    string
	Versions []errataVersion
}

type errataVersion struct {
	Version int
	Heading string
	Items   []errataItem
}

// errataItem is one change as a sentence; Code, when set, is a figure name
// or run id shown as code between Before and After.
type errataItem struct {
	Before, Code, After string
}

// codeMark stands for the code part while a message is filled in: Latin
// letters, so the locale puts the CJK–Latin space around it as it would
// around the name itself.
const codeMark = "BLCODEX"

// publication fills the page's version line and errata section.
func (b *builder) publication(l locales.Locale, p *page) {
	if b.pub == nil {
		return
	}
	h := History(l, b.pub)
	p.Version = &versionView{Text: h.Version, Draft: h.Draft}
	if len(h.Versions) > 0 {
		p.Errata = &errataView{Title: capFirst(l.T("section.errata")), Versions: h.Versions}
	}
}

// HistoryView is a case study's recorded history as a page shows it in one
// language: the version line and, newest first, the changes of each
// version after the first. The report and the site's case-study page share
// it.
type HistoryView struct {
	Version  string
	Draft    bool
	Versions []errataVersion
}

// History writes pub's version line and errata in l.
func History(l locales.Locale, pub *publish.Publication) HistoryView {
	var h HistoryView
	switch {
	case pub.Draft && pub.Version == 0:
		h.Version, h.Draft = l.T("errata.draft_unpublished"), true
	case pub.Draft:
		h.Version, h.Draft = l.T("errata.draft", "version", pub.Version, "date", pub.Recorded.UTC()), true
	default:
		h.Version = l.T("errata.version", "version", pub.Version, "date", pub.Recorded.UTC())
	}
	for _, v := range slices.Backward(pub.History) {
		if v.Version <= 1 {
			continue
		}
		ev := errataVersion{Version: v.Version, Heading: l.T("errata.version", "version", v.Version, "date", v.Recorded.UTC())}
		for _, e := range v.Errata {
			ev.Items = append(ev.Items, erratumItem(l, e))
		}
		h.Versions = append(h.Versions, ev)
	}
	return h
}

// erratumItem writes one change in the page's language.
func erratumItem(l locales.Locale, e publish.Erratum) errataItem {
	value := func(v *casestudy.Binding, recorded string) string {
		if v != nil {
			return v.Format(l)
		}
		return recorded
	}
	oldText, newText := value(e.OldValue, e.Old), value(e.NewValue, e.New)
	var key string
	args := []any{}
	switch e.Kind {
	case publish.KindFigure:
		switch {
		case e.Old == "":
			key, args = "errata.figure_added", []any{"name", codeMark, "new", newText}
		case e.New == "":
			key, args = "errata.figure_removed", []any{"name", codeMark, "old", oldText}
		default:
			key, args = "errata.figure_changed", []any{"name", codeMark, "old", oldText, "new", newText}
		}
	case publish.KindText:
		part, lang, _ := strings.Cut(e.Name, ".")
		text := part
		if s, err := l.Message("text." + part); err == nil {
			text = s
		}
		switch {
		case e.Old == "":
			key = "errata.text_added"
		case e.New == "":
			key = "errata.text_removed"
		default:
			key = "errata.text_changed"
		}
		args = []any{"text", text, "lang", lang}
	case publish.KindRuns:
		key = "errata.run_added"
		if e.New == "" {
			key = "errata.run_removed"
		}
		args = []any{"name", codeMark}
	case publish.KindCaveat:
		sentence := e.Name
		if e.Caveat != nil {
			if s, err := l.Caveat(*e.Caveat); err == nil {
				sentence = s
			}
		}
		key = "errata.caveat_added"
		if e.New == "" {
			key = "errata.caveat_removed"
		}
		args = []any{"caveat", sentence}
	case publish.KindDigest:
		key, args = "errata.digest", []any{"old", e.Old, "new", e.New}
	default:
		// A kind this version does not know (a newer benchledger wrote
		// it): shown as recorded.
		key, args = "errata.other", []any{"kind", e.Kind, "name", codeMark, "old", oldText, "new", newText}
	}
	text := l.T(key, args...)
	before, after, found := strings.Cut(text, codeMark)
	if !found {
		return errataItem{Before: capFirst(text)}
	}
	return errataItem{Before: capFirst(before), Code: e.Name, After: after}
}

// ErratumText writes one erratum as a plain sentence in l, as the errata
// section does (the command line's errata listing).
func ErratumText(l locales.Locale, e publish.Erratum) string {
	it := erratumItem(l, e)
	return it.Before + it.Code + it.After
}

// CheckTexts substitutes the bindings of every title, summary and narrative
// of the case study, in every language, and returns the first error (an
// *UnknownBindingError names the text): the check Render makes before it
// writes, for a caller that records a publication before rendering and
// must not record one that cannot be rendered.
func CheckTexts(res *casestudy.Result) error {
	if res == nil || res.Spec == nil {
		return fmt.Errorf("report: no evaluated case study")
	}
	s, b := res.Spec, casestudy.Bindings(res)
	none := func(string, casestudy.Binding) string { return "" }
	for _, lang := range slices.Sorted(maps.Keys(s.Title)) {
		if _, err := substitute("title."+lang, s.Title[lang], b, nil, none); err != nil {
			return err
		}
	}
	for _, lang := range slices.Sorted(maps.Keys(s.Summary)) {
		if _, err := substitute("summary."+lang, s.Summary[lang], b, nil, none); err != nil {
			return err
		}
	}
	for _, lang := range slices.Sorted(maps.Keys(s.Narrative)) {
		p, data, err := s.ReadNarrative(lang)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if p == "" {
			continue
		}
		if _, err := substitute(p, string(data), b, nil, none); err != nil {
			return err
		}
	}
	return nil
}
