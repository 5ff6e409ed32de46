package runview

import (
	"testing"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
)

// BenchmarkBuildWith lays out a stored run from what was derived from it,
// as the site does for each of its runs.
func BenchmarkBuildWith(b *testing.B) {
	rec := record()
	reqs := rec.Run.Requests
	d := figures.Derive(rec.Run, reqs, provenance.Record(rec.Provenance).Effective())
	b.ReportAllocs()
	for b.Loop() {
		if v := BuildWith(rec, reqs, d); len(v.Figures) == 0 || len(v.Provenance) != 3 {
			b.Fatalf("%+v", v)
		}
	}
}

// BenchmarkClientDefinition gives the definitions of a run's figures.
func BenchmarkClientDefinition(b *testing.B) {
	rec := record()
	b.ReportAllocs()
	for b.Loop() {
		for _, sm := range summaryMetrics() {
			if ClientDefinition(rec.Run, sm.name) == "" {
				b.Fatal(sm.name)
			}
		}
	}
}
