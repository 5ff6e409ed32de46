package figures

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// impossibleStatedRef is ImpossibleStated as it was written first, over a
// map of the stated figures: the reference the one without maps must match
// finding for finding, in order.
func impossibleStatedRef(r *benchrun.Run) []Impossible {
	var out []Impossible
	add := func(s benchrun.Stated, why string, args ...any) {
		out = append(out, Impossible{Metric: s.Metric, Key: s.SourceKey, Value: s.Value, Unit: s.Unit, Reason: fmt.Sprintf(why, args...)})
	}
	stated := make(map[string]benchrun.Stated, len(r.Stated))
	for _, s := range r.Stated {
		if _, dup := stated[s.Metric]; !dup {
			stated[s.Metric] = s
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

	if d, ok := stated["duration"]; ok {
		if finite(d.Value) && d.Value <= 0 {
			add(d, "a run cannot last %s s: a duration must be positive (a value below the smallest float, such as 1e-400, reads as 0)", fmtNum(d.Value))
		}
	} else {
		for _, k := range []string{"duration", "duration_s", "benchmark_duration"} {
			switch strings.Trim(r.Extra[k], `"`) {
			case "NaN", "Infinity", "-Infinity", "nan", "inf", "-inf":
				out = append(out, Impossible{Metric: "duration", Key: k, Value: math.NaN(), Unit: "s",
					Reason: fmt.Sprintf("the file states the duration as %s: a run's duration must be a finite positive number", r.Extra[k])})
			}
		}
	}
	for _, fam := range latencyFamilies[:] {
		for _, s := range r.Stated {
			if f, _, _ := strings.Cut(s.Metric, "."); f == fam && finite(s.Value) && s.Value < 0 {
				add(s, "a latency cannot be negative")
			}
		}
	}
	for _, m := range statedRates {
		if s, ok := stated[m]; ok && finite(s.Value) && s.Value < 0 {
			add(s, "a rate cannot be negative")
		}
	}
	// The offered load the file states (vLLM's request_rate, a fact of the
	// run): "inf" is "all at once", a negative rate is no load at all.
	for _, k := range []string{"workload.request_rate", "workload.concurrency"} {
		if v, err := strconv.ParseFloat(strings.TrimSpace(r.Facts[k]), 64); err == nil && v < 0 {
			out = append(out, Impossible{Metric: strings.TrimPrefix(k, "workload."), Key: k, Value: v, Unit: map[string]string{"workload.request_rate": "req/s", "workload.concurrency": "requests"}[k],
				Reason: "the file states a negative offered load: a rate or concurrency cannot be negative"})
		}
	}
	for _, m := range statedCounts {
		if s, ok := stated[m]; ok && finite(s.Value) && s.Value < 0 {
			add(s, "a count cannot be negative")
		}
	}
	for _, fam := range latencyFamilies[:] {
		out = append(out, outOfOrderRef(fam, stated)...)
	}
	tput, okT := stated["output_throughput"]
	total, okA := stated["total_token_throughput"]
	if okT && okA && finite(tput.Value) && finite(total.Value) && total.Value >= 0 && tput.Value >= 0 &&
		total.Value < tput.Value-relSlack(tput.Value, total.Value) {
		add(total, "total token throughput %s tok/s is below the output throughput %s tok/s, which it includes", fmtNum(total.Value), fmtNum(tput.Value))
	}
	if toks, ok := stated["total_output_tokens"]; ok && okT && toks.Value == 0 && tput.Value > 0 {
		add(tput, "output throughput %s tok/s over 0 output tokens: tokens / duration cannot give it", fmtNum(tput.Value))
	}
	if c, ok := stated["completed"]; ok && c.Value == 0 {
		if rq, ok := stated["request_throughput"]; ok && rq.Value > 0 {
			add(rq, "request throughput %s req/s with 0 completed requests: completed / duration cannot give it", fmtNum(rq.Value))
		}
	}
	return out
}

// outOfOrder checks the order of a family's stated statistics.
func outOfOrderRef(fam string, stated map[string]benchrun.Stated) []Impossible {
	type point struct {
		p float64
		s benchrun.Stated
	}
	var pts []point
	for m, s := range stated {
		f, stat, ok := strings.Cut(m, ".")
		if !ok || f != fam || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			continue
		}
		switch {
		case stat == "median":
			pts = append(pts, point{50, s})
		case stat == "min":
			pts = append(pts, point{0, s})
		case stat == "max":
			pts = append(pts, point{100, s})
		case strings.HasPrefix(stat, "p"):
			if p, err := strconv.ParseFloat(stat[1:], 64); err == nil && p > 0 && p < 100 {
				pts = append(pts, point{p, s})
			}
		}
	}
	slices.SortFunc(pts, func(a, b point) int {
		if a.p != b.p {
			return cmpFloat(a.p, b.p)
		}
		return strings.Compare(a.s.Metric, b.s.Metric)
	})
	var out []Impossible
	for i := 1; i < len(pts); i++ {
		lo, hi := pts[i-1], pts[i]
		if hi.s.Value < lo.s.Value-relSlack(lo.s.Value, hi.s.Value)*1e-3 {
			out = append(out, Impossible{Metric: hi.s.Metric, Key: hi.s.SourceKey, Value: hi.s.Value, Unit: hi.s.Unit,
				Reason: fmt.Sprintf("%s (%s %s) is below %s (%s %s): percentiles cannot decrease", hi.s.Metric, fmtNum(hi.s.Value), hi.s.Unit,
					lo.s.Metric, fmtNum(lo.s.Value), lo.s.Unit)})
		}
	}
	if mean, ok := stated[fam+".mean"]; ok && len(pts) > 0 {
		lo, hi := pts[0], pts[len(pts)-1]
		if lo.p == 0 && mean.Value < lo.s.Value-relSlack(mean.Value, lo.s.Value)*1e-3 ||
			hi.p == 100 && mean.Value > hi.s.Value+relSlack(mean.Value, hi.s.Value)*1e-3 {
			out = append(out, Impossible{Metric: mean.Metric, Key: mean.SourceKey, Value: mean.Value, Unit: mean.Unit,
				Reason: fmt.Sprintf("the mean %s %s lies outside the stated minimum and maximum", fmtNum(mean.Value), mean.Unit)})
		}
	}
	return out
}

// TestImpossibleStatedMatchesRef: over runs with metrics stated twice,
// non-finite and negative values, percentiles in and out of order, means
// outside min and max and odd offered loads, ImpossibleStated gives the
// reference's findings in the reference's order.
func TestImpossibleStatedMatchesRef(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 4))
	metrics := []string{"duration", "completed", "failed", "total_output_tokens", "total_input_tokens", "output_throughput",
		"total_token_throughput", "input_throughput", "request_throughput", "max_output_tokens_per_s", "ttft", "num_prompts"}
	for _, fam := range latencyFamilies {
		for _, st := range []string{"mean", "median", "std", "min", "max", "p50", "p90", "p99", "p99.9", "p0", "p100", "px", "p"} {
			metrics = append(metrics, fam+"."+st)
		}
	}
	values := []float64{0, -1, 0.5, 1, 2, 3, 100, math.NaN(), math.Inf(1), math.Inf(-1), 1e-9}
	facts := []string{"", "inf", "-inf", "-2", " -0.5 ", "4", "-0", "x", "-x"}
	extras := []string{"", "NaN", `"inf"`, "3"}
	found := 0
	for i := range 20000 {
		r := &benchrun.Run{Facts: map[string]string{"workload.request_rate": facts[rng.IntN(len(facts))],
			"workload.concurrency": facts[rng.IntN(len(facts))]}, Extra: map[string]string{"duration_s": extras[rng.IntN(len(extras))]}}
		for range rng.IntN(30) {
			m := metrics[rng.IntN(len(metrics))]
			r.Stated = append(r.Stated, benchrun.Stated{Metric: m, Value: values[rng.IntN(len(values))], Unit: "s", SourceKey: m + strconv.Itoa(rng.IntN(3))})
		}
		got, want := fmt.Sprintf("%+v", ImpossibleStated(r)), fmt.Sprintf("%+v", impossibleStatedRef(r))
		if got != want {
			t.Fatalf("run %d %+v:\n got %s\nwant %s", i, r, got, want)
		}
		if want != "[]" {
			found++
		}
	}
	if found < 1000 {
		t.Errorf("only %d of the runs have impossible figures", found)
	}
}

