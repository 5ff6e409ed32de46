package site

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/store"
)

// TestAppendQuoteJoinedMatchesQuote: the parts quoted one by one are the
// quoted joined text, for texts of any bytes (invalid UTF-8 at a part's
// ends, runes of every width, quotes, backslashes, control characters).
func TestAppendQuoteJoinedMatchesQuote(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "\x00", "\"", "\\", "\n", "\x7f", "é", "日", "😀", "\xe6", "\x97", "\xf0\x9f", "\u2028", "\ufffd", " "}
	b := []byte("prefix ")
	for range 20000 {
		parts := make([]string, rng.IntN(8))
		for i := range parts {
			var sb strings.Builder
			for range rng.IntN(6) {
				sb.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			parts[i] = sb.String()
		}
		got := appendQuoteJoined(b[:7], "\x00", parts...)
		if want := "prefix " + strconv.Quote(strings.Join(parts, "\x00")); string(got) != want {
			t.Fatalf("%q:\ngot  %s\nwant %s", parts, got, want)
		}
		b = got
	}
}

// trendRows are n runs in 70 series over dates and engine versions, as a
// 10,000-run archive's are, with a figure missing now and then.
func trendTestRows(n int) []runRow {
	rng := rand.New(rand.NewPCG(7, 8))
	versions := []string{"0.6.3", "0.6.3.post1", "v0.7.0", "0.8.1", "0.10.1", "0.10.1-rc1", ""}
	rows := make([]runRow, n)
	for i := range rows {
		tp, lat := 1000+rng.Float64()*500, 2+rng.Float64()
		r := runRow{ID: strconv.FormatUint(rng.Uint64(), 16), Date: "2026-0" + strconv.Itoa(1+rng.IntN(9)) + "-1" + strconv.Itoa(rng.IntN(10)),
			Version: versions[rng.IntN(len(versions))], Model: "m", Engine: "vllm", GPU: "H100", Workload: "1024/128",
			Series: strconv.Itoa(1000 + rng.IntN(70)), Throughput: &tp, MedianLatency: &lat}
		switch rng.IntN(20) {
		case 0:
			r.Throughput = nil
		case 1:
			r.MedianLatency = nil
		case 2:
			r.Series = ""
		}
		rows[i] = r
	}
	return rows
}

// BenchmarkFindTrends: the series of 10,000 runs.
func BenchmarkFindTrends(b *testing.B) {
	rows := trendTestRows(10000)
	b.ReportAllocs()
	for b.Loop() {
		if ts := findTrends(rows); len(ts) != 70 {
			b.Fatalf("%d series", len(ts))
		}
	}
}

// findTrendsRef is findTrends as it was written with maps by run id, the
// reference the rows' slices must match: each series' id, runs in order,
// points by run id and count of flags.
func findTrendsRef(rows []runRow) (ids []string, order [][]int, judged []map[string]figures.TrendPoint, flags []int) {
	var byMetric [2][]figures.TrendSeries
	for m := range trendMetrics {
		var runs []figures.TrendRun
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
			runs = append(runs, figures.TrendRun{RunID: r.ID, Date: r.Date, EngineVersion: r.Version, Value: v, Provenance: map[string]string{figures.SeriesField: r.Series}})
		}
		byMetric[m] = figures.Trends(runs, trendMetrics[m], figures.TrendRule{})
	}
	index := map[string]int{}
	for i, r := range rows {
		index[r.ID] = i
	}
	type series struct {
		id     string
		rows   []int
		judged [2]map[string]figures.TrendPoint
		flags  int
	}
	byKey := map[string]*series{}
	var all []*series
	for m, ss := range byMetric {
		for _, s := range ss {
			ts := byKey[s.Key]
			if ts == nil {
				ts = &series{id: strings.TrimPrefix(s.Key, "series:"), judged: [2]map[string]figures.TrendPoint{{}, {}}}
				byKey[s.Key] = ts
				all = append(all, ts)
			}
			for _, p := range s.Points {
				ts.judged[m][p.RunID] = p
				if p.Flagged {
					ts.flags++
				}
			}
		}
	}
	var kept []*series
	for _, ts := range all {
		seen := map[string]bool{}
		for m := range ts.judged {
			for id := range ts.judged[m] {
				if !seen[id] {
					seen[id] = true
					ts.rows = append(ts.rows, index[id])
				}
			}
		}
		sort.Slice(ts.rows, func(i, j int) bool {
			a, b := rows[ts.rows[i]], rows[ts.rows[j]]
			if a.Date != b.Date {
				return a.Date < b.Date
			}
			if c := figures.CompareVersions(a.Version, b.Version); c != 0 {
				return c < 0
			}
			return a.ID < b.ID
		})
		points := map[string]bool{}
		for _, i := range ts.rows {
			points[rows[i].Date+"\x00"+rows[i].Version] = true
		}
		if len(points) > 1 {
			kept = append(kept, ts)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].id < kept[j].id })
	for _, ts := range kept {
		ids, order, flags = append(ids, ts.id), append(order, ts.rows), append(flags, ts.flags)
		judged = append(judged, ts.judged[0], ts.judged[1])
	}
	return ids, order, judged, flags
}

