// Package publish says what a reader sees of a case study (a Snapshot) and
// what changed between two published versions of it (Diff): the errata a
// report lists. The archive (store.Publish) keeps the snapshots and errata,
// append-only; Record, Draft and Current join the two, and FromRecords is
// the one way from the archive's records to the history a page shows.
//
// A snapshot holds displayed values, not just numbers: an erratum is what a
// reader of the old version would find different, so a figure whose value
// moved below its displayed precision (41,651.2 → 41,651.3 tok/s, shown as
// 41,651 tok/s both times) is not one.
package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/locales"
)

// Kinds of errata.
const (
	KindFigure = "figure" // a bound figure: displayed value changed, added or removed
	KindText   = "text"   // a title, summary or narrative of one language
	KindRuns   = "runs"   // a run the figures stand on, added or removed
	KindCaveat = "caveat" // a caveat of the case study, added or removed
	// KindDigest: the archive digest changed while nothing a reader sees
	// did (the spec's layout, say), so the footer alone differs.
	KindDigest = "digest"
)

// Figure is one narrative binding as published: its language-neutral value
// and how it was written in English, with what it takes to write it again
// in any language (casestudy.Binding).
type Figure struct {
	Value    string `json:"value"`   // casestudy.Binding.DataValue
	Display  string `json:"display"` // the English text
	Kind     string `json:"kind"`
	Unit     string `json:"unit,omitempty"`
	Decimals int    `json:"decimals"`
	Signed   bool   `json:"signed,omitempty"`
}

// Caveat is a caveat of the case study with its parameters.
type Caveat struct {
	Code   string            `json:"code"`
	Params map[string]string `json:"params,omitempty"`
}

// Snapshot is what a reader sees of a case study.
type Snapshot struct {
	// Figures maps every binding name (casestudy.Bindings) to its value.
	Figures map[string]Figure `json:"figures"`
	// Texts maps "title.LANG", "summary.LANG" and "narrative.LANG" to the
	// SHA-256 (hex) of that text: the texts themselves are in the spec's
	// files, and a hash says whether they changed.
	Texts map[string]string `json:"texts"`
	// Runs are the ids of every run the figures stand on, sorted.
	Runs []string `json:"runs"`
	// Caveats of the whole case study, in the evaluation's order.
	Caveats []Caveat `json:"caveats"`
}

// Take makes the snapshot of an evaluated case study, reading its
// narrative files.
func Take(res *casestudy.Result) (Snapshot, error) {
	if res == nil || res.Spec == nil {
		return Snapshot{}, fmt.Errorf("publish: no evaluated case study")
	}
	en := locales.MustMatch("en")
	s := Snapshot{Figures: map[string]Figure{}, Texts: map[string]string{}, Runs: slices.Sorted(slices.Values(res.RunIDs)),
		Caveats: []Caveat{}}
	for name, b := range casestudy.Bindings(res) {
		s.Figures[name] = Figure{Value: b.DataValue(), Display: b.Format(en), Kind: string(b.Kind), Unit: b.Unit,
			Decimals: b.Decimals, Signed: b.Signed}
	}
	sp := res.Spec
	for lang, t := range sp.Title {
		s.Texts["title."+lang] = hashHex([]byte(t))
	}
	for lang, t := range sp.Summary {
		s.Texts["summary."+lang] = hashHex([]byte(t))
	}
	for lang := range sp.Narrative {
		p, data, err := sp.ReadNarrative(lang)
		if err != nil {
			return Snapshot{}, fmt.Errorf("publish: %w", err)
		}
		if p == "" {
			continue
		}
		s.Texts["narrative."+lang] = hashHex(data)
	}
	if s.Runs == nil {
		s.Runs = []string{}
	}
	for _, c := range res.Caveats {
		s.Caveats = append(s.Caveats, Caveat{Code: c.Code, Params: maps.Clone(c.Params)})
	}
	return s, nil
}

func hashHex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// JSON is the snapshot as stored: encoding/json writes map keys sorted, so
// the same snapshot always gives the same text.
func (s Snapshot) JSON() (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("publish: snapshot: %w", err)
	}
	return string(b), nil
}

// Parse reads a stored snapshot.
func Parse(text string) (Snapshot, error) {
	var s Snapshot
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return Snapshot{}, fmt.Errorf("publish: snapshot: %w", err)
	}
	return s, nil
}

// Binding returns a figure of the snapshot as a binding, so that a
// report writes an old value in its own language.
func (s Snapshot) Binding(name string) (casestudy.Binding, bool) {
	f, ok := s.Figures[name]
	if !ok {
		return casestudy.Binding{}, false
	}
	b := casestudy.Binding{Kind: casestudy.Kind(f.Kind), Unit: f.Unit, Decimals: f.Decimals, Signed: f.Signed}
	if b.Kind == casestudy.KindDate {
		t, err := time.Parse(time.DateOnly, f.Value)
		if err != nil {
			return casestudy.Binding{}, false
		}
		b.Time, b.Value = t, float64(t.Unix())
		return b, true
	}
	v, err := strconv.ParseFloat(f.Value, 64)
	if err != nil {
		return casestudy.Binding{}, false
	}
	b.Value = v
	return b, true
}

