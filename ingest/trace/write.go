package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/jsonw"
	"github.com/benchledger/benchledger/provenance"
)

// Header is what Write writes on a trace's first line. Empty
// strings and zero numbers are left out; Clock and Client are required.
// The request count is always written, from the records.
type Header struct {
	Clock         benchrun.Clock // epoch or monotonic
	Client        string         // the tool that measured: measurement.client
	ClientVersion string
	Host          string // where the client ran
	ModelID       string // the model id the client sent
	Tokenizer     string
	Label         string
	Dataset       string
	Date          string // YYYY-MM-DD or RFC 3339; for an epoch clock readers derive it when absent

	MaxConcurrency        int     // client concurrency limit
	RequestRate           float64 // offered req/s; +Inf for all at once
	RequestedInputTokens  int     // prompt length the client generated, when it chose one
	RequestedOutputTokens int     // max_tokens per request
	FixedOutput           *bool   // every request was asked for exactly RequestedOutputTokens
	Temperature           *float64
	Seed                  *int64

	Metadata map[string]string // free-form pairs: metadata.<key>
	// Extra holds more header keys with their values as JSON text, written
	// in key order after the known ones.
	Extra map[string]string
}

// traceHeaderKeys are the keys Write writes itself; Extra may not
// repeat them.
var traceHeaderKeys = []string{"benchledger_trace", "clock", "client", "client_version", "host", "model_id",
	"tokenizer", "label", "dataset", "date", "requests", "max_concurrency", "request_rate",
	"requested_input_tokens", "requested_output_tokens", "fixed_output", "temperature", "seed", "metadata"}

