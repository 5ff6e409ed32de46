package site

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/render/report"
	htmltemplate "html/template"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchledger/benchledger/internal/sitepath"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/jsonw"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/render/charts"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// runRow is one line of the runs table, kept in the manifest so that an
// unchanged run is not read again. Texts are the archive's own (no
// language); the page localises the headings and yes/no.
type runRow struct {
	key      string
	ID       string `json:"id"`
	Campaign string `json:"campaign,omitempty"`
	Role     string `json:"role,omitempty"`
	Model    string `json:"model,omitempty"`
	Engine   string `json:"engine,omitempty"`
	Version  string `json:"version,omitempty"`
	GPU      string `json:"gpu,omitempty"`
	Date     string `json:"date,omitempty"`
	Workload string `json:"workload,omitempty"`
	// What tells runs of one campaign apart (runview.ListKey): group,
	// sweep value, replica or repeat, offered concurrency or rate, as the
	// effective provenance states them.
	Group       string `json:"group,omitempty"`
	Sweep       string `json:"sweep,omitempty"`
	Replica     string `json:"replica,omitempty"`
	Repeat      string `json:"repeat,omitempty"`
	Concurrency string `json:"concurrency,omitempty"`
	Rate        string `json:"rate,omitempty"`
	// Series names the run's configuration for trends (seriesID).
	Series     string   `json:"series,omitempty"`
	Requests   int64    `json:"requests"`
	Throughput *float64 `json:"throughput,omitempty"` // output tok/s, recomputed or else stated
	// ThroughputSource says which: "recomputed" or "stated".
	ThroughputSource string `json:"throughput_source,omitempty"`
	// MedianLatency is e2el.median in seconds, recomputed or else stated
	// (LatencySource says which).
	MedianLatency *float64 `json:"median_latency,omitempty"`
	LatencySource string   `json:"latency_source,omitempty"`
	Publishable   bool     `json:"publishable"`
	Fails         int      `json:"fails"`
	Warns         int      `json:"warns"`
}

// listKey is the row's place in a list of runs (runview.ListKey).
func (r runRow) listKey() runview.ListKey {
	return runview.ListKeyOfFields(r.Date, r.Campaign, r.Role, runview.ListFields{Group: r.Group, Replica: r.Replica, Repeat: r.Repeat,
		Concurrency: r.Concurrency, Rate: r.Rate})
}

