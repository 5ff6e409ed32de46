package vllmjson

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// NewVLLMJSON returns the parser for the JSON result files of
// `vllm bench serve` and the older benchmarks/benchmark_serving.py: single
// runs, --append-result files (one object per line), sweep run=N.json and
// sweep summary.json lists.
func New() format.Parser { return vllmJSON{} }

type vllmJSON struct{}

const (
	vllmJSONID = "vllm-serve-json"
	// vllmDateLayout is vLLM's "date": strftime("%Y%m%d-%H%M%S").
	vllmDateLayout = "20060102-150405"
)

func (vllmJSON) ID() string { return vllmJSONID }

func (vllmJSON) Describe() string {
	return "vllm bench serve / benchmark_serving.py JSON result"
}

// Sniff reads the keys of the first object in head (or of the first element
// of a top-level list). vLLM writes its identity keys (date, model_id, ...)
// and duration/completed before any large array, so 64 KiB holds them.
// SGLang's bench_serving shares the result keys but never writes date,
// model_id, tokenizer_id or num_prompts; vLLM's derived CI table and its
// side files have no result keys.
func (vllmJSON) Sniff(name string, head []byte) bool {
	d := pyjson.NewDecoderSize(pyjson.NewInput(head), len(head)+16)
	tok, err := d.Next()
	if err == nil && tok.Kind == pyjson.ArrayStart {
		tok, err = d.Next()
	}
	if err != nil || tok.Kind != pyjson.ObjectStart {
		return false
	}
	var identity, result bool
	jsonread.SniffWhole(d, func(key string, v pyjson.Token) bool {
		switch key {
		case "model_id", "tokenizer_id", "num_prompts", "endpoint_type":
			identity = true
		case "date":
			if v.Kind == pyjson.String {
				_, err := time.Parse(vllmDateLayout, string(v.Bytes))
				identity = identity || err == nil
			}
		case "completed", "duration":
			result = result || v.Kind == pyjson.Number
		}
		return !(identity && result)
	})
	return identity && result
}

// Parse reads every run in the file and emits them in file order.
func (vllmJSON) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	return parse(ctx, name, r, false, func(run *benchrun.Run, _ format.Rows) error { return emit(run) })
}

// ParseCompact is Parse with each run's records as format.Rows kept column
// by column (format.CompactParser).
func (vllmJSON) ParseCompact(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run, format.Rows) error) error {
	return parse(ctx, name, r, true, emit)
}

func parse(ctx context.Context, name string, r io.Reader, compact bool, emit func(*benchrun.Run, format.Rows) error) error {
	p := &vllmJSONParser{ctx: ctx, file: name, d: pyjson.NewDecoder(r), tick: jsonread.Ticker{Ctx: ctx}, compact: compact}
	ordinal := 0
	// A bad run object is emitted as a rejection and the next one is read
	// (format.Reject); the batch decides when the file is rejected.
	emitRun := emit
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := p.d.Next()
		if err != nil {
			return p.syntax(err, "")
		}
		switch tok.Kind {
		case pyjson.EOF:
			if ordinal == 0 {
				if tok.Offset == 0 {
					return format.Errorf(name, "", "the file is empty")
				}
				return format.Errorf(name, jsonread.Place("", tok), "the file holds only whitespace, no JSON value")
			}
			return nil
		case pyjson.ObjectStart:
			run, rows, err := p.object(tok, ordinal, false)
			if err != nil {
				return err
			}
			if err := emitRun(run, rows); err != nil {
				return err
			}
			ordinal++
		case pyjson.ArrayStart:
			// A sweep summary.json: a list of run objects.
			items := 0
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				el, err := p.d.Next()
				if err != nil {
					return p.syntax(err, "")
				}
				if el.Kind == pyjson.ArrayEnd {
					break
				}
				if el.Kind != pyjson.ObjectStart {
					return format.Errorf(name, jsonread.Place(fmt.Sprintf("list item %d, ", items), el),
						"not a vllm bench serve result: the list holds a %s, not a run object", el.Kind)
				}
				run, rows, err := p.object(el, ordinal, true)
				if err != nil {
					return err
				}
				if err := emitRun(run, rows); err != nil {
					return err
				}
				ordinal++
				items++
			}
			if items == 0 {
				return format.Errorf(name, jsonread.Place("", tok), "the file holds an empty list: no runs")
			}
		default:
			return format.Errorf(name, jsonread.Place("", tok), "not a vllm bench serve result: the file holds a %s, not a JSON object", tok.Kind)
		}
	}
}