// Erratum is one change between two versions. Old is empty for something
// added, New for something removed. For a figure they are the English
// display strings, for a text short hashes, for a run its id, for a caveat
// its parameters as a JSON object: what the archive records.
type Erratum struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`

	// What it takes to write a recorded erratum in any language, set by
	// FromRecords: a figure's two values, when the versions' snapshots
	// have them (otherwise Old and New are shown as recorded), and a
	// caveat erratum's caveat (nil shows its code).
	OldValue, NewValue *casestudy.Binding `json:"-"`
	Caveat             *caveat.Caveat     `json:"-"`
}

// ShortHash is how much of a text's SHA-256 an erratum shows.
const ShortHash = 12

// Diff lists what a reader of old finds different in new: figures by name
// (a changed displayed value, added, removed), then texts by name, then
// runs by id, then caveats by code and parameters.
func Diff(old, new Snapshot) []Erratum {
	var out []Erratum
	figureChanged := func(n string) bool {
		o, inOld := old.Figures[n]
		w, inNew := new.Figures[n]
		return inOld != inNew || o.Display != w.Display
	}
	for _, n := range unionKeys(old.Figures, new.Figures) {
		o, inOld := old.Figures[n]
		w, inNew := new.Figures[n]
		// X.precise is X with two decimals: when X itself changed, its
		// erratum says it; only a change X's display hides is news.
		if base, ok := strings.CutSuffix(n, ".precise"); ok && figureChanged(base) {
			continue
		}
		switch {
		case !inOld:
			out = append(out, Erratum{Kind: KindFigure, Name: n, New: w.Display})
		case !inNew:
			out = append(out, Erratum{Kind: KindFigure, Name: n, Old: o.Display})
		case o.Display != w.Display:
			out = append(out, Erratum{Kind: KindFigure, Name: n, Old: o.Display, New: w.Display})
		}
	}
	for _, n := range unionKeys(old.Texts, new.Texts) {
		if o, w := old.Texts[n], new.Texts[n]; o != w {
			out = append(out, Erratum{Kind: KindText, Name: n, Old: short(o), New: short(w)})
		}
	}
	oldRuns, newRuns := set(old.Runs), set(new.Runs)
	for _, id := range unionKeys(oldRuns, newRuns) {
		switch {
		case !oldRuns[id]:
			out = append(out, Erratum{Kind: KindRuns, Name: id, New: id})
		case !newRuns[id]:
			out = append(out, Erratum{Kind: KindRuns, Name: id, Old: id})
		}
	}
	oldCav, newCav := caveatSet(old.Caveats), caveatSet(new.Caveats)
	for _, k := range unionKeys(oldCav, newCav) {
		switch {
		case oldCav[k] == nil:
			out = append(out, Erratum{Kind: KindCaveat, Name: newCav[k].Code, New: paramsJSON(newCav[k].Params)})
		case newCav[k] == nil:
			out = append(out, Erratum{Kind: KindCaveat, Name: oldCav[k].Code, Old: paramsJSON(oldCav[k].Params)})
		}
	}
	return out
}

// Changes are the errata of a new version: Diff, or, when no difference a
// reader sees explains a changed archive digest, the digest change itself,
// so that every version after the first says why it exists.
func Changes(oldDigest string, old Snapshot, newDigest string, new Snapshot) []Erratum {
	out := Diff(old, new)
	if len(out) == 0 && oldDigest != newDigest {
		out = append(out, Erratum{Kind: KindDigest, Name: "archive_digest", Old: short(oldDigest), New: short(newDigest)})
	}
	return out
}

func short(h string) string {
	if len(h) > ShortHash {
		return h[:ShortHash]
	}
	return h
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// caveatSet keys each caveat by its code and parameters: the same code
// about another figure or run is another caveat.
func caveatSet(cs []Caveat) map[string]*Caveat {
	m := make(map[string]*Caveat, len(cs))
	for i := range cs {
		m[cs[i].Code+" "+paramsJSON(cs[i].Params)] = &cs[i]
	}
	return m
}

// paramsJSON writes parameters as a JSON object with sorted keys ("{}" for
// none), the form a caveat erratum keeps.
func paramsJSON(p map[string]string) string {
	if len(p) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(p) // a map of strings always marshals
	return string(b)
}

// CaveatOf turns a caveat erratum's side (Name and Old or New) back into a
// caveat, so that it can be written as a sentence in any language.
func CaveatOf(code, params string) (caveat.Caveat, error) {
	c := caveat.Caveat{Code: code}
	if strings.TrimSpace(params) == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(params), &c.Params); err != nil {
		return c, fmt.Errorf("publish: caveat %s: parameters %q: %w", code, params, err)
	}
	return c, nil
}