// workloadText sums up a run's request spec in the archive's own terms
// (the same in every language): "1000/1000 random c=64", "512/128 4 req/s".
func workloadText(eff map[string]string) string {
	var parts []string
	in, out := eff["workload.input_len"], eff["workload.output_len"]
	if in != "" || out != "" {
		parts = append(parts, orQ(in)+"/"+orQ(out))
	}
	if d := eff["workload.dataset"]; d != "" {
		parts = append(parts, d)
	}
	if c := eff["workload.concurrency"]; c != "" {
		parts = append(parts, "c="+c)
	}
	if r := eff["workload.request_rate"]; r != "" && r != "inf" {
		parts = append(parts, r+" req/s")
	}
	return strings.Join(parts, " ")
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// rawFile is one raw file of a run, as its page links it.
type rawFile struct {
	Name, SHA256, Href string
	Size               int64
	Corrupt            bool
}

// runData is everything a run's pages are made of, read once and shown in
// every language.
type runData struct {
	sum      store.RunSummary
	rec      *store.RunRecord
	eff      map[string]string // effective provenance
	view     *runview.View
	files    []rawFile
	findings []audit.Finding
	points   []charts.RequestPoint
	e2e      []float64 // completed requests' latencies, seconds
	links    []cmpRef
	// client names the benchmark client; defs are the definitions of
	// view.Figures, in order, with the client named where it matters
	// (runview.ClientDefinition).
	client string
	defs   []string
}

// runPages reads one run and writes its page in every language, its data
// file for the diff page and its raw files.
func (b *builder) runPages(rec *store.RunRecord, s store.RunSummary, key string, events []store.Event, companions []store.RunFile) (manifestRun, error) {
	reqs := rec.Run.Requests
	// The run's figures and checks once, for its view and its audit.
	if r := b.opt.Redact; r != nil {
		rec, events, companions = redactRun(r, rec, events, companions)
	}
	derived := figures.Derive(rec.Run, reqs, provenance.Record(rec.Provenance).Effective())
	eff := derived.Effective
	d := &runData{sum: s, rec: rec, eff: eff, view: runview.BuildWith(rec, reqs, derived), links: b.cmpLinks[s.ID]}
	for _, ev := range events {
		d.view.History = append(d.view.History, runview.HistoryRow{At: ev.At.UTC().Format(time.RFC3339), Action: ev.Action,
			Actor: ev.Actor, ToolVersion: ev.ToolVersion, Detail: ev.Detail})
	}
	d.findings = audit.Stored(rec, derived)
	d.client = runview.Client(rec.Run)
	d.defs = make([]string, 0, len(d.view.Figures)) // made once, not grown definition by definition
	for _, f := range d.view.Figures {
		d.defs = append(d.defs, runview.ClientDefinition(rec.Run, f.Metric))
	}

	// The raw files: the one the run was read from, then its companions.
	raws := append([]store.RunFile{{Blob: rec.BlobSHA256, FileName: rec.FileName}}, companions...)
	// The run's files: its raw files, its page in each language and its
	// data shard.
	files := make([]string, 0, len(raws)+len(b.locs)+1)
	for _, f := range raws {
		rf, err := b.rawFile(f.Blob, f.FileName)
		if err != nil {
			return manifestRun{}, err
		}
		if rf.Corrupt {
			d.findings = append(d.findings, audit.Finding{Check: audit.CheckBlobHash, Severity: audit.Fail, Run: rec.ID, File: f.FileName,
				Message: "the archived bytes of " + f.FileName + " no longer match their SHA-256 " + f.Blob + ": the raw file is damaged",
				Params:  map[string]string{"blob": f.Blob}})
		} else if rf.Href != "" {
			files = append(files, rf.Href)
		}
		d.files = append(d.files, rf)
	}

	if len(reqs) > 0 {
		rb := requestBuffers.Get().(*runBuffers)
		defer requestBuffers.Put(rb) // the charts are drawn and the pages written by then
		rb.points, rb.e2e = slices.Grow(rb.points[:0], len(reqs)), slices.Grow(rb.e2e[:0], len(reqs))
		d.points, d.e2e = requestPoints(rb.points, rb.e2e, reqs)
	}

	row := runRow{ID: s.ID, Campaign: s.Campaign, Role: s.Role, Model: s.Model, Engine: s.Engine, Version: s.EngineVersion,
		GPU: s.GPU, Date: s.Date, Workload: workloadText(eff), Group: eff["group"], Sweep: eff["sweep.value"], Replica: eff["replica"],
		Repeat: eff["repeat"], Concurrency: eff["workload.concurrency"], Rate: eff["workload.request_rate"], Series: seriesID(eff),
		Requests: s.RequestCount, Publishable: s.Publishable}
	row.Throughput, row.ThroughputSource = shownFigure(d.view, "output_throughput")
	row.MedianLatency, row.LatencySource = shownFigure(d.view, "e2el.median")
	if row.Requests < 0 && d.view.Completion.Sent >= 0 {
		row.Requests = d.view.Completion.Sent
	}
	for _, f := range d.findings {
		switch f.Severity {
		case audit.Fail:
			row.Fails++
		case audit.Warn:
			row.Warns++
		}
	}

	for _, l := range b.locs {
		page, err := b.runPage(l, d)
		if err != nil {
			return manifestRun{}, err
		}
		buf := pageBuffers.Get().(*bytes.Buffer)
		buf.Grow(int(b.pageSize.Load()) + 1024) // the last page's size: no regrowing
		if L := b.escapedLabels(l.Tag(), b.labels(l)); b.tpl.goRun && L != nil && goWritable(page) {
			writeRunHTML(buf, L, page)
		} else {
			page.templateParts()
			if err := b.tpl.execute(buf, l.Tag(), b.labels(l), page.P, "run", page); err != nil {
				return manifestRun{}, err
			}
		}
		b.pageSize.Store(int64(buf.Len()))
		page.releaseCharts()
		runPageViews.Put(page) // written: nothing holds it
		rel := sitepath.InLang(l.Tag(), sitepath.Run(s.ID))
		b.writeRunFile(rel, buf)
		files = append(files, rel)
	}
	data, err := runDataScript(d)
	if err != nil {
		return manifestRun{}, err
	}
	b.addDataLine(s.ID, data)
	files = append(files, shardOf(s.ID))
	m := manifestRun{Key: key, Files: files, Row: row}
	m.MAC = rowMAC(b.siteKey, m)
	return m, nil
}

// requestPoints appends to points each request's place on the timeline
// (sent since the first send; a failed one without TTFT and latency), in
// the order of their sends, and to e2e the latencies of the completed ones.
func requestPoints(points []charts.RequestPoint, e2e []float64, reqs []benchrun.Request) ([]charts.RequestPoint, []float64) {
	first := math.Inf(1)
	for i := range reqs {
		first = math.Min(first, reqs[i].Start)
	}
	n := len(points)
	inOrder := true // sends known and never decreasing: the records' usual order
	for i := range reqs {
		q := &reqs[i]
		p := charts.RequestPoint{Send: q.Start - first, TTFT: q.TTFT, Latency: q.Latency}
		if q.Failed() {
			p.Latency, p.TTFT = math.NaN(), math.NaN()
		} else if benchrun.IsKnown(q.Latency) && q.Latency >= 0 {
			e2e = append(e2e, q.Latency)
		}
		if math.IsNaN(p.Send) || len(points) > n && p.Send < points[len(points)-1].Send {
			inOrder = false
		}
		points = append(points, p)
	}
	// slices' stable sort is sort.SliceStable's algorithm without its
	// reflection: the same order, NaN sends included. Points already in
	// order (without a NaN, which compares equal to every send) are the
	// order a stable sort leaves them in.
	if !inOrder {
		slices.SortStableFunc(points[n:], compareSends)
	}
	return points, e2e
}

// compareSends orders timeline points by send time (NaN equal to any).
func compareSends(a, b charts.RequestPoint) int {
	switch {
	case a.Send < b.Send:
		return -1
	case b.Send < a.Send:
		return 1
	}
	return 0
}

// runBuffers hold a run's chart points and latencies while its pages are
// made, used again for the next run.
type runBuffers struct {
	points []charts.RequestPoint
	e2e    []float64
}

var requestBuffers = sync.Pool{New: func() any { return new(runBuffers) }}

// shownFigure is the value of a run's figure a list shows, with where it
// comes from: recomputed from the records, or for a summary-only run the
// one its tool stated (never a stated value no run can produce).
func shownFigure(v *runview.View, metric string) (*float64, string) {
	for _, f := range v.Figures {
		if f.Metric != metric {
			continue
		}
		if f.Recomputed == nil && f.Stated != nil && f.Impossible == "" {
			return f.Stated, figures.SourceStated
		}
		if f.Recomputed != nil {
			return f.Recomputed, figures.SourceRecomputed
		}
	}
	return nil, ""
}

// rawFile writes the original bytes of a blob under raw/<sha256> unless a
// file of the right size is already there. The archive checks the SHA-256
// as it reads; a mismatch is reported, not written. The name has no
// extension, so no browser renders it (a result file may be HTML with a
// script around a console block): the page offers it for download under
// its original name.
func (b *builder) rawFile(sha, name string) (rawFile, error) {
	rel := "raw/" + sha
	rf := rawFile{Name: name, SHA256: sha, Href: rel, Size: b.blobSizes[sha]}
	if b.opt.NoRaw {
		rf.Href = ""
		return rf, nil
	}
	path := filepath.Join(b.out, filepath.FromSlash(rel))
	b.keepFile(rel)
	if fi, err := lstatInside(b.out, rel); err == nil && fi.Mode().IsRegular() && fi.Size() == rf.Size {
		b.unchanged.Add(1)
		return rf, nil
	}
	r, err := b.a.OpenBlob(sha)
	if err != nil {
		return rf, err
	}
	defer r.Close()
	err = b.files.WriteFrom(path, r)
	if errors.Is(err, store.ErrCorrupt) {
		b.mu.Lock()
		delete(b.keep, rel)
		b.mu.Unlock()
		rf.Corrupt = true
		return rf, nil
	}
	if err != nil {
		return rf, err
	}
	b.written.Add(1)
	return rf, nil
}

// runDataScript is the run as diff.html reads it: a line of script that
// hands its fields and figures to window.benchledgerRun (a script, not JSON
// fetched, because browsers refuse fetch() from file://). The JSON is
// json.Marshal's to the byte (jsonw), which escapes <, >, & and the line
// separators, so no value can end the script or the line. The id comes
// first (data.go finds lines by it).
func runDataScript(d *runData) ([]byte, error) {
	// The line is made in a buffer used again and kept at its own size
	// until its shard is written (a first guess at the size was short of
	// most lines and left them in buffers twice as long).
	b, err := appendRunData(scratchBuffer(), d)
	defer releaseBuffer(b)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// appendRunData appends runDataScript's line to b.
func appendRunData(b []byte, d *runData) ([]byte, error) {
	b = append(b, "benchledgerRun({\"id\":"...)
	b = jsonw.AppendString(b, d.rec.ID)
	b = append(b, `,"fields":`...)
	if d.eff == nil {
		b = append(b, "null"...)
	} else {
		var kb [64]string
		keys := kb[:0]
		for k := range d.eff {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonw.AppendString(b, k), ':')
			b = jsonw.AppendString(b, d.eff[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"figures":`...)
	if len(d.view.Figures) == 0 {
		b = append(b, "null"...)
	}
	var err error
	optional := func(b []byte, v *float64) []byte {
		if v == nil {
			return append(b, "null"...)
		}
		var e error
		if b, e = jsonw.AppendFloat(b, *v); e != nil {
			err = e
		}
		return b
	}
	for i, f := range d.view.Figures {
		if i == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = append(b, `{"metric":`...)
		b = jsonw.AppendString(b, f.Metric)
		b = append(b, `,"unit":`...)
		b = jsonw.AppendString(b, f.Unit)
		b = append(b, `,"recomputed":`...)
		b = optional(b, f.Recomputed)
		b = append(b, `,"stated":`...)
		b = append(optional(b, f.Stated), '}')
	}
	if len(d.view.Figures) > 0 {
		b = append(b, ']')
	}
	b = append(b, `,"publishable":`...)
	b = strconv.AppendBool(b, d.rec.Publishable)
	c := d.view.Completion
	b = append(b, `,"sent":`...)
	b = strconv.AppendInt(b, c.Sent, 10)
	b = append(b, `,"completed":`...)
	b = strconv.AppendInt(b, c.Completed, 10)
	b = append(b, `,"failed":`...)
	b = strconv.AppendInt(b, c.Failed, 10)
	b = append(b, `,"format":`...)
	b = jsonw.AppendString(b, d.view.Format)
	b = append(b, `,"sha256":`...)
	b = jsonw.AppendString(b, d.rec.BlobSHA256)
	b = append(b, "});"...)
	if err != nil {
		return b, fmt.Errorf("run %s: data for the diff page: %w", d.rec.ID, err)
	}
	return b, nil
}

// Views of a run page.
type (
	runPageView struct {
		P           *Page
		ID          string
		Sum         store.RunSummary
		V           *runview.View
		Files       []rawFileView
		Publishable string
		Completion  string
		HasRecords  bool
		Figures     []figureView
		Checks      string
		Disagree    []string
		Charts      []chartView
		Caveats     []caveatView
		Findings    []findingView
		Provenance  []provenanceView
		// FigureRows and ProvenanceRows are the two long tables' rows,
		// written by rows.go (each value escaped): one template action
		// each instead of several per row, which is most of a run page's
		// time. A template may range over Figures and Provenance instead.
		FigureRows, ProvenanceRows htmltemplate.HTML
		FindingRows, HistoryRows   htmltemplate.HTML
		// The same for the overview, files, charts and caveats, and the
		// line under the heading.
		OverviewRows, FileItems, ChartFigures, CaveatItems htmltemplate.HTML
		Subtitle                                           string
		// StatedBy heads the stated figures' column, naming the client.
		StatedBy string
		// FiguresNote says what the figures were computed over;
		// AuditScope what the audit findings cover.
		FiguresNote string
		AuditScope  htmltemplate.HTML
		History     []runview.HistoryRow
		Links       []linkView
	}
	rawFileView struct {
		Name, SHA256, Href, Size string
		Corrupt                  bool
	}
	figureView struct {
		Label, Metric, Recomputed, Stated, SourceKey, Definition string
	}
	chartView struct {
		// Kind names what the chart shows (data-chart-kind); Caption,
		// when set, says what is plotted and from which runs.
		ID, Kind, Title, Caption string
		Option                   htmltemplate.JS
		// raw is a run page's option as the chart made it, written as it
		// is by writeRunHTML; templateParts makes Option of it for a
		// template.
		raw []byte
	}
	caveatView struct {
		Code, Text string
	}
	// findingView is a finding; Text is its message in the page's
	// language, Message the CLI's English one (shown too when they differ).
	findingView struct {
		Check, Title, Severity, SeverityText, Text, Message string
	}
	provenanceView struct {
		Field, Label, Value, Sources string
	}
	linkView struct {
		Text, Href string
	}
)

func (b *builder) runPage(l locales.Locale, d *runData) (*runPageView, error) {
	msg := b.labels(l)
	v := d.view
	p := runPageViews.Get().(*runPageView)
	p.reset()
	p.P, p.ID, p.Sum, p.V, p.HasRecords = b.page(l, sitepath.Run(d.sum.ID), l.T("site.run.title", "id", d.sum.ID)), d.sum.ID, d.sum, v, len(d.points) > 0
	for _, f := range d.files {
		href := ""
		if f.Href != "" {
			href = p.P.Root + f.Href
		}
		p.Files = append(p.Files, rawFileView{Name: f.Name, SHA256: f.SHA256, Href: href,
			Size: l.Number(float64(f.Size), 0) + " B", Corrupt: f.Corrupt})
	}
	// The sentences most runs share (the same missing fields, the same
	// counts, client and window) are made once per language and build.
	if v.Publishable {
		p.Publishable = msg["yes"]
	} else {
		p.Publishable = b.repeated(l, textPublishable, strings.Join(v.Missing, "\x00"), func() string {
			return l.T("site.run.publishable_missing", "fields", l.List(v.Missing))
		})
	}
	count := func(n int64) string {
		if n < 0 {
			return l.T("value.unknown")
		}
		return l.Integer(int(n))
	}
	c := v.Completion
	var ck [4 * 21]byte // the four counts, as the key of their sentence
	key := ck[:0]
	for _, n := range []int64{c.Sent, c.Completed, c.Failed, c.Short} {
		key = append(strconv.AppendInt(key, n, 10), ',')
	}
	p.Completion = b.repeated(l, textCompletion, string(key), func() string {
		s := l.T("site.run.completion_text", "sent", count(c.Sent), "completed", count(c.Completed), "failed", count(c.Failed))
		if c.Short >= 0 {
			s += l.Punct()["sentence_sep"] + l.T("site.run.short_text", "short", count(c.Short))
		}
		return s
	})
	p.Figures = slices.Grow(p.Figures, len(v.Figures))
	for i, f := range v.Figures {
		p.Figures = append(p.Figures, figureView{Label: b.figureName(l, f.Metric), Metric: f.Metric,
			Recomputed: valueIn(l, f.Recomputed, f.Unit), Stated: valueIn(l, f.Stated, f.Unit), SourceKey: f.SourceKey, Definition: d.defs[i]})
	}
	p.StatedBy = b.repeated(l, textStatedBy, d.client, func() string { return l.T("site.col.stated_by", "client", d.client) })
	if len(v.StatedChecks) > 0 {
		bad := 0
		for _, sc := range v.StatedChecks {
			if !sc.OK {
				bad++
				p.Disagree = append(p.Disagree, fmt.Sprintf("%s: %s ≠ %s (%s)", sc.Metric, valueIn(l, runview.FinitePtr(sc.Stated), sc.Unit),
					valueIn(l, runview.FinitePtr(sc.Recomputed), sc.Unit), sc.Reason))
			}
		}
		p.Checks = l.T("site.run.stated_checks", "ok", l.Integer(len(v.StatedChecks)-bad), "bad", l.Integer(bad))
	}
	if err := b.runCharts(l, d, p); err != nil {
		return nil, err
	}
	for _, cv := range v.Caveats {
		text, err := l.Caveat(cv.Redact(b.opt.Redact))
		if err != nil {
			text = cv.Code
		}
		p.Caveats = append(p.Caveats, caveatView{Code: cv.Code, Text: text})
	}
	for _, f := range d.findings {
		text, _ := report.AuditMessage(l, f)
		p.Findings = append(p.Findings, findingView{Check: f.Check, Title: l.TOrEnglish("audit.check." + f.Check),
			Severity: f.Severity, SeverityText: l.T("audit.severity." + f.Severity), Text: b.redText(text), Message: b.redText(f.Message)})
	}
	groups := runview.GroupProvenance(v.Provenance)
	p.Provenance = slices.Grow(p.Provenance, len(groups))
	for _, g := range groups {
		p.Provenance = append(p.Provenance, provenanceView{Field: g.Field, Label: b.fieldLabel(l, g.Field), Value: g.Value, Sources: g.Sources})
	}
	p.History = v.History
	p.Subtitle = subtitle(d.sum)
	p.FiguresNote = b.repeated(l, textFiguresNote, v.WindowBasis+"\x00"+v.PercentileMethod+"\x00"+d.client, func() string {
		basis := l.Word("window_basis", v.WindowBasis)
		if m := v.PercentileMethod; m != "" && m != string(figures.MethodLinear) {
			return l.T("site.run.figures_note_method", "basis", basis, "method", l.Word("percentile_method", m), "client", d.client)
		}
		return l.T("site.run.figures_note", "basis", basis)
	})
	p.AuditScope = codeSpans(l.T("site.run.audit_scope", "id", d.sum.ID))
	for _, c := range d.links {
		p.Links = append(p.Links, linkView{Text: c.Case + " — " + c.Name, Href: p.P.Home + c.Href})
	}
	return p, nil
}

// templateParts makes the parts of a run page that writeRunHTML writes
// straight into the page and a template reads from the view: the charts'
// options as text, and the markup of the overview, files, figures, charts,
// caveats, findings, provenance and history.
func (p *runPageView) templateParts() {
	for i := range p.Charts {
		if c := &p.Charts[i]; c.raw != nil {
			c.Option, c.raw = htmltemplate.JS(c.raw), nil
		}
	}
	p.FigureRows, p.ProvenanceRows, p.ChartFigures = figureRows(p.Figures), provenanceRows(p.Provenance), chartFigures(p.Charts)
	p.FindingRows, p.HistoryRows = findingRows(p.Findings), historyRows(p.History)
	p.OverviewRows, p.FileItems, p.CaveatItems = overviewRows(p), fileItems(p), caveatItems(p.Caveats)
}

// runCharts adds the latency distribution and the per-request timeline.
func (b *builder) runCharts(l locales.Locale, d *runData, p *runPageView) error {
	msg := b.labels(l)
	secs := charts.Format{Decimals: -1, Fixed: func(v float64, dec int) string { return l.Number(v, max(dec, 0)) }}
	if len(d.e2e) > 0 {
		c, err := charts.AppendLatency(scratchBuffer(), "latency", d.e2e, charts.Labels{Title: msg["chart_latency_title"],
			XAxis: msg["chart_latency_x"], YAxis: msg["chart_latency_y"], Series: msg["chart_latency_y"]}, secs)
		if err != nil {
			return err
		}
		p.Charts = append(p.Charts, chartView{ID: c.ID, Kind: "histogram", Title: msg["chart_latency_title"], raw: c.Option})
	}
	if len(d.points) > 0 {
		lab := charts.Labels{Title: msg["chart_timeline_title"], XAxis: msg["chart_timeline_x"], YAxis: msg["chart_timeline_y"],
			Baseline: msg["chart_e2e"], Candidate: msg["chart_ttft"]}
		if len(d.points) > charts.MaxTimelinePoints {
			k := (len(d.points) + charts.MaxTimelinePoints - 1) / charts.MaxTimelinePoints
			lab.Subtitle = l.T("site.chart.sampled", "k", k, "n", l.Integer(len(d.points)))
		}
		c, _, err := charts.AppendRequestTimeline(scratchBuffer(), "timeline", d.points, lab)
		if errors.Is(err, charts.ErrNoData) {
			return nil
		}
		if err != nil {
			return err
		}
		p.Charts = append(p.Charts, chartView{ID: c.ID, Kind: "timeline", Title: msg["chart_timeline_title"], raw: c.Option})
	}
	return nil
}

// scratchBuffers hold what a run's pages are made of for a moment (its
// charts' options until the page is written, its data line until it is
// copied), used again for the next run: a run's timeline is several
// kilobytes.
var scratchBuffers sync.Pool // of *[]byte

// scratchBuffer is an empty buffer of scratchBuffers, or nil.
func scratchBuffer() []byte {
	if p, ok := scratchBuffers.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return nil
}

// releaseBuffer hands b, no longer read, back to scratchBuffers.
func releaseBuffer(b []byte) {
	if b != nil {
		scratchBuffers.Put(&b)
	}
}

// runPageViews are run pages' views used again: runPages drops a page's
// view once the page is written, and the next page's view keeps the
// room of its lists (the figures' and provenance rows were a run page's
// largest allocations after its charts).
var runPageViews = sync.Pool{New: func() any { return new(runPageView) }}

// reset empties p, keeping its lists' room.
func (p *runPageView) reset() {
	*p = runPageView{Files: p.Files[:0], Figures: p.Figures[:0], Disagree: p.Disagree[:0], Charts: p.Charts[:0],
		Caveats: p.Caveats[:0], Findings: p.Findings[:0], Provenance: p.Provenance[:0], Links: p.Links[:0]}
}

// releaseCharts hands the page's chart options, written out, back to
// scratchBuffers.
func (p *runPageView) releaseCharts() {
	for i := range p.Charts {
		releaseBuffer(p.Charts[i].raw)
		p.Charts[i].raw = nil
	}
}

// valueIn writes a figure in l's number style: seconds as ms below one
// second, rates whole from 100 up.
func valueIn(l locales.Locale, v *float64, unit string) string {
	if v == nil {
		return "–"
	}
	x := *v
	switch unit {
	case "s":
		if math.Abs(x) < 1 {
			return l.Quantity(x*1000, 2, "ms")
		}
		return l.Quantity(x, 3, "s")
	case "tok/s", "req/s", "tok/s/GPU":
		if math.Abs(x) >= 100 {
			return l.Quantity(x, 0, unit)
		}
		return l.Quantity(x, 2, unit)
	case "requests":
		return l.Number(x, 2)
	}
	return l.Number(x, 2) + " " + unit
}

// redactRun is a run as a redacted site shows it: every provenance value
// by its field, file names, and the history's actors and details as text.
// The records (numbers) are unchanged; rec itself is not modified.
func redactRun(r caveat.Redactor, rec *store.RunRecord, events []store.Event, companions []store.RunFile) (*store.RunRecord, []store.Event, []store.RunFile) {
	cp := *rec
	cp.Provenance = make([]provenance.Entry, len(rec.Provenance))
	for i, e := range rec.Provenance {
		e.Value = r.Field(e.Field, e.Value)
		cp.Provenance[i] = e
	}
	cp.FileName = r.Text(rec.FileName)
	evs := make([]store.Event, len(events))
	for i, ev := range events {
		ev.Actor, ev.Detail = r.Text(ev.Actor), r.Text(ev.Detail)
		evs[i] = ev
	}
	cs := make([]store.RunFile, len(companions))
	for i, c := range companions {
		c.FileName = r.Text(c.FileName)
		cs[i] = c
	}
	return &cp, evs, cs
}

func (b *builder) redText(s string) string {
	if b.opt.Redact == nil {
		return s
	}
	return b.opt.Redact.Text(s)
}

func (b *builder) redField(f, v string) string {
	if b.opt.Redact == nil || v == "" {
		return v
	}
	return b.opt.Redact.Field(f, v)
}
