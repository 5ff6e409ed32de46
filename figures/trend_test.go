package figures

import (
	"slices"
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
