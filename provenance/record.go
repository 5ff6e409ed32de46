package provenance

// Source says who stated a provenance value.
type Source string

const (
	FromFile     Source = "file"     // the raw result file itself
	FromManifest Source = "manifest" // campaign.yaml (defaults and per-run overrides)
	FromCLI      Source = "cli"      // ingest --set key=value
	// FromAmend is a correction recorded after ingest (benchledger amend):
	// the latest one of a field is laid over what ingest archived. An
	// entry with an empty Value is an --unset: the field has no value in
	// effect.
	FromAmend Source = "amend"
)

// Entry is one stated value of one field.
type Entry struct {
	Field  string
	Value  string
	Source Source
}

// Record is everything stated about one run's provenance, by every source.
// All sources are kept; Effective resolves them.
type Record []Entry

// precedence: a later source overrides an earlier one for the effective value.
var precedence = map[Source]int{FromFile: 0, FromManifest: 1, FromCLI: 2, FromAmend: 3}

// Effective returns one value per field: a correction over --set over
// manifest over file; a field a correction unset has none.
func (r Record) Effective() map[string]string {
	out := make(map[string]string, len(r))
	rank := make(map[string]int, len(r))
	for _, e := range r {
		p := precedence[e.Source]
		if old, ok := rank[e.Field]; !ok || p >= old {
			out[e.Field] = e.Value
			rank[e.Field] = p
		}
	}
	for f, p := range rank {
		if p == precedence[FromAmend] && out[f] == "" {
			delete(out, f)
		}
	}
	return out
}

// EffectiveSource returns the source whose value of field is in effect, and
// whether the field has one.
func (r Record) EffectiveSource(field string) (Source, bool) {
	var src Source
	found := false
	for _, e := range r {
		if e.Field == field && (!found || precedence[e.Source] >= precedence[src]) {
			src, found = e.Source, true
		}
	}
	if found && src == FromAmend {
		if _, ok := r.Effective()[field]; !ok {
			return src, false
		}
	}
	return src, found
}
