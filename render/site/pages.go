package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/benchledger/benchledger/casestudy"
	htmltemplate "html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/benchledger/benchledger/internal/csp"
	"github.com/benchledger/benchledger/internal/sitepath"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/assets"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// Page is what every page shares: its language, title, where it sits and
// the same page in the other languages.
type Page struct {
	Lang, Title string
	// HTMLLang is the page's lang attribute (locales.Locale.HTMLLang:
	// zh-Hans for zh), which picks the CJK fonts of site.css.
	HTMLLang string
	// Root leads from the page to the site's folder, Home to its
	// language's folder ("../../", "../"; "" at that level).
	Root, Home string
	Langs      []LangLink
	// LangNav is the language switch made of Langs (rows.go).
	LangNav htmltemplate.HTML
	Version string
	// Footer is the footer's line (site.footer with the version).
	Footer string
	// L holds the language's messages under site.* (without the prefix)
	// and table.* (as table_*), dots written as underscores: {{.L.run_overview}}.
	L   map[string]string
	loc locales.Locale
}

// LangLink is the same page in one language.
type LangLink struct {
	Tag, Name, Href string
	HTMLLang        string // the lang attribute of the link's name
	Current         bool
}

// T is the page's message catalogue, for messages with arguments; the
// templates read the others from L.
func (p *Page) T(key string, args ...any) string { return p.loc.T(key, args...) }

// Int writes a count in the page's number style.
func (p *Page) Int(n int) string { return p.loc.Integer(n) }

// page lays out the shared part of the page at rel (relative to its
// language's folder, with /).
func (b *builder) page(l locales.Locale, rel, title string) *Page {
	depth := strings.Count(rel, "/")
	p := &Page{Lang: l.Tag(), HTMLLang: l.HTMLLang(), Title: title, Version: b.opt.ToolVersion, loc: l, L: b.labels(l),
		Home: strings.Repeat("../", depth), Root: strings.Repeat("../", depth+1)}
	for _, o := range b.locs {
		p.Langs = append(p.Langs, LangLink{Tag: o.Tag(), HTMLLang: o.HTMLLang(), Name: o.Name(), Href: p.Root + o.Tag() + "/" + rel, Current: o.Tag() == l.Tag()})
	}
	p.LangNav = langNav(p.Langs)
	p.Footer = b.labels(l)["\x00footer"]
	return p
}

// labels are the messages a language's templates read through Page.L,
// made once per build.
func (b *builder) labels(l locales.Locale) map[string]string {
	if m, ok := b.messages.Load(l.Tag()); ok {
		return m.(map[string]string)
	}
	m := map[string]string{}
	for _, prefix := range []string{"site.", "table."} {
		for _, k := range l.Keys(prefix) {
			name := strings.ReplaceAll(strings.TrimPrefix(k, "site."), ".", "_")
			m[name] = l.T(k)
		}
	}
	// The language's punctuation ({{.P.L.colon}}: "：" in zh and ja).
	for k, v := range l.Punct() {
		m[k] = v
	}
	// Under a key no template can name: the footer, whose argument is
	// the same on every page.
	m["\x00footer"] = l.T("site.footer", "version", b.opt.ToolVersion)
	v, _ := b.messages.LoadOrStore(l.Tag(), m)
	return v.(map[string]string)
}

// figureName is l.Figure(metric), looked up once per language and build
// (every run page names the same figures).
func (b *builder) figureName(l locales.Locale, metric string) string {
	return b.repeated(l, textFigureName, metric, func() string { return l.Figure(metric) })
}

// fieldLabel is l.FieldLabel(field), looked up once per language and build.
func (b *builder) fieldLabel(l locales.Locale, field string) string {
	return b.repeated(l, textFieldLabel, field, func() string { return l.FieldLabel(field) })
}

// repeated caches a text every run page repeats, by language, kind and
// key.
func (b *builder) repeated(l locales.Locale, kind textKind, key string, text func() string) string {
	v, ok := b.repeatedTexts.Load(l.Tag())
	if !ok {
		v, _ = b.repeatedTexts.LoadOrStore(l.Tag(), &textCache{})
	}
	c := v.(*textCache)
	c.mu.RLock()
	s, ok := c.m[kind][key]
	c.mu.RUnlock()
	if !ok {
		s = text()
		c.mu.Lock()
		if c.m[kind] == nil {
			c.m[kind] = map[string]string{}
		}
		c.m[kind][key] = s
		c.mu.Unlock()
	}
	return s
}

