package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// CheckProvenanceRecomputed: the provenance a run has in effect — every
// value by its source, the corrections, the listing columns and the
// publishable flag — is what replaying its events over the archived blobs
// gives: the raw files' facts, the manifests' bytes and the --set values
// each event recorded, then the corrections, in the order they were made.
const CheckProvenanceRecomputed = "provenance.recomputed"

// eventDetail is what an ingest, complete or provenance-completed event
// records of where the run's declared provenance came from
// (ingest.declaredSources).
type eventDetail struct {
	Path         string   `json:"path"`
	Ordinal      int      `json:"ordinal"`
	Manifest     string   `json:"manifest"`
	ManifestFile string   `json:"manifest_file"`
	Set          []string `json:"set"`
}

// rawKey names a file's own run: its blob and ordinal.
func rawKey(blob string, ordinal int) string { return fmt.Sprintf("%s/%d", blob, ordinal) }

// contentOf is what of a raw run the provenance replay needs: its place,
// facts and extra keys (manifest items select runs by them), copied so a
// later merge into the run does not change it.
func contentOf(r *benchrun.Run) *benchrun.Run {
	return &benchrun.Run{Ordinal: r.Ordinal, Facts: maps.Clone(r.Facts), Extra: maps.Clone(r.Extra), Completed: -1, Failed: -1}
}

// replay is the recomputation of one run's provenance.
type replay struct {
	a    *store.Archive
	rec  *store.RunRecord
	raws map[string]*benchrun.Run // rawKey -> contentOf the file's own run
	// state holds the file, manifest and --set entries, amends the
	// corrections' entries, content the run's facts and extra keys so far.
	state, amends provenance.Record
	content       *benchrun.Run
}

// errNotJudged: the run's history predates what a replay needs (an event
// without the sources it declared, a raw file that cannot be read, which
// audit reports under its own check).
var errNotJudged = errors.New("not recomputable")

// recomputeProvenance replays rec's events and corrections in the order
// they were written and compares what they give with what the archive
// holds; the first difference is the finding. raws are the run's raw files
// as audit parsed them again. rec needs its requests (the publishable rule
// reads them).
func recomputeProvenance(a *store.Archive, rec *store.RunRecord, raws map[string]*benchrun.Run) ([]Finding, error) {
	evs, err := runEvents(a, rec.ID)
	if err != nil {
		return nil, err
	}
	cs, err := a.Corrections(rec.ID)
	if err != nil {
		return nil, err
	}
	p := &replay{a: a, rec: rec, raws: raws}
	fail, err := p.run(evs, cs)
	switch {
	case err == errNotJudged:
		return nil, nil
	case err != nil:
		return nil, err
	case fail != nil:
		return []Finding{*fail}, nil
	}
	if f := p.compare(); f != nil {
		return []Finding{*f}, nil
	}
	return nil, nil
}