// TestReasonsMatchFmt: the reasons CheckStated writes without fmt read as
// the fmt verbs they replace, for ordinary, tiny, huge and non-finite values.
func TestReasonsMatchFmt(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 21))
	vals := []float64{0, 1, -1, 0.1, 123.456789, 1e-9, 1e21, 12345678, math.NaN(), math.Inf(1), math.Inf(-1)}
	for range 2000 {
		vals = append(vals, (rng.Float64()-0.2)*math.Pow(10, float64(rng.IntN(30)-15)))
	}
	for i, w := range vals {
		d, v := vals[(i*7+3)%len(vals)], vals[(i*13+5)%len(vals)]
		want := fmt.Sprintf("over the records' window (%.6g s instead of %.6g s) it is %.6g %s; the windows differ by definition", w, d, v, "tok/s")
		if got := overRecordsWindow(w, d, v, "tok/s"); got != want {
			t.Fatalf("got %q\nwant %q", got, want)
		}
		if !(w > 0) || !(d > 0) || math.IsInf(w, 0) || math.IsInf(d, 0) || w+d == w {
			continue
		}
		c := StatedCheck{Metric: "duration", Unit: "s", Stated: w + d, Recomputed: w}
		judge(&c, benchrun.Stated{Metric: "duration", Unit: "s"}, false)
		want = fmt.Sprintf("longer than the records' window by %.6g s (%.3g%%), by definition", c.Stated-c.Recomputed, (c.Stated-c.Recomputed)/c.Recomputed*100)
		if !c.OK || c.Reason != want {
			t.Fatalf("duration %v over window %v: %v %q, want %q", c.Stated, w, c.OK, c.Reason, want)
		}
	}
	if itlNotRecomputed("p99") != itlReason("p99") || itlNotRecomputed("p90") != itlReason("p90") || itlReason("p90") == itlReason("p99") {
		t.Error("ITL reasons")
	}
}

