package democampaign

import "fmt"

// RunSpec is one generated result file: the workload the client ran, the
// server configuration the simulated engine stands for, and the published
// figures its per-request records must reproduce. The runs saved as vLLM
// files are the entries of specs; the trace files (node runs, 1,000/1,000
// runs) are TraceGroups (trace.go).
type RunSpec struct {
	File  string // file name inside the campaign folder
	Role  string // provenance role, as campaign.yaml states it
	Date  string // the file's "date": client local time at the end, %Y%m%d-%H%M%S
	Label string // vLLM --label; "" is written as null
	Seed  uint64 // jitter only; the fit absorbs whatever it draws

	// ClockStart is time.perf_counter() when the client created its first
	// request task. vLLM's start_times use that clock: seconds since boot,
	// not epoch, so later runs on the same host start at larger values.
	ClockStart float64

	Client Client
	Server Server
	Target Target
}

// Client is the `vllm bench serve` side.
type Client struct {
	Model          string // --model: model_id and tokenizer_id
	Backend        string // --backend: backend and endpoint_type
	Requests       int    // --num-prompts, all sent, all completed
	MaxConcurrency int    // --max-concurrency; 0 means none (null)
	PromptTokens   int    // prompt tokens besides the request id's digits
	FixedInput     int    // when > 0, every prompt has exactly this many tokens (synthetic prompts)
	OutputLen      int    // every request reaches this cap
	Text           string // generated_texts entry, shortened to keep files small
}

// Server is the vLLM engine the trace simulates. Args is the command line the
// shape stands for; campaign.yaml states the same string (a test checks).
type Server struct {
	Args               string
	MaxNumSeqs         int     // --max-num-seqs
	MaxBatchedTokens   int     // --max-num-batched-tokens
	StepBase           float64 // seconds per engine step (weight reads, launches)
	StepPerDecode      float64 // seconds per decoded token in a step
	StepPerPrefill     float64 // seconds per prefilled prompt token in a step
	FrontendPerRequest float64 // API-server seconds per request (parse, template, tokenise)
}

// Target is what the recomputation from per-request records must give.
// Aim between rounding boundaries so the published rounding is robust.
type Target struct {
	OutputThroughput float64 // output tok/s over the window
	MedianE2EL       float64 // seconds, numpy-linear median of latencies
	MeanE2EL         float64 // seconds, mean latency; set instead of MedianE2EL
}

// inputLen is the prompt length of request i as the API reports it: the same
// technical-guide prompt plus the request id, whose decimal digits Qwen's
// tokenizer splits one per token (ids 0..9999 give 63..66 tokens).
func (c *Client) inputLen(i int) int {
	if c.FixedInput > 0 {
		return c.FixedInput
	}
	d := 1
	for v := i; v >= 10; v /= 10 {
		d++
	}
	return c.PromptTokens + d
}

// qwen3Client is the workload held fixed across the scheduler comparison.
// MaxConcurrency equals the request count: the whole batch is queued at the
// server at once. A limit well below it cannot give the tuned run's median,
// 11.70 s of a 12.59 s window: latencies sum to at most limit x window
// (Little's law), and half of them are at least 11.70 s.
var qwen3Client = Client{
	Model:          "nvidia/Qwen3-30B-A3B-FP4",
	Backend:        "openai-chat",
	Requests:       2048,
	MaxConcurrency: 2048,
	PromptTokens:   62,
	OutputLen:      256,
	Text:           "# Deploying the service\n\n## 1. Prerequisites\n\nBefore you begin, make sure that",
}

// qwen3Engine is one RTX PRO 6000 Blackwell serving the NVFP4 checkpoint:
// a step costs about the read of all expert weights plus a per-token part.
// Only the scheduler arguments differ between the runs.
func qwen3Engine(args string, maxSeqs, maxTokens int) Server {
	return Server{
		Args:       args,
		MaxNumSeqs: maxSeqs, MaxBatchedTokens: maxTokens,
		StepBase: 9.3e-3, StepPerDecode: 15.5e-6, StepPerPrefill: 12e-6,
		FrontendPerRequest: 120e-6,
	}
}

// saturationArgs is the server of the saturation sweep: room for every
// queued request to run at once, and a larger prefill budget. Like the
// scheduler runs' arguments it is illustrative (not published).
const saturationArgs = "--kv-cache-dtype fp8 --max-num-seqs 8192 --max-num-batched-tokens 8192 --gpu-memory-utilization 0.95"