// runEvents is the run's events and those of its old ids (a run renamed by
// a richer companion file), in the order they were written.
func runEvents(a *store.Archive, id string) ([]store.Event, error) {
	aliases, err := a.Aliases(id)
	if err != nil {
		return nil, err
	}
	var out []store.Event
	for _, r := range append([]string{id}, aliases...) {
		evs, err := a.Events(r)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (p *replay) finding(key, msg string, params map[string]string) *Finding {
	return &Finding{Check: CheckProvenanceRecomputed, Severity: Fail, Run: p.rec.ID, Message: msg, Params: params, MessageKey: key}
}

// run replays the events and corrections, interleaved by time.
func (p *replay) run(evs []store.Event, cs []store.Correction) (*Finding, error) {
	i := 0
	for _, ev := range evs {
		for ; i < len(cs) && cs[i].At.Before(ev.At); i++ {
			if f := p.correct(cs[i]); f != nil {
				return f, nil
			}
		}
		if f, err := p.event(ev); f != nil || err != nil {
			return f, err
		}
	}
	for ; i < len(cs); i++ {
		if f := p.correct(cs[i]); f != nil {
			return f, nil
		}
	}
	if p.content == nil {
		return nil, errNotJudged // no ingest event: an archive older than the events
	}
	return nil, nil
}

// event applies one event as the ingest that wrote it did.
func (p *replay) event(ev store.Event) (*Finding, error) {
	switch ev.Action {
	case "ingest", "complete", "provenance-completed":
	default:
		return nil, nil // same-run and others change no provenance
	}
	var d eventDetail
	if json.Unmarshal([]byte(ev.Detail), &d) != nil || d.Path == "" {
		return nil, errNotJudged // written before events recorded their sources
	}
	switch ev.Action {
	case "ingest":
		raw := p.raws[rawKey(ev.BlobSHA256, d.Ordinal)]
		if raw == nil || p.content != nil {
			return nil, errNotJudged
		}
		p.content = contentOf(raw)
		p.state = fileEntries(raw.Facts, nil)
		decl, f, err := p.declared(ev, d, raw)
		if f != nil || err != nil {
			return f, err
		}
		p.state = append(p.state, decl...)
	case "complete":
		raw := p.raws[rawKey(ev.BlobSHA256, d.Ordinal)]
		if raw == nil || p.content == nil {
			return nil, errNotJudged
		}
		before := maps.Clone(p.content.Facts)
		if _, err := benchrun.MergeCompanion(p.content, contentOf(raw)); err != nil {
			return p.finding(MsgRecomputedEvent, fmt.Sprintf("event %d completed the run with a file whose facts contradict it: %v", ev.ID, err),
				map[string]string{"event": fmt.Sprint(ev.ID)}), nil
		}
		p.state = append(p.state, fileEntries(p.content.Facts, before)...)
		decl, f, err := p.declared(ev, d, raw)
		if f != nil || err != nil {
			return f, err
		}
		p.state = append(p.state, p.state.Absent(decl)...)
	case "provenance-completed":
		if p.content == nil {
			return nil, errNotJudged
		}
		decl, f, err := p.declared(ev, d, p.content)
		if f != nil || err != nil {
			return f, err
		}
		added, _ := p.state.Gaps(decl)
		p.state = append(p.state, added...)
	}
	return nil, nil
}

// fileEntries are the facts not in before, as file entries, by field.
func fileEntries(facts, before map[string]string) provenance.Record {
	var out provenance.Record
	for k, v := range facts {
		if _, ok := before[k]; !ok {
			out = append(out, provenance.Entry{Field: k, Value: v, Source: provenance.FromFile})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// declared is what an event's manifest (its archived bytes) and --set
// values declare of a run with content c.
func (p *replay) declared(ev store.Event, d eventDetail, c *benchrun.Run) (provenance.Record, *Finding, error) {
	var rec provenance.Record
	if d.Manifest != "" {
		params := map[string]string{"field": "manifest", "event": fmt.Sprint(ev.ID), "blob": d.Manifest}
		r, err := p.a.OpenBlob(d.Manifest)
		if err != nil {
			return nil, p.finding(MsgRecomputedManifest, fmt.Sprintf("the manifest event %d recorded (blob %s) cannot be read: %v", ev.ID, d.Manifest, err), params), nil
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, p.finding(MsgRecomputedManifest, fmt.Sprintf("the manifest event %d recorded (blob %s) cannot be read: %v", ev.ID, d.Manifest, err), params), nil
		}
		m, err := provenance.ParseManifest(d.ManifestFile, data)
		if err != nil {
			return nil, p.finding(MsgRecomputedManifestP, fmt.Sprintf("the archived manifest %s (event %d) no longer parses: %v", d.ManifestFile, ev.ID, err), params), nil
		}
		rec = m.ForRun(m.Rel(d.Path), provenance.RunContent{Ordinal: d.Ordinal, Facts: c.Facts, Extra: c.Extra})
	}
	for _, s := range d.Set {
		f, v, _ := strings.Cut(s, "=")
		rec = append(rec, provenance.Entry{Field: f, Value: v, Source: provenance.FromCLI})
	}
	return rec, nil, nil
}

// correct applies one correction, after checking the value it says was in
// effect before it is the recomputed one.
func (p *replay) correct(c store.Correction) *Finding {
	old, had := p.effective()[c.Field]
	if had != c.HadOld || old != c.Old {
		return p.finding(MsgRecomputedCorrection, fmt.Sprintf("correction %d of %s says the value in effect before it was %s; recomputed, it was %s",
			c.Seq, c.Field, describe(c.Old, c.HadOld), describe(old, had)),
			map[string]string{"field": c.Field, "stored": describe(c.Old, c.HadOld), "recomputed": describe(old, had), "correction": fmt.Sprint(c.Seq)})
	}
	v := c.New
	if c.Unset {
		v = ""
	}
	p.amends = append(p.amends, provenance.Entry{Field: c.Field, Value: v, Source: provenance.FromAmend})
	return nil
}

func (p *replay) effective() map[string]string {
	return append(append(provenance.Record(nil), p.state...), p.amends...).Effective()
}

func describe(v string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return fmt.Sprintf("%q", v)
}

// compare finds the first difference between the replay and the archive:
// the file, manifest and --set entries by field and source, then the
// listing columns and the publishable flag.
func (p *replay) compare() *Finding {
	type key struct{ field, source string }
	want := map[key]string{}
	for _, e := range p.state {
		want[key{e.Field, string(e.Source)}] = e.Value // a later entry of a pair wins, as the store keeps it
	}
	// The corrections' entries are read from the corrections themselves:
	// they are checked by what each replaced (correct) and by what they
	// give the listing columns and the flag (compareListing).
	have := map[key]string{}
	for _, e := range p.rec.Provenance {
		if e.Source != provenance.FromAmend {
			have[key{e.Field, string(e.Source)}] = e.Value
		}
	}
	keys := make([]key, 0, len(want)+len(have))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range have {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].field < keys[j].field || keys[i].field == keys[j].field && keys[i].source < keys[j].source
	})
	var diffs []string
	var first map[string]string
	for _, k := range keys {
		w, wok := want[k]
		h, hok := have[k]
		if wok == hok && w == h {
			continue
		}
		if first == nil {
			first = map[string]string{"field": k.field, "source": k.source, "stored": describe(h, hok), "recomputed": describe(w, wok)}
		}
		diffs = append(diffs, fmt.Sprintf("%s (%s) is %s in the archive, recomputed %s", k.field, k.source, describe(h, hok), describe(w, wok)))
	}
	if len(diffs) == 0 {
		return p.compareListing(p.effective())
	}
	more := ""
	if len(diffs) > 1 {
		more = fmt.Sprintf(" (and %d more: %s)", len(diffs)-1, strings.Join(diffs[1:], "; "))
	}
	return p.finding(MsgRecomputedState, "the run's provenance is not what replaying its events over the archived raw files, manifests and --set values gives: "+
		diffs[0]+more, first)
}

// compareListing compares the runs table's listing columns and
// publishable flag with what the recomputed provenance gives.
func (p *replay) compareListing(eff map[string]string) *Finding {
	runs, err := p.a.RunsOfBlob(p.rec.BlobSHA256)
	if err != nil {
		return nil
	}
	want := store.ListingOf(eff)
	for _, s := range runs {
		if s.ID != p.rec.ID {
			continue
		}
		for _, c := range []struct{ name, stored, recomputed string }{
			{"campaign", s.Campaign, want.Campaign}, {"role", s.Role, want.Role}, {"model", s.Model, want.Model},
			{"engine", s.Engine, want.Engine}, {"engine_version", s.EngineVersion, want.EngineVersion},
			{"gpu", s.GPU, want.GPU}, {"date", s.Date, want.Date},
		} {
			if c.stored != c.recomputed {
				return p.finding(MsgRecomputedListed, fmt.Sprintf("the run's listed %s is %q in the archive; its provenance in effect, recomputed from its events and corrections, gives %q",
					c.name, c.stored, c.recomputed), map[string]string{"field": "runs." + c.name, "stored": c.stored, "recomputed": c.recomputed})
			}
		}
	}
	missing := figures.Blockers(p.rec.Run, eff)
	if pub := len(missing) == 0; pub != p.rec.Publishable || strings.Join(missing, ",") != strings.Join(p.rec.Missing, ",") {
		return p.finding(MsgRecomputedPublish, fmt.Sprintf("the run is stored as publishable=%t (missing %v); its provenance in effect, recomputed, gives publishable=%t (missing %v)",
			p.rec.Publishable, p.rec.Missing, pub, missing),
			map[string]string{"field": "publishable", "stored": fmt.Sprint(p.rec.Publishable), "recomputed": fmt.Sprint(pub)})
	}
	return nil
}
