// Package democampaign generates the example campaign results/qwen3-batch:
// synthetic `vllm bench serve --save-result --save-detailed` files (the
// scheduler comparison and the saturation sweep on one GPU) and
// benchledger trace files (the node runs of eight replicas and the
// 1,000/1,000 runs on TensorRT-LLM) whose per-request records reproduce the
// figures of a published case study (../shared/facts/qwen3-batch-case.md).
// The files are simulated, not measured; campaign.yaml says so. Generation
// is deterministic: the same specs give the same bytes on every run and
// machine.
package democampaign

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/benchledger/benchledger/internal/atomicfile"
)

// record is a run's per-request arrays as vLLM writes them (seconds).
type record struct {
	inputLens, outputLens []int
	ttfts                 []float64
	itls                  [][]float64
	latencies, starts     []float64
	queues                []float64
}

// quantize maps the fitted trace onto the client's perf_counter clock in
// whole microseconds and derives the arrays from those instants, exactly as
// vLLM derives them from its perf_counter readings (ttft = first chunk -
// send, itl = chunk - previous chunk, latency = last chunk - send, queue =
// send - task creation). Whole microseconds keep the numbers short; nothing
// downstream needs perf_counter's finer resolution.
func quantize(sp *RunSpec, f *fitted) *record {
	n, out := sp.Client.Requests, sp.Client.OutputLen
	clock := math.Round(sp.ClockStart * 1e6)
	us := func(t float64) int64 { return int64(clock + math.Round(f.w.at(t)*1e6)) }
	sec := func(v int64) float64 { return float64(v) / 1e6 }
	r := &record{
		inputLens:  make([]int, n),
		outputLens: make([]int, n),
		ttfts:      make([]float64, n),
		itls:       make([][]float64, n),
		latencies:  make([]float64, n),
		starts:     make([]float64, n),
		queues:     make([]float64, n),
	}
	gaps := make([]float64, n*(out-1))
	for i := range n {
		send := us(f.tr.send[i])
		recv := f.tr.recv[i]
		r.inputLens[i] = sp.Client.inputLen(i)
		r.outputLens[i] = len(recv)
		r.starts[i] = sec(send)
		r.queues[i] = sec(send - us(f.tr.arrival[i]))
		prev := us(recv[0])
		r.ttfts[i] = sec(prev - send)
		g := gaps[i*(out-1) : i*(out-1) : (i+1)*(out-1)]
		for _, t := range recv[1:] {
			cur := us(t)
			g = append(g, sec(cur-prev))
			prev = cur
		}
		r.itls[i] = g
		r.latencies[i] = sec(prev - send)
	}
	return r
}

// window is the recomputed benchmark window: earliest start_time to latest
// start_time + latency, in the float arithmetic any reader of the file does.
func (r *record) window() float64 {
	first, last := math.Inf(1), math.Inf(-1)
	for i, s := range r.starts {
		first = math.Min(first, s)
		last = math.Max(last, s+r.latencies[i])
	}
	return last - first
}

// peaks are vLLM's max_output_tokens_per_s (tokens per 1-s bucket from the
// first start, token times rebuilt from start + ttft + itls) and
// max_concurrent_requests (sweep over [start, start+latency), ends first).
func (r *record) peaks() (tokPerS float64, conc int) {
	first, last := math.Inf(1), math.Inf(-1)
	for i, s := range r.starts {
		first = math.Min(first, s)
		last = math.Max(last, s+r.latencies[i])
	}
	buckets := make([]float64, int(math.Ceil(last-first))+1)
	type event struct {
		t float64
		d int
	}
	events := make([]event, 0, 2*len(r.starts))
	for i, s := range r.starts {
		t := s + r.ttfts[i]
		for k := 0; ; k++ {
			if b := int(t - first); b >= 0 && b < len(buckets) {
				buckets[b]++
			}
			if k == len(r.itls[i]) {
				break
			}
			t += r.itls[i][k]
		}
		events = append(events, event{s, 1}, event{s + r.latencies[i], -1})
	}
	slices.SortFunc(events, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d))
	})
	cur := 0
	for _, e := range events {
		cur += e.d
		conc = max(conc, cur)
	}
	return slices.Max(buckets), conc
}