// textKind says what a repeated text is.
type textKind int

const (
	textFigureName textKind = iota
	textFieldLabel
	// A run page's sentences, by what they say (runPage).
	textPublishable
	textCompletion
	textStatedBy
	textFiguresNote
	textKinds
)

// textCache is one language's repeated texts, by kind.
type textCache struct {
	mu sync.RWMutex
	m  [textKinds]map[string]string
}

// cmpRef is a comparison page a case study's spec names.
type cmpRef struct {
	Case, Name, Href string // Href relative to a language's folder
}

// caseView is a case study the site shows.
type caseView struct {
	ID, file string
	Title    map[string]string
	c        *Case // nil: recorded in the archive, spec not given
	// pub is the history its page shows: the one given with the spec, or
	// else the archive's record as of its latest version (nil: none).
	pub  *publish.Publication
	cmps []cmpRef
	runs []string
	// reportDir is relative to the site's folder, with /.
	reportDir string
}

// caseViews gathers the case studies: those given by spec, and those
// recorded in the archive; and the comparison pages each run is part of.
func (b *builder) caseViews() ([]*caseView, error) {
	b.cmpLinks = map[string][]cmpRef{}
	byID := map[string]*caseView{}
	var out []*caseView
	for i := range b.opt.Cases {
		c := &b.opt.Cases[i]
		res := c.Result
		id := res.Spec.ID
		if byID[id] != nil {
			return nil, fmt.Errorf("site: case study %s is given twice", id)
		}
		cv := &caseView{ID: id, file: pathID(id), Title: res.Spec.Title, c: c, pub: c.Publication, runs: res.RunIDs}
		cv.reportDir = sitepath.ReportDir(id)
		names := make([]string, 0, len(res.Spec.Comparisons))
		for name := range res.Spec.Comparisons {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if res.Comparisons[name] == nil {
				continue
			}
			ref := cmpRef{Case: id, Name: name, Href: "compare/" + cv.file + "--" + pathID(name) + ".html"}
			cv.cmps = append(cv.cmps, ref)
			sc := res.Spec.Comparisons[name]
			seen := map[string]bool{}
			for _, sel := range []string{sc.Baseline, sc.Candidate} {
				for _, run := range res.Selections[sel] {
					if !seen[run] {
						seen[run] = true
						b.cmpLinks[run] = append(b.cmpLinks[run], ref)
					}
				}
			}
		}
		byID[id] = cv
		out = append(out, cv)
	}
	recorded, err := b.a.PublishedCases()
	if err != nil {
		return nil, err
	}
	for _, id := range recorded {
		cv := byID[id]
		if cv == nil {
			cv = &caseView{ID: id, file: pathID(id)}
			byID[id] = cv
			out = append(out, cv)
		}
		if cv.pub != nil {
			continue
		}
		pubs, err := b.a.Publications(id)
		if err != nil {
			return nil, err
		}
		if cv.pub, err = publish.Latest(pubs); err != nil {
			return nil, fmt.Errorf("site: %w", err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// pathID is id as a file name (sitepath.ID, which export links to).
func pathID(id string) string { return sitepath.ID(id) }

// Views of the pages over all runs.
type (
	indexView struct {
		P         *Page
		Counts    string
		Campaigns []campaignView
		Cases     []caseLink
	}
	campaignView struct {
		Name, Href, Dates  string
		Runs, Publishable  string
		Models, GPUs, Engs string
	}
	caseLink struct {
		ID, Title, Href, Version string
	}
	runsView struct {
		P *Page
		// Columns are the table's columns after the tick box, in order;
		// Hidden the classes that hide the ones hidden until the reader
		// chooses otherwise (site.css, site.js).
		Columns []runsColumn
		Hidden  string
		Rows    []runRowView
		// RowsHTML is Rows written by rows.go: one template action
		// instead of a dozen per run (a table of 10,000 runs).
		RowsHTML htmltemplate.HTML
		Roles    []string
		Built    []string // comparison pages by run pair "a b", for the compare button
		BuiltMap htmltemplate.JS
		Shown    string
	}
	runRowView struct {
		runRow
		Href, PublishableText, ThroughputText, RequestsText, AuditText, AuditClass, ThroughputSort string
		// ReplicaText is the replica's "k/n" or the repeat's number,
		// ReplicaSort its k or r; LoadText the offered concurrency or rate,
		// LoadSort its value; LatencyText and LatencySort the median
		// end-to-end latency.
		ReplicaText, LoadText, LoadSort, LatencyText, LatencySort string
		ReplicaSort                                               int
	}
	// runsColumn is a column of the runs table: its data key (the row's
	// data-<key> attribute it sorts by), heading, whether it sorts as a
	// number, its place (nth-child, from 2) and whether it is hidden until
	// the reader chooses it.
	runsColumn struct {
		Key, Label    string
		Number        bool
		N             int
		HiddenAtFirst bool
	}
)

// runsColumns are the runs table's columns after the tick box, in the order
// runRows writes them: key, message under site.col (or table. for the run),
// numeric, hidden at first. The ones hidden at first are the same on the
// runs of one campaign, or are shown elsewhere; the column chooser shows
// them.
var runsColumns = []struct {
	key, label   string
	number, hide bool
}{
	{"id", "table_run", false, false}, {"campaign", "col_campaign", false, false}, {"role", "col_role", false, false},
	{"group", "col_group", false, false}, {"sweep", "col_sweep", true, false}, {"replica", "col_replica", true, false},
	{"load", "col_load", true, false}, {"model", "col_model", false, false}, {"engine", "col_engine", false, false},
	{"gpu", "col_gpu", false, true}, {"date", "col_date", false, false}, {"workload", "col_workload", false, true},
	{"requests", "col_requests", true, true}, {"throughput", "col_throughput", true, false}, {"latency", "col_latency", true, false},
	{"publishable", "col_publishable", false, true}, {"audit", "col_audit", true, false},
}

// orderRuns sorts the runs, and their rows alongside, as a reader expects
// them listed (runview.CompareListed: date, campaign, role, group, load,
// replica), keeping the archive's order where they tie.
func orderRuns(summaries []store.RunSummary, rows []runRow) {
	keys := make([]runview.ListKey, len(rows))
	idx := make([]int, len(rows))
	for i, r := range rows {
		keys[i], idx[i] = r.listKey(), i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return runview.CompareListed(keys[x], keys[y]) })
	s2, r2 := slices.Clone(summaries), slices.Clone(rows)
	for to, from := range idx {
		summaries[to], rows[to] = s2[from], r2[from]
	}
}

// langPages writes the pages of one language that span the archive.
func (b *builder) langPages(l locales.Locale, summaries []store.RunSummary, rows []runRow) error {
	tag := l.Tag()
	// Index: campaigns and case studies.
	idx := &indexView{P: b.page(l, "index.html", l.T("site.title"))}
	type agg struct {
		runs, pub      int
		first, last    string
		models, gpus   map[string]bool
		engines        map[string]bool
		name, filterID string
	}
	camps := map[string]*agg{}
	var names []string
	blobs := map[string]bool{}
	publishable := 0
	for i, s := range summaries {
		blobs[s.BlobSHA256] = true
		if s.Publishable {
			publishable++
		}
		a := camps[s.Campaign]
		if a == nil {
			a = &agg{models: map[string]bool{}, gpus: map[string]bool{}, engines: map[string]bool{}}
			camps[s.Campaign] = a
			names = append(names, s.Campaign)
		}
		a.runs++
		if s.Publishable {
			a.pub++
		}
		if d := rows[i].Date; d != "" {
			if a.first == "" || d < a.first {
				a.first = d
			}
			if d > a.last {
				a.last = d
			}
		}
		for _, kv := range []struct {
			m map[string]bool
			v string
		}{{a.models, s.Model}, {a.gpus, s.GPU}, {a.engines, strings.TrimSpace(s.Engine + " " + s.EngineVersion)}} {
			if kv.v != "" {
				kv.m[kv.v] = true
			}
		}
	}
	sort.Strings(names)
	idx.Counts = l.T("site.index.counts", "runs", l.Integer(len(summaries)), "files", l.Integer(len(blobs)), "publishable", l.Integer(publishable))
	for _, n := range names {
		a := camps[n]
		cv := campaignView{Name: n, Href: campaignLink(n), Runs: l.Integer(a.runs), Publishable: l.Integer(a.pub),
			Models: strings.Join(sortedSet(a.models), ", "), GPUs: strings.Join(sortedSet(a.gpus), ", "), Engs: strings.Join(sortedSet(a.engines), ", ")}
		if n == "" {
			cv.Name, cv.Href = l.T("site.index.no_campaign"), "runs.html"
		}
		if a.first != "" {
			cv.Dates = a.first
			if a.last != a.first {
				cv.Dates += " – " + a.last
			}
		}
		idx.Campaigns = append(idx.Campaigns, cv)
	}
	for _, c := range b.cases {
		link := caseLink{ID: c.ID, Title: caseTitle(c, tag), Href: sitepath.Case(c.ID)}
		if pub := c.pub; pub != nil {
			link.Version = report.History(l, pub).Version
		}
		idx.Cases = append(idx.Cases, link)
	}
	if err := b.render(l, tag+"/index.html", "index", idx.P, idx); err != nil {
		return err
	}

	// Runs table.
	rv := &runsView{P: b.page(l, "runs.html", l.T("site.runs.title"))}
	roles := map[string]bool{}
	for _, r := range rows {
		if r.Role != "" {
			roles[r.Role] = true
		}
	}
	rv.Roles = sortedSet(roles)
	var hidden []string
	for i, c := range runsColumns {
		col := runsColumn{Key: c.key, Label: rv.P.L[c.label], Number: c.number, N: i + 2, HiddenAtFirst: c.hide}
		if c.hide {
			hidden = append(hidden, "hide-"+strconv.Itoa(col.N))
		}
		rv.Columns = append(rv.Columns, col)
	}
	rv.Hidden = strings.Join(hidden, " ")
	built := map[string]string{}
	for _, c := range b.cases {
		for _, ref := range c.cmps {
			res := c.c.Result
			sc := res.Spec.Comparisons[ref.Name]
			base, cand := res.Selections[sc.Baseline], res.Selections[sc.Candidate]
			for _, x := range base {
				for _, y := range cand {
					built[x+" "+y] = ref.Href
					built[y+" "+x] = ref.Href
				}
			}
		}
	}
	js, err := jsonJS(built)
	if err != nil {
		return err
	}
	rv.BuiltMap = js
	rv.Shown = l.T("site.runs.shown", "shown", "{shown}", "total", "{total}")
	if err := b.runsPage(l, rv, rows); err != nil {
		return err
	}

	// The client-side diff of any two runs.
	dv := b.diffView(l)
	if err := b.render(l, tag+"/diff.html", "diff", dv.P, dv); err != nil {
		return err
	}

	// Case studies and their comparisons.
	for _, c := range b.cases {
		if err := b.casePage(l, c); err != nil {
			return err
		}
	}
	return nil
}

// runRowViewOf is a run's row of the runs table in l.
func runRowViewOf(l locales.Locale, r runRow) runRowView {
	row := runRowView{runRow: r, Href: sitepath.Run(r.ID), PublishableText: yesNo(l, r.Publishable), RequestsText: "–", ThroughputText: "–"}
	if r.Requests >= 0 {
		row.RequestsText = l.Integer(int(r.Requests))
	}
	if r.Throughput != nil {
		row.ThroughputText = l.Number(*r.Throughput, 0)
		if r.ThroughputSource == figures.SourceStated {
			row.ThroughputText = l.Paren(row.ThroughputText, l.T("value_source.kind.stated"))
		}
		row.ThroughputSort = sortText(*r.Throughput)
	}
	row.LatencyText = "–"
	if r.MedianLatency != nil {
		row.LatencyText = l.Number(*r.MedianLatency, 3) // in seconds, as the heading says
		if r.LatencySource == figures.SourceStated {
			row.LatencyText += " (" + l.T("value_source.kind.stated") + ")"
		}
		row.LatencySort = sortText(*r.MedianLatency)
	}
	k := r.listKey()
	row.ReplicaText, row.ReplicaSort = r.Replica, k.Replica
	if row.ReplicaText == "" {
		row.ReplicaText = r.Repeat
	}
	switch {
	case r.Concurrency != "":
		row.LoadText = r.Concurrency
	case r.Rate != "":
		row.LoadText = r.Rate + " req/s"
	}
	switch {
	case math.IsInf(k.LoadValue, 1):
		row.LoadSort = "Infinity" // as the page's parseFloat reads it
	case k.Load != "":
		row.LoadSort = strconv.FormatFloat(k.LoadValue, 'g', -1, 64)
	}
	switch {
	case r.Fails > 0:
		row.AuditText, row.AuditClass = l.T("audit.severity.fail")+" "+l.Integer(r.Fails), "fail"
	case r.Warns > 0:
		row.AuditText, row.AuditClass = l.T("audit.severity.warn")+" "+l.Integer(r.Warns), "warn"
	default:
		row.AuditText, row.AuditClass = "✓", "pass"
	}
	return row
}

// sortText is a figure as the runs table sorts it, fmt's "%.6f" (written
// by strconv: two of them for each run).
func sortText(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// runsPage writes the runs table, of a row for each of rows. The
// embedded template writes the rows once, in the table: they are written
// straight into the page as they are made (renderSpliced), with no list
// of their views and no 10 MB of markup made apart from it for 10,000
// runs. A template of the user's gets the views and their markup.
func (b *builder) runsPage(l locales.Locale, rv *runsView, rows []runRow) error {
	rel := l.Tag() + "/runs.html"
	if b.tpl.embedded["runs"] && len(rows) > 0 {
		return b.renderSpliced(l, rel, "runs", rv.P, rv, &rv.RowsHTML, len(rows)*runRowSize, func(h htmlBuilder) {
			var v runRowView
			for _, r := range rows {
				v = runRowViewOf(l, r)
				writeRunRow(h, &v)
			}
		})
	}
	rv.Rows = make([]runRowView, len(rows))
	for i, r := range rows {
		rv.Rows[i] = runRowViewOf(l, r)
	}
	rv.RowsHTML = runRows(rv.Rows)
	return b.renderSized(l, rel, "runs", rv.P, rv, len(rv.RowsHTML)+64<<10)
}

func yesNo(l locales.Locale, v bool) string {
	if v {
		return l.T("site.yes")
	}
	return l.T("site.no")
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func caseTitle(c *caseView, tag string) string {
	if t := c.Title[tag]; t != "" {
		return t
	}
	if t := c.Title["en"]; t != "" {
		return t
	}
	return c.ID
}

type (
	caseView2 struct {
		P             *Page
		ID, CaseTitle string
		Reports       []linkView
		Audits        []linkView
		NoReports     bool
		History       *report.HistoryView
		Comparisons   []linkView
		Runs          []linkView
	}
	compareView struct {
		P                             *Page
		CaseHref, CaseTitle, Name, Of string
		Rows                          []compareRow
		Change, Ratio                 string
		Intended                      string
		Confounders                   []string
		Caveats                       []caveatView
		Runs                          []linkView
		// Changed and Fixed are the compared provenance fields that
		// changed (intended or not) and that were held fixed.
		Changed, Fixed []fieldRow
		// Every is every figure of the runs behind the sides, EveryOf
		// names them; Charts their latency distributions.
		Every        []metricRow
		EveryOf      string
		Charts       []chartView
		ChartFigures htmltemplate.HTML
	}
	compareRow struct {
		Label, Baseline, Candidate string
	}
)

func (b *builder) casePage(l locales.Locale, c *caseView) error {
	tag := l.Tag()
	rel := sitepath.Case(c.ID)
	p := &caseView2{P: b.page(l, rel, l.T("site.case.title", "id", c.ID)), ID: c.ID, CaseTitle: caseTitle(c, tag)}
	if c.c != nil {
		for _, o := range b.locs {
			p.Reports = append(p.Reports, linkView{Text: l.T("site.case.report_link", "lang", o.Name()),
				Href: p.P.Root + c.reportDir + "/" + c.ID + "." + o.Tag() + ".html"})
			if c.c.Audit != nil {
				p.Audits = append(p.Audits, linkView{Text: l.T("site.case.audit_link", "lang", o.Name()),
					Href: p.P.Root + c.reportDir + "/" + c.ID + ".audit." + o.Tag() + ".html"})
			}
		}
	} else {
		p.NoReports = true
	}
	if pub := c.pub; pub != nil {
		h := report.History(l, pub)
		p.History = &h
	}
	label := b.caseLabeller(c)
	for _, ref := range c.cmps {
		p.Comparisons = append(p.Comparisons, linkView{Text: label(l, ref.Name), Href: p.P.Home + ref.Href})
	}
	for _, id := range c.runs {
		p.Runs = append(p.Runs, linkView{Text: id, Href: p.P.Home + sitepath.Run(id)})
	}
	if err := b.render(l, tag+"/"+rel, "case", p.P, p); err != nil {
		return err
	}
	for _, ref := range c.cmps {
		if err := b.comparePage(l, c, ref); err != nil {
			return err
		}
	}
	return nil
}

// comparePage writes a comparison a spec names, as the case study computed
// it: both sides, the change, confounders, caveats.
func (b *builder) comparePage(l locales.Locale, c *caseView, ref cmpRef) error {
	res := c.c.Result
	cf := res.Comparisons[ref.Name]
	cmp := cf.Comparison
	// The comparison and its runs are named as the report names them
	// (the spec's labels, else a description), never by key or id alone.
	label := b.caseLabeller(c)
	name := label(l, ref.Name)
	p := &compareView{P: b.page(l, ref.Href, l.T("site.cmp.title", "name", name)), CaseTitle: caseTitle(c, l.Tag()),
		Name: name}
	p.CaseHref = p.P.Home + sitepath.Case(c.ID)
	metric := l.Figure(cmp.Metric)
	p.Of = locales.CapFirst(l.T("site.cmp.of", "metric", metric, "baseline", l.T("table.baseline"), "candidate", l.T("table.candidate")))
	// Cells write a unit's short form (es "15.91 s", not "segundos").
	cl := l.Cells()
	unitVal := func(v float64) string { return valueIn(cl, &v, cmp.Unit) }
	p.Rows = append(p.Rows, compareRow{Label: locales.CapFirst(metric), Baseline: unitVal(cmp.Baseline.Value), Candidate: unitVal(cmp.Candidate.Value)})
	p.Change = l.Percent(cmp.Change.Pct, casestudy.PctDecimals(cmp.Change.Pct), true)
	p.Ratio = l.Ratio(cmp.Change.Ratio)
	p.Intended = l.List(fieldLabels(l, cmp.Intended))
	for _, f := range cmp.Confounders {
		base, _ := b.fieldValue(l, res.Spec, f.Field, f.Baseline)
		cand, _ := b.fieldValue(l, res.Spec, f.Field, f.Candidate)
		p.Confounders = append(p.Confounders, l.Colon(locales.CapFirst(l.FieldLabel(f.Field)), base+" → "+cand))
	}
	for _, cv := range cf.Caveats {
		text, err := l.Caveat(cv.Redact(b.opt.Redact))
		if err != nil {
			text = cv.Code
		}
		p.Caveats = append(p.Caveats, caveatView{Code: cv.Code, Text: text})
	}
	sc := res.Spec.Comparisons[ref.Name]
	sides := [2]string{label(l, sc.Baseline), label(l, sc.Candidate)}
	for i, sel := range []string{sc.Baseline, sc.Candidate} {
		for _, id := range res.Selections[sel] {
			p.Runs = append(p.Runs, linkView{Text: l.Paren(sides[i], id), Href: p.P.Home + sitepath.Run(id)})
		}
	}
	if err := b.comparisonParts(l, res.Spec, p, ref, cmp, sides); err != nil {
		return err
	}
	return b.render(l, l.Tag()+"/"+ref.Href, "compare", p.P, p)
}

// caseLabeller names a case study's comparisons and selections as its
// report does (report.Labeller); a case without its spec's result names
// them by key.
func (b *builder) caseLabeller(c *caseView) func(l locales.Locale, name string) string {
	if c.c == nil {
		return func(_ locales.Locale, name string) string { return name }
	}
	return report.Labeller(c.c.Result, b.roles)
}

func fieldLabels(l locales.Locale, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = l.FieldLabel(f)
	}
	return out
}

// diffView carries the labels the client-side diff needs: every field and
// figure name in the page's language.
type diffView struct {
	P      *Page
	Labels htmltemplate.JS
}

func (b *builder) diffView(l locales.Locale) *diffView {
	labels := map[string]string{}
	for _, f := range diffFields {
		labels["field:"+f] = l.FieldLabel(f)
	}
	for _, m := range figures.SummaryNames() {
		labels["figure:"+m] = l.Figure(m)
		switch figures.DirectionOf(m) {
		case figures.HigherIsBetter:
			labels["direction:"+m] = "higher"
		case figures.LowerIsBetter:
			labels["direction:"+m] = "lower"
		}
	}
	labels["better"], labels["worse"] = l.T("site.cmp.better"), l.T("site.cmp.worse")
	// Each unit as the language writes it after a number other than one
	// ("{n} s", "{n}秒", "{n}件のリクエスト"): the page writes the number
	// with Intl and puts it in.
	labels["paren"] = l.Paren("{text}", "{note}")
	for _, u := range locales.Units() {
		labels["unit:"+u] = strings.Replace(l.Quantity(2, 0, u), l.Integer(2), "{n}", 1)
	}
	labels["publishable"] = l.T("site.col.publishable")
	labels["sent"], labels["completed"], labels["failed"] = l.Term("sent"), l.Term("completed"), l.Term("failed")
	labels["format"], labels["sha256"] = l.T("site.run.format"), "SHA-256"
	labels["yes"], labels["no"] = l.T("site.yes"), l.T("site.no")
	labels["differs"], labels["missing"] = l.T("site.diff.differs"), l.T("site.diff.missing", "id", "{id}")
	js, _ := jsonJS(labels)
	return &diffView{P: b.page(l, "diff.html", l.T("site.diff.title")), Labels: js}
}

// diffFields and the figures a run's view shows (figures.SummaryNames) have
// labels on the diff page; other fields show their archive names.
var diffFields = []string{"campaign", "role", "group", "measurement.date", "hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.node", "hardware.driver", "runtime.engine", "runtime.version", "runtime.image", "runtime.image_digest", "runtime.server_args", "checkpoint.repository", "checkpoint.revision", "checkpoint.precision", "checkpoint.kv_cache_dtype", "workload.input_len", "workload.output_len", "workload.dataset", "workload.temperature", "workload.concurrency", "workload.request_rate", "workload.request_count"}

// jsonJS encodes v for a <script type="application/json"> element.
func jsonJS(v any) (htmltemplate.JS, error) {
	data, err := jsonMarshal(v)
	return htmltemplate.JS(data), err
}

// render executes a page template for the page p (nil for the root
// index) and writes the result at rel.
func (b *builder) render(l locales.Locale, rel, name string, p *Page, data any) error {
	return b.renderSized(l, rel, name, p, data, 0)
}

// renderSized is render into a buffer made to hold size bytes (the runs
// page of 10,000 runs is 10 MB: no doubling on the way).
func (b *builder) renderSized(l locales.Locale, rel, name string, p *Page, data any, size int) error {
	var buf bytes.Buffer
	buf.Grow(size)
	if err := b.tpl.execute(&buf, l.Tag(), b.labels(l), p, name, data); err != nil {
		return err
	}
	return b.writePage(rel, &buf)
}

// writePage writes a page made in buf, with its Content-Security-Policy
// put in in place (the runs page of 10,000 runs is 10 MB).
func (b *builder) writePage(rel string, buf *bytes.Buffer) error {
	if strings.HasSuffix(rel, ".html") {
		csp.ApplyBuffer(buf, csp.Site)
	}
	return b.write(rel, buf.Bytes())
}

// renderSpliced is render of a page whose template writes one long part,
// *part, once and where markup may stand (the rows of a table): the
// template runs with a marker in the part's place, and the page is
// written around the part, which write writes, in one buffer with room
// for size bytes of it. Should the marker not be there once, the part is
// made first and the page rendered as render does.
func (b *builder) renderSpliced(l locales.Locale, rel, name string, p *Page, data any, part *htmltemplate.HTML, size int, write func(htmlBuilder)) error {
	*part = partMarker
	var shell bytes.Buffer
	if err := b.tpl.execute(&shell, l.Tag(), b.labels(l), p, name, data); err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(shell.Bytes(), []byte(partMarker))
	if !ok || bytes.Contains(tail, []byte(partMarker)) {
		h := newHTML(size)
		write(h)
		*part = h.html()
		return b.renderSized(l, rel, name, p, data, len(*part)+shell.Len())
	}
	h := newHTML(len(head) + size + len(tail))
	h.Write(head)
	write(h)
	h.Write(tail)
	return b.writePage(rel, h.Buffer)
}

// partMarker stands for the part renderSpliced writes into the page: a
// comment, which no escaped text can be.
const partMarker = "<!--benchledger: part-->"

// pageUnchanged records key as the one page rel (relative to out, with /)
// is made under, and says whether the previous build made it under the
// same key and it is still there as a regular file: then it is kept as it
// is and not made again. Pages over all runs of a language are made side
// by side, so it locks.
func (b *builder) pageUnchanged(rel, key string) bool {
	b.mu.Lock()
	b.next.Pages[rel] = key
	old := b.old.Pages[rel]
	b.mu.Unlock()
	if old != key {
		return false
	}
	if fi, err := lstatInside(b.out, rel); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	b.keepFile(rel)
	b.unchanged.Add(1)
	return true
}

// rootIndex is the site's entry: the languages.
func (b *builder) rootIndex() error {
	type lang struct{ Tag, HTMLLang, Name, Href, Title string }
	var v struct {
		Langs   []lang
		Version string
	}
	v.Version = b.opt.ToolVersion
	for _, l := range b.locs {
		v.Langs = append(v.Langs, lang{Tag: l.Tag(), HTMLLang: l.HTMLLang(), Name: l.Name(), Href: l.Tag() + "/index.html", Title: l.T("site.title")})
	}
	return b.render(locales.Fallback(), "index.html", "root", nil, v)
}

// writeAssets copies the stylesheet, the script and ECharts with its
// licence into assets/.
func (b *builder) writeAssets(echarts []byte) error {
	for _, name := range []string{"site.css", "site.js"} {
		data, err := b.tpl.static(name)
		if err != nil {
			return err
		}
		if err := b.write("assets/"+name, data); err != nil {
			return err
		}
	}
	if err := b.write("assets/echarts.min.js", echarts); err != nil {
		return err
	}
	license, notice, err := assets.License()
	if err != nil {
		return err
	}
	if err := b.write("assets/ECHARTS-LICENSE.txt", license); err != nil {
		return err
	}
	return b.write("assets/ECHARTS-NOTICE.txt", notice)
}

// reports renders each case study given by spec into reports/<id>/, unless
// nothing it is made of changed since the last build.
func (b *builder) reports() error {
	b.next.Reports = map[string]string{}
	for _, c := range b.cases {
		if c.c == nil {
			continue
		}
		key, err := reportKey(c, b)
		if err != nil {
			return err
		}
		var files []string
		if b.old.Reports[c.ID] == key {
			for _, f := range b.old.Files {
				if strings.HasPrefix(f, c.reportDir+"/") {
					files = append(files, f)
				}
			}
		}
		// Looked at afresh: the build's listing is from before its writes.
		if len(files) == 0 || !newSiteFiles(b.out).exist(files) {
			tmp, err := os.MkdirTemp("", "benchledger-report-*") // outside the site: nothing half-made is left in it
			if err != nil {
				return err
			}
			var tags []string
			for _, l := range b.locs {
				tags = append(tags, l.Tag())
			}
			written, err := report.Render(b.ctx, c.c.Result, b.a, report.Options{Langs: tags, Formats: []string{report.FormatHTML},
				Out: tmp, Audit: c.c.Audit, Publication: c.c.Publication, Redact: b.opt.Redact})
			if err != nil {
				os.RemoveAll(tmp)
				return fmt.Errorf("site: case study %s: %w", c.ID, err)
			}
			files = files[:0]
			for _, w := range written {
				data, err := os.ReadFile(w)
				if err != nil {
					os.RemoveAll(tmp)
					return err
				}
				rel, _ := filepath.Rel(tmp, w)
				rel = c.reportDir + "/" + filepath.ToSlash(rel)
				if err := b.write(rel, data); err != nil {
					os.RemoveAll(tmp)
					return err
				}
				files = append(files, rel)
			}
			os.RemoveAll(tmp)
		}
		for _, f := range files {
			b.keep[f] = true
		}
		b.next.Reports[c.ID] = key
	}
	return nil
}

// reportKey is everything a case study's reports are made of: its evaluated
// figures and digest, its audit, its publication, the languages, the tool.
func reportKey(c *caseView, b *builder) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "tool %s\n", b.opt.ToolVersion)
	for _, l := range b.locs {
		fmt.Fprintf(h, "lang %s\n", l.Tag())
	}
	for _, v := range []any{c.c.Result, c.c.Audit, c.c.Publication} {
		data, err := jsonMarshal(v)
		if err != nil {
			return "", err
		}
		h.Write(data)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