// TestSeriesKeyMatchesRef: SeriesKey written in one buffer is the key
// written field by field with strconv.Quote, for empty, numeric, cased,
// quoted and long values.
func TestSeriesKeyMatchesRef(t *testing.T) {
	t.Parallel()
	ref := func(eff map[string]string) string {
		if s := strings.TrimSpace(eff[SeriesField]); s != "" {
			return "series:" + s
		}
		var b strings.Builder
		for _, f := range ComparisonFields {
			if slices.Contains(TrendExcluded, f) {
				continue
			}
			v := strings.TrimSpace(eff[f])
			if numericFields[f] {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					v = strconv.FormatFloat(x, 'g', -1, 64)
				}
			}
			if foldFields[f] {
				v = strings.ToLower(v)
			}
			b.WriteString(f + "=" + strconv.Quote(v) + "\n")
		}
		return b.String()
	}
	values := []string{"", " 8 ", "8.0", "1e3", "H100 \"SXM\"\n", "Ünïcode", strings.Repeat("x", 2000), "inf", "-0", "0x10"}
	for i := range 200 {
		eff := map[string]string{}
		for j, f := range ComparisonFields {
			if (i+j)%3 != 0 {
				eff[f] = values[(i*7+j)%len(values)]
			}
		}
		if i%50 == 0 {
			eff[SeriesField] = values[i%len(values)]
		}
		if got, want := SeriesKey(eff), ref(eff); got != want {
			t.Fatalf("%v:\n got %q\nwant %q", eff, got, want)
		}
	}
}
