package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/store"
)

// Selection names the checks an audit runs: check ids ("claims.stated") or
// their groups ("claims", the part before the dot). The zero Selection runs
// every check. A reviewer who has only edited a narrative asks for the
// claims and gets them in a second, without re-reading every raw file.
type Selection []string

// ParseSelection reads a comma-separated list of check ids and groups and
// refuses any that names no check, listing the groups there are.
func ParseSelection(list string) (Selection, error) {
	var sel Selection
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.ContainsFunc(Checks(), func(c CheckInfo) bool { return matches(name, c.ID) }) {
			return nil, fmt.Errorf("no check or group of checks is named %q; the groups are %s", name, strings.Join(groups(), ", "))
		}
		sel = append(sel, name)
	}
	return sel, nil
}

// Includes says whether the check with this id is selected.
func (s Selection) Includes(check string) bool {
	return len(s) == 0 || slices.ContainsFunc(s, func(name string) bool { return matches(name, check) })
}

// Keep is the findings of the selected checks.
func (s Selection) Keep(fs []Finding) []Finding {
	if len(s) == 0 {
		return fs
	}
	var out []Finding
	for _, f := range fs {
		if s.Includes(f.Check) {
			out = append(out, f)
		}
	}
	return out
}

// needsRuns says whether a selected check is one the per-run audit (Run)
// makes: reading the raw files again is the audit's cost, and the checks
// of a case study's texts, comparisons and references do not need it.
func (s Selection) needsRuns() bool {
	for _, c := range Checks() {
		if s.Includes(c.ID) && !caseStudyOnly[c.ID] {
			return true
		}
	}
	return false
}

// needsRawFiles says whether a selected check is made from the runs' raw
// files (read and parsed again) rather than from the archive as a whole
// (SQLite's own checks, the hash chain) or the case study alone.
func (s Selection) needsRawFiles() bool {
	for _, c := range Checks() {
		if s.Includes(c.ID) && !caseStudyOnly[c.ID] && !archiveWide[c.ID] {
			return true
		}
	}
	return false
}

// archiveWide are the checks Run makes of the archive before it reads a
// raw file.
var archiveWide = map[string]bool{
	CheckSQLite: true, CheckForeignKeys: true,
	store.CheckChainLink: true, store.CheckChainChanged: true, store.CheckChainMissing: true,
	store.CheckChainExtra: true, store.CheckTriggers: true, store.CheckPublishable: true,
	store.CheckChainUnstarted: true,
}

// caseStudyOnly are the checks only CaseStudy makes, from the spec and
// the evaluated figures.
var caseStudyOnly = map[string]bool{
	CheckClaimsStated: true, CheckClaimsText: true, CheckClaimsUnbound: true,
	CheckConfounded: true, CheckLoadBound: true,
	CheckReferenceVisible: true, CheckReferenceStale: true,
}

func matches(name, check string) bool {
	return name == check || strings.HasPrefix(check, name+".")
}

func groups() []string {
	var out []string
	for _, c := range Checks() {
		g, _, _ := strings.Cut(c.ID, ".")
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}