// encode writes the run as `vllm bench serve` (serve.py, the layout vLLM
// 0.25.x writes) saves it with --save-result --save-detailed
// --percentile-metrics ttft,tpot,itl,e2el: keys in serve.py's insertion
// order, no --metadata, no --goodput (request_goodput null).
func encode(sp *RunSpec, r *record) []byte {
	c := &sp.Client
	n := len(r.starts)
	inTok, outTok := 0, 0
	for i := range n {
		inTok += r.inputLens[i]
		outTok += r.outputLens[i]
	}
	// vLLM's duration is perf_counter from before the first request to after
	// the last task finished, a hair longer than the window. Here it is the
	// recomputed window itself, so the file's own output_throughput equals
	// the recomputation from its per-request records.
	dur := r.window()

	var tpots, itls []float64
	for i := range n {
		tpots = append(tpots, (r.latencies[i]-r.ttfts[i])/float64(r.outputLens[i]-1))
		itls = append(itls, r.itls[i]...)
	}
	peakTok, peakConc := r.peaks()
	texts := make([]string, n)
	errs := make([]string, n)
	for i := range texts {
		texts[i] = c.Text
	}

	w := &pyJSON{b: make([]byte, 0, 8<<20)}
	w.open()
	w.str("date", sp.Date)
	w.str("endpoint_type", c.Backend)
	w.str("backend", c.Backend)
	w.optStr("label", sp.Label)
	w.str("model_id", c.Model)
	w.str("tokenizer_id", c.Model)
	w.int("num_prompts", c.Requests)
	w.str("request_rate", "inf")
	w.float("burstiness", 1.0)
	if c.MaxConcurrency > 0 {
		w.int("max_concurrency", c.MaxConcurrency)
	} else {
		w.null("max_concurrency")
	}
	w.float("duration", dur)
	w.int("completed", n)
	w.int("failed", 0)
	w.int("total_input_tokens", inTok)
	w.int("total_output_tokens", outTok)
	w.float("request_throughput", float64(n)/dur)
	w.null("request_goodput")
	w.float("output_throughput", float64(outTok)/dur)
	w.float("total_token_throughput", float64(inTok+outTok)/dur)
	w.ints("input_lens", r.inputLens)
	w.ints("output_lens", r.outputLens)
	w.floats("ttfts", r.ttfts)
	w.floatLists("itls", r.itls)
	w.floats("latencies", r.latencies)
	w.floats("start_times", r.starts)
	w.floats("queue_times", r.queues)
	w.strs("generated_texts", texts)
	w.strs("errors", errs)
	w.float("max_output_tokens_per_s", peakTok)
	w.int("max_concurrent_requests", peakConc)
	w.float("rtfx", 0.0)
	for _, m := range []struct {
		name string
		vals []float64
	}{{"ttft", r.ttfts}, {"tpot", tpots}, {"itl", itls}, {"e2el", r.latencies}} {
		s := msStats(m.vals)
		w.float("mean_"+m.name+"_ms", s.mean)
		w.float("median_"+m.name+"_ms", s.median)
		w.float("std_"+m.name+"_ms", s.std)
		w.float("p99_"+m.name+"_ms", s.p99)
	}
	w.close()
	// json.dump writes no trailing newline.
	return w.b
}

// Build returns the bytes of one run's result file. It fails when the
// spec's engine shape cannot be fitted to its targets, or when the written
// figures would not round to them robustly.
func Build(sp RunSpec) ([]byte, error) { return build(sp, true) }

// build is Build; unchecked (the small campaign's runs, published nowhere)
// it does not hold the written figures to the targets' rounding.
func build(sp RunSpec, checked bool) ([]byte, error) {
	f, err := fit(&sp)
	if err != nil {
		return nil, err
	}
	r := quantize(&sp, f)
	if !checked {
		return encode(&sp, r), nil
	}
	tput := float64(sp.Client.Requests*sp.Client.OutputLen) / r.window()
	lat := slices.Clone(r.latencies)
	slices.Sort(lat)
	stat, want := npMedian(lat), sp.Target.MedianE2EL
	if sp.Target.MeanE2EL > 0 {
		stat, want = npMean(lat), sp.Target.MeanE2EL
	}
	// Microsecond rounding moves the figures by far less than this.
	if math.Abs(tput-sp.Target.OutputThroughput) > 0.01 || math.Abs(stat-want) > 1e-5 {
		return nil, fmt.Errorf("%s: fitted figures %.4f tok/s, latency %.6f s miss targets %.4f, %.6f",
			sp.File, tput, stat, sp.Target.OutputThroughput, want)
	}
	return encode(&sp, r), nil
}

// job builds one or more files of the campaign.
type job struct {
	files []string // paths inside the campaign folder, "/"-separated
	build func() ([][]byte, error)
}

func jobs() []job {
	var js []job
	for _, sp := range specs {
		js = append(js, job{files: []string{sp.File}, build: func() ([][]byte, error) {
			b, err := Build(sp)
			return [][]byte{b}, err
		}})
	}
	for _, g := range traceGroups {
		var files []string
		for _, r := range g.Runs {
			files = append(files, r.File)
		}
		js = append(js, job{files: files, build: func() ([][]byte, error) { return BuildGroup(g) }})
	}
	return js
}

// Files lists every file Generate writes, relative to the campaign folder
// and "/"-separated, in the order Generate returns them.
func Files() []string {
	var out []string
	for _, j := range jobs() {
		out = append(out, j.files...)
	}
	return out
}

// Generate writes every file of the campaign (Files) into dir, creating it
// and its subfolders, and returns the paths written in Files order. Runs are
// built concurrently, each independent of the others, so the bytes do not
// depend on the schedule. Each file is written to a temporary name and
// renamed, so a failure leaves no half-written file; on failure Generate
// returns the paths written before the first failing run (in order) and
// that run's error.
func Generate(dir string) ([]string, error) { return generate(dir, jobs()) }

// generate writes the files of the jobs into dir, as Generate says.
func generate(dir string, js []job) ([]string, error) {
	written := make([][]string, len(js))
	errs := make([]error, len(js))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, j := range js {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			written[i], errs[i] = j.write(dir)
		})
	}
	wg.Wait()
	var paths []string
	for i := range js {
		paths = append(paths, written[i]...)
		if errs[i] != nil {
			return paths, errs[i]
		}
	}
	return paths, nil
}

func (j job) write(dir string) ([]string, error) {
	bs, err := j.build()
	if err != nil {
		return nil, err
	}
	var paths []string
	for k, f := range j.files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return paths, err
		}
		// A generated campaign is made again at will: replaced whole, not synced.
		if err := (atomicfile.Batch{}).WriteFrom(p, bytes.NewReader(bs[k])); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
