package figures

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestTrends(t *testing.T) {
	t.Parallel()
	prov := func(version, date string) map[string]string {
		return map[string]string{"hardware.gpu_model": "H100", "hardware.gpu_count": "1", "runtime.engine": "vllm",
			"runtime.version": version, "runtime.image": "vllm/vllm-openai:v" + version, "measurement.date": date, "workload.concurrency": "64"}
	}
	run := func(id, version, date string, v float64) TrendRun {
		return TrendRun{RunID: id, Date: date, EngineVersion: version, Value: v, Provenance: prov(version, date)}
	}
	other := run("x", "0.9.0", "2026-01-01", 1)
	other.Provenance["workload.concurrency"] = "128.0" // another configuration
	same := run("s", "0.9.0", "2026-01-01", 100)
	same.Provenance["workload.concurrency"] = "64.0" // the same number
	runs := []TrendRun{
		run("e", "0.10.1", "2026-03-01", 90),  // previous s, b, d: 100–102: below, worse
		run("d", "0.10.0", "2026-02-01", 101), // previous a, s, b: 98–102: within
		run("b", "0.9.1", "2026-01-15", 102),
		run("a", "0.9.0", "2026-01-01", 98),
		same,
		other,
		run("f", "0.10.2", "2026-03-01", 100), // same date as e, later version; previous b, d, e: 90–102
		run("g", "0.11.0", "2026-04-01", 110), // previous d, e, f: 90–101: above, better
	}
	ss := Trends(runs, "output_throughput", TrendRule{})
	if len(ss) != 1 {
		t.Fatalf("%d series, want 1 (the other configuration has one run)", len(ss))
	}
	s := ss[0]
	var ids []string
	for _, p := range s.Points {
		ids = append(ids, p.RunID)
	}
	if !slices.Equal(ids, []string{"a", "s", "b", "d", "e", "f", "g"}) {
		t.Errorf("order %v", ids)
	}
	if got := s.Flagged(); !slices.Equal(got, []int{4, 6}) {
		t.Errorf("flagged %v, want [4 6]", got)
	}
	if d := s.Points[3]; !d.Judged || d.Min != 98 || d.Max != 102 || d.Flagged {
		t.Errorf("d %+v", d)
	}
	if e := s.Points[4]; e.Min != 100 || e.Max != 102 || e.Better == nil || *e.Better {
		t.Errorf("e (a drop in throughput) %+v", e)
	}
	if g := s.Points[6]; g.Better == nil || !*g.Better {
		t.Errorf("g (a rise in throughput) %+v", g)
	}
	if s.Points[2].Judged {
		t.Error("judged with fewer than three previous runs")
	}
	// A lower-is-better metric: the same drop is better.
	if l := Trends(runs, "ttft.median", TrendRule{})[0].Points[4]; l.Better == nil || !*l.Better {
		t.Errorf("latency drop %+v", l)
	}
	// A window of 1: every change from the run before is flagged.
	if got := Trends(runs, "output_throughput", TrendRule{Window: 1})[0].Flagged(); len(got) != 6 {
		t.Errorf("window 1 flagged %v", got)
	}
	// A named series puts runs of other configurations together.
	other.Provenance[SeriesField], same.Provenance[SeriesField] = "nightly", "nightly"
	if ss := Trends([]TrendRun{other, same}, "output_throughput", TrendRule{}); len(ss) != 1 || ss[0].Key != "series:nightly" {
		t.Errorf("named series %+v", ss)
	}
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{{"0.9.2", "0.10.1", -1}, {"v0.10.0", "0.10.0", 0}, {"0.10", "0.10.1", -1}, {"", "0.1", -1}, {"0.10.0rc1", "0.10.0rc2", -1}} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// compareVersionsRef is CompareVersions as it was written with
// strings.FieldsFunc, the reference the in-place parts must match.
func compareVersionsRef(a, b string) int {
	a, b = strings.TrimPrefix(a, "v"), strings.TrimPrefix(b, "v")
	pa, pb := strings.FieldsFunc(a, isVersionSep), strings.FieldsFunc(b, isVersionSep)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errx := strconv.Atoi(pa[i])
		y, erry := strconv.Atoi(pb[i])
		var c int
		if errx == nil && erry == nil {
			c = cmp.Compare(x, y)
		} else {
			c = strings.Compare(pa[i], pb[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(pa), len(pb))
}

// TestCompareVersionsMatchesRef: random versions of numbers, words,
// separators (doubled, leading, trailing), signs, huge numbers and
// non-ASCII text compare as the FieldsFunc version compares them.
func TestCompareVersionsMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"0", "1", "9", "10", "007", "99999999999999999999", "a", "rc", "post", "v", ".", "-", "+", "..", "é", "１", " ", "_"}
	version := func() string {
		var sb strings.Builder
		for range rng.IntN(7) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return sb.String()
	}
	for range 100000 {
		a, b := version(), version()
		if got, want := CompareVersions(a, b), compareVersionsRef(a, b); got != want {
			t.Fatalf("CompareVersions(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { CompareVersions("v0.10.1-rc1", "0.10.1-post1") }); n != 0 {
		t.Errorf("CompareVersions allocates %v times", n)
	}
}

// trendsRef is Trends as it was written, sorting the runs themselves:
// the reference the sort by index must match.
func trendsRef(runs []TrendRun, metric string, rule TrendRule) []TrendSeries {
	if rule.Window <= 0 {
		rule.Window = DefaultTrendWindow
	}
	dir := DirectionOf(metric)
	by := map[string][]TrendRun{}
	for _, r := range runs {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			continue
		}
		k := SeriesKey(r.Provenance)
		by[k] = append(by[k], r)
	}
	var out []TrendSeries
	for _, k := range slices.Sorted(maps.Keys(by)) {
		rs := by[k]
		if len(rs) < 2 {
			continue
		}
		slices.SortStableFunc(rs, func(a, b TrendRun) int {
			return cmp.Or(strings.Compare(a.Date, b.Date), compareVersionsRef(a.EngineVersion, b.EngineVersion), strings.Compare(a.RunID, b.RunID))
		})
		s := TrendSeries{Key: k, Metric: metric, Rule: rule}
		for i, r := range rs {
			p := TrendPoint{TrendRun: r}
			if i >= rule.Window {
				prev := rs[i-rule.Window : i]
				p.Judged, p.Min, p.Max = true, math.Inf(1), math.Inf(-1)
				for _, q := range prev {
					p.Min, p.Max = math.Min(p.Min, q.Value), math.Max(p.Max, q.Value)
				}
				if r.Value < p.Min || r.Value > p.Max {
					p.Flagged = true
					ref := p.Max
					if r.Value < p.Min {
						ref = p.Min
					}
					p.Better = Better(ref, r.Value, dir)
				}
			}
			s.Points = append(s.Points, p)
		}
		out = append(out, s)
	}
	return out
}

// TestTrendsMatchesRef: series of runs on few dates and versions (those
// that order in a cycle, "0.6.4" < "0.6.10" < "0.6.3rc1" < "0.6.4", too),
// with missing values, under windows of several sizes, are judged and
// ordered as the runs sorted themselves were.
func TestTrendsMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	versions := []string{"0.6.4", "0.6.10", "0.6.3rc1", "v0.7.0", "0.7.0", "", "0.6.3.post1"}
	for round := range 200 {
		runs := make([]TrendRun, rng.IntN(200))
		for i := range runs {
			v := rng.NormFloat64()*10 + 100
			if rng.IntN(15) == 0 {
				v = math.NaN()
			}
			runs[i] = TrendRun{RunID: strconv.Itoa(rng.IntN(1 << 20)), Date: "2026-01-0" + strconv.Itoa(1+rng.IntN(3)),
				EngineVersion: versions[rng.IntN(len(versions))], Value: v,
				Provenance: map[string]string{SeriesField: strconv.Itoa(rng.IntN(4))}}
		}
		for _, metric := range []string{"output_throughput", "e2el.median"} {
			rule := TrendRule{Window: round % 6}
			got := Trends(slices.Clone(runs), metric, rule)
			want := trendsRef(slices.Clone(runs), metric, rule)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d %s:\ngot  %+v\nwant %+v", round, metric, got, want)
			}
		}
	}
}
