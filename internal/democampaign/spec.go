package democampaign

// RunSpec is one generated result file: the workload the client ran, the
// server configuration the simulated engine stands for, and the published
// figures its per-request records must reproduce. More runs (a saturation
// sweep, replica node runs, 1,000/1,000 runs) are more entries in specs.
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
}

// inputLen is the prompt length of request i as the API reports it: the same
// technical-guide prompt plus the request id, whose decimal digits Qwen's
// tokenizer splits one per token (ids 0..2047 give 63..66 tokens).
func (c *Client) inputLen(i int) int {
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

// specs is the table of generated runs.
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
}

// Specs returns the runs Generate writes, in order. The slice is a copy.
func Specs() []RunSpec { return append([]RunSpec(nil), specs...) }
