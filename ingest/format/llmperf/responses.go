package llmperf

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// llmperfRecordKeys are the per-request keys llmperf writes; the parser
// reads those it stores and skips the others.
var llmperfRecordKeys = map[string]bool{
	"error_code": true, "error_msg": true, "inter_token_latency_s": true, "ttft_s": true,
	"end_to_end_latency_s": true, "request_output_throughput_token_per_s": true,
	"number_total_tokens": true, "number_output_tokens": true, "number_input_tokens": true, "GEN_TEXT": true,
}

// llmperfResponsesRun collects the records of the responses file.
type llmperfResponsesRun struct {
	file string
	d    *pyjson.Decoder
	run  *benchrun.Run

	genText          bool
	unknownKeys      map[string]bool
	totalMismatch    int
	placeholders     int
	minmax           [4]float64
	completed, fails int64
	errTexts         map[string]string // interned error texts
}

// Parse reads the list of per-request records.
func (llmperfResponses) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	d := pyjson.NewDecoder(r)
	first, err := jsonread.Expect(name, d, pyjson.ArrayStart, "an llmperf individual-responses file", "a list of records")
	if err != nil {
		return err
	}
	p := &llmperfResponsesRun{
		file: name, d: d, unknownKeys: map[string]bool{}, errTexts: map[string]string{},
		minmax: [4]float64{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)},
		run: &benchrun.Run{
			Location:         fmt.Sprintf("list at byte %d (line %d)", first.Offset, first.Line),
			Format:           llmperfResponsesID,
			SourceTool:       llmperfTool,
			PercentileMethod: "linear",
			Clock:            benchrun.ClockNone,
			Facts:            map[string]string{"measurement.client": llmperfClient},
			Extra:            map[string]string{},
		},
	}
	for i := 0; ; i++ {
		if i%llmperfCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := d.Next()
		if err != nil {
			return jsonread.Syntax(name, fmt.Sprintf("record %d, ", i), err)
		}
		if tok.Kind == pyjson.ArrayEnd {
			break
		}
		if tok.Kind != pyjson.ObjectStart {
			return format.Errorf(name, jsonread.Place(fmt.Sprintf("record %d, ", i), tok), "expected a request record (an object), found %s", tok.Kind)
		}
		if err := p.record(i); err != nil {
			return err
		}
	}
	if err := jsonread.End(name, d, "an llmperf individual-responses file"); err != nil {
		return err
	}
	if err := p.finish(); err != nil {
		return err
	}
	return emit(p.run)
}

func (p *llmperfResponsesRun) errAt(i int, key string, vt pyjson.Token, msgf string, args ...any) error {
	return format.Errorf(p.file, jsonread.Place(fmt.Sprintf("record %d key %q, ", i, key), vt), msgf, args...)
}

