package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
)

// KeepUpShare is the share of the offered request rate a run must achieve
// (completed requests / window) not to be reported as falling behind; the
// same threshold GPUStack's benchmark analysis uses for its keep-up check.
const KeepUpShare = 0.8

// offeredRate is the run's finite offered request rate (workload.request_rate,
// req/s); ok is false for "inf" (all at once), a closed loop or none.
func offeredRate(eff map[string]string) (float64, bool) {
	v := strings.TrimSpace(eff["workload.request_rate"])
	if v == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !isFinite(f) || f <= 0 {
		return 0, false
	}
	return f, true
}

// achievedRate is the rate at which the run completed requests: completed
// requests / (window − median E2E latency) from the records; else the
// stated figures the same way, or the stated request_throughput. Even a
// run that keeps up ends with a tail of one request latency after its last
// send, which on a short run would read as falling behind; a run that
// falls behind has latencies growing with the queue, so the correction
// does not hide it (at half the offered capacity it reads about 67%).
func achievedRate(r *benchrun.Run, ff *figures.RunFigures) (float64, string) {
	if ff != nil && ff.Window > 0 && ff.Completed > 0 {
		if span := ff.Window - ff.E2EL.Median; ff.E2EL.N > 0 && span > 0 {
			return float64(ff.Completed) / span, "completed requests / (window − median E2E latency)"
		}
		return ff.RequestThroughput, "completed requests / window"
	}
	d, okD := r.StatedValue("duration")
	m, okM := r.StatedValue("e2el.median")
	if okD && okM && r.Completed > 0 && d.Value-m.Value > 0 {
		return float64(r.Completed) / (d.Value - m.Value), "stated completed / (duration − median E2E latency)"
	}
	if s, ok := r.StatedValue("request_throughput"); ok && isFinite(s.Value) {
		return s.Value, "stated request_throughput"
	}
	return math.NaN(), ""
}

// offeredRateFindings: at an open-loop offered rate, the run should have
// completed requests at close to that rate; well below it, the server (or
// the client) fell behind and latency figures describe a growing queue.
func offeredRateFindings(r *benchrun.Run, eff map[string]string, ff *figures.RunFigures) []Finding {
	offered, ok := offeredRate(eff)
	if !ok {
		return nil
	}
	achieved, basis := achievedRate(r, ff)
	if math.IsNaN(achieved) || achieved >= KeepUpShare*offered {
		return nil
	}
	why, key := "the server fell behind its load, so its latencies describe a growing queue", MsgOfferedRate
	params := map[string]string{"achieved": num(achieved), "offered": num(offered), "basis": basis}
	if c := eff["workload.concurrency"]; c != "" {
		why, key = "the client's max concurrency of "+c+" or the server held the load back, so the run did not measure the offered rate", MsgOfferedRateConcurrency
		params["concurrency"] = c
	}
	return []Finding{{Check: CheckOfferedRate, Severity: Warn,
		Message: fmt.Sprintf("the achieved request rate %s req/s (%s) is %.1f%% of the offered %s req/s, below %g%%: %s",
			num(achieved), basis, 100*achieved/offered, num(offered), KeepUpShare*100, why),
		Params: params, MessageKey: key}}
}

// zeroSeriesMetrics are stated figures that cannot be zero when requests
// completed (vLLM writes 0 for a series it did not measure): the rates, and
// the mean and median of every latency; ITL's median, which the figures do
// not recompute (the archive keeps gap sums), is stated by vLLM.
var zeroSeriesMetrics = func() []string {
	var out []string
	for _, m := range figures.MetricsOf(figures.ClassRate) {
		out = append(out, m.Name)
	}
	for _, m := range figures.MetricsOf(figures.ClassLatency) {
		if m.Family != nil {
			out = append(out, m.Name+".mean", m.Name+".median")
		} else {
			out = append(out, m.Name)
		}
	}
	return append(out, "itl.median")
}()

// zeroSeriesFindings reports series that are all zero although requests
// completed: a stated figure of 0, or a per-request series (TTFT, latency,
// output tokens) that is 0 for every completed request (counted by the
// pass p over the records).
func zeroSeriesFindings(r *benchrun.Run, ff *figures.RunFigures, p *requestPass) []Finding {
	var out []Finding
	completed := r.Completed
	if ff != nil {
		completed = int64(ff.Completed)
	}
	if completed <= 0 {
		return nil
	}
	// TPOT and ITL are undefined for one-token outputs and zero for
	// non-streamed ones (plausibility.non_streamed says so); skip them then.
	multiToken := true
	if ff != nil && ff.Completed > 0 && ff.OutputTokens <= int64(ff.Completed) {
		multiToken = false
	}
	stated := zeroSeriesMetrics
	if !slices.ContainsFunc(r.Stated, func(s benchrun.Stated) bool { return s.Value == 0 }) {
		stated = nil // most runs state no 0 at all: no name is looked up
	}
	for _, m := range stated {
		if !multiToken && (strings.HasPrefix(m, "tpot.") || strings.HasPrefix(m, "itl.")) {
			continue
		}
		if s, ok := r.StatedValue(m); ok && s.Value == 0 {
			out = append(out, Finding{Check: CheckZeroSeries, Severity: Fail,
				Message: fmt.Sprintf("the stated %s (%s in the file) is 0 although %d requests completed: a tool writes 0 for a series it did not measure; it is not a measurement", m, s.SourceKey, completed),
				Params:  map[string]string{"metric": m, "completed": strconv.FormatInt(completed, 10)}, MessageKey: MsgZeroStated})
		}
	}
	if ff == nil || !r.HasRequests {
		return out
	}
	for k, sr := range zeroSeries {
		known, zero := p.known[k], p.zero[k]
		if known > 0 && zero == known {
			out = append(out, Finding{Check: CheckZeroSeries, Severity: Fail,
				Message: fmt.Sprintf("%s is 0 for all %d completed requests that record it: the series was not measured, and figures over it are not measurements", sr.name, known),
				Params:  map[string]string{"series": sr.name, "requests": strconv.Itoa(known)}, MessageKey: MsgZeroRecords})
		}
	}
	return out
}
