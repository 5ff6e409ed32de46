package sglang

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

func (b *sglangRun) checkCtx() *sglangBad {
	if err := b.p.tick.Tick(); err != nil {
		return &sglangBad{reason: err.Error(), err: err}
	}
	return nil
}

// newRecords sets up the reader of the line's per-request lists.
func (b *sglangRun) newRecords() {
	// A sglangBad passes through Records as an error; the place loses
	// jsonread's trailing ", " (SGLang's places end there).
	where := func(place string) string { return strings.TrimSuffix(place, ", ") }
	b.recs = jsonread.Records{
		Dec: b.d, Tick: &b.p.tick,
		// completed (a lower bound of the count) comes before the lists;
		// it sizes the records only up to 64k requests, and append grows
		// past that cheaply.
		Limit: 1 << 16,
		Bad: func(place string, tok pyjson.Token, reason string) error {
			return b.bad(where(place), tok, "%s", reason)
		},
		Syntax: func(place string, err error) error {
			return b.p.syntax(err, where(place))
		},
		Text: b.errs.Intern,
	}
}

// column reads one per-request list into the records. The first list fixes
// the request count and the others must match it.
func (b *sglangRun) column(key string, col jsonread.Column, vt pyjson.Token) *sglangBad {
	if vt.Kind == pyjson.ArrayStart && b.recs.Has(col) {
		return b.bad(sglangKeyPlace(key), vt, "the per-request list %q appears twice (at top level and under \"details\")", key)
	}
	b.recs.Hint = b.completed
	err := b.recs.Column(key, col, vt)
	var bad *sglangBad
	if err == nil || errors.As(err, &bad) {
		return bad
	}
	return &sglangBad{reason: err.Error(), err: err} // cancelled
}

// finish checks the run as a whole and decides what needed the whole line:
// the variant, the workload facts, placeholders, the per-request records.
func (b *sglangRun) finish() *sglangBad {
	run := b.run
	switch {
	case b.completed < 0 && !b.duration:
		return &sglangBad{reason: "not an SGLang bench_serving result: no \"completed\" or \"duration\" key"}
	case b.completed < 0:
		return &sglangBad{reason: "no \"completed\" key: SGLang writes it in every version"}
	case !b.duration:
		return &sglangBad{reason: "no \"duration\" key: SGLang writes it in every version"}
	}
	detailed := b.recs.Has(jsonread.ColInputTokens) || b.recs.Has(jsonread.ColOutputTokens) || b.recs.Has(jsonread.ColTTFT) ||
		b.recs.Has(jsonread.ColChunkGaps) || b.recs.Has(jsonread.ColErrorText)
	b.variant(detailed || b.texts)
	b.lengths()

	if b.recs.Fixed() {
		if b.recs.Len() == 0 {
			return &sglangBad{reason: "run has no requests: its per-request lists are empty"}
		}
		b.requests()
	} else {
		b.note("SGLang writes no failure count without --output-details: failed requests are unknown, not zero")
		if b.completed == 0 {
			b.note("completed is 0: every request SGLang sent failed (it cannot run without requests); how many were sent is not in the file")
		}
	}
	b.statedFigures()

	var missing []string
	if _, ok := run.Facts["measurement.date"]; !ok {
		missing = append(missing, "date")
	}
	if _, ok := run.Facts["checkpoint.model_id"]; !ok {
		missing = append(missing, "model")
	}
	if _, ok := run.Facts["workload.request_count"]; !ok {
		missing = append(missing, "request count")
	}
	switch len(missing) {
	case 0:
	case 1:
		b.note("the line states no %s (SGLang does not write it): it must come from the manifest or --set", missing[0])
	default:
		b.note("the line states no %s (SGLang does not write them): they must come from the manifest or --set", sglangList(missing))
	}
	return nil
}

func sglangList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// variant names the generation of the key set: the writer changed its keys
// several times (FORMATS.md §2).
func (b *sglangRun) variant(detailed bool) {
	s := b.seen
	var v string
	switch {
	case s["server_info"] || s["tag"]:
		v = "benchmark/serving.py (with server_info)"
	case s["total_input"] || s["total_output"]:
		v = "benchmark metrics dump (total_input/total_output keys)"
	case s["request_throughput"] || s["mean_ttft_ms"] || s["p99_ttft_ms"]:
		v = "bench_serving.py (2025 key set)"
	default:
		v = "bench_serving.py (2024 minimal key set)"
	}
	if detailed {
		v += " --output-details"
		if b.nested {
			v += " (details nested)"
		}
	}
	b.run.FormatVariant = v
	if b.serverInfo == "null" {
		b.note("server_info is null: the server did not answer /server_info (not an SGLang server, or it failed); no runtime facts")
	}
}