type vllmJSONParser struct {
	ctx  context.Context
	file string
	d    *pyjson.Decoder
	tick jsonread.Ticker // array items read since the last cancellation check
	// lists reads the lists of chunk gaps ("itls") on several cores.
	lists jsonread.GapLists
	// compact keeps each run's records column by column (ParseCompact).
	compact bool
}

// syntax turns a decoder error into an InputError, prefixed with where in
// the run it happened.
func (p *vllmJSONParser) syntax(err error, prefix string) error {
	return jsonread.Syntax(p.file, prefix, err)
}

// vllmSummaryKeys maps vLLM's summary figures to canonical metric names and the
// unit the file states them in. Latency statistics (mean_ttft_ms, ...) are
// recognised by pattern in vllmStatMetric instead.
var vllmSummaryKeys = map[string]struct{ metric, unit string }{
	"duration":                {"duration", "s"},
	"completed":               {"completed", "requests"},
	"failed":                  {"failed", "requests"},
	"num_prompts":             {"num_prompts", "requests"},
	"total_input_tokens":      {"total_input_tokens", "tokens"},
	"total_output_tokens":     {"total_output_tokens", "tokens"},
	"request_throughput":      {"request_throughput", "req/s"},
	"request_goodput":         {"request_goodput", "req/s"},
	"request_goodput:":        {"request_goodput", "req/s"}, // sic: benchmark_serving.py's typo
	"output_throughput":       {"output_throughput", "tok/s"},
	"total_token_throughput":  {"total_token_throughput", "tok/s"},
	"max_output_tokens_per_s": {"max_output_tokens_per_s", "tok/s"},
	"max_concurrent_requests": {"max_concurrent_requests", "requests"},
}

// vllmKnownUnmapped are vLLM keys this parser recognises but does not map; they
// go to Extra as they are, never to metadata facts.
var vllmKnownUnmapped = map[string]bool{
	"rtfx": true, "ramp_up_strategy": true, "ramp_up_start_rps": true, "ramp_up_end_rps": true,
	"rps_change_events": true, "total_input_sequences": true, "input_sequence_throughput": true,
	"run_number": true,
}

var vllmKnownUnmappedPrefixes = []string{"spec_decode_", "probe_", "diffusion_"}

// vllmServeOnlyKeys appear only in files of vllm bench serve (serve.py), never in
// the old benchmark_serving.py.
var vllmServeOnlyKeys = map[string]bool{
	"endpoint_type": true, "label": true, "failed": true, "latencies": true, "queue_times": true,
	"start_times": true, "max_output_tokens_per_s": true, "max_concurrent_requests": true,
	"rtfx": true, "request_goodput": true,
}

// vllmStatMetric recognises vLLM's latency statistics, "{mean,median,std}_{m}_ms"
// and "p{P}_{m}_ms", for any metric m and percentile P (99, 95, 99.9, ...),
// and returns the canonical name "m.mean", "m.p99.9", ...
func vllmStatMetric(key string) (string, bool) {
	rest, ok := strings.CutSuffix(key, "_ms")
	if !ok {
		return "", false
	}
	stat, m, ok := strings.Cut(rest, "_")
	if !ok || m == "" {
		return "", false
	}
	switch stat {
	case "mean", "median", "std":
	default:
		if !format.IsPercentileWord(stat) {
			return "", false
		}
	}
	for i := 0; i < len(m); i++ {
		if c := m[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", false
		}
	}
	return m + "." + stat, true
}

