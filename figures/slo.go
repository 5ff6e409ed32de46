package figures

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// SLO is a service-level objective per request, as vLLM's --goodput
// declares it: a threshold on TTFT, TPOT and E2E latency, each in seconds;
// 0 leaves that metric out. A request is good when every declared metric
// is at most its threshold (docs/metrics.md, "Goodput and SLO
// attainment").
type SLO struct {
	TTFT float64 `json:"ttft"`
	TPOT float64 `json:"tpot"`
	E2EL float64 `json:"e2el"`
}

// Declared reports whether the SLO declares any threshold.
func (s SLO) Declared() bool { return s.TTFT > 0 || s.TPOT > 0 || s.E2EL > 0 }

// String writes the SLO the way vLLM's --goodput takes it, in ms:
// "ttft:2000 tpot:50".
func (s SLO) String() string {
	var parts []string
	for _, t := range []struct {
		name string
		v    float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2el", s.E2EL}} {
		if t.v > 0 {
			parts = append(parts, t.name+":"+strconv.FormatFloat(t.v*1000, 'f', -1, 64))
		}
	}
	return strings.Join(parts, " ")
}

// ParseSLO reads vLLM's --goodput value ("ttft:2000 tpot:50", or
// comma-separated), thresholds in ms.
func ParseSLO(s string) (SLO, error) {
	var out SLO
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		name, v, ok := strings.Cut(f, ":")
		ms, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(ms > 0) || math.IsInf(ms, 0) {
			return SLO{}, fmt.Errorf("goodput %q: want NAME:MS with a positive number of ms", f)
		}
		switch name {
		case "ttft":
			out.TTFT = ms / 1000
		case "tpot":
			out.TPOT = ms / 1000
		case "e2el":
			out.E2EL = ms / 1000
		default:
			return SLO{}, fmt.Errorf("goodput %q: %q is not ttft, tpot or e2el", f, name)
		}
	}
	if !out.Declared() {
		return SLO{}, fmt.Errorf("goodput %q: no threshold", s)
	}
	return out, nil
}

// Goodput is a run's requests judged against an SLO.
type Goodput struct {
	SLO SLO `json:"slo"`
	// Good counts the completed requests meeting every declared
	// threshold; Completed the completed requests judged.
	Good      int `json:"good"`
	Completed int `json:"completed"`
	// Window is the run's window (s) the rate is taken over.
	Window float64 `json:"window"`
	// Goodput is Good / Window (req/s); Attainment is Good / Completed ×
	// 100 (%). Both NaN when the records cannot judge the SLO (Reason
	// says why).
	Goodput    float64 `json:"goodput"`
	Attainment float64 `json:"attainment"`
	Reason     string  `json:"reason,omitempty"`
}

// Recomputable reports whether the records could judge the SLO.
func (g Goodput) Recomputable() bool { return g.Reason == "" }

// ReasonNoRecords is the Reason of a run without per-request records.
const ReasonNoRecords = "no per-request records: goodput and SLO attainment are not recomputable, and a tool's stated goodput used its own SLO"

// Good reports whether a completed request meets every declared threshold
// of the SLO (value ≤ threshold, vLLM's `s >= r`), and whether it could be
// judged: a declared metric the request has no value for cannot be. TPOT
// of a request with at most one output token is 0, as vLLM counts it for
// goodput.
func (s SLO) Good(r *benchrun.Request) (good, judged bool) {
	good = true
	if s.TTFT > 0 {
		if !benchrun.IsKnown(r.TTFT) {
			return false, false
		}
		good = good && r.TTFT <= s.TTFT
	}
	if s.TPOT > 0 {
		tpot := 0.0
		if r.OutputTokens > 1 {
			if !benchrun.IsKnown(r.TTFT) || !benchrun.IsKnown(r.Latency) {
				return false, false
			}
			tpot = (r.Latency - r.TTFT) / float64(r.OutputTokens-1)
		}
		good = good && tpot <= s.TPOT
	}
	if s.E2EL > 0 {
		if !benchrun.IsKnown(r.Latency) {
			return false, false
		}
		good = good && r.Latency <= s.E2EL
	}
	return good, true
}

// JudgeSLO counts the completed requests of reqs that meet slo, and
// divides by window (the run's window, RunFigures.Window) for goodput.
func JudgeSLO(reqs []benchrun.Request, slo SLO, window float64) Goodput {
	j := NewSLOJudge(slo)
	for i := range reqs {
		j.Add(&reqs[i])
	}
	return j.Goodput(window)
}

// SLOJudge is JudgeSLO over records handed to it one at a time.
type SLOJudge struct {
	g        Goodput
	unjudged bool // a completed request lacked a value the SLO declares
}

// NewSLOJudge starts JudgeSLO for slo.
func NewSLOJudge(slo SLO) *SLOJudge {
	return &SLOJudge{g: Goodput{SLO: slo, Goodput: math.NaN(), Attainment: math.NaN()}}
}

// Add judges the next record.
func (j *SLOJudge) Add(r *benchrun.Request) {
	if j.unjudged || r.Failed() {
		return
	}
	good, judged := j.g.SLO.Good(r)
	if !judged {
		j.unjudged = true
		j.g.Reason = fmt.Sprintf("request %d has no value for a metric the SLO declares", r.Index)
		return
	}
	j.g.Completed++
	if good {
		j.g.Good++
	}
}

// Goodput is JudgeSLO's result over the records added, for the run's window.
func (j *SLOJudge) Goodput(window float64) Goodput {
	g := j.g
	g.Window = window
	switch {
	case j.unjudged:
	case g.Completed == 0:
		g.Reason = "no completed requests"
	case !(window > 0):
		g.Reason = "no window"
	default:
		g.Goodput = float64(g.Good) / window
		g.Attainment = float64(g.Good) / float64(g.Completed) * 100
	}
	return g
}

// ApplySLO judges the run's records against slo and keeps the result in
// f.SLO (figures "goodput" and "slo_attainment"). A stated run's figures
// (no records) get the reason instead.
func (f *RunFigures) ApplySLO(reqs []benchrun.Request, slo SLO) {
	if !slo.Declared() {
		f.SLO = nil
		return
	}
	if f.Source == SourceStated || len(reqs) == 0 {
		f.SLO = &Goodput{SLO: slo, Window: f.Window, Goodput: math.NaN(), Attainment: math.NaN(), Reason: ReasonNoRecords}
		return
	}
	g := JudgeSLO(reqs, slo, f.Window)
	f.SLO = &g
}

// goodputOf and attainmentOf read the catalogue's SLO figures: NaN without
// an SLO.
func goodputOf(f *RunFigures) float64 {
	if f.SLO == nil {
		return math.NaN()
	}
	return f.SLO.Goodput
}

func attainmentOf(f *RunFigures) float64 {
	if f.SLO == nil {
		return math.NaN()
	}
	return f.SLO.Attainment
}
