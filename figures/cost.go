package figures

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// GPUsOf is the number of GPUs behind a run: its provenance's
// hardware.gpu_count (the GPUs serving this run), 0 when not stated as a
// positive number. A node's GPUs are the sum over its replicas (each
// replica run states its own; NodeGPUs).
func GPUsOf(eff map[string]string) float64 {
	s := strings.TrimSpace(eff["hardware.gpu_count"])
	if s == "" { // not stated (parsing "" only makes an error)
		return 0
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0
	}
	return n
}

// NodeGPUs is the number of GPUs of a node run: Σ over its replicas'
// GPUsOf, 0 when a replica does not state its count.
func NodeGPUs(replicas []map[string]string) float64 {
	var n float64
	for _, eff := range replicas {
		g := GPUsOf(eff)
		if g == 0 {
			return 0
		}
		n += g
	}
	return n
}

// PerGPU divides a throughput by a number of GPUs: NaN when the count is
// unknown (0).
func PerGPU(v, gpus float64) float64 {
	if !(gpus > 0) {
		return math.NaN()
	}
	return v / gpus
}

func perGPUOf(f *RunFigures) float64 { return PerGPU(f.OutputThroughput, f.GPUs) }

// Price is the price of one GPU-hour, as a manifest or spec states it:
// the amount in a currency (ISO 4217 code), the date the price was quoted
// and, optionally, where it comes from.
type Price struct {
	PerGPUHour float64 `json:"per_gpu_hour" yaml:"per_gpu_hour"`
	Currency   string  `json:"currency" yaml:"currency"`
	Date       string  `json:"date" yaml:"date"`
	Source     string  `json:"source,omitempty" yaml:"source"`
}

// Declared reports whether a price is given.
func (p Price) Declared() bool { return p.PerGPUHour != 0 || p.Currency != "" || p.Date != "" }

var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// Check says what is wrong with a declared price.
func (p Price) Check() error {
	var errs []string
	if !(p.PerGPUHour > 0) || math.IsInf(p.PerGPUHour, 0) {
		errs = append(errs, fmt.Sprintf("per_gpu_hour %v: want a positive amount", p.PerGPUHour))
	}
	if !currencyRE.MatchString(p.Currency) {
		errs = append(errs, fmt.Sprintf("currency %q: want an ISO 4217 code such as USD", p.Currency))
	}
	if _, err := time.Parse(time.DateOnly, p.Date); err != nil {
		errs = append(errs, fmt.Sprintf("date %q: want the date the price was quoted, YYYY-MM-DD", p.Date))
	}
	if len(errs) > 0 {
		return fmt.Errorf("price: %s", strings.Join(errs, "; "))
	}
	return nil
}

// CostEstimate is the cost of a million output tokens at one operating
// point: an estimate from a stated price, always shown with its inputs.
type CostEstimate struct {
	Price            Price   `json:"price"`
	GPUs             float64 `json:"gpus"`
	OutputThroughput float64 `json:"output_throughput"` // tok/s of the operating point
	// PerMillionOutputTokens is price_per_gpu_hour × GPUs /
	// (output tok/s × 3600) × 1e6, in Price.Currency.
	PerMillionOutputTokens float64 `json:"per_million_output_tokens"`
	// Estimate is always true: the figure assumes the GPUs are paid by the
	// hour at Price and busy at this throughput the whole hour.
	Estimate bool   `json:"estimate"`
	Formula  string `json:"formula"`
}

// EstimateCost computes the cost of a million output tokens from a price,
// the GPUs serving the operating point and its output throughput; false
// when an input is missing (no GPU count, no throughput).
func EstimateCost(p Price, gpus, outputThroughput float64) (CostEstimate, bool) {
	if !(gpus > 0) || !(outputThroughput > 0) || math.IsInf(outputThroughput, 0) || !(p.PerGPUHour > 0) {
		return CostEstimate{}, false
	}
	return CostEstimate{Price: p, GPUs: gpus, OutputThroughput: outputThroughput,
		PerMillionOutputTokens: p.PerGPUHour * gpus / (outputThroughput * 3600) * 1e6,
		Estimate:               true, Formula: Definitions["cost_per_million_output_tokens"].Formula}, true
}

// PriceOf is the GPU-hour price a run's provenance states (a manifest's
// cost.gpu_hour_price, cost.currency and cost.price_date); false when any
// of the three is missing or not valid.
func PriceOf(eff map[string]string) (Price, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(eff["cost.gpu_hour_price"]), 64)
	p := Price{PerGPUHour: v, Currency: strings.TrimSpace(eff["cost.currency"]), Date: strings.TrimSpace(eff["cost.price_date"]),
		Source: "provenance (cost.gpu_hour_price)"}
	if err != nil || p.Check() != nil {
		return Price{}, false
	}
	return p, true
}
