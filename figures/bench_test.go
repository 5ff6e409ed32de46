package figures

import (
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// synthetic returns n requests with varied, unsorted latencies.
func synthetic(n int) []benchrun.Request {
	reqs := make([]benchrun.Request, n)
	x := uint64(88172645463325252)
	next := func() float64 { // xorshift: cheap, deterministic
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	for i := range reqs {
		ttft := 0.05 + next()
		lat := ttft + 5 + 20*next()
		reqs[i] = benchrun.Request{Index: i, Start: 1.787e9 + float64(i)*0.001, TTFT: ttft, Latency: lat,
			InputTokens: 64, OutputTokens: 256, Gaps: benchrun.GapStats{Count: 255, Sum: lat - ttft, Min: 0.001, Max: 0.2}}
	}
	return reqs
}

func BenchmarkRecompute1M(b *testing.B) {
	reqs := synthetic(1_000_000)
	opt := Options{Percentiles: []float64{50, 90, 95, 99, 99.9}}
	b.ReportAllocs()
	for b.Loop() {
		f := Recompute(reqs, 0, 256, opt)
		if f.Completed != len(reqs) {
			b.Fatal(f.Completed)
		}
	}
}