// vllmRunBuilder collects one run object as its keys stream past.
type vllmRunBuilder struct {
	p      *vllmJSONParser
	run    *benchrun.Run
	prefix string // "object 2, " when the file has several runs

	recs  jsonread.Records // the per-request lists
	texts bool             // generated_texts present

	completed, failed   bool // the keys were present
	duration            bool
	numPrompts          int64
	legacyKey, newer    bool
	pooling, runNumber  bool
	identity            bool // date, model_id, tokenizer_id, num_prompts or endpoint_type
	sglangKey           string
	date, dateRaw       string
	endpointRaw         string
	backend, endpoint   string
	hasBackend, hasEndp bool
	maxConcRaw          string
}

func (b *vllmRunBuilder) errAt(prefix string, tok pyjson.Token, msgf string, args ...any) error {
	return format.Errorf(b.p.file, jsonread.Place(b.prefix+prefix, tok), msgf, args...)
}

func (b *vllmRunBuilder) next(prefix string) (pyjson.Token, error) {
	tok, err := b.p.d.Next()
	if err != nil {
		return tok, b.p.syntax(err, b.prefix+prefix)
	}
	return tok, nil
}

// object reads one run object whose '{' was first; rows are its records
// when compact (nil for a rejected run or one without records).
func (p *vllmJSONParser) object(first pyjson.Token, ordinal int, inList bool) (*benchrun.Run, format.Rows, error) {
	b := &vllmRunBuilder{
		p:          p,
		numPrompts: -1,
		run: &benchrun.Run{
			Ordinal:          ordinal,
			Location:         fmt.Sprintf("object %d at byte %d (line %d)", ordinal, first.Offset, first.Line),
			Format:           vllmJSONID,
			SourceTool:       "vllm bench serve",
			PercentileMethod: "linear",
			Facts:            map[string]string{},
			Extra:            map[string]string{},
			Completed:        -1,
			Failed:           -1,
		},
	}
	if ordinal > 0 || inList {
		b.prefix = fmt.Sprintf("object %d, ", ordinal)
	}
	b.newRecords()
	seen := make(map[string]bool, 64)
	c := jsonread.Cursor{Dec: b.p.d, File: b.p.file, Prefix: b.prefix}
	outside := b.p.d.Depth() - 1 // the depth the decoder is at once this object is read
	if _, err := c.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes)
		if seen[key] {
			return b.errAt("", kt, "key %q appears twice in one run", key)
		}
		seen[key] = true
		vt, err := b.p.d.Next()
		if err != nil {
			return b.p.syntax(err, b.prefix+jsonread.KeyPlace(key))
		}
		return b.field(key, vt)
	}); err != nil {
		// A value refused for what it says (not for its syntax) leaves the
		// decoder in step: the rest of the object is skipped and this run
		// alone is rejected.
		var ie *format.InputError
		if !errors.As(err, &ie) || ie.Err != nil {
			return nil, nil, err
		}
		if serr := b.p.d.SkipOut(outside); serr != nil {
			return nil, nil, b.p.syntax(serr, b.prefix)
		}
		return b.reject(ordinal, ie), nil, nil
	}
	if err := b.finish(inList); err != nil {
		// The object was read whole: what is wrong with it is this run's
		// alone, and the file's other runs go on.
		var ie *format.InputError
		if errors.As(err, &ie) {
			return b.reject(ordinal, ie), nil, nil
		}
		return nil, nil, err
	}
	if !p.compact || !b.run.HasRequests {
		return b.run, nil, nil
	}
	return b.run, b.recs.Rows(), nil
}

// reject is this run's rejection at the place of ie (the object's own
// place when ie names none).
func (b *vllmRunBuilder) reject(ordinal int, ie *format.InputError) *benchrun.Run {
	place := ie.Place
	if place == "" || place == strings.TrimSuffix(b.prefix, ", ") {
		place = b.run.Location
	}
	r := format.Reject(ordinal, &format.InputError{File: ie.File, Place: place, Reason: ie.Reason})
	r.Format = vllmJSONID
	return r
}

func (b *vllmRunBuilder) note(msgf string, args ...any) {
	b.run.Notes = append(b.run.Notes, fmt.Sprintf(msgf, args...))
}