// record reads one request object whose '{' was just read.
func (p *llmperfResponsesRun) record(i int) error {
	req := format.NewRequest(i)
	var (
		failed              bool
		code, msg           string
		seen                      = map[string]bool{}
		total               int64 = -1
		hasTTFT, hasLatency bool
	)
	// The cursor passes a decoder error at a key on as it is, placed where
	// the loop returns.
	c := jsonread.Cursor{Dec: p.d, File: p.file, Wrap: jsonread.Raw}
	_, err := c.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes)
		if seen[key] {
			return format.Errorf(p.file, jsonread.Place(fmt.Sprintf("record %d, ", i), kt), "key %q appears twice in one record", key)
		}
		seen[key] = true
		valueSyntax := func(err error) error {
			return jsonread.Syntax(p.file, fmt.Sprintf("record %d key %q, ", i, key), err)
		}
		vt, err := p.d.Next()
		if err != nil {
			return valueSyntax(err)
		}
		switch key {
		case "error_code":
			switch vt.Kind {
			case pyjson.Null:
			case pyjson.Number:
				v, err := vt.Float()
				if err != nil || vt.NonFinite() {
					return p.errAt(i, key, vt, "error_code %s is not a code", vt.Bytes)
				}
				failed, code = true, format.FormatFloat(v)
			case pyjson.String:
				failed, code = true, strconv.Quote(llmperfClip(string(vt.Bytes), 40))
			default:
				return p.errAt(i, key, vt, "expected null, a number or a string, found %s", vt.Kind)
			}
		case "error_msg":
			switch vt.Kind {
			case pyjson.String:
				msg = llmperfClip(string(vt.Bytes), llmperfErrorMax)
			case pyjson.Null:
			default:
				return p.errAt(i, key, vt, "expected a string, found %s", vt.Kind)
			}
		case "ttft_s", "end_to_end_latency_s", "inter_token_latency_s", "request_output_throughput_token_per_s":
			if vt.Kind == pyjson.Null {
				return nil
			}
			v, finite, viaString, err := llmperfNumber(vt)
			switch {
			case err != nil:
				return p.errAt(i, key, vt, "%v", err)
			case viaString:
				return p.errAt(i, key, vt, "expected a number, found the string %q", llmperfClip(string(vt.Bytes), 40))
			case !finite:
				return p.errAt(i, key, vt, "%s is not a valid value", vt.Bytes)
			case v < 0:
				return p.errAt(i, key, vt, "negative %s", vt.Bytes)
			}
			switch key {
			case "ttft_s":
				req.TTFT, hasTTFT = v, true
			case "end_to_end_latency_s":
				req.Latency, hasLatency = v, true
			}
		case "number_input_tokens", "number_output_tokens", "number_total_tokens":
			if vt.Kind == pyjson.Null {
				return nil
			}
			if vt.Kind != pyjson.Number {
				return p.errAt(i, key, vt, "expected a token count, found %s", vt.Kind)
			}
			v, err := vt.Float()
			switch {
			case err != nil || vt.NonFinite() || v != math.Trunc(v):
				return p.errAt(i, key, vt, "expected a token count, found %s", vt.Bytes)
			case v < 0:
				return p.errAt(i, key, vt, "negative token count %s", vt.Bytes)
			case v > math.MaxInt32:
				return p.errAt(i, key, vt, "token count %s is implausibly large", vt.Bytes)
			}
			switch key {
			case "number_input_tokens":
				req.InputTokens = int32(v)
			case "number_output_tokens":
				req.OutputTokens = int32(v)
			default:
				total = int64(v)
			}
		case "GEN_TEXT":
			// Generated text: kept in the raw bytes only.
			p.genText = true
			if _, _, err := p.d.Capture(vt, 0, nil); err != nil {
				return valueSyntax(err)
			}
		default:
			p.unknownKeys[key] = true
			if err := p.d.Skip(vt); err != nil {
				return valueSyntax(err)
			}
		}
		return nil
	})
	if err != nil {
		return jsonread.Placed(err, func(err error) error { return jsonread.Syntax(p.file, fmt.Sprintf("record %d, ", i), err) })
	}
	if total >= 0 && req.InputTokens >= 0 && req.OutputTokens >= 0 && total != int64(req.InputTokens)+int64(req.OutputTokens) {
		p.totalMismatch++
	}
	if failed {
		p.fails++
		text := "error_code " + code
		if msg != "" {
			text += ": " + msg
		}
		if t, ok := p.errTexts[text]; ok {
			text = t
		} else if len(p.errTexts) < 1024 {
			p.errTexts[text] = text
		}
		req.Error = text
		// llmperf's clients leave ttft and the latency at 0 when a request
		// fails before its first token: unknown, not zero.
		if hasTTFT && req.TTFT == 0 {
			req.TTFT = benchrun.Unknown
			p.placeholders++
		}
		if hasLatency && req.Latency == 0 {
			req.Latency = benchrun.Unknown
		}
	} else {
		p.completed++
		if hasTTFT {
			p.minmax[0] = math.Min(p.minmax[0], req.TTFT)
			p.minmax[1] = math.Max(p.minmax[1], req.TTFT)
		}
		if hasLatency {
			p.minmax[2] = math.Min(p.minmax[2], req.Latency)
			p.minmax[3] = math.Max(p.minmax[3], req.Latency)
		}
	}
	p.run.Requests = append(p.run.Requests, req)
	return nil
}

// finish fills what is known once every record has been read.
func (p *llmperfResponsesRun) finish() error {
	run := p.run
	n := len(run.Requests)
	if n == 0 {
		return format.Errorf(p.file, run.Location, "run has no requests: the list of records is empty")
	}
	run.HasRequests = true
	run.Completed, run.Failed = p.completed, p.fails
	run.Facts["workload.request_count"] = strconv.Itoa(n)
	run.FormatVariant = "individual responses"
	if p.genText {
		run.FormatVariant += " with GEN_TEXT"
		run.Notes = append(run.Notes, "the generated texts (GEN_TEXT) are kept in the raw bytes only")
	}
	run.Notes = append(run.Notes,
		"llmperf saves no send times: the records have no window of their own, so throughput is only as the summary states it",
		fmt.Sprintf("requests with a non-null error_code are failed, as llmperf counts them: %d of %d", p.fails, n),
		"per-request inter_token_latency_s (TTFT included) and request_output_throughput_token_per_s are not stored: they follow from the latency and the tokens, and the raw bytes keep them",
		"token counts are from llmperf's client-side tokenizer, not the server's usage")
	if p.placeholders > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d failed requests carry llmperf's 0 placeholders for TTFT and latency: stored as unknown", p.placeholders))
	}
	if p.totalMismatch > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d records have number_total_tokens different from input + output tokens", p.totalMismatch))
	}
	if len(p.unknownKeys) > 0 {
		keys := slices.Sorted(maps.Keys(p.unknownKeys))
		run.Extra["record_keys_not_read"] = strconv.Quote(strings.Join(keys, ","))
		run.Notes = append(run.Notes, fmt.Sprintf("record keys not read (kept in the raw bytes): %s", strings.Join(keys, ", ")))
	}
	if p.completed > 0 {
		run.Companion = llmperfCompanionKey(int64(n), p.minmax[0], p.minmax[1], p.minmax[2], p.minmax[3])
	}
	if run.Companion != "" {
		run.Notes = append(run.Notes, llmperfCompanionNote)
	} else {
		run.Notes = append(run.Notes, llmperfNoCompanionNote)
	}
	return nil
}
