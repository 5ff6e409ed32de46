package export

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/internal/sitepath"
	"github.com/benchledger/benchledger/provenance"
)

// cover is the first sheet: which case study (or which runs) this is, its
// version or "draft", the audit verdict with its counts, the archive
// digest, the number of runs, and where the report and the site are.
func (b *builder) cover() *Table {
	l := b.l
	t := &Table{Name: SheetCover, Title: l.T("export.sheet.cover"), Cover: true, Columns: []Column{
		b.col("item", l.T("export.cover.item"), Text, "", 0),
		b.col("value", l.T("export.cover.value"), Text, "", 0),
	}}
	add := func(key string, v Cell) { t.Rows = append(t.Rows, []Cell{TextCell(l.T(key)), v}) }
	exported := b.opt.Exported
	if exported.IsZero() {
		exported = time.Now()
	}
	tag := l.Tag()
	res := b.opt.Result
	if res == nil {
		t.Heading = l.T("export.cover.runs_title")
		add("export.cover.runs", TextCell(l.Integer(len(b.runs))))
		add("export.cover.site", b.siteCell(sitepath.InLang(tag, sitepath.Index)))
		add("export.cover.exported", TextCell(exported.UTC().Format("2006-01-02 15:04")))
		return t
	}
	id := res.Spec.ID
	t.Heading = caseTitle(res.Spec.Title, l.Texts(), id) // es-AR: the es-419 title
	add("export.cover.case_study", TextCell(t.Heading))
	add("export.cover.id", TextCell(id))
	add("export.cover.version", TextCell(b.versionText()))
	add("export.cover.audit", TextCell(b.auditText()))
	add("export.cover.digest", TextCell(res.Digest))
	add("export.cover.runs", TextCell(l.Integer(len(res.RunIDs))))
	add("export.cover.report", b.siteCell(sitepath.Report(id, tag)))
	add("export.cover.site", b.siteCell(sitepath.InLang(tag, sitepath.Case(id))))
	add("export.cover.exported", TextCell(exported.UTC().Format("2006-01-02 15:04")))
	return t
}

// caseTitle is the case study's title in the language, else in English,
// else its id.
func caseTitle(titles map[string]string, tag, id string) string {
	if t := titles[tag]; t != "" {
		return t
	}
	if t := titles["en"]; t != "" {
		return t
	}
	return id
}

// siteCell links a page of the static site, or names it when no base URL
// was given.
func (b *builder) siteCell(rel string) Cell {
	if b.opt.BaseURL == "" {
		return TextCell(b.l.T("export.cover.no_base_url", "path", rel))
	}
	u := b.siteURL(rel)
	return LinkCell(u, u)
}

// versionText is "Version 3, recorded 2026-08-20" or the draft sentence the
// report prints.
func (b *builder) versionText() string {
	l, p := b.l, b.opt.Publication
	switch {
	case p == nil || p.Draft && p.Version == 0:
		return l.T("errata.draft_unpublished")
	case p.Draft:
		return l.T("errata.draft", "version", p.Version, "date", p.Recorded.UTC())
	}
	return l.T("errata.version", "version", p.Version, "date", p.Recorded.UTC())
}

// auditText is the verdict and the counts, as the report's audit box says
// them: "No check failed. Findings: 0 failures, 27 warnings, 3 notes."
func (b *builder) auditText() string {
	l, r := b.l, b.opt.Audit
	if r == nil {
		return l.T("export.cover.not_audited")
	}
	verdict := l.T("audit.verdict.pass")
	if n := r.FailedChecks(); n > 0 {
		verdict = l.T("audit.verdict.fail", "count", n)
	}
	counts := r.Counts()
	var parts []string
	for _, s := range []string{audit.Fail, audit.Warn, audit.Info} {
		parts = append(parts, l.T("audit.count."+s, "count", counts[s]))
	}
	// No space after a full-width "。" (zh, ja).
	return verdict + l.Punct()["sentence_sep"] + l.T("audit.counts", "counts", strings.Join(parts, l.T("format.list_sep")))
}

// sortRuns puts the runs in the order a reader looks for them: by campaign,
// then role in the order the campaign measured them (the earliest
// measurement of each role; provenance.Roles breaks ties), group, sweep
// value, replica, measurement date, and id last so that the order is total.
func sortRuns(runs []runRow) {
	type roleKey struct{ campaign, role string }
	first := map[roleKey]string{}
	for _, r := range runs {
		k := roleKey{r.eff["campaign"], r.eff["role"]}
		if d, ok := first[k]; !ok || date(r) < d {
			first[k] = date(r)
		}
	}
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i], runs[j]
		if x, y := a.eff["campaign"], b.eff["campaign"]; x != y {
			return x < y
		}
		ra, rb := a.eff["role"], b.eff["role"]
		if ra != rb {
			fa, fb := first[roleKey{a.eff["campaign"], ra}], first[roleKey{b.eff["campaign"], rb}]
			if fa != fb {
				return fa < fb
			}
			return provenance.RoleRank(ra) < provenance.RoleRank(rb)
		}
		if x, y := a.eff["group"], b.eff["group"]; x != y {
			return x < y
		}
		if c := compareNumbers(a.eff["sweep.value"], b.eff["sweep.value"]); c != 0 {
			return c < 0
		}
		if c := compareNumbers(replicaIndex(a.eff["replica"]), replicaIndex(b.eff["replica"])); c != 0 {
			return c < 0
		}
		if x, y := date(a), date(b); x != y {
			return x < y
		}
		return a.rec.ID < b.rec.ID
	})
}

// date is when a run was measured (RFC 3339 or a day, which sort as text),
// else when it was archived.
func date(r runRow) string {
	if d := r.eff["measurement.date"]; d != "" {
		return d
	}
	return r.rec.IngestedAt.UTC().Format(time.RFC3339)
}

// replicaIndex is k of "k/n".
func replicaIndex(s string) string {
	k, _, _ := strings.Cut(s, "/")
	return k
}

// compareNumbers orders numbers numerically, a number before a non-number,
// and non-numbers as text.
func compareNumbers(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil:
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