// saturationEngine is the same GPU and checkpoint under saturationArgs: a
// little more per-token work per step (larger batches read more KV cache).
func saturationEngine() Server {
	s := qwen3Engine(saturationArgs, 8192, 8192)
	s.StepPerDecode = 15.8e-6
	return s
}

// queued is the sweep's client: n requests queued at once (request rate inf,
// max concurrency n). The swept parameter is n, the number of queued
// requests; campaign.yaml names it sweep.parameter queued_requests.
func queued(n int) Client {
	c := qwen3Client
	c.Requests, c.MaxConcurrency = n, n
	return c
}

// specs is the table of generated runs. The sweep targets: the published
// step is 4,096 -> 6,144 queued requests, +0.91% throughput (46,262.2 ->
// 46,683.186 tok/s, the base throughput being the demo's choice) while the
// median goes 20.04 s -> 29.85 s; the points below it and the two isolated
// repeats of the 4,096 configuration (45,941 and 46,701 tok/s, published)
// are chosen to rise and to sit near 20 s. ClockStart and Date follow one
// client host booted at 05:13:00.8 (UTC, the host's local time) on
// 2026-08-18, as baseline and tuned do.
var specs = []RunSpec{
	{
		File: "baseline.json", Role: "baseline", Label: "qwen3-batch-baseline", Seed: 1,
		Date: "20260818-101412", ClockStart: 18042.517203,
		Client: qwen3Client,
		Server: qwen3Engine("--kv-cache-dtype fp8 --max-num-seqs 256 --max-num-batched-tokens 2048", 256, 2048),
		Target: Target{OutputThroughput: 17961.2, MedianE2EL: 15.910},
	},
	{
		File: "tuned.json", Role: "tuned", Label: "qwen3-batch-tuned", Seed: 2,
		Date: "20260818-113655", ClockStart: 23022.108419,
		Client: qwen3Client,
		Server: qwen3Engine("--kv-cache-dtype fp8 --max-num-seqs 2048 --max-num-batched-tokens 4096", 2048, 4096),
		Target: Target{OutputThroughput: 41651.2, MedianE2EL: 11.700},
	},
	sweepPoint("saturation/queued-1024.json", 1024, 11, "20260818-122012", 25624.510417, 35012.4, 6.910),
	sweepPoint("saturation/queued-2048.json", 2048, 12, "20260818-122444", 25891.070288, 41786.3, 11.390),
	sweepPoint("saturation/queued-3072.json", 3072, 13, "20260818-122919", 26161.315042, 44603.8, 15.790),
	sweepPoint("saturation/queued-4096.json", 4096, 14, "20260818-123403", 26439.602551, 46262.2, 20.040),
	sweepPoint("saturation/queued-6144.json", 6144, 15, "20260818-123931", 26756.933170, 46262.2*1.0091, 29.850),
	{
		File: "saturation/repeat-1.json", Role: "repeat", Label: "qwen3-batch-saturation-repeat-1", Seed: 21,
		Date: "20260818-130234", ClockStart: 28150.406733,
		Client: queued(4096), Server: saturationEngine(),
		Target: Target{OutputThroughput: 45941.2, MedianE2EL: 20.170},
	},
	{
		File: "saturation/repeat-2.json", Role: "repeat", Label: "qwen3-batch-saturation-repeat-2", Seed: 22,
		Date: "20260818-131611", ClockStart: 28967.859904,
		Client: queued(4096), Server: saturationEngine(),
		Target: Target{OutputThroughput: 46701.2, MedianE2EL: 19.860},
	},
}

func sweepPoint(file string, n int, seed uint64, date string, clock, tput, median float64) RunSpec {
	return RunSpec{
		File: file, Role: "sweep-point", Label: fmt.Sprintf("qwen3-batch-sweep-queued-%d", n), Seed: seed,
		Date: date, ClockStart: clock,
		Client: queued(n), Server: saturationEngine(),
		Target: Target{OutputThroughput: tput, MedianE2EL: median},
	}
}

// Specs returns the runs Generate writes, in order. The slice is a copy.
func Specs() []RunSpec { return append([]RunSpec(nil), specs...) }
