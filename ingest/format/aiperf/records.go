package aiperf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// NewRecords returns the parser for AIPerf's per-request records,
// profile_export.jsonl: one JSON object per request with its metadata
// (epoch-nanosecond send time), its metrics and its error. Its send times
// are wall-clock, so these records are the ones a node's replicas are
// aggregated from.
func NewRecords() format.Parser { return aiperfRecords{} }

type aiperfRecords struct{}

const (
	aiperfRecordsID = "aiperf-records"
	// aiperfCtxEvery is how many lines pass between cancellation checks.
	aiperfCtxEvery = 1 << 12
	// aiperfTTFTSlack absorbs the float rounding of two times in ms when
	// TTFT is compared with the latency it is part of.
	aiperfTTFTSlack = 1e-6
)

func (aiperfRecords) ID() string       { return aiperfRecordsID }
func (aiperfRecords) Describe() string { return "AIPerf profile_export.jsonl per-request records" }

// aiperfStartKeys name a record's send time in the two metadata shapes.
var aiperfStartKeys = map[string]bool{"timestamp_ns": true, "request_start_ns": true}

// aiperfMetadataMarkers are metadata keys only AIPerf's records carry.
var aiperfMetadataMarkers = map[string]bool{
	"x_request_id": true, "x_correlation_id": true, "worker_id": true, "record_processor_id": true,
	"credit_phase": true, "benchmark_phase": true, "session_num": true,
}

// Sniff reads the first line: an object whose "metadata" holds a send time
// in epoch ns and AIPerf's request identifiers, followed by "metrics" or
// "error". Metadata comes first, so a head cut inside a long list of chunk
// gaps is still recognised.
func (aiperfRecords) Sniff(name string, head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	var meta, found bool
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		if meta && (key == "metrics" || key == "error") {
			found = true
			return false
		}
		if key == "metadata" && v.Kind == pyjson.ObjectStart {
			depth := d.Depth()
			var start, marker bool
			jsonread.SniffObject(d, func(mk string, mv pyjson.Token) bool {
				start = start || aiperfStartKeys[mk] && mv.Kind == pyjson.Number
				marker = marker || aiperfMetadataMarkers[mk]
				return true
			})
			if d.Depth() >= depth {
				return false // the metadata is cut off
			}
			meta = start && marker
		}
		return v.Kind != pyjson.EOF
	})
	return found
}

// Parse reads every line and emits the one run.
func (aiperfRecords) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	p := &aiperfRecordsParser{
		ctx:  ctx,
		file: name,
		d:    pyjson.NewDecoder(&jsonread.LineLimit{R: r}),
	}
	run, err := p.parse()
	if err != nil {
		return err
	}
	return emit(run)
}

type aiperfRecordsParser struct {
	ctx  context.Context
	file string
	d    *pyjson.Decoder
	cur  int // line of the object being read; 0 between objects
	rd   jsonread.Cursor

	reqs    []benchrun.Request
	startNs []int64 // each record's send time, for the dispatch order
	errs    jsonread.ErrorTexts

	warmup, noLatency, answerOnly int
	earlyShape, laterShape        bool
	// Over completed requests: the first send and last response (epoch ns),
	// and the output tokens, as AIPerf's summaries compute them.
	minStartOK, maxEndOK int64
	minStartAll          int64
	osl                  int64
}

// syntax turns a decoder error into an InputError at the record's line.
func (p *aiperfRecordsParser) syntax(err error) error {
	return jsonread.LinesSyntax(p.file, p.cur, "not AIPerf's per-request records", err)
}

func (p *aiperfRecordsParser) errAt(line int, msgf string, args ...any) error {
	return format.Errorf(p.file, fmt.Sprintf("line %d", line), msgf, args...)
}

func (p *aiperfRecordsParser) next() (pyjson.Token, error) {
	tok, err := p.d.Next()
	if err != nil {
		return tok, p.syntax(err)
	}
	return tok, nil
}