// Write writes a benchledger trace: the header, then one line per
// request in slice order, whose Index must be its position. first_token and
// end are written as start + TTFT and start + latency, so records read from
// a trace write back to the same bytes. It refuses records Parse would
// refuse, so an export is always readable.
func Write(w io.Writer, h Header, reqs []benchrun.Request) error {
	if len(reqs) == 0 {
		return errors.New("trace: no requests (a trace without request lines is not a run)")
	}
	b, err := appendTraceHeader(make([]byte, 0, 1024), &h, len(reqs))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.Write(b); err != nil {
		return err
	}
	for k := range reqs {
		b, err = appendTraceRequest(b[:0], h.Clock, k, &reqs[k])
		if err != nil {
			return err
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendTraceHeader(b []byte, h *Header, n int) ([]byte, error) {
	if h.Clock != benchrun.ClockEpoch && h.Clock != benchrun.ClockMonotonic {
		return nil, fmt.Errorf("trace header: clock %q: want epoch or monotonic", h.Clock)
	}
	if strings.TrimSpace(h.Client) == "" {
		return nil, errors.New("trace header: no client")
	}
	b = append(b, `{"benchledger_trace":`...)
	b = strconv.AppendInt(b, Version, 10)
	str := func(k, v string) {
		if v != "" {
			b = append(b, ',')
			b = jsonw.AppendStringAs(b, k, jsonw.Minimal)
			b = append(b, ':')
			b = jsonw.AppendStringAs(b, v, jsonw.Minimal)
		}
	}
	num := func(k string, v int) error {
		if v < 0 {
			return fmt.Errorf("trace header: %s %d is negative", k, v)
		}
		if v > 0 {
			b = append(b, `,"`+k+`":`...)
			b = strconv.AppendInt(b, int64(v), 10)
		}
		return nil
	}
	str("clock", string(h.Clock))
	str("client", h.Client)
	str("client_version", h.ClientVersion)
	str("host", h.Host)
	str("model_id", h.ModelID)
	str("tokenizer", h.Tokenizer)
	str("label", h.Label)
	str("dataset", h.Dataset)
	if h.Date != "" {
		if err := provenance.Validate(provenance.Entry{Field: "measurement.date", Value: h.Date}); err != nil {
			return nil, fmt.Errorf("trace header: %w", err)
		}
	}
	str("date", h.Date)
	if err := num("requests", n); err != nil {
		return nil, err
	}
	if err := num("max_concurrency", h.MaxConcurrency); err != nil {
		return nil, err
	}
	switch r := h.RequestRate; {
	case math.IsInf(r, 1):
		b = append(b, `,"request_rate":"inf"`...)
	case r > 0:
		b = append(b, `,"request_rate":`...)
		b = appendTraceFloat(b, r)
	case r != 0:
		return nil, fmt.Errorf("trace header: request rate %g: want a positive number, +Inf, or 0 for unstated", r)
	}
	if err := num("requested_input_tokens", h.RequestedInputTokens); err != nil {
		return nil, err
	}
	if err := num("requested_output_tokens", h.RequestedOutputTokens); err != nil {
		return nil, err
	}
	if h.FixedOutput != nil {
		b = append(b, `,"fixed_output":`...)
		b = strconv.AppendBool(b, *h.FixedOutput)
	}
	if h.Temperature != nil {
		if t := *h.Temperature; math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
			return nil, fmt.Errorf("trace header: temperature %g", t)
		}
		b = append(b, `,"temperature":`...)
		b = appendTraceFloat(b, *h.Temperature)
	}
	if h.Seed != nil {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, *h.Seed, 10)
	}
	if len(h.Metadata) > 0 {
		b = append(b, `,"metadata":{`...)
		for i, k := range slices.Sorted(maps.Keys(h.Metadata)) {
			if strings.TrimSpace(k) == "" {
				return nil, errors.New("trace header: metadata with an empty key")
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendStringAs(b, k, jsonw.Minimal)
			b = append(b, ':')
			b = jsonw.AppendStringAs(b, h.Metadata[k], jsonw.Minimal)
		}
		b = append(b, '}')
	}
	for _, k := range slices.Sorted(maps.Keys(h.Extra)) {
		v := strings.TrimSpace(h.Extra[k])
		if slices.Contains(traceHeaderKeys, k) {
			return nil, fmt.Errorf("trace header: extra key %q is a header key of its own", k)
		}
		if !json.Valid([]byte(v)) || strings.ContainsAny(v, "\n\r") {
			return nil, fmt.Errorf("trace header: extra key %q: %q is not one-line JSON", k, v)
		}
		b = append(b, ',')
		b = jsonw.AppendStringAs(b, k, jsonw.Minimal)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}', '\n'), nil
}

func appendTraceRequest(b []byte, clock benchrun.Clock, k int, r *benchrun.Request) ([]byte, error) {
	if r.Index != k {
		return nil, fmt.Errorf("trace: request %d has index %d: records must be in dispatch order", k, r.Index)
	}
	failed := r.Failed()
	hasFirst, hasEnd := benchrun.IsKnown(r.TTFT), benchrun.IsKnown(r.Latency)
	var first, end float64
	if hasFirst {
		first = r.Start + r.TTFT
	}
	if hasEnd {
		end = r.Start + r.Latency
	}
	if reason := traceCheckTimes(clock, r.Start, first, end, hasFirst, hasEnd, failed); reason != "" {
		return nil, fmt.Errorf("trace: request %d: %s", k, reason)
	}
	if r.InputTokens < -1 || r.OutputTokens < -1 {
		return nil, fmt.Errorf("trace: request %d: negative token count", k)
	}
	b = append(b, `{"i":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, `,"start":`...)
	b = appendTraceFloat(b, r.Start)
	b = append(b, `,"first_token":`...)
	b = appendTraceOpt(b, first, hasFirst)
	b = append(b, `,"end":`...)
	b = appendTraceOpt(b, end, hasEnd)
	b = append(b, `,"input_tokens":`...)
	b = appendTraceTokens(b, r.InputTokens)
	b = append(b, `,"output_tokens":`...)
	b = appendTraceTokens(b, r.OutputTokens)
	b = append(b, `,"error":`...)
	if failed {
		b = jsonw.AppendStringAs(b, r.Error, jsonw.Minimal)
	} else {
		b = append(b, "null"...)
	}
	if benchrun.IsKnown(r.QueueTime) {
		if q := r.QueueTime; q < 0 || q > traceMaxTime {
			return nil, fmt.Errorf("trace: request %d: queue time %g", k, q)
		}
		b = append(b, `,"queue_time":`...)
		b = appendTraceFloat(b, r.QueueTime)
	}
	if g := r.Gaps; g.Count > 0 {
		ok := g.Sum >= 0 && g.Sum <= traceMaxTime && g.Min >= 0 && g.Min <= g.Max && g.Max <= traceMaxTime
		if mean := g.Sum / float64(g.Count); !ok || mean < g.Min-traceTimeSlack || mean > g.Max+traceTimeSlack {
			return nil, fmt.Errorf("trace: request %d: inconsistent gap summary %+v", k, g)
		}
		if hasFirst && hasEnd && g.Sum > end-first+traceSlack(end, 16) {
			return nil, fmt.Errorf("trace: request %d: gaps add up to %g s, more than end − first_token", k, g.Sum)
		}
		b = append(b, `,"gaps":{"n":`...)
		b = strconv.AppendInt(b, int64(g.Count), 10)
		b = append(b, `,"sum":`...)
		b = appendTraceFloat(b, g.Sum)
		b = append(b, `,"min":`...)
		b = appendTraceFloat(b, g.Min)
		b = append(b, `,"max":`...)
		b = appendTraceFloat(b, g.Max)
		b = append(b, '}')
	}
	return append(b, '}', '\n'), nil
}

func appendTraceOpt(b []byte, v float64, has bool) []byte {
	if !has {
		return append(b, "null"...)
	}
	return appendTraceFloat(b, v)
}

func appendTraceTokens(b []byte, n int32) []byte {
	if n < 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// appendTraceFloat writes the shortest decimal that reads back as v: plain
// digits for the times a trace holds (1787068800.123456, 0.012), an
// exponent only for magnitudes where digits would run long.
func appendTraceFloat(b []byte, v float64) []byte {
	if a := math.Abs(v); a == 0 || a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func formatTraceFloat(v float64) string { return string(appendTraceFloat(nil, v)) }
