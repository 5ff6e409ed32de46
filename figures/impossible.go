package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// Impossible is a stated figure no run can have produced: a duration that
// is not positive, a negative latency, rate or count, percentiles out of
// order, a throughput its own tokens and duration cannot give. It is
// evidence of a broken summary, not a measurement (docs/audit.md,
// plausibility.stated).
type Impossible struct {
	Metric string  `json:"metric"` // canonical name, e.g. "duration", "ttft.p99"
	Key    string  `json:"key"`    // the key in the file
	Value  float64 `json:"value"`  // canonical unit
	Unit   string  `json:"unit"`
	Reason string  `json:"reason"`
}

// statedRates are the stated rates, in tokens or requests per second.
var statedRates = []string{"output_throughput", "total_token_throughput", "input_throughput", "request_throughput", "max_output_tokens_per_s"}

// statedCounts are stated numbers of requests or tokens.
var statedCounts = []string{"completed", "failed", "total_output_tokens", "total_input_tokens"}

// latencyFamilies are the stated per-request latency statistics' families.
var latencyFamilies = [...]string{"ttft", "tpot", "itl", "e2el"}

// ImpossibleStated lists the stated figures of r that no run can have
// produced, in the order the rules are listed:
//   - duration: not positive, or not finite (a NaN or infinite duration the
//     parser kept as Extra; 1e-400 parses as 0);
//   - a negative latency statistic, rate or count;
//   - a family's percentiles out of order (min ≤ p_a ≤ p_b ≤ max for a < b,
//     the median being p50; the mean between min and max);
//   - total token throughput below output throughput (it adds input
//     tokens), or a positive rate over no tokens or no completed requests.
//
// It reads the stated figures only, so it applies alike to summary-only
// and detailed runs.
func ImpossibleStated(r *benchrun.Run) []Impossible {
	var out []Impossible
	add := func(s benchrun.Stated, why string, args ...any) {
		out = append(out, Impossible{Metric: s.Metric, Key: s.SourceKey, Value: s.Value, Unit: s.Unit, Reason: fmt.Sprintf(why, args...)})
	}
	// A metric stated twice is judged by its first value (but for a
	// negative latency, each value).
	stated := r.StatedValue
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

	if d, ok := stated("duration"); ok {
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
	for _, fam := range latencyFamilies {
		for _, s := range r.Stated {
			if finite(s.Value) && s.Value < 0 && familyOf(s.Metric) == fam {
				add(s, "a latency cannot be negative")
			}
		}
	}
	for _, m := range statedRates {
		if s, ok := stated(m); ok && finite(s.Value) && s.Value < 0 {
			add(s, "a rate cannot be negative")
		}
	}
	// The offered load the file states (vLLM's request_rate, a fact of the
	// run): "inf" is "all at once", a negative rate is no load at all (a
	// number below 0 is written with its sign: nothing else is parsed).
	for _, k := range []string{"workload.request_rate", "workload.concurrency"} {
		if t := strings.TrimSpace(r.Facts[k]); !strings.HasPrefix(t, "-") {
			continue
		} else if v, err := strconv.ParseFloat(t, 64); err == nil && v < 0 {
			out = append(out, Impossible{Metric: strings.TrimPrefix(k, "workload."), Key: k, Value: v, Unit: map[string]string{"workload.request_rate": "req/s", "workload.concurrency": "requests"}[k],
				Reason: "the file states a negative offered load: a rate or concurrency cannot be negative"})
		}
	}
	for _, m := range statedCounts {
		if s, ok := stated(m); ok && finite(s.Value) && s.Value < 0 {
			add(s, "a count cannot be negative")
		}
	}
	out = outOfOrder(out, r)
	tput, okT := stated("output_throughput")
	total, okA := stated("total_token_throughput")
	if okT && okA && finite(tput.Value) && finite(total.Value) && total.Value >= 0 && tput.Value >= 0 &&
		total.Value < tput.Value-relSlack(tput.Value, total.Value) {
		add(total, "total token throughput %s tok/s is below the output throughput %s tok/s, which it includes", fmtNum(total.Value), fmtNum(tput.Value))
	}
	if toks, ok := stated("total_output_tokens"); ok && okT && toks.Value == 0 && tput.Value > 0 {
		add(tput, "output throughput %s tok/s over 0 output tokens: tokens / duration cannot give it", fmtNum(tput.Value))
	}
	if c, ok := stated("completed"); ok && c.Value == 0 {
		if rq, ok := stated("request_throughput"); ok && rq.Value > 0 {
			add(rq, "request throughput %s req/s with 0 completed requests: completed / duration cannot give it", fmtNum(rq.Value))
		}
	}
	return out
}

// familyOf is the latency family of a stated metric ("ttft" of
// "ttft.p99"), "" when it names none.
func familyOf(metric string) string {
	f, _, _ := strings.Cut(metric, ".")
	for _, fam := range latencyFamilies {
		if f == fam {
			return fam
		}
	}
	return ""
}

// firstOf says whether stated[i] is the first statement of its metric.
func firstOf(stated []benchrun.Stated, i int) bool {
	for j := range i {
		if stated[j].Metric == stated[i].Metric {
			return false
		}
	}
	return true
}

// relSlack allows for the printed rounding of two stated figures.
func relSlack(a, b float64) float64 { return 1e-6*math.Max(math.Abs(a), math.Abs(b)) + 0.01 }

// outOfOrder appends to out the stated statistics of r out of order, family
// by family (latencyFamilies); a metric stated twice counts by its first
// value.
func outOfOrder(out []Impossible, r *benchrun.Run) []Impossible {
	type point struct {
		fam int
		p   float64
		s   *benchrun.Stated
	}
	var buf [32]point
	pts := buf[:0]
	var means [len(latencyFamilies)]*benchrun.Stated
	for i := range r.Stated {
		s := &r.Stated[i]
		f, stat, ok := strings.Cut(s.Metric, ".")
		fam := slices.Index(latencyFamilies[:], f)
		if !ok || fam < 0 {
			continue
		}
		if !firstOf(r.Stated, i) {
			continue
		}
		if stat == "mean" {
			means[fam] = s
		}
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			continue
		}
		switch {
		case stat == "median":
			pts = append(pts, point{fam, 50, s})
		case stat == "min":
			pts = append(pts, point{fam, 0, s})
		case stat == "max":
			pts = append(pts, point{fam, 100, s})
		case strings.HasPrefix(stat, "p"):
			if p, err := strconv.ParseFloat(stat[1:], 64); err == nil && p > 0 && p < 100 {
				pts = append(pts, point{fam, p, s})
			}
		}
	}
	slices.SortFunc(pts, func(a, b point) int {
		if a.fam != b.fam {
			return a.fam - b.fam
		}
		if a.p != b.p {
			return cmpFloat(a.p, b.p)
		}
		return strings.Compare(a.s.Metric, b.s.Metric)
	})
	for fam := range latencyFamilies {
		n := 0
		for n < len(pts) && pts[n].fam == fam {
			n++
		}
		fp := pts[:n]
		pts = pts[n:]
		for i := 1; i < len(fp); i++ {
			lo, hi := fp[i-1].s, fp[i].s
			if hi.Value < lo.Value-relSlack(lo.Value, hi.Value)*1e-3 {
				out = append(out, Impossible{Metric: hi.Metric, Key: hi.SourceKey, Value: hi.Value, Unit: hi.Unit,
					Reason: fmt.Sprintf("%s (%s %s) is below %s (%s %s): percentiles cannot decrease", hi.Metric, fmtNum(hi.Value), hi.Unit,
						lo.Metric, fmtNum(lo.Value), lo.Unit)})
			}
		}
		if mean := means[fam]; mean != nil && len(fp) > 0 {
			lo, hi := fp[0], fp[len(fp)-1]
			if lo.p == 0 && mean.Value < lo.s.Value-relSlack(mean.Value, lo.s.Value)*1e-3 ||
				hi.p == 100 && mean.Value > hi.s.Value+relSlack(mean.Value, hi.s.Value)*1e-3 {
				out = append(out, Impossible{Metric: mean.Metric, Key: mean.SourceKey, Value: mean.Value, Unit: mean.Unit,
					Reason: fmt.Sprintf("the mean %s %s lies outside the stated minimum and maximum", fmtNum(mean.Value), mean.Unit)})
			}
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