func (p *aiperfRecordsParser) parse() (*benchrun.Run, error) {
	p.minStartOK, p.maxEndOK, p.minStartAll = math.MaxInt64, math.MinInt64, math.MaxInt64
	last, lines := 0, 0
	for {
		if lines%aiperfCtxEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return nil, err
			}
		}
		p.cur = 0
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if tok.Kind == pyjson.EOF {
			if lines == 0 {
				if tok.Offset == 0 {
					return nil, format.Errorf(p.file, "", "the file is empty")
				}
				return nil, format.Errorf(p.file, "", "the file holds only whitespace, no records")
			}
			break
		}
		if tok.Line == last {
			return nil, p.errAt(tok.Line, "a second JSON value on the line: AIPerf writes one record per line")
		}
		if tok.Kind != pyjson.ObjectStart {
			return nil, p.errAt(tok.Line, "expected a JSON object (one request record), found %s", tok.Kind)
		}
		p.cur = tok.Line
		end, err := p.record(tok.Line)
		if err != nil {
			return nil, err
		}
		if end.Line != tok.Line {
			return nil, p.errAt(tok.Line, "the record continues on line %d: AIPerf writes one record per line", end.Line)
		}
		last = end.Line
		lines++
	}
	return p.finish()
}

// aiperfRec is one line as read, before its checks.
type aiperfRec struct {
	line                      int
	startNs, endNs, respNs    int64
	hasStart, hasEnd, hasResp bool
	phase                     string
	ttft, latency             float64 // in the file's unit until converted
	ttftUnit, latencyUnit     string
	hasTTFT, hasLatency       bool
	in, out, answer           int64 // -1 unknown
	gaps                      benchrun.GapStats
	gapUnit                   string
	hasGaps                   bool
	errText                   string
	failed                    bool
}

// record reads one line's object whose '{' was just read, and returns its '}'.
func (p *aiperfRecordsParser) record(line int) (pyjson.Token, error) {
	q := aiperfRec{line: line, in: -1, out: -1, answer: -1}
	seen := map[string]bool{}
	c := p.cursor()
	end, err := c.Keys(func(k pyjson.Token) error {
		key := string(k.Bytes)
		if seen[key] {
			return p.errAt(line, "key %q appears twice in the record", key)
		}
		seen[key] = true
		v, err := c.Next("")
		if err != nil {
			return err
		}
		switch key {
		case "metadata":
			return p.metadata(&q, v)
		case "metrics":
			return p.metrics(&q, v)
		case "error":
			return p.errorField(&q, v)
		}
		return c.Skip("", v)
	})
	if err != nil {
		return end, jsonread.Placed(err, p.syntax)
	}
	return end, p.add(&q)
}

func (p *aiperfRecordsParser) skip(v pyjson.Token) error { return p.cursor().Skip("", v) }

// cursor reads the current line's objects; its decoder errors are placed
// at the line where record returns, so a record costs no allocation.
func (p *aiperfRecordsParser) cursor() *jsonread.Cursor {
	if p.rd.Dec == nil {
		p.rd = jsonread.Cursor{Dec: p.d, File: p.file, Wrap: jsonread.Raw}
	}
	return &p.rd
}

// epochNs reads an epoch time in integer nanoseconds.
func (p *aiperfRecordsParser) epochNs(line int, what string, v pyjson.Token) (int64, error) {
	n, err := v.Int()
	if v.Kind != pyjson.Number || err != nil {
		return 0, p.errAt(line, "%s must be an integer count of nanoseconds, found %s", what, jsonread.Show(v))
	}
	if n < aiperfEpochMinNs || n >= aiperfEpochMaxNs {
		return 0, p.errAt(line, "%s %d is not an epoch time in nanoseconds (outside 2000-2100)", what, n)
	}
	return n, nil
}

func (p *aiperfRecordsParser) metadata(q *aiperfRec, v pyjson.Token) error {
	if v.Kind != pyjson.ObjectStart {
		return p.errAt(q.line, "\"metadata\" must be an object, found %s", jsonread.Show(v))
	}
	seen := map[string]bool{}
	c := p.cursor()
	_, err := c.Keys(func(k pyjson.Token) error {
		key := string(k.Bytes)
		if seen[key] {
			return p.errAt(q.line, "metadata key %q appears twice", key)
		}
		seen[key] = true
		mv, err := c.Next("")
		if err != nil {
			return err
		}
		switch key {
		case "timestamp_ns", "request_start_ns":
			if q.hasStart {
				return p.errAt(q.line, "metadata has both timestamp_ns and request_start_ns")
			}
			if q.startNs, err = p.epochNs(q.line, "metadata."+key, mv); err != nil {
				return err
			}
			q.hasStart = true
			if key == "timestamp_ns" {
				p.earlyShape = true
			} else {
				p.laterShape = true
			}
		case "request_end_ns":
			if mv.Kind == pyjson.Null {
				return nil
			}
			if q.endNs, err = p.epochNs(q.line, "metadata."+key, mv); err != nil {
				return err
			}
			q.hasEnd = true
		case "credit_phase", "benchmark_phase":
			if mv.Kind != pyjson.String {
				return p.errAt(q.line, "metadata.%s must be a string, found %s", key, jsonread.Show(mv))
			}
			q.phase = string(mv.Bytes)
		default:
			return c.Skip("", mv)
		}
		return nil
	})
	return err
}