// lengths turns the length arguments into workload facts where they
// describe the workload: SGLang writes every argument's default, so
// random_input_len is 1024 on a ShareGPT run too.
func (b *sglangRun) lengths() {
	used := map[string]bool{}
	num := func(k string) (float64, bool) {
		v, ok := b.argNum[k]
		return v, ok && b.args[k] == pyjson.Number
	}
	switch {
	case strings.HasPrefix(b.dataset, "random"):
		ratio, okR := num("random_range_ratio")
		in, okI := num("random_input_len")
		out, okO := num("random_output_len")
		switch {
		case okR && ratio == 1 && okI && okO && in > 0 && out > 0:
			b.fact("workload.input_len", strconv.FormatFloat(in, 'f', -1, 64), "random_input_len")
			b.fact("workload.output_len", strconv.FormatFloat(out, 'f', -1, 64), "random_output_len")
			used["random_input_len"], used["random_output_len"] = true, true
		case okR && okI && okO:
			b.note("random_range_ratio %s: input and output lengths were drawn up to %s and %s tokens, not fixed; workload.input_len and output_len are not recorded",
				b.argRaw["random_range_ratio"], b.argRaw["random_input_len"], b.argRaw["random_output_len"])
		}
	case b.dataset == "sharegpt":
		if out, ok := num("sharegpt_output_len"); ok && out > 0 {
			b.fact("workload.output_len", strconv.FormatFloat(out, 'f', -1, 64), "sharegpt_output_len")
			used["sharegpt_output_len"] = true
		}
	}
	for _, k := range sglangArgs {
		if raw, ok := b.argRaw[k]; ok && !used[k] {
			b.run.Extra[k] = raw
		}
	}
}

// requests finishes the per-request records once every list has been read.
func (b *sglangRun) requests() {
	run := b.run
	run.Requests = b.recs.Requests()
	run.HasRequests = true
	n := int64(b.recs.Len())
	b.fact("workload.request_count", strconv.FormatInt(n, 10), "the per-request lists")

	failed := b.recs.Failed()
	if b.recs.Has(jsonread.ColErrorText) && b.completed != n-failed {
		// SGLang writes the response's reason as the error, which can be
		// empty: such a request failed without text. It shows as no first
		// token, no gaps and output length 0.
		var silent []int
		b.recs.Each(func(i int, r *benchrun.Request) {
			if r.Error == "" && r.TTFT == 0 && r.Gaps.Count == 0 && r.OutputTokens <= 0 {
				silent = append(silent, i)
			}
		})
		if int64(len(silent)) == n-failed-b.completed {
			b.recs.Each(func(i int, r *benchrun.Request) {
				if _, ok := slices.BinarySearch(silent, i); ok {
					r.Error = "failed (SGLang recorded an empty error text)"
				}
			})
			failed += int64(len(silent))
			b.note("%d requests with an empty error text taken as failed: completed states %d of %d, and they have no first token and no output", len(silent), b.completed, n)
		} else {
			b.note("completed states %d but the errors list has %d failures among %d requests", b.completed, failed, n)
		}
	}
	if b.recs.Has(jsonread.ColErrorText) {
		run.Failed = failed
	} else {
		b.note("the per-request lists have no errors list: failed requests are unknown")
	}
	if b.errs.Cut > 0 {
		b.note("%d error texts cut to %d bytes", b.errs.Cut, jsonread.ErrorMax)
	}

	// SGLang writes 0.0 for the TTFT of a request without any content
	// chunk (failed, or empty output): unknown, not zero. Latency is the
	// last content chunk: TTFT plus the gaps between content chunks.
	emptyOK := 0
	ttfts, itls := b.recs.Has(jsonread.ColTTFT), b.recs.Has(jsonread.ColChunkGaps)
	b.recs.Each(func(_ int, r *benchrun.Request) {
		if ttfts && r.TTFT == 0 {
			r.TTFT = benchrun.Unknown
			if r.Error == "" {
				emptyOK++
			}
		}
		if r.Error == "" && ttfts && itls && benchrun.IsKnown(r.TTFT) {
			r.Latency = r.TTFT + r.Gaps.Sum
		}
	})
	if emptyOK > 0 {
		b.note("%d completed requests have TTFT 0.0 (no content chunk was received): recorded as unknown", emptyOK)
	}
	if ttfts && itls {
		if b.backend == "trt" {
			b.note("E2E latency derived as TTFT + sum of chunk gaps, the last content chunk, which is how SGLang times the trt backend: the file has no latencies")
		} else {
			b.note("E2E latency derived as TTFT + sum of chunk gaps (the last content chunk): the file has no latencies, and SGLang's own E2E and TPOT figures end at the last chunk received, which can be a later usage or [DONE] chunk")
		}
	}
	if b.serverInfo != "" && b.recs.Has(jsonread.ColInputTokens) {
		b.note("input_lens are the server's prompt token counts where it reported them, while total_input_tokens sums the dataset's prompt lengths: the two can differ")
	}
}