// TestFindTrendsMatchesRef: the series found, their runs' order, each
// run's points and the flags are the map version's, for archives of
// series with runs missing a figure, runs of one day and version only,
// series of one run and runs in no series.
func TestFindTrendsMatchesRef(t *testing.T) {
	for _, n := range []int{0, 1, 2, 30, 500, 3000} {
		rows := trendTestRows(n)
		if n == 30 { // few runs a series: some of one day and version, some of one run
			for i := range rows {
				rows[i].Date, rows[i].Version = "2026-01-01", "0.6.3"
			}
			rows[0].Date = "2026-02-01"
		}
		got := findTrends(rows)
		ids, order, judged, flags := findTrendsRef(rows)
		if len(got) != len(ids) {
			t.Fatalf("n=%d: %d series, want %d", n, len(got), len(ids))
		}
		for s, ts := range got {
			if ts.ID != ids[s] || !slices.Equal(ts.Rows, order[s]) || ts.Flags != flags[s] {
				t.Fatalf("n=%d series %d: %s %v %d flags, want %s %v %d", n, s, ts.ID, ts.Rows, ts.Flags, ids[s], order[s], flags[s])
			}
			for m := range trendMetrics {
				want := judged[2*s+m]
				count := 0
				for k, i := range ts.Rows {
					p, ok := ts.point(m, k)
					w, wok := want[rows[i].ID]
					if ok != wok || !reflect.DeepEqual(p, w) {
						t.Fatalf("n=%d series %s metric %d run %s: %+v %v, want %+v %v", n, ts.ID, m, rows[i].ID, p, ok, w, wok)
					}
					if ok {
						count++
					}
				}
				if count != len(want) {
					t.Fatalf("n=%d series %s metric %d: %d points, want %d", n, ts.ID, m, count, len(want))
				}
			}
		}
	}
}

// BenchmarkOrderRuns: 10,000 runs put in the order the runs page lists
// them.
func BenchmarkOrderRuns(b *testing.B) {
	rows := trendTestRows(10000)
	for i := range rows {
		r := &rows[i]
		r.Campaign, r.Role, r.Group = "c"+strconv.Itoa(i%7), []string{"baseline", "tuned", "", "reference"}[i%4], "g"+strconv.Itoa(i%5)
		r.Concurrency, r.Replica = strconv.Itoa(1<<(i%8)), strconv.Itoa(1+i%3)+"/3"
	}
	summaries := make([]store.RunSummary, len(rows))
	shuffled := make([]runRow, len(rows))
	b.ReportAllocs()
	for b.Loop() {
		copy(shuffled, rows)
		orderRuns(summaries, shuffled)
	}
}

// BenchmarkRunRowViews: the runs table's views of 10,000 runs in English.
func BenchmarkRunRowViews(b *testing.B) {
	rows := trendTestRows(10000)
	for i := range rows {
		rows[i].Concurrency, rows[i].Replica = strconv.Itoa(1<<(i%8)), strconv.Itoa(1+i%3)+"/3"
	}
	l := locales.MustMatch("en")
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range rows {
			_ = runRowViewOf(l, r)
		}
	}
}
