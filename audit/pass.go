package audit

import (
	"context"
	"crypto/sha256"
	"math"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/store"
)

// requestPass is what the checks of one stored run need of its records,
// gathered in one pass over them: streamed from the archive by Run, so a
// run of a million requests is never held whole (its figures keep only the
// samples the percentiles need), or over records already loaded (Stored).
type requestPass struct {
	n         int
	recompute *figures.RunRecomputer // nil when the caller has the figures
	digest    *digester              // nil unless the records are compared with the raw file
	pack      *packCheck             // nil unless the run has packed records
	declared  *figures.DeclaredCheck

	// plausibility.non_streamed: completed multi-token requests, and those
	// with TTFT equal to latency.
	same, multi int
	// plausibility.zero_series: per zeroSeries entry, the completed
	// requests that record the series and those where it is 0.
	known, zero [len(zeroSeries)]int
	// windowByDefinition: the tool's window (nil without one), whether a
	// record lies outside it, and the longest latency of a completed request.
	tool    *benchrun.ToolTimes
	outside bool
	maxLat  float64
}

// zeroSeries are the per-request series plausibility.zero_series reads.
var zeroSeries = [...]struct {
	name string
	get  func(q *benchrun.Request) (float64, bool)
}{
	{"TTFT", func(q *benchrun.Request) (float64, bool) { return q.TTFT, benchrun.IsKnown(q.TTFT) }},
	{"latency", func(q *benchrun.Request) (float64, bool) { return q.Latency, benchrun.IsKnown(q.Latency) }},
	{"output tokens", func(q *benchrun.Request) (float64, bool) { return float64(q.OutputTokens), q.OutputTokens >= 0 }},
}

// newRequestPass starts a pass over the records of run r, whose effective
// provenance is eff: recompute says to recompute its figures, digest to
// hash the records as requestsDigest does; raw is of the run parsed again
// (nil when not). sizeHint is about how many records will follow.
func newRequestPass(r *benchrun.Run, eff map[string]string, recompute, digest bool, raw *rawTool, sizeHint int) *requestPass {
	sizeHint = min(max(sizeHint, 0), 1<<22) // a hint, not a promise
	p := &requestPass{declared: figures.NewDeclaredCheck(eff, sizeHint), maxLat: math.Inf(-1)}
	if recompute {
		p.recompute = figures.NewRunRecomputer(r, eff, sizeHint)
	}
	if digest {
		p.digest = newDigester()
	}
	if raw != nil && raw.times != nil && isFinite(raw.times.WindowStart) && isFinite(raw.times.WindowEnd) {
		p.tool = raw.times
	}
	return p
}

// add counts the next record; q may be reused by the caller afterwards.
func (p *requestPass) add(q *benchrun.Request) {
	i := p.n
	p.n++
	if p.recompute != nil {
		p.recompute.Add(q)
	}
	if p.digest != nil {
		p.digest.add(q)
	}
	if p.pack != nil {
		p.pack.add(q)
	}
	p.declared.Add(q)
	if tool := p.tool; tool != nil && !p.outside && benchrun.IsKnown(q.Start) && benchrun.IsKnown(q.Latency) {
		end := q.Start + q.Latency
		if tool.Latency != nil && i < len(tool.Latency) && benchrun.IsKnown(tool.Latency[i]) {
			end = q.Start + tool.Latency[i]
		}
		if end < tool.WindowStart-DurationSlack || q.Start > tool.WindowEnd+DurationSlack {
			p.outside = true
		}
	}
	if q.Failed() {
		return
	}
	if benchrun.IsKnown(q.Latency) {
		p.maxLat = math.Max(p.maxLat, q.Latency)
	}
	if benchrun.IsKnown(q.TTFT) && benchrun.IsKnown(q.Latency) && q.OutputTokens != 0 && q.OutputTokens != 1 {
		p.multi++
		if close9(q.TTFT, q.Latency) {
			p.same++
		}
	}
	for k, s := range zeroSeries {
		if v, ok := s.get(q); ok {
			p.known[k]++
			if v == 0 {
				p.zero[k]++
			}
		}
	}
}

// derived is the run's figures.Derived from the pass (which recomputed
// them), as figures.Derive gives it from the same records.
func (p *requestPass) derived(r *benchrun.Run, eff map[string]string) *figures.Derived {
	var f *figures.RunFigures
	if r.HasRequests && p.n > 0 {
		rf := p.recompute.Figures()
		f = &rf
	}
	return figures.DeriveWith(r, f, eff)
}

// passOver is a pass over records already loaded.
func passOver(r *benchrun.Run, reqs []benchrun.Request, eff map[string]string, recompute bool, raw *rawTool) *requestPass {
	p := newRequestPass(r, eff, recompute, false, raw, len(reqs))
	for i := range reqs {
		p.add(&reqs[i])
	}
	return p
}

// streamPass is a pass over a stored run's records read from the archive
// one at a time (rec from RunMeta: without them). With digest it also
// hashes them for the comparison with the raw file.
func streamPass(ctx context.Context, a *store.Archive, rec *store.RunRecord, eff map[string]string, digest bool, raw *rawTool) (*requestPass, error) {
	sizeHint := 0
	if rec.Run.HasRequests {
		n, err := a.RequestCount(rec.ID)
		if err != nil {
			return nil, err
		}
		sizeHint = int(n)
	}
	p := newRequestPass(rec.Run, eff, true, digest, raw, sizeHint)
	var err error
	if p.pack, err = newPackCheck(a, rec.ID); err != nil {
		return nil, err
	}
	if !rec.Run.HasRequests {
		return p, nil
	}
	err = a.EachRequest(ctx, rec.ID, func(q *benchrun.Request) error {
		p.add(q)
		return nil
	})
	return p, err
}

// storedSide is what compareRecords needs of the stored records after the
// pass: their count, digest and a way to read them whole when the digests
// differ.
func (p *requestPass) storedSide(a *store.Archive, runID string) rawRequests {
	var d [sha256.Size]byte
	if p.digest != nil {
		d = p.digest.sum()
	}
	return rawRequests{n: p.n, digest: d, again: func() ([]benchrun.Request, error) { return a.Requests(runID) }}
}
