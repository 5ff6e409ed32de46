package provenance

import "sort"

// The rules by which declared provenance arriving after a run's ingest is
// added to it. Ingest applies them and audit replays them over the
// archived manifests and --set values (provenance.recomputed): one
// definition, so the two cannot drift apart.

// Absent is what a companion file's declared provenance adds to the run
// it completes: the entries of declared whose (field, source) pair the run
// has no entry of, the first of each pair.
func (r Record) Absent(declared Record) Record {
	have := make(map[Entry]bool, len(r))
	for _, e := range r {
		have[Entry{Field: e.Field, Source: e.Source}] = true
	}
	var out Record
	for _, e := range declared {
		k := Entry{Field: e.Field, Source: e.Source}
		if !have[k] {
			out = append(out, e)
			have[k] = true
		}
	}
	return out
}

// Conflict is a field a later ingest declares otherwise than the run has it.
type Conflict struct {
	Field, Stored, Declared string
}

// Gaps is what an ingest of bytes already archived adds to a run's
// declared provenance: for each field the run has no declared (manifest or
// --set) value of, declared's value in effect, with its source. A field
// declared with another value than the run's is a conflict: an ingest does
// not change what was recorded (benchledger amend does).
func (r Record) Gaps(declared Record) (added Record, conflicts []Conflict) {
	var own Record
	for _, e := range r {
		if e.Source == FromManifest || e.Source == FromCLI {
			own = append(own, e)
		}
	}
	stored := own.Effective()
	for _, e := range inEffect(declared) {
		old, ok := stored[e.Field]
		switch {
		case !ok:
			added = append(added, e)
		case old != e.Value:
			conflicts = append(conflicts, Conflict{Field: e.Field, Stored: old, Declared: e.Value})
		}
	}
	return added, conflicts
}

// inEffect keeps, per field, the entry whose value is in effect (the last
// of the highest source), sorted by field.
func inEffect(r Record) Record {
	eff := r.Effective()
	var out Record
	seen := map[string]bool{}
	for i := len(r) - 1; i >= 0; i-- {
		e := r[i]
		if seen[e.Field] || eff[e.Field] != e.Value {
			continue
		}
		seen[e.Field] = true
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}
