package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// CheckProvenanceRecomputed: the provenance a run got from its manifest and
// --set values, recomputed from the manifest's archived bytes and the
// values its ingest event recorded, is what the archive holds.
const CheckProvenanceRecomputed = "provenance.recomputed"

// ingestDetail is what an ingest event records of a run's declared
// provenance (ingest.declaredSources).
type ingestDetail struct {
	Path         string   `json:"path"`
	Ordinal      int      `json:"ordinal"`
	Manifest     string   `json:"manifest"`
	ManifestFile string   `json:"manifest_file"`
	Set          []string `json:"set"`
}

// recomputeProvenance checks rec's manifest and --set provenance against
// what its events let one recompute. A run whose ingest event predates the
// record (no path), or that later events changed (a companion file,
// provenance completed, an amendment), is not judged: its provenance has
// more than one source of record.
func recomputeProvenance(a *store.Archive, rec *store.RunRecord) ([]Finding, error) {
	evs, err := a.Events(rec.ID)
	if err != nil {
		return nil, err
	}
	if len(evs) != 1 || evs[0].Action != "ingest" || evs[0].Detail == "" {
		return nil, nil
	}
	var d ingestDetail
	if json.Unmarshal([]byte(evs[0].Detail), &d) != nil || d.Path == "" {
		return nil, nil
	}
	want := map[string]string{}
	if d.Manifest != "" {
		r, err := a.OpenBlob(d.Manifest)
		if err != nil {
			return []Finding{{Check: CheckProvenanceRecomputed, Severity: Fail, Run: rec.ID,
				Message: fmt.Sprintf("the manifest the run was ingested with (blob %s) cannot be read: %v", d.Manifest, err)}}, nil
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		m, err := provenance.ParseManifest(d.ManifestFile, data)
		if err != nil {
			return []Finding{{Check: CheckProvenanceRecomputed, Severity: Fail, Run: rec.ID,
				Message: fmt.Sprintf("the archived manifest %s no longer parses: %v", d.ManifestFile, err)}}, nil
		}
		for _, e := range m.For(m.Rel(d.Path), d.Ordinal) {
			want[e.Field+" manifest"] = e.Value
		}
	}
	for _, s := range d.Set {
		f, v, _ := strings.Cut(s, "=")
		want[f+" cli"] = v
	}
	have := map[string]string{}
	for _, e := range rec.Provenance {
		if e.Source == provenance.FromManifest || e.Source == provenance.FromCLI {
			have[e.Field+" "+string(e.Source)] = e.Value
		}
	}
	var diffs []string
	for k, v := range have {
		if w, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s = %q, which neither the archived manifest nor the recorded --set values give", k, v))
		} else if w != v {
			diffs = append(diffs, fmt.Sprintf("%s = %q, recomputed %q", k, v, w))
		}
	}
	for k, w := range want {
		if _, ok := have[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s = %q recomputed, absent from the archive", k, w))
		}
	}
	if len(diffs) == 0 {
		return nil, nil
	}
	sort.Strings(diffs)
	return []Finding{{Check: CheckProvenanceRecomputed, Severity: Fail, Run: rec.ID,
		Message: "the run's declared provenance is not what its archived manifest and --set values give: " + strings.Join(diffs, "; ")}}, nil
}