// keepExtra stores a value's raw JSON text in Extra, or a short note for a
// value larger than vllmExtraLimit.
func (b *vllmRunBuilder) keepExtra(key string, vt pyjson.Token) error {
	raw, size, err := b.p.d.Capture(vt, jsonread.ExtraLimit, nil)
	if err != nil {
		return b.p.syntax(err, b.prefix+jsonread.KeyPlace(key))
	}
	if size > jsonread.ExtraLimit {
		b.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	b.run.Extra[key] = string(raw)
	return nil
}

// rawScalar returns the JSON text of the scalar token Next just returned.
func (b *vllmRunBuilder) rawScalar(vt pyjson.Token) string {
	raw, _, _ := b.p.d.Capture(vt, jsonread.ExtraLimit, nil)
	return string(raw)
}

// field handles one top-level key of a run.
func (b *vllmRunBuilder) field(key string, vt pyjson.Token) error {
	if vllmServeOnlyKeys[key] {
		b.newer = true
	}
	switch key {
	case "date":
		b.identity = true
		if vt.Kind != pyjson.String {
			return b.keepExtra(key, vt)
		}
		b.date = string(vt.Bytes)
		b.dateRaw = b.rawScalar(vt)
		return nil
	case "endpoint_type", "backend", "label", "model_id", "tokenizer_id":
		if key != "backend" && key != "label" {
			b.identity = true
		}
		switch vt.Kind {
		case pyjson.String:
			s := string(vt.Bytes)
			switch key {
			case "endpoint_type":
				b.endpoint, b.hasEndp = s, true
				b.endpointRaw = b.rawScalar(vt)
			case "backend":
				b.backend, b.hasBackend = s, true
			case "label":
				b.run.Facts["measurement.label"] = s
			case "model_id":
				b.run.Facts["checkpoint.model_id"] = s
			case "tokenizer_id":
				b.run.Facts["checkpoint.tokenizer"] = s
			}
			return nil
		case pyjson.Null:
			b.run.Extra[key] = "null"
			return nil
		}
		return b.errAt(jsonread.KeyPlace(key), vt, "expected a string, found %s", vt.Kind)
	case "num_prompts":
		b.identity = true
		if vt.Kind == pyjson.String {
			return b.shadowed(key, vt)
		}
		n, ok, err := b.count(key, vt)
		if err != nil || !ok {
			return err
		}
		b.numPrompts = n
		b.run.Facts["workload.request_count"] = strconv.FormatInt(n, 10)
		return b.stated(key, vt)
	case "request_rate":
		switch {
		case vt.Kind == pyjson.String && string(vt.Bytes) == "inf":
			b.run.Facts["workload.request_rate"] = "inf"
		case vt.Kind == pyjson.String:
			return b.shadowed(key, vt)
		case vt.Kind == pyjson.Number:
			v, err := vt.Float()
			if err != nil {
				return b.errAt(jsonread.KeyPlace(key), vt, "%v", err)
			}
			switch {
			case math.IsInf(v, 1):
				b.run.Facts["workload.request_rate"] = "inf"
			case math.IsNaN(v):
				b.note("request_rate is NaN in the file; no request rate recorded")
				b.run.Extra[key] = "NaN"
			default:
				b.run.Facts["workload.request_rate"] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		case vt.Kind == pyjson.Null:
			b.run.Extra[key] = "null"
		default:
			return b.errAt(jsonread.KeyPlace(key), vt, "expected a number or \"inf\", found %s", vt.Kind)
		}
		return nil
	case "burstiness":
		switch vt.Kind {
		case pyjson.Number:
			v, err := vt.Float()
			if err != nil {
				return b.errAt(jsonread.KeyPlace(key), vt, "%v", err)
			}
			if vt.NonFinite() {
				b.note("burstiness is %s in the file; not recorded", vt.Bytes)
				b.run.Extra[key] = string(vt.Bytes)
				return nil
			}
			b.run.Facts["workload.burstiness"] = strconv.FormatFloat(v, 'g', -1, 64)
			return nil
		case pyjson.Null:
			b.run.Extra[key] = "null"
			return nil
		case pyjson.String:
			return b.shadowed(key, vt)
		}
		return b.errAt(jsonread.KeyPlace(key), vt, "expected a number, found %s", vt.Kind)
	case "max_concurrency":
		switch vt.Kind {
		case pyjson.Null:
			b.maxConcRaw = "null"
			b.run.Extra[key] = "null"
			return nil
		case pyjson.String:
			return b.shadowed(key, vt)
		}
		n, ok, err := b.count(key, vt)
		if err != nil || !ok {
			return err
		}
		b.maxConcRaw = strconv.FormatInt(n, 10)
		b.run.Facts["workload.concurrency"] = b.maxConcRaw
		return nil
	case "generated_texts":
		// Output texts can be most of a file; they stay in the raw bytes.
		b.texts = true
		_, size, err := b.p.d.Capture(vt, 0, nil)
		if err != nil {
			return b.p.syntax(err, b.prefix+jsonread.KeyPlace(key))
		}
		b.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	if col, ok := vllmColumns[key]; ok {
		return b.column(key, col, vt)
	}
	if _, ok := vllmSummaryKeys[key]; ok {
		switch key {
		case "request_goodput:":
			b.legacyKey = true
		case "completed":
			b.completed = true
		case "failed":
			b.failed = true
		case "duration":
			b.duration = true
		}
		return b.stated(key, vt)
	}
	switch {
	case key == "run_number":
		b.runNumber = true
	case key == "total_input_sequences":
		b.pooling = true
	case key == "total_output_tokens_retokenized", strings.HasSuffix(key, "_e2e_latency_ms"):
		// SGLang's; vLLM says e2el. Judged at the end of the object.
		b.sglangKey = key
	}
	if _, ok := vllmStatMetric(key); ok && (vt.Kind == pyjson.Number || vt.Kind == pyjson.Null) {
		return b.stated(key, vt)
	}
	if vllmKnownUnmapped[key] || format.HasPrefixIn(key, vllmKnownUnmappedPrefixes) {
		return b.keepExtra(key, vt)
	}
	// Anything else is either a --metadata pair (always a string) or a key
	// of a newer vLLM or a sweep override: keep it, and record strings as
	// metadata facts.
	if vt.Kind == pyjson.String {
		b.run.Facts["metadata."+key] = string(vt.Bytes)
	}
	return b.keepExtra(key, vt)
}

// shadowed handles a string where vLLM writes a number: --metadata pairs are
// merged into the same dict before the benchmark's own keys, so an early key
// such as num_prompts can be overwritten by a metadata string.
func (b *vllmRunBuilder) shadowed(key string, vt pyjson.Token) error {
	b.run.Facts["metadata."+key] = string(vt.Bytes)
	b.note("%s holds the string %q, not a number: taken as a --metadata value that replaced vLLM's own", key, vt.Bytes)
	return b.keepExtra(key, vt)
}

// count reads a non-negative integer. ok is false for null (kept in Extra).
func (b *vllmRunBuilder) count(key string, vt pyjson.Token) (int64, bool, error) {
	switch vt.Kind {
	case pyjson.Null:
		b.run.Extra[key] = "null"
		return 0, false, nil
	case pyjson.Number:
	default:
		return 0, false, b.errAt(jsonread.KeyPlace(key), vt, "expected an integer, found %s", vt.Kind)
	}
	n, err := vt.Int()
	if err != nil {
		// Tolerate 200.0 for 200; reject 2.5 and non-finite values.
		f, ferr := vt.Float()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, false, b.errAt(jsonread.KeyPlace(key), vt, "expected an integer, found %s", vt.Bytes)
		}
		n = int64(f)
	}
	if n < 0 {
		return 0, false, b.errAt(jsonread.KeyPlace(key), vt, "negative count %d", n)
	}
	return n, true, nil
}

// stated records a summary figure. Non-finite values are not figures: they
// go to Extra with a note.
func (b *vllmRunBuilder) stated(key string, vt pyjson.Token) error {
	metric, unit := "", ""
	if s, ok := vllmSummaryKeys[key]; ok {
		metric, unit = s.metric, s.unit
	} else {
		metric, _ = vllmStatMetric(key)
		unit = "ms"
	}
	if vt.Kind == pyjson.Null {
		// vLLM writes null for figures it did not compute (goodput without --goodput).
		b.run.Extra[key] = "null"
		return nil
	}
	v, err := vt.Float() // "expected a number, found …" for any other kind
	if err != nil {
		return b.errAt(jsonread.KeyPlace(key), vt, "%v", err)
	}
	if vt.NonFinite() {
		b.run.Extra[key] = string(vt.Bytes)
		b.note("%s is %s in the file; not kept as a stated figure", key, vt.Bytes)
		return nil
	}
	if key == "completed" || key == "failed" {
		n, ok, err := b.count(key, vt)
		if err != nil || !ok {
			return err
		}
		if key == "completed" {
			b.run.Completed = n
		} else {
			b.run.Failed = n
		}
	}
	cv, cu := format.ToCanonicalUnit(v, unit)
	b.run.Stated = append(b.run.Stated, benchrun.Stated{Metric: metric, Value: cv, Unit: cu, SourceKey: key, SourceUnit: unit})
	return nil
}

// finish checks the run as a whole and fills what is known only at its end.
func (b *vllmRunBuilder) finish(inList bool) error {
	run := b.run
	if !b.completed && !b.duration {
		return format.Errorf(b.p.file, run.Location, "not a vllm bench serve result: no \"completed\" or \"duration\" key")
	}
	if b.sglangKey != "" && !b.identity {
		return format.Errorf(b.p.file, run.Location,
			"not a vllm bench serve result: key %q and no model_id or date, as SGLang bench_serving writes", b.sglangKey)
	}

	legacy := b.legacyKey || !b.newer
	variant := "serve.py"
	run.Facts["measurement.client"] = "vllm bench serve"
	if legacy {
		variant = "benchmark_serving.py (legacy)"
		run.Facts["measurement.client"] = "vllm benchmark_serving.py"
	}
	detailed := b.recs.Has(jsonread.ColInputTokens) || b.recs.Has(jsonread.ColOutputTokens) || b.recs.Has(jsonread.ColTTFT) ||
		b.recs.Has(jsonread.ColChunkGaps) || b.recs.Has(jsonread.ColStart) || b.recs.Has(jsonread.ColErrorText) || b.texts
	if !legacy && detailed {
		variant += " --save-detailed"
	}
	if b.pooling {
		variant += " pooling"
	}
	switch {
	case inList:
		variant += " sweep summary"
	case b.runNumber:
		variant += " sweep run"
	}
	run.FormatVariant = variant
	if b.runNumber && b.maxConcRaw != "" {
		// A sweep may have set max_concurrency as an override; keep it
		// with the other override keys too.
		run.Extra["max_concurrency"] = b.maxConcRaw
	}

	switch {
	case b.hasBackend:
		run.Facts["measurement.backend"] = b.backend
		if b.hasEndp {
			// Not mapped when backend is present, so kept as written.
			run.Extra["endpoint_type"] = b.endpointRaw
		}
	case b.hasEndp:
		run.Facts["measurement.backend"] = b.endpoint
	}
	if b.date != "" {
		if t, err := time.Parse(vllmDateLayout, b.date); err == nil {
			run.Facts["measurement.date"] = t.Format("2006-01-02T15:04:05")
			b.note("measurement.date is the client's local time without a time zone, taken when the run ended (vLLM writes date so)")
		} else {
			run.Extra["date"] = b.dateRaw
			b.note("date %q is not in vLLM's %%Y%%m%%d-%%H%%M%%S layout; no measurement.date recorded", b.date)
		}
	}

	n := b.recs.Len()
	if b.recs.Fixed() {
		if n == 0 {
			return format.Errorf(b.p.file, b.run.Location, "run has no requests: its per-request lists are empty")
		}
		b.requests()
	} else if run.Completed == 0 && (run.Failed == 0 || (run.Failed < 0 && b.numPrompts <= 0)) {
		return format.Errorf(b.p.file, b.run.Location, "run has no requests: completed is 0, no failures and no per-request records")
	}
	return nil
}
