package vllmjson

// The per-request lists of a vLLM result (input_lens, ttfts, itls, ...):
// read column by column into one record per request, then finished once
// every list has been read. The summary fields around them are read in
// vllmjson.go.

import (
	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// vllmColumns maps vLLM's per-request lists to what they hold.
var vllmColumns = map[string]jsonread.Column{
	"input_lens": jsonread.ColInputTokens, "output_lens": jsonread.ColOutputTokens, "ttfts": jsonread.ColTTFT, "itls": jsonread.ColChunkGaps,
	"start_times": jsonread.ColStart, "latencies": jsonread.ColLatency, "queue_times": jsonread.ColQueueTime, "errors": jsonread.ColErrorText,
}

// newRecords sets up the reader of the run's per-request lists.
func (b *vllmRunBuilder) newRecords() {
	b.recs = jsonread.Records{
		Dec: b.p.d, Tick: &b.p.tick, Lists: &b.p.lists,
		// num_prompts comes before the lists: sizing the records from it
		// avoids copying them while they grow. It is trusted only up to 4M
		// requests; pages of an unused tail are never touched, so they
		// cost address space, not memory.
		Limit: 1 << 22,
		Bad: func(place string, tok pyjson.Token, reason string) error {
			return b.errAt(place, tok, "%s", reason)
		},
		Syntax: func(place string, err error) error {
			return b.p.syntax(err, b.prefix+place)
		},
		Compact: b.p.compact,
	}
}

// column reads one per-request list into the records. Lists arrive one
// key after another; the first one fixes the request count and the others
// must match it.
func (b *vllmRunBuilder) column(key string, col jsonread.Column, vt pyjson.Token) error {
	b.recs.Hint = b.numPrompts
	return b.recs.Column(key, col, vt)
}

// requests finishes the per-request records once every list has been read.
func (b *vllmRunBuilder) requests() {
	run := b.run
	run.Requests = b.recs.Requests()
	run.HasRequests = true
	n := int64(b.recs.Len())
	if b.recs.Has(jsonread.ColStart) {
		run.Clock = benchrun.ClockMonotonic
		run.Facts["measurement.clock"] = string(benchrun.ClockMonotonic)
	}

	switch {
	case b.recs.Has(jsonread.ColErrorText):
		errFailed := b.recs.Failed()
		if !b.failed {
			run.Failed = errFailed
		} else if run.Failed != errFailed {
			b.note("failed states %d but the errors list has %d non-empty entries", run.Failed, errFailed)
		}
		if !b.completed {
			run.Completed = n - errFailed
		}
	case b.recs.Has(jsonread.ColLatency):
		// Saved without --save-detailed: no errors list, but vLLM writes
		// latency 0.0 for every failed request.
		var zero int64
		b.recs.Each(func(_ int, r *benchrun.Request) {
			if r.Latency == 0 {
				r.Error = "failed (the error text is not saved without --save-detailed)"
				zero++
			}
		})
		if zero > 0 {
			b.note("%d requests taken as failed from their 0.0 latency placeholder: the file has no errors list", zero)
		}
		if b.failed && run.Failed != zero {
			b.note("failed states %d but %d latencies are 0.0", run.Failed, zero)
		}
	}

	// vLLM writes 0.0 for a failed request's TTFT and latency: unknown,
	// not zero.
	b.recs.Each(func(_ int, r *benchrun.Request) {
		if r.Error == "" {
			return
		}
		if r.TTFT == 0 {
			r.TTFT = benchrun.Unknown
		}
		if r.Latency == 0 {
			r.Latency = benchrun.Unknown
		}
	})

	if !b.recs.Has(jsonread.ColLatency) && b.recs.Has(jsonread.ColTTFT) && b.recs.Has(jsonread.ColChunkGaps) {
		b.recs.Each(func(_ int, r *benchrun.Request) {
			if r.Error == "" && benchrun.IsKnown(r.TTFT) {
				r.Latency = r.TTFT + r.Gaps.Sum
			}
		})
		b.note("E2E latency derived as TTFT + sum of chunk gaps: the file has no latencies list")
	}

	if run.Completed >= 0 && run.Failed >= 0 && run.Completed+run.Failed != n {
		b.note("completed + failed = %d but the per-request lists hold %d requests", run.Completed+run.Failed, n)
	}
}
