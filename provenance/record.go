package provenance

// Source says who stated a provenance value.
type Source string

const (
	FromFile     Source = "file"     // the raw result file itself
	FromManifest Source = "manifest" // campaign.yaml (defaults and per-run overrides)
	FromCLI      Source = "cli"      // ingest --set key=value
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
var precedence = map[Source]int{FromFile: 0, FromManifest: 1, FromCLI: 2}

// Effective returns one value per field: --set over manifest over file.
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
	return out
}