// metrics reads {"<tag>": {"value": number | [numbers], "unit": "<unit>"}}.
func (p *aiperfRecordsParser) metrics(q *aiperfRec, v pyjson.Token) error {
	if v.Kind == pyjson.Null {
		return nil
	}
	if v.Kind != pyjson.ObjectStart {
		return p.errAt(q.line, "\"metrics\" must be an object, found %s", jsonread.Show(v))
	}
	seen := map[string]bool{}
	c := p.cursor()
	_, err := c.Keys(func(k pyjson.Token) error {
		tag := string(k.Bytes)
		if seen[tag] {
			return p.errAt(q.line, "metric %q appears twice in the record", tag)
		}
		seen[tag] = true
		mv, err := c.Next("")
		if err != nil {
			return err
		}
		return p.metric(q, tag, mv)
	})
	return err
}

// aiperfRecordTags are the per-request metrics the archive keeps.
var aiperfRecordTags = map[string]bool{
	"ttft": true, "time_to_first_token": true, "request_latency": true, "input_sequence_length": true,
	"error_isl": true, "output_sequence_length": true, "output_token_count": true,
	"inter_chunk_latency": true, "max_response_timestamp": true,
}

// metric reads one metric of a record.
func (p *aiperfRecordsParser) metric(q *aiperfRec, tag string, v pyjson.Token) error {
	if !aiperfRecordTags[tag] {
		return p.skip(v)
	}
	if v.Kind != pyjson.ObjectStart {
		return p.errAt(q.line, "metric %q must be an object with \"value\" and \"unit\", found %s", tag, jsonread.Show(v))
	}
	var unit string
	var hasValue, hasUnit bool
	var num float64
	var intVal int64
	var isInt bool
	var gaps benchrun.GapStats
	c := p.cursor()
	_, err := c.Keys(func(k pyjson.Token) error {
		key := string(k.Bytes) // on the stack: it does not escape
		fv, err := c.Next("")
		if err != nil {
			return err
		}
		switch key {
		case "unit":
			if fv.Kind != pyjson.String {
				return p.errAt(q.line, "metric %q: \"unit\" must be a string, found %s", tag, jsonread.Show(fv))
			}
			unit, hasUnit = string(fv.Bytes), true
		case "value":
			if hasValue {
				return p.errAt(q.line, "metric %q has two values", tag)
			}
			hasValue = true
			if tag == "inter_chunk_latency" {
				gaps, err = p.gapList(q.line, fv)
				return err
			}
			if fv.Kind != pyjson.Number {
				return p.errAt(q.line, "metric %q: value must be a number, found %s", tag, jsonread.Show(fv))
			}
			if fv.NonFinite() {
				return p.errAt(q.line, "metric %q is %s, not a measurement", tag, fv.Bytes)
			}
			if num, err = fv.Float(); err != nil {
				return p.errAt(q.line, "metric %q: %v", tag, err)
			}
			if num < 0 {
				return p.errAt(q.line, "metric %q is negative (%s)", tag, fv.Bytes)
			}
			intVal, err = fv.Int()
			isInt = err == nil
		default:
			return c.Skip("", fv)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !hasValue {
		return p.errAt(q.line, "metric %q has no \"value\"", tag)
	}
	switch tag {
	case "ttft", "time_to_first_token", "request_latency":
		if _, ok := aiperfUnitDivisor("s", unit); !ok {
			return p.errAt(q.line, "metric %q is in %q, which is not a unit of time", tag, unit)
		}
		if tag == "request_latency" {
			q.latency, q.latencyUnit, q.hasLatency = num, unit, true
		} else {
			if q.hasTTFT {
				return p.errAt(q.line, "the record has both ttft and time_to_first_token")
			}
			q.ttft, q.ttftUnit, q.hasTTFT = num, unit, true
		}
	case "inter_chunk_latency":
		div, ok := aiperfUnitDivisor("s", unit)
		if !ok {
			return p.errAt(q.line, "metric %q is in %q, which is not a unit of time", tag, unit)
		}
		if gaps.Count > 0 {
			gaps.Sum /= div
			gaps.Min /= div
			gaps.Max /= div
		}
		q.gaps, q.hasGaps = gaps, true
	case "max_response_timestamp":
		if unit != "ns" || !isInt {
			return p.errAt(q.line, "max_response_timestamp must be an integer in ns, found %g %s", num, unit)
		}
		if intVal < aiperfEpochMinNs || intVal >= aiperfEpochMaxNs {
			return p.errAt(q.line, "max_response_timestamp %d is not an epoch time in nanoseconds", intVal)
		}
		q.respNs, q.hasResp = intVal, true
	default: // token counts
		if hasUnit && unit != "tokens" {
			return p.errAt(q.line, "metric %q is in %q, expected tokens", tag, unit)
		}
		if !isInt || intVal > math.MaxInt32 {
			return p.errAt(q.line, "metric %q must be a whole number of tokens, found %g", tag, num)
		}
		switch tag {
		case "input_sequence_length", "error_isl":
			q.in = intVal
		case "output_sequence_length":
			q.out = intVal
		case "output_token_count":
			q.answer = intVal
		}
	}
	return nil
}

// gapList reduces a list of chunk gaps (in the metric's unit, converted by
// the caller) to its summary as it streams past.
func (p *aiperfRecordsParser) gapList(line int, v pyjson.Token) (benchrun.GapStats, error) {
	g := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
	if v.Kind != pyjson.ArrayStart {
		return g, p.errAt(line, "inter_chunk_latency must be a list of gaps, found %s", jsonread.Show(v))
	}
	for k := 0; ; k++ {
		e, err := p.next()
		if err != nil {
			return g, err
		}
		if e.Kind == pyjson.ArrayEnd {
			return g, nil
		}
		if e.Kind != pyjson.Number || e.NonFinite() {
			return g, p.errAt(line, "inter_chunk_latency gap %d is %s, not a time", k, jsonread.Show(e))
		}
		x, err := e.Float()
		if err != nil || x < 0 {
			return g, p.errAt(line, "inter_chunk_latency gap %d is %s, not a valid time", k, e.Bytes)
		}
		if g.Count == math.MaxInt32 {
			return g, p.errAt(line, "too many chunk gaps in one record")
		}
		g.Add(x)
	}
}

// errorField reads the record's error: null, or {code, type, message, ...}.
func (p *aiperfRecordsParser) errorField(q *aiperfRec, v pyjson.Token) error {
	if v.Kind == pyjson.Null {
		return nil
	}
	if v.Kind != pyjson.ObjectStart {
		return p.errAt(q.line, "\"error\" must be null or an object, found %s", jsonread.Show(v))
	}
	var code, typ, msg string
	c := p.cursor()
	_, err := c.Keys(func(k pyjson.Token) error {
		key := string(k.Bytes) // on the stack: it does not escape
		ev, err := c.Next("")
		if err != nil {
			return err
		}
		switch {
		case key == "code" && ev.Kind == pyjson.Number:
			code = string(ev.Bytes)
		case key == "type" && ev.Kind == pyjson.String:
			typ = string(ev.Bytes)
		case key == "message" && ev.Kind == pyjson.String:
			msg = string(ev.Bytes)
		default:
			return c.Skip("", ev)
		}
		return nil
	})
	if err != nil {
		return err
	}
	text := strings.TrimSpace(code + " " + typ)
	switch {
	case text != "" && msg != "":
		text += ": " + msg
	case text == "":
		text = msg
	}
	if text == "" {
		text = "error (no details recorded)"
	}
	q.failed, q.errText = true, p.errs.Intern([]byte(text))
	return nil
}

// add checks a record and keeps it (profiling phase only).
func (p *aiperfRecordsParser) add(q *aiperfRec) error {
	if !q.hasStart {
		return p.errAt(q.line, "no send time: the record's metadata has neither timestamp_ns nor request_start_ns")
	}
	if q.phase == "warmup" {
		p.warmup++
		return nil
	}
	r := format.NewRequest(len(p.reqs))
	r.Start = float64(q.startNs) / 1e9
	r.InputTokens = int32(q.in)
	if q.hasTTFT {
		div, _ := aiperfUnitDivisor("s", q.ttftUnit)
		r.TTFT = q.ttft / div
	}
	if q.hasLatency {
		div, _ := aiperfUnitDivisor("s", q.latencyUnit)
		r.Latency = q.latency / div
	}
	if q.hasGaps {
		r.Gaps = q.gaps
	}
	p.minStartAll = min(p.minStartAll, q.startNs)
	if q.failed {
		r.Error = q.errText
	} else {
		if benchrun.IsKnown(r.TTFT) && benchrun.IsKnown(r.Latency) && r.TTFT > r.Latency+aiperfTTFTSlack {
			return p.errAt(q.line, "time to first token (%g s) is after the end of the request (latency %g s)", r.TTFT, r.Latency)
		}
		out := q.out
		if out < 0 && q.answer >= 0 {
			out = q.answer
			p.answerOnly++
		}
		r.OutputTokens = int32(out)
		if !benchrun.IsKnown(r.Latency) {
			p.noLatency++
		}
		p.minStartOK = min(p.minStartOK, q.startNs)
		end := int64(math.MinInt64)
		switch {
		case q.hasResp:
			end = q.respNs
		case q.hasEnd:
			end = q.endNs
		case q.hasLatency:
			end = q.startNs + int64(math.Round(r.Latency*1e9))
		}
		p.maxEndOK = max(p.maxEndOK, end)
		if out > 0 {
			p.osl += out
		}
	}
	p.reqs = append(p.reqs, r)
	p.startNs = append(p.startNs, q.startNs)
	return nil
}

// finish orders the records by send time and builds the run.
func (p *aiperfRecordsParser) finish() (*benchrun.Run, error) {
	if len(p.reqs) == 0 {
		return nil, format.Errorf(p.file, "", "no profiling-phase requests: the file holds %d warmup records only", p.warmup)
	}
	run := &benchrun.Run{
		Location:         "line 1",
		Format:           aiperfRecordsID,
		SourceTool:       aiperfClient,
		PercentileMethod: "linear",
		Clock:            benchrun.ClockEpoch,
		Facts:            map[string]string{"measurement.client": aiperfClient, "measurement.clock": string(benchrun.ClockEpoch)},
		Extra:            map[string]string{},
		HasRequests:      true,
	}
	note := func(msgf string, args ...any) { run.Notes = append(run.Notes, fmt.Sprintf(msgf, args...)) }
	switch {
	case p.earlyShape && p.laterShape:
		run.FormatVariant = "mixed timestamp_ns and request_start_ns metadata"
	case p.earlyShape:
		run.FormatVariant = "timestamp_ns metadata (AIPerf 0.1)"
	default:
		run.FormatVariant = "request_start_ns metadata"
	}

	// AIPerf writes records as its processors finish them; the archive
	// keeps them in dispatch order.
	order := make([]int, len(p.reqs))
	for i := range order {
		order[i] = i
	}
	sorted := sort.SliceIsSorted(order, func(a, b int) bool { return p.startNs[order[a]] < p.startNs[order[b]] })
	if !sorted {
		sort.SliceStable(order, func(a, b int) bool { return p.startNs[order[a]] < p.startNs[order[b]] })
		reqs := make([]benchrun.Request, len(p.reqs))
		for i, j := range order {
			reqs[i] = p.reqs[j]
			reqs[i].Index = i
		}
		p.reqs = reqs
		note("records are in the order AIPerf finished processing them; the archive keeps them sorted by send time")
	}
	run.Requests = p.reqs
	for i := range p.reqs {
		if p.reqs[i].Failed() {
			run.Failed++
		} else {
			run.Completed++
		}
	}

	note("per-request output tokens are output_sequence_length: answer plus reasoning tokens, what AIPerf's output throughput counts")
	if p.answerOnly > 0 {
		note("%d completed records have no output_sequence_length; their output_token_count (answer tokens only) is taken instead", p.answerOnly)
	}
	if p.warmup > 0 {
		note("%d warmup-phase records are not part of the run and were left out", p.warmup)
	}
	if p.noLatency > 0 {
		note("%d completed records have no request_latency", p.noLatency)
	}
	first := p.minStartOK
	if first == math.MaxInt64 {
		first = p.minStartAll
	}
	// float64 as AIPerf's summaries round it, so that every file of the
	// run gives the same date.
	if date, ok := aiperfEpochDate(float64(first)); ok {
		run.Facts["measurement.date"] = date
		note("measurement.date is the first request's send time in UTC")
	}
	duration := math.NaN()
	if run.Completed > 0 && p.maxEndOK > p.minStartOK {
		duration = float64(p.maxEndOK-p.minStartOK) / 1e9
	}
	aiperfCompanionNote(run, run.Completed, run.Failed, p.osl, duration)
	return run, nil
}

// Invocation: AIPerf names its records <stem>.jsonl beside
// <stem>_aiperf.json and <stem>_aiperf.csv (stem profile_export by default).
func (aiperfRecords) Invocation(path string) (string, bool) {
	return format.StemInvocation(path, ".jsonl")
}
