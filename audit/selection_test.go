package audit

import (
	"strings"
	"testing"

	"github.com/benchledger/benchledger/store"
)

func TestSelection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		list      string
		err       string
		includes  []string
		excludes  []string
		needsRuns bool
		rawFiles  bool // needsRawFiles
	}{
		{list: "", includes: []string{CheckBlobHash, CheckClaimsText}, needsRuns: true, rawFiles: true},
		{list: "claims", includes: []string{CheckClaimsStated, CheckClaimsText, CheckClaimsUnbound}, excludes: []string{CheckBlobHash, CheckConfounded}},
		{list: "claims.stated, reference", includes: []string{CheckClaimsStated, CheckReferenceStale}, excludes: []string{CheckClaimsText}},
		{list: "claims,integrity.records", includes: []string{CheckRecords}, excludes: []string{CheckBlobHash}, needsRuns: true, rawFiles: true},
		{list: "provenance.engine", includes: []string{CheckEngine}, needsRuns: true, rawFiles: true}, // the client's backend is read per run
		// The hash chain and SQLite's checks are the archive's: no raw file is read.
		{list: "integrity.chain,integrity.changed,integrity.sqlite", includes: []string{store.CheckChainLink, store.CheckChainChanged, CheckSQLite},
			excludes: []string{CheckBlobHash, CheckRecords}, needsRuns: true},
		{list: "integrity", includes: []string{CheckBlobHash, store.CheckTriggers}, needsRuns: true, rawFiles: true},
		{list: "claim", err: `"claim"`},
		{list: "claims.", err: `"claims."`},
		{list: "integrity.blob", err: "the groups are integrity, "},
	} {
		sel, err := ParseSelection(tc.list)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one with %s", tc.list, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.list, err)
		}
		for _, id := range tc.includes {
			if !sel.Includes(id) {
				t.Errorf("%q leaves out %s", tc.list, id)
			}
		}
		for _, id := range tc.excludes {
			if sel.Includes(id) {
				t.Errorf("%q includes %s", tc.list, id)
			}
		}
		if got := sel.needsRuns(); got != tc.needsRuns {
			t.Errorf("%q: needsRuns %v, want %v", tc.list, got, tc.needsRuns)
		}
		if got := sel.needsRawFiles(); got != tc.rawFiles {
			t.Errorf("%q: needsRawFiles %v, want %v", tc.list, got, tc.rawFiles)
		}
		var all []Finding
		for _, id := range append(tc.includes, tc.excludes...) {
			all = append(all, Finding{Check: id})
		}
		kept := sel.Keep(all)
		if len(kept) != len(tc.includes) {
			t.Errorf("%q kept %v, want the findings of %v", tc.list, kept, tc.includes)
		}
	}
}
