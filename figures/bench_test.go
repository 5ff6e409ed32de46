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

// vllmRun is a run as vllm bench serve's JSON gives it: n records and the
// summary figures the file states (seconds, converted from its ms).
func vllmRun(n int) *benchrun.Run {
	reqs := synthetic(n)
	f := Recompute(reqs, 0, 0)
	r := &benchrun.Run{Format: "vllm-serve-json", SourceTool: "vllm bench serve", Requests: reqs, HasRequests: true,
		Facts: map[string]string{"workload.request_rate": "inf", "workload.dataset": "random"},
		Extra: map[string]string{"request_goodput": "null", "burstiness": "1.0"}}
	add := func(metric string, v float64, unit, key, srcUnit string) {
		r.Stated = append(r.Stated, benchrun.Stated{Metric: metric, Value: v, Unit: unit, SourceKey: key, SourceUnit: srcUnit})
	}
	add("num_prompts", float64(n), "requests", "num_prompts", "requests")
	add("duration", f.Window*1.01, "s", "duration", "s")
	add("completed", float64(f.Completed), "requests", "completed", "requests")
	add("failed", 0, "requests", "failed", "requests")
	add("total_input_tokens", float64(f.InputTokens), "tokens", "total_input_tokens", "tokens")
	add("total_output_tokens", float64(f.OutputTokens), "tokens", "total_output_tokens", "tokens")
	add("request_throughput", float64(f.Completed)/(f.Window*1.01), "req/s", "request_throughput", "req/s")
	add("output_throughput", float64(f.OutputTokens)/(f.Window*1.01), "tok/s", "output_throughput", "tok/s")
	add("total_token_throughput", float64(f.OutputTokens+f.InputTokens)/(f.Window*1.01), "tok/s", "total_token_throughput", "tok/s")
	add("max_output_tokens_per_s", 2*f.OutputThroughput, "tok/s", "max_output_tokens_per_s", "tok/s")
	add("max_concurrent_requests", 32, "requests", "max_concurrent_requests", "requests")
	for _, fam := range []struct {
		name string
		st   Stat
	}{{"ttft", f.TTFT}, {"tpot", f.TPOT}, {"itl", f.TPOT}, {"e2el", f.E2EL}} {
		add(fam.name+".mean", fam.st.Mean, "s", "mean_"+fam.name+"_ms", "ms")
		add(fam.name+".median", fam.st.Median, "s", "median_"+fam.name+"_ms", "ms")
		add(fam.name+".std", fam.st.Std, "s", "std_"+fam.name+"_ms", "ms")
		add(fam.name+".p99", fam.st.P[99], "s", "p99_"+fam.name+"_ms", "ms")
	}
	return r
}

// BenchmarkDerive derives the figures of a run of 100 records, as the site
// does for each of its runs: recomputed, the stated figures checked, the
// impossible ones listed.
func BenchmarkDerive(b *testing.B) {
	r := vllmRun(100)
	eff := map[string]string{"workload.request_rate": "inf", "hardware.gpu_count": "1", "workload.output_len": "256"}
	b.ReportAllocs()
	for b.Loop() {
		d := Derive(r, r.Requests, eff)
		if d.Figures == nil || len(d.Stated.Checks) == 0 || len(d.Impossible) != 0 {
			b.Fatalf("%+v", d)
		}
	}
}

// BenchmarkImpossibleStated lists the impossible stated figures of a run
// that has none, the usual case.
func BenchmarkImpossibleStated(b *testing.B) {
	r := vllmRun(100)
	b.ReportAllocs()
	for b.Loop() {
		if imp := ImpossibleStated(r); len(imp) != 0 {
			b.Fatal(imp)
		}
	}
}

// BenchmarkCheckStated checks the stated figures of a run of 100 records.
func BenchmarkCheckStated(b *testing.B) {
	r := vllmRun(100)
	f := RecomputeRun(r, r.Requests, nil)
	opt := StatedOptionsOf(r)
	b.ReportAllocs()
	for b.Loop() {
		if a := CheckStated(r.Stated, f, opt); len(a.Disagreements()) != 0 {
			b.Fatal(a.Disagreements())
		}
	}
}
