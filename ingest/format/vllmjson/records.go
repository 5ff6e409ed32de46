package vllmjson

// The per-request lists of a vLLM result (input_lens, ttfts, itls, ...):
// read column by column into one record per request, then finished once
// every list has been read. The summary fields around them are read in
// vllmjson.go.

import (
	"fmt"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// vllmColumn names a per-request list of a vLLM result.
type vllmColumn uint8

const (
	vcolInputLens vllmColumn = iota
	vcolOutputLens
	vcolTTFTs
	vcolITLs
	vcolStartTimes
	vcolLatencies
	vcolQueueTimes
	vcolErrors
	vcolCount
)

var vllmColumnKeys = map[string]vllmColumn{
	"input_lens": vcolInputLens, "output_lens": vcolOutputLens, "ttfts": vcolTTFTs, "itls": vcolITLs,
	"start_times": vcolStartTimes, "latencies": vcolLatencies, "queue_times": vcolQueueTimes, "errors": vcolErrors,
}

// slot returns request i's record (format.Slot). num_prompts comes before
// the lists: sizing the records from it avoids copying them while they
// grow. It is trusted only up to 4M requests; pages of an unused tail are
// never touched, so they cost address space, not memory.
func (b *vllmRunBuilder) slot(i int) *benchrun.Request {
	return format.Slot(&b.reqs, b.nFixed, i, b.numPrompts, 1<<22)
}

func (b *vllmRunBuilder) checkCtx() error { return b.p.tick.Tick() }

// column reads one per-request list into the records. Lists arrive one
// key after another; the first one fixes the request count and the others
// must match it.
func (b *vllmRunBuilder) column(key string, col vllmColumn, vt pyjson.Token) error {
	if vt.Kind != pyjson.ArrayStart {
		return b.errAt(jsonread.KeyPlace(key), vt, "expected a list, found %s", vt.Kind)
	}
	b.have[col] = true
	i := 0
	for ; ; i++ {
		if col == vcolITLs {
			// The bulk of a large file: read on several cores while the
			// layout allows, then item by item from where that stopped.
			if _, err := b.p.lists.Read(b.p.d, i, func(g benchrun.GapStats) error {
				if r := b.slot(i); r != nil {
					r.Gaps = g
				}
				i++
				return b.checkCtx()
			}); err != nil {
				return err
			}
		}
		if err := b.checkCtx(); err != nil {
			return err
		}
		t, err := b.p.d.Next()
		if err != nil {
			return b.p.syntax(err, b.prefix+jsonread.ItemPlace(key, i))
		}
		if t.Kind == pyjson.ArrayEnd {
			break
		}
		r := b.slot(i)
		switch col {
		case vcolInputLens, vcolOutputLens:
			n, err := b.tokens(key, i, t)
			if err != nil {
				return err
			}
			if r != nil {
				if col == vcolInputLens {
					r.InputTokens = n
				} else {
					r.OutputTokens = n
				}
			}
		case vcolTTFTs, vcolStartTimes, vcolLatencies, vcolQueueTimes:
			v, err := b.seconds(key, i, t)
			if err != nil {
				return err
			}
			if r != nil {
				switch col {
				case vcolTTFTs:
					r.TTFT = v
				case vcolStartTimes:
					r.Start = v
				case vcolLatencies:
					r.Latency = v
				default:
					r.QueueTime = v
				}
			}
		case vcolITLs:
			g, err := b.gaps(key, i, t)
			if err != nil {
				return err
			}
			if r != nil {
				r.Gaps = g
			}
		case vcolErrors:
			if t.Kind != pyjson.String {
				return b.errAt(jsonread.ItemPlace(key, i), t, "expected a string, found %s", t.Kind)
			}
			if len(t.Bytes) > 0 {
				b.errFailed++
				if r != nil {
					r.Error = string(t.Bytes)
				}
			}
		}
	}
	if !b.nFixed {
		b.nFixed, b.nKey = true, key
		return nil
	}
	if i != len(b.reqs) {
		return b.errAt(jsonread.KeyPlace(key), vt, "per-request lists differ in length: %q has %d items but %q has %d",
			key, i, b.nKey, len(b.reqs))
	}
	return nil
}

// tokens reads a token count.
func (b *vllmRunBuilder) tokens(key string, i int, t pyjson.Token) (int32, error) {
	n, err := jsonread.Tokens(t)
	if err != nil {
		return 0, b.errAt(jsonread.ItemPlace(key, i), t, "%v", err)
	}
	return n, nil
}

// seconds reads a per-request time, which vLLM writes in seconds.
func (b *vllmRunBuilder) seconds(key string, i int, t pyjson.Token) (float64, error) {
	v, err := jsonread.Seconds(t)
	if err != nil {
		return 0, b.errAt(jsonread.ItemPlace(key, i), t, "%v", err)
	}
	return v, nil
}

// gaps reduces one request's list of inter-chunk gaps to its summary.
func (b *vllmRunBuilder) gaps(key string, i int, t pyjson.Token) (benchrun.GapStats, error) {
	return jsonread.Gaps(b.p.d, t, &b.p.tick, func(k int, tok pyjson.Token, reason string, syntax error) error {
		where := jsonread.ItemPlace(key, i)
		if k >= 0 {
			where = fmt.Sprintf("key %q item %d gap %d, ", key, i, k)
		}
		if syntax != nil {
			return b.p.syntax(syntax, b.prefix+where)
		}
		return b.errAt(where, tok, "%s", reason)
	})
}

// requests finishes the per-request records once every list has been read.
func (b *vllmRunBuilder) requests() {
	run := b.run
	run.Requests = b.reqs
	run.HasRequests = true
	n := int64(len(b.reqs))
	if b.have[vcolStartTimes] {
		run.Clock = benchrun.ClockMonotonic
		run.Facts["measurement.clock"] = string(benchrun.ClockMonotonic)
	}

	switch {
	case b.have[vcolErrors]:
		if !b.failed {
			run.Failed = b.errFailed
		} else if run.Failed != b.errFailed {
			b.note("failed states %d but the errors list has %d non-empty entries", run.Failed, b.errFailed)
		}
		if !b.completed {
			run.Completed = n - b.errFailed
		}
	case b.have[vcolLatencies]:
		// Saved without --save-detailed: no errors list, but vLLM writes
		// latency 0.0 for every failed request.
		var zero int64
		for i := range b.reqs {
			if r := &b.reqs[i]; r.Latency == 0 {
				r.Error = "failed (the error text is not saved without --save-detailed)"
				zero++
			}
		}
		if zero > 0 {
			b.note("%d requests taken as failed from their 0.0 latency placeholder: the file has no errors list", zero)
		}
		if b.failed && run.Failed != zero {
			b.note("failed states %d but %d latencies are 0.0", run.Failed, zero)
		}
	}

	// vLLM writes 0.0 for a failed request's TTFT and latency: unknown,
	// not zero.
	for i := range b.reqs {
		r := &b.reqs[i]
		if r.Error == "" {
			continue
		}
		if r.TTFT == 0 {
			r.TTFT = benchrun.Unknown
		}
		if r.Latency == 0 {
			r.Latency = benchrun.Unknown
		}
	}

	if !b.have[vcolLatencies] && b.have[vcolTTFTs] && b.have[vcolITLs] {
		for i := range b.reqs {
			if r := &b.reqs[i]; r.Error == "" && benchrun.IsKnown(r.TTFT) {
				r.Latency = r.TTFT + r.Gaps.Sum
			}
		}
		b.note("E2E latency derived as TTFT + sum of chunk gaps: the file has no latencies list")
	}

	if run.Completed >= 0 && run.Failed >= 0 && run.Completed+run.Failed != n {
		b.note("completed + failed = %d but the per-request lists hold %d requests", run.Completed+run.Failed, n)
	}
}
