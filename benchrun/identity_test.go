package benchrun

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestContentIDRequestsAsFields: the records of a large run, formatted in
// blocks on several goroutines, hash to the same id as each field written
// one by one with writeFields (the definition the archived ids were made
// with).
func TestContentIDRequestsAsFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, idBlock - 1, idBlock, 3*idBlock + 17} {
		r := &Run{Format: "f", Completed: int64(n), Failed: 0, HasRequests: n > 0, Facts: map[string]string{"a": "b"},
			Extra: map[string]string{"x": `{"k": [1, 2]}`}, Stated: []Stated{{Metric: "m", Value: 1.5, Unit: "s"}}}
		for i := range n {
			q := Request{Index: i, Start: rng.Float64() * 1e3, QueueTime: Unknown, TTFT: rng.ExpFloat64() / 7,
				Latency: float64(rng.IntN(100)), InputTokens: int32(rng.IntN(5000)), OutputTokens: -1,
				Gaps: GapStats{Count: int32(rng.IntN(300)), Sum: rng.Float64(), Min: 1e-9 * rng.Float64(), Max: math.Inf(1)}}
			if i%97 == 0 {
				q.Error = "HTTP 500: \"bad\"\n\x00é"
				q.TTFT, q.Gaps = Unknown, GapStats{Min: Unknown, Max: Unknown}
			}
			r.Requests = append(r.Requests, q)
		}
		h := sha256.New()
		writeFields(h, "run", r.Format, strconv.FormatInt(r.Completed, 10), strconv.FormatInt(r.Failed, 10), strconv.FormatBool(r.HasRequests))
		requestFields(h, r.Requests)
		writeFields(h, "stated", "m\x1f1.5\x1fs\x1f0")
		writeMap(h, "facts", r.Facts, false)
		writeMap(h, "extra", r.Extra, true)
		want := hex.EncodeToString(h.Sum(nil))[:12]
		if got := ContentID(r); got != want {
			t.Errorf("%d requests: id %s, field by field %s", n, got, want)
		}
	}
}

// requestFields hashes the records field by field, as the ids were first
// computed.
func requestFields(h hash.Hash, reqs []Request) {
	for i := range reqs {
		q := &reqs[i]
		writeFields(h, strconv.Itoa(q.Index), num(q.Start), num(q.QueueTime), num(q.TTFT), num(q.Latency),
			strconv.Itoa(int(q.InputTokens)), strconv.Itoa(int(q.OutputTokens)), strconv.Quote(q.Error),
			strconv.Itoa(int(q.Gaps.Count)), num(q.Gaps.Sum), num(q.Gaps.Min), num(q.Gaps.Max))
	}
}

// BenchmarkContentID: the id of a run of 300,000 records.
func BenchmarkContentID(b *testing.B) {
	r := &Run{Format: "f", HasRequests: true}
	for i := range 300000 {
		r.Requests = append(r.Requests, Request{Index: i, Start: float64(i) * 0.0137, TTFT: 0.0421 + float64(i%77)*1e-4,
			Latency: 3.25 + float64(i%1000)*1e-3, InputTokens: 1000, OutputTokens: 128,
			Gaps: GapStats{Count: 127, Sum: 3.2, Min: 0.011, Max: 0.09}})
	}
	b.Run("blocks", func(b *testing.B) {
		for b.Loop() {
			ContentID(r)
		}
	})
	b.Run("fields", func(b *testing.B) { // as the ids were first computed
		for b.Loop() {
			requestFields(sha256.New(), r.Requests)
		}
	})
}
