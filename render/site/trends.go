package site

import (
	"crypto/sha256"
	"encoding/hex"
	htmltemplate "html/template"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/render/charts"
)

// Trends: runs of one configuration (figures.SeriesKey: every compared
// provenance field equal but the date and the engine version, or one
// labels.series) over dates and engine versions, each judged by the rule
// of figures.Trends (outside the min–max of the previous runs of its
// series). The series are found once per build from the runs table's rows,
// whose Series is the hash of the run's key, so no run is read again; a
// series is shown when its runs span more than one date or engine version.

// trendMetrics are the figures a trend page follows, as the runs table
// shows them.
var trendMetrics = []string{"output_throughput", "e2el.median"}

// seriesID is the short name of a configuration: the first 12 hex digits
// of the SHA-256 of its figures.SeriesKey (its page's name, the rows'
// Series).
func seriesID(eff map[string]string) string {
	sum := sha256.Sum256([]byte(figures.SeriesKey(eff)))
	return hex.EncodeToString(sum[:6])
}

// trendSeries is one configuration's runs, judged for each trend metric.
type trendSeries struct {
	ID string
	// Rows are the indices of its runs in the rows the series was found
	// in, in the series' order (date, engine version, run id).
	Rows []int
	// Judged holds each metric's point of each run, in the order of Rows
	// (a run without the figure has the zero point, with no RunID).
	Judged [2][]figures.TrendPoint
	Flags  int // points flagged, over both metrics
}

// point is the k-th run's point for metric m, if it has one.
func (ts *trendSeries) point(m, k int) (figures.TrendPoint, bool) {
	p := ts.Judged[m][k]
	return p, p.RunID != ""
}

// findTrends groups the rows into series of two runs or more that span
// more than one date or engine version (two measurements on one day of one
// version are repeats, not a trend).
func findTrends(rows []runRow) []*trendSeries {
	var byMetric [2][]figures.TrendSeries
	// The runs of a series share its one provenance (rows of 10,000 runs
	// made 20,000 maps).
	provs := map[string]map[string]string{}
	runs := make([]figures.TrendRun, 0, len(rows))
	for m := range trendMetrics {
		runs = runs[:0]
		for _, r := range rows {
			if r.Series == "" {
				continue
			}
			p := r.Throughput
			if m == 1 {
				p = r.MedianLatency
			}
			v := math.NaN()
			if p != nil {
				v = *p
			}
			prov := provs[r.Series]
			if prov == nil {
				prov = map[string]string{figures.SeriesField: r.Series}
				provs[r.Series] = prov
			}
			runs = append(runs, figures.TrendRun{RunID: r.ID, Date: r.Date, EngineVersion: r.Version, Value: v, Provenance: prov})
		}
		byMetric[m] = figures.Trends(runs, trendMetrics[m], figures.TrendRule{})
	}
	index := make(map[string]int, len(rows))
	for i, r := range rows {
		index[r.ID] = i
	}
	// A series' runs are those judged for either metric: each row is in
	// one series at most, so whether a row is in its series yet and its
	// place in the series' Rows are kept by row, not in maps per series.
	inSeries := make([]bool, len(rows))
	place := make([]int32, len(rows))
	series := map[string]*trendSeries{}
	var out []*trendSeries
	for _, ss := range byMetric {
		for _, s := range ss {
			ts := series[s.Key]
			if ts == nil {
				ts = &trendSeries{ID: strings.TrimPrefix(s.Key, "series:")}
				series[s.Key] = ts
				out = append(out, ts)
			}
			for _, p := range s.Points {
				if i := index[p.RunID]; !inSeries[i] {
					inSeries[i] = true
					ts.Rows = append(ts.Rows, i)
				}
			}
		}
	}
	kept := out[:0]
	for _, ts := range out {
		sort.Slice(ts.Rows, func(i, j int) bool {
			a, b := &rows[ts.Rows[i]], &rows[ts.Rows[j]]
			if a.Date != b.Date {
				return a.Date < b.Date
			}
			if c := figures.CompareVersions(a.Version, b.Version); c != 0 {
				return c < 0
			}
			return a.ID < b.ID
		})
		first := &rows[ts.Rows[0]]
		spans := false
		for k, i := range ts.Rows {
			place[i] = int32(k)
			spans = spans || rows[i].Date != first.Date || rows[i].Version != first.Version
		}
		ts.Judged = [2][]figures.TrendPoint{make([]figures.TrendPoint, len(ts.Rows)), make([]figures.TrendPoint, len(ts.Rows))}
		if spans {
			kept = append(kept, ts)
		}
	}
	for m, ss := range byMetric {
		for _, s := range ss {
			ts := series[s.Key]
			for _, p := range s.Points {
				ts.Judged[m][place[index[p.RunID]]] = p
				if p.Flagged {
					ts.Flags++
				}
			}
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].ID < kept[j].ID })
	return kept
}