// statedFigures keeps the figures that are measurements and moves the rest
// to Extra, each with a note.
func (b *sglangRun) statedFigures() {
	run := b.run
	drop := func(st sglangStated) { run.Extra[st.s.SourceKey] = st.raw }

	// SGLang takes statistics over np.mean(x or 0): with no sample (no
	// completed request, no request with two tokens, no gaps when not
	// streamed) every statistic of the family is exactly 0.
	zero := map[string]bool{}
	for _, st := range b.stated {
		if st.family == "" {
			continue
		}
		if _, ok := zero[st.family]; !ok {
			zero[st.family] = true
		}
		if st.s.Value != 0 {
			zero[st.family] = false
		}
	}
	retokenizedITL := b.serverInfo != "" && b.acceptLength > 0 && (b.backend == "sglang-oai" || b.backend == "sglang-oai-chat")
	multiTurn := false
	for _, st := range b.stated {
		if st.s.Metric == "total_input_tokens" && st.s.Value == 0 && b.completed > 0 {
			multiTurn = true
		}
	}
	var placeholders, noRequests, retok, inputZero []string
	kept := b.stated[:0:0]
	for _, st := range b.stated {
		switch {
		case st.family != "" && b.completed == 0:
			noRequests = append(noRequests, st.s.SourceKey)
			drop(st)
		case st.family != "" && st.family != "e2el" && zero[st.family]:
			placeholders = append(placeholders, st.s.SourceKey)
			drop(st)
		case st.family == "itl" && retokenizedITL:
			retok = append(retok, st.s.SourceKey)
			drop(st)
		case multiTurn && (st.s.Metric == "total_input_tokens" || st.s.Metric == "input_throughput" || st.s.Metric == "total_token_throughput"):
			inputZero = append(inputZero, st.s.SourceKey)
			drop(st)
		default:
			kept = append(kept, st)
		}
	}
	for _, st := range kept {
		run.Stated = append(run.Stated, st.s)
	}
	if len(b.nanKeys) > 0 {
		b.note("%s are NaN (SGLang's mean over no completed request); not stated", strings.Join(b.nanKeys, ", "))
	}
	if len(noRequests) > 0 {
		b.note("no request completed, so %s are SGLang's placeholders, not measurements; kept in Extra", strings.Join(noRequests, ", "))
	}
	if len(placeholders) > 0 {
		b.note("%s are all 0, SGLang's value for a statistic over no samples (np.mean(x or 0)); kept in Extra, not stated", strings.Join(placeholders, ", "))
	}
	if len(retok) > 0 {
		b.note("with speculative decoding (accept_length %g) SGLang states ITL per retokenized token, not per streamed chunk: %s kept in Extra, not as itl", b.acceptLength, strings.Join(retok, ", "))
	}
	if len(inputZero) > 0 {
		b.note("total_input_tokens is 0 although requests completed (SGLang does not count input tokens for multi-turn datasets): %s kept in Extra, not stated", strings.Join(inputZero, ", "))
	}
	if _, ok := run.StatedValue("total_output_tokens"); ok {
		b.note("total_output_tokens counts the server's completion tokens, or the requested output length when the server reported no usage (SGLang's fallback)")
	}
	if slices.ContainsFunc(run.Stated, func(s benchrun.Stated) bool { return strings.HasPrefix(s.Metric, "itl.") }) &&
		(b.backend == "sglang" || b.backend == "sglang-native") {
		b.note("SGLang's native backend splits each chunk's gap evenly over the tokens it carried, so its ITL is a per-token gap (the chunk gap when each chunk carries one token)")
	}
	if !b.recs.Fixed() && b.backend != "trt" && slices.ContainsFunc(run.Stated, func(s benchrun.Stated) bool { return strings.HasPrefix(s.Metric, "e2el.") }) {
		b.note("SGLang's E2E latency ends at the last chunk received, which can be a usage or [DONE] chunk after the last content chunk")
	}
}