// Views of the trend pages.
type (
	trendsView struct {
		P      *Page
		Rule   string
		Series []trendLink
	}
	trendLink struct {
		Href, Config, Runs, Dates, Versions, Flags string
	}
	trendView struct {
		P            *Page
		Config, Rule string
		Rows         []trendRow
		// RowsHTML is Rows written by rows.go: one template action instead
		// of nine per run.
		RowsHTML     htmltemplate.HTML
		Charts       []chartView
		ChartFigures htmltemplate.HTML
	}
	trendRow struct {
		ID, Href, Date, Version, Throughput, Latency, Range, Flag string
		Flagged                                                   bool
	}
)

// configText describes a series' configuration by what the runs table
// shows of its first run: model, engine, GPU, workload.
func configText(r runRow) string {
	var parts []string
	for _, s := range []string{r.Model, r.Engine, r.GPU, r.Workload} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// trendPages writes the list of trends and a page per series in one
// language.
func (b *builder) trendPages(l locales.Locale, rows []runRow) error {
	tag := l.Tag()
	rule := l.T("site.trends.rule", "n", l.Integer(figures.DefaultTrendWindow))
	tv := &trendsView{P: b.page(l, "trends.html", l.T("site.trends.title")), Rule: rule}
	for _, ts := range b.trends {
		first, last := rows[ts.Rows[0]], rows[ts.Rows[len(ts.Rows)-1]]
		versions := map[string]bool{}
		for _, i := range ts.Rows {
			if v := rows[i].Version; v != "" {
				versions[v] = true
			}
		}
		vs := sortedSet(versions)
		sort.SliceStable(vs, func(i, j int) bool { return figures.CompareVersions(vs[i], vs[j]) < 0 })
		dates := first.Date
		if last.Date != first.Date {
			dates += " – " + last.Date
		}
		tv.Series = append(tv.Series, trendLink{Href: "trend/" + ts.ID + ".html", Config: configText(first), Runs: l.Integer(len(ts.Rows)),
			Dates: dates, Versions: strings.Join(vs, ", "), Flags: l.Integer(ts.Flags)})
	}
	// The series' pages on every core: they are the last pages a full
	// build makes, after the pages over all runs.
	// A failure stops the others taking more, and the first series' in
	// order is the one reported, as when they were made one by one.
	errs := make([]error, len(b.trends))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(max(runtime.GOMAXPROCS(0), 1), len(b.trends)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(b.trends) && !failed.Load(); i = int(next.Add(1)) - 1 {
				if errs[i] = b.trendPage(l, b.trends[i], rows, rule); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return b.render(l, tag+"/trends.html", "trends", tv.P, tv)
}

// trendPage writes one series: its runs in order with both figures, each
// judged, and a chart of each figure.
func (b *builder) trendPage(l locales.Locale, ts *trendSeries, rows []runRow, rule string) error {
	rel := "trend/" + ts.ID + ".html"
	if b.pageUnchanged(l.Tag()+"/"+rel, b.trendKey(l, ts, rows, rule)) {
		return nil
	}
	first := rows[ts.Rows[0]]
	p := &trendView{P: b.page(l, rel, l.T("site.trend.title", "config", configText(first))), Config: configText(first), Rule: rule}
	msg := b.labels(l)
	// A point of each series and a row for every run, made at their size
	// once (NaN: a run without the figure; the flagged points are indexes
	// into them, nil when there are none).
	n := len(ts.Rows)
	labels := make([]string, 0, n)
	values := [2][]float64{make([]float64, 0, n), make([]float64, 0, n)}
	var flagged [2][]int
	// The texts every flagged run of a figure repeats, made once a page:
	// the figures' names, and "name: outside (worse)" or "(better)".
	names := [2]string{b.figureName(l, trendMetrics[0]), b.figureName(l, trendMetrics[1])}
	var flagTexts [2][2]string
	flagText := func(m int, better bool) string {
		w := 0
		if better {
			w = 1
		}
		if flagTexts[m][w] == "" {
			way := l.T("site.cmp.worse")
			if better {
				way = l.T("site.cmp.better")
			}
			flagTexts[m][w] = l.Colon(names[m], l.Paren(l.T("site.trends.outside"), way))
		}
		return flagTexts[m][w]
	}
	p.Rows = make([]trendRow, 0, n)
	for k, i := range ts.Rows {
		r := rows[i]
		row := trendRow{ID: r.ID, Href: p.P.Home + "run/" + r.ID + ".html", Date: r.Date, Version: r.Version, Throughput: "–", Latency: "–"}
		if r.Throughput != nil {
			row.Throughput = l.Number(*r.Throughput, 0) // in tok/s, as the heading says
		}
		if r.MedianLatency != nil {
			row.Latency = l.Number(*r.MedianLatency, 3) // in seconds, as the heading says
		}
		label := strings.TrimSpace(r.Date[:min(len(r.Date), 10)] + " " + r.Version) // the day is enough on an axis
		labels = append(labels, label)
		var ranges, flags []string
		for m := range trendMetrics {
			pt, ok := ts.point(m, k)
			if !ok {
				values[m] = append(values[m], math.NaN())
				continue
			}
			values[m] = append(values[m], round6(pt.Value))
			if !pt.Judged {
				continue
			}
			lo, hi := l.Quantity(pt.Min, 0, "tok/s"), l.Quantity(pt.Max, 0, "tok/s")
			if m == 1 {
				vs := valuesIn(l, "s", pt.Min, pt.Max)
				lo, hi = vs[0], vs[1]
			}
			ranges = append(ranges, l.Colon(names[m], lo+" – "+hi))
			if pt.Flagged {
				row.Flagged = true
				flags = append(flags, flagText(m, pt.Better != nil && *pt.Better))
				flagged[m] = append(flagged[m], k)
			}
		}
		row.Range, row.Flag = l.List(ranges), l.List(flags)
		p.Rows = append(p.Rows, row)
	}
	// Both options are written in one scratch buffer, each copied out as
	// the view's text.
	buf := scratchBuffer()
	defer func() { releaseBuffer(buf) }()
	for m := range trendMetrics {
		name := names[m]
		unit := "tok/s"
		if m == 1 {
			unit = "s"
		}
		c, err := charts.AppendTrend(buf, "trend-"+strconv.Itoa(m), labels, values[m], flagged[m],
			charts.Labels{Title: name, Flagged: msg["trends_flagged"], XAxis: msg["trends_x"], YAxis: l.Paren(name, unit)})
		if err != nil {
			return err
		}
		buf = c.Option
		p.Charts = append(p.Charts, chartView{ID: c.ID, Kind: "trend", Title: name, Option: htmltemplate.JS(c.Option),
			Caption: l.T("site.trends.caption", "metric", name, "runs", l.Integer(len(ts.Rows)))})
	}
	p.ChartFigures, p.RowsHTML = chartFigures(p.Charts), trendRows(p.Rows)
	// Made in a buffer with room for the page: the rows and charts and
	// 16 KB of the rest (it grew five or six times for each of a big
	// site's pages).
	return b.renderSized(l, l.Tag()+"/"+rel, "trend", p.P, p, len(p.ChartFigures)+len(p.RowsHTML)+16<<10)
}

// trendKey is everything a trend page is made of besides what every page
// is (builder.pagesKey): the language, the rule, and each of its runs'
// rows and judged points.
func (b *builder) trendKey(l locales.Locale, ts *trendSeries, rows []runRow, rule string) string {
	h := sha256.New()
	h.Write(b.pagesKey())
	buf := make([]byte, 0, 256)
	buf = append(buf, "trend "+ts.ID+"\nlang "+l.Tag()+"\nrule "+rule+"\n"...)
	num := func(buf []byte, v float64) []byte { return strconv.AppendFloat(append(buf, ' '), v, 'g', -1, 64) }
	optional := func(buf []byte, v *float64) []byte {
		if v == nil {
			return append(buf, " -"...)
		}
		return num(buf, *v)
	}
	for k, i := range ts.Rows {
		r := &rows[i]
		buf = appendQuoteJoined(buf, "\x00", r.ID, r.Date, r.Version, r.Model, r.Engine, r.GPU, r.Workload)
		buf = optional(optional(buf, r.Throughput), r.MedianLatency)
		for m := range trendMetrics {
			pt, ok := ts.point(m, k)
			if !ok {
				buf = append(buf, " none"...)
				continue
			}
			buf = num(num(num(buf, pt.Value), pt.Min), pt.Max)
			buf = append(buf, ' ')
			buf = strconv.AppendBool(buf, pt.Judged)
			buf = append(buf, ' ')
			buf = strconv.AppendBool(buf, pt.Flagged)
			switch {
			case pt.Better == nil:
				buf = append(buf, " -"...)
			case *pt.Better:
				buf = append(buf, " better"...)
			default:
				buf = append(buf, " worse"...)
			}
		}
		buf = append(buf, '\n')
		h.Write(buf)
		buf = buf[:0]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// appendQuoteJoined appends strconv.Quote(strings.Join(parts, sep)) without
// making the joined string (a trend page's key quotes one for each of its
// runs): Quote escapes rune by rune, and an ASCII sep ends any rune before
// it, so the quoted parts joined by the quoted sep are the same bytes.
func appendQuoteJoined(b []byte, sep string, parts ...string) []byte {
	b = append(b, '"')
	for i, s := range parts {
		if i > 0 {
			b = appendQuoted(b, sep)
		}
		b = appendQuoted(b, s)
	}
	return append(b, '"')
}

// appendQuoted is strconv.AppendQuote without the quotes: printable ASCII
// other than a quote or backslash, which it writes as it is, is copied at
// once (the fields of most runs are all of it).
func appendQuoted(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
	}
	if plain {
		return append(b, s...)
	}
	start := len(b)
	b = strconv.AppendQuote(b, s)
	n := copy(b[start:], b[start+1:len(b)-1])
	return b[:start+n]
}

// round6 keeps six significant decimals of a chart's value: the page stays
// small, and no chart can show more.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
