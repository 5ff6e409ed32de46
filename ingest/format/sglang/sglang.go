package sglang

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/ingest/textread"
	"github.com/benchledger/benchledger/provenance"
)

// NewSGLang returns the parser for the JSON Lines files of SGLang's
// bench_serving (python -m sglang.bench_serving, later
// sglang.benchmark.serving): every run appends one json.dumps(result) line,
// so a rate sweep is one file with a line per run. See FORMATS.md §2.
func New() format.Parser { return sglangJSONL{} }

type sglangJSONL struct{}

const (
	sglangID   = "sglang-bench-serving"
	sglangTool = "sglang bench_serving"
	// sglangServerInfoLimit bounds the server_info object read for facts
	// (all server arguments: about 10 kB); a larger one stays in the raw
	// bytes only.
	sglangServerInfoLimit = 1 << 20
)

func (sglangJSONL) ID() string { return sglangID }

func (sglangJSONL) Describe() string {
	return "SGLang bench_serving JSONL result (one run per line)"
}

// sglangVLLMIdentity are keys vLLM writes and SGLang never does: a first
// line holding one is vLLM's (its parser comes first), however SGLang-like
// its other keys look.
var sglangVLLMIdentity = map[string]bool{"model_id": true, "tokenizer_id": true, "num_prompts": true, "endpoint_type": true}

// Sniff reads the keys of the first line's object. Every SGLang version
// writes its arguments first: backend, dataset_name and the random_* /
// sharegpt_output_len lengths (defaults included, whatever the dataset), so
// they are within the head even when the line carries per-request arrays.
func (sglangJSONL) Sniff(name string, head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	d := pyjson.NewDecoderSize(bytes.NewReader(head), len(head)+16)
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		return false
	}
	var backend, dataset, lengths bool
	for {
		k, err := d.Next()
		if err != nil || k.Kind != pyjson.Key {
			break // the end of the object, or of the head
		}
		key := string(k.Bytes)
		switch {
		case sglangVLLMIdentity[key]:
			return false
		case key == "backend":
			backend = true
		case key == "dataset_name":
			dataset = true
		case key == "random_input_len", key == "random_output_len", key == "random_range_ratio", key == "sharegpt_output_len":
			lengths = true
		}
		v, err := d.Next()
		if err != nil || d.Skip(v) != nil {
			break
		}
	}
	return backend && dataset && lengths
}

// sglangLines hands the decoder one line of the file at a time, so a
// broken line is rejected alone and the next one starts clean. A line that
// fits in the read buffer (every summary line) is decoded from the buffer
// itself; a longer one (--output-details can make a line hundreds of
// megabytes) is streamed through Read, which returns io.EOF at the line's
// newline. Lines are never held whole.
type sglangLines struct {
	br      *bufio.Reader
	whole   int   // length of the current line when it is decoded from the buffer; 0 when streamed
	done    bool  // a streamed line's newline, or the file's end, was passed
	newline bool  // the current line ends with a newline (not the file's end)
	eof     bool  // the file ends with the current line
	err     error // a read error other than io.EOF
}

// sglangLineBuffer is the read buffer: lines up to this long are decoded
// in place.
const sglangLineBuffer = 64 << 10

// next prepares the next line and returns a decoder for it; false at the
// end of the file or on a read error (then err is set).
func (l *sglangLines) next() (*pyjson.Decoder, bool) {
	l.whole, l.done, l.newline = 0, false, false
	win, err := l.br.Peek(l.br.Size())
	switch {
	case len(win) == 0 && errors.Is(err, io.EOF):
		l.eof = true
		return nil, false
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull):
		// bufio reports a read error once: the file cannot be read to its
		// end, whatever is buffered.
		l.err = err
		return nil, false
	}
	if i := bytes.IndexByte(win, '\n'); i >= 0 {
		l.whole, l.newline = i+1, true
	} else if errors.Is(err, io.EOF) {
		l.whole, l.eof = len(win), true
	}
	if l.whole > 0 {
		// The slice stays valid: nothing reads from br until the line is done.
		line := win[:l.whole]
		return pyjson.NewDecoderSize(bytes.NewReader(line), len(line)+16), true
	}
	return pyjson.NewDecoder(l), true
}

// Read streams a long line.
func (l *sglangLines) Read(p []byte) (int, error) {
	if l.done {
		if l.err != nil {
			return 0, l.err
		}
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if l.br.Buffered() == 0 {
		if _, err := l.br.Peek(1); err != nil {
			l.done = true
			if errors.Is(err, io.EOF) {
				l.eof = true
				return 0, io.EOF
			}
			l.err = err
			return 0, err
		}
	}
	buf, _ := l.br.Peek(min(l.br.Buffered(), len(p)))
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i+1]
		l.done, l.newline = true, true
	}
	n := copy(p, buf)
	_, _ = l.br.Discard(n)
	return n, nil
}

// finish moves past what is left of the current line.
func (l *sglangLines) finish() {
	if l.whole > 0 {
		_, _ = l.br.Discard(l.whole)
		l.whole = 0
		return
	}
	_, _ = io.Copy(io.Discard, l)
}

// sglangBad is a problem inside one line: where in the run, the column,
// and why. It becomes the run's Rejection, or the file's InputError when
// no line of the file holds a readable run.
type sglangBad struct {
	where  string // `key "ttfts" item 3`, or "" for the line as a whole
	col    int64  // 1-based column in the line; 0 when not known
	reason string
	err    error
}

func (b *sglangBad) place() string {
	s := b.where
	if b.col > 0 {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("(column %d)", b.col)
	}
	return s
}

// placeIn is the place for an InputError: "line 3, key "ttfts" item 2
// (column 40)", or "line 3 (column 40)".
func (b *sglangBad) placeIn(lineNo int) string {
	switch {
	case b.where != "":
		return textread.At(lineNo) + ", " + b.place()
	case b.col > 0:
		return textread.At(lineNo) + " " + b.place()
	}
	return textread.At(lineNo)
}

// rejection is the text of a Rejection: the place within the line, then why.
func (b *sglangBad) rejection() string {
	if p := b.place(); p != "" {
		return p + ": " + b.reason
	}
	return b.reason
}

type sglangParser struct {
	ctx   context.Context
	lines *sglangLines
	tick  jsonread.Ticker // array items read since the last cancellation check
}

// Parse reads every line and emits one run per line in file order. A bad
// line is emitted as a Rejection run, so the file's other runs are still
// archived; when no line holds a readable run, Parse also returns an
// InputError for the file, naming its first bad line and the others.
func (sglangJSONL) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	p := &sglangParser{ctx: ctx, tick: jsonread.Ticker{Ctx: ctx}, lines: &sglangLines{br: bufio.NewReaderSize(r, sglangLineBuffer)}}
	var (
		firstBad *format.InputError
		badLines []int // the first few bad lines after the first
		bad      int   // bad lines in all
		good     bool
		ordinal  int
		bytesIn  bool
	)
	readErr := func(place string) error {
		return &format.InputError{File: name, Place: place, Reason: "reading the file: " + p.lines.err.Error(), Err: p.lines.err}
	}
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, ok := p.lines.next()
		if !ok {
			break
		}
		bytesIn = true
		run, why, blank := p.line(d, lineNo, ordinal)
		if err := ctx.Err(); err != nil {
			return err
		}
		if why != nil || p.lines.whole > 0 {
			p.lines.finish()
		}
		if p.lines.err != nil {
			return readErr(textread.At(lineNo))
		}
		if blank {
			continue
		}
		if why != nil {
			bad++
			switch {
			case firstBad == nil:
				firstBad = &format.InputError{File: name, Place: why.placeIn(lineNo), Reason: why.reason, Err: why.err}
			case len(badLines) < 5:
				badLines = append(badLines, lineNo)
			}
			run = &benchrun.Run{Ordinal: ordinal, Location: textread.At(lineNo), Rejection: why.rejection()}
		} else {
			good = true
		}
		if err := emit(run); err != nil {
			return err
		}
		ordinal++
	}
	if p.lines.err != nil {
		return readErr("")
	}
	switch {
	case good:
		return nil
	case firstBad != nil:
		if bad > 1 {
			firstBad.Reason += " (" + sglangOtherLines(badLines, bad-1) + ": no run in the file is readable)"
		}
		return firstBad
	case !bytesIn:
		return format.Errorf(name, "", "the file is empty")
	}
	return format.Errorf(name, "", "the file holds only whitespace, no JSON line")
}

// sglangOtherLines names the other bad lines: the first few, and how many
// more there are.
func sglangOtherLines(lines []int, n int) string {
	var parts []string
	for _, l := range lines {
		parts = append(parts, strconv.Itoa(l))
	}
	s := strings.Join(parts, ", ")
	if more := n - len(lines); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	if n == 1 {
		return "line " + s + " is bad too"
	}
	return "lines " + s + " are bad too"
}

// syntax turns a decoder error inside a line into a sglangBad.
func (p *sglangParser) syntax(err error, where string) *sglangBad {
	var e *pyjson.Error
	if !errors.As(err, &e) {
		return &sglangBad{where: where, reason: err.Error(), err: err}
	}
	if e.Err != nil {
		// A read failure: the caller sees lines.err and rejects the file.
		return &sglangBad{where: where, reason: e.Msg, err: err}
	}
	reason := "malformed JSON: " + e.Msg
	if strings.Contains(e.Msg, "unexpected end of input") {
		switch {
		case p.lines.newline:
			reason = "the JSON object does not end on its line (SGLang writes one object per line): " + e.Msg
		case p.lines.eof:
			reason += " (is the file truncated?)"
		}
	}
	return &sglangBad{where: where, col: e.Offset + 1, reason: reason, err: err}
}

// line reads one line: a run, a bad line, or a blank line.
func (p *sglangParser) line(d *pyjson.Decoder, lineNo, ordinal int) (*benchrun.Run, *sglangBad, bool) {
	first, err := d.Next()
	if err != nil {
		return nil, p.syntax(err, ""), false
	}
	switch first.Kind {
	case pyjson.EOF:
		return nil, nil, true
	case pyjson.ObjectStart:
	default:
		return nil, &sglangBad{col: first.Offset + 1,
			reason: fmt.Sprintf("expected a JSON object (one SGLang bench_serving run per line), found %s", first.Kind)}, false
	}
	b := newSGLangRun(p, d, lineNo, ordinal)
	if bad := b.object(); bad != nil {
		return nil, bad, false
	}
	after, err := d.Next()
	if err != nil {
		return nil, p.syntax(err, ""), false
	}
	if after.Kind != pyjson.EOF {
		return nil, &sglangBad{col: after.Offset + 1,
			reason: "a second JSON value on the line: SGLang writes one object per line"}, false
	}
	if bad := b.finish(); bad != nil {
		return nil, bad, false
	}
	return b.run, nil, false
}

// sglangColumn names a per-request list of --output-details.
type sglangColumn uint8

const (
	scolInputLens sglangColumn = iota
	scolOutputLens
	scolTTFTs
	scolITLs
	scolErrors
	scolCount
)

var sglangColumnKeys = map[string]sglangColumn{
	"input_lens": scolInputLens, "output_lens": scolOutputLens, "ttfts": scolTTFTs, "itls": scolITLs, "errors": scolErrors,
}

// sglangSummary maps SGLang's summary figures to canonical metric names and
// the unit the file states them in. Latency statistics are recognised by
// pattern in sglangStatMetric instead.
var sglangSummary = map[string]struct{ metric, unit string }{
	"duration":                {"duration", "s"},
	"completed":               {"completed", "requests"},
	"total_input_tokens":      {"total_input_tokens", "tokens"},
	"total_input":             {"total_input_tokens", "tokens"}, // the metrics-dump key set
	"total_output_tokens":     {"total_output_tokens", "tokens"},
	"total_output":            {"total_output_tokens", "tokens"}, // the metrics-dump key set
	"request_throughput":      {"request_throughput", "req/s"},
	"input_throughput":        {"input_throughput", "tok/s"},
	"output_throughput":       {"output_throughput", "tok/s"},
	"total_throughput":        {"total_token_throughput", "tok/s"},
	"concurrency":             {"achieved_concurrency", "requests"}, // Σ e2e latency / duration
	"max_output_tokens_per_s": {"max_output_tokens_per_s", "tok/s"},
	"max_concurrent_requests": {"max_concurrent_requests", "requests"},
}

// sglangCountKeys must hold non-negative whole numbers; the ones not in
// sglangSummary are kept in Extra after the check.
var sglangCountKeys = map[string]bool{
	"completed": true, "total_input_tokens": true, "total_input": true, "total_output_tokens": true,
	"total_output": true, "max_concurrent_requests": true, "total_output_tokens_retokenized": true,
	"total_output_retokenized": true, "total_input_text_tokens": true, "total_input_text": true,
	"total_input_vision_tokens": true, "total_input_vision": true,
}

// sglangRateKeys must hold non-negative finite numbers; the ones not in
// sglangSummary are kept in Extra after the check.
var sglangRateKeys = map[string]bool{
	"duration": true, "request_throughput": true, "input_throughput": true, "output_throughput": true,
	"total_throughput": true, "concurrency": true, "max_output_tokens_per_s": true,
	"output_throughput_retokenized": true, "total_throughput_retokenized": true,
}

// sglangFamilies maps SGLang's latency names to canonical metric names.
var sglangFamilies = map[string]string{"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2el"}

// sglangStatMetric recognises "{mean,median,std,max,p<P>}_{ttft,tpot,itl,
// e2e_latency}_ms" and returns the canonical family ("e2el", ...) and
// statistic ("p99", ...).
func sglangStatMetric(key string) (family, stat string, ok bool) {
	rest, ok := strings.CutSuffix(key, "_ms")
	if !ok {
		return "", "", false
	}
	stat, m, ok := strings.Cut(rest, "_")
	if !ok {
		return "", "", false
	}
	switch stat {
	case "mean", "median", "std", "max":
	default:
		if !format.IsPercentileWord(stat) {
			return "", "", false
		}
	}
	family, ok = sglangFamilies[m]
	return family, stat, ok
}

// sglangArgs are the argument keys whose meaning depends on dataset_name,
// judged when the whole line has been read.
var sglangArgs = []string{"sharegpt_output_len", "random_input_len", "random_output_len", "random_range_ratio"}

// sglangStated is a figure read from the line, kept until the end of the
// line decides whether it is a measurement (SGLang writes 0 for statistics
// over no samples).
type sglangStated struct {
	s      benchrun.Stated
	family string // "ttft", "tpot", "itl", "e2el" for latency statistics
	raw    string // the value as written, for Extra
}

// sglangRun collects one line's run as its keys stream past.
type sglangRun struct {
	p   *sglangParser
	d   *pyjson.Decoder
	run *benchrun.Run

	seen    map[string]bool
	stated  []sglangStated
	nanKeys []string
	args    map[string]pyjson.Kind // argument keys present, with their kind
	argNum  map[string]float64     // their numeric values
	argRaw  map[string]string      // their JSON text

	backend, dataset string
	completed        int64 // -1 when absent
	duration         bool
	acceptLength     float64 // NaN when absent or null
	serverInfo       string  // "object", "null" or "" (absent)
	nested           bool    // per-request lists under "details"

	reqs      []benchrun.Request
	nFixed    bool   // the first per-request list has ended and set the count
	nKey      string // that list's key
	have      [scolCount]bool
	texts     bool
	errFailed int64
	errs      jsonread.ErrorTexts // a run where every request failed with the same traceback costs one string
}

func newSGLangRun(p *sglangParser, d *pyjson.Decoder, lineNo, ordinal int) *sglangRun {
	return &sglangRun{
		p: p, d: d,
		seen: make(map[string]bool, 64), args: map[string]pyjson.Kind{}, argNum: map[string]float64{},
		argRaw: map[string]string{}, completed: -1, acceptLength: math.NaN(),
		run: &benchrun.Run{
			Ordinal:          ordinal,
			Location:         textread.At(lineNo),
			Format:           sglangID,
			SourceTool:       sglangTool,
			PercentileMethod: "linear", // numpy's default, in every version
			Facts:            map[string]string{"measurement.client": sglangTool},
			Extra:            map[string]string{},
			Completed:        -1,
			Failed:           -1,
		},
	}
}

func (b *sglangRun) note(msgf string, args ...any) {
	b.run.Notes = append(b.run.Notes, fmt.Sprintf(msgf, args...))
}

func (b *sglangRun) bad(where string, tok pyjson.Token, msgf string, args ...any) *sglangBad {
	return &sglangBad{where: where, col: tok.Offset + 1, reason: fmt.Sprintf(msgf, args...)}
}

func sglangKeyPlace(key string) string { return fmt.Sprintf("key %q", key) }

func sglangItemPlace(key string, i int) string { return fmt.Sprintf("key %q item %d", key, i) }

func (b *sglangRun) next(where string) (pyjson.Token, *sglangBad) {
	tok, err := b.d.Next()
	if err != nil {
		return tok, b.p.syntax(err, where)
	}
	return tok, nil
}

// object reads the run object whose '{' was just read.
func (b *sglangRun) object() *sglangBad {
	return b.keys(false)
}

// keys reads keys up to the end of the current object; nested is true for
// the "details" object, which holds only per-request lists.
func (b *sglangRun) keys(nested bool) *sglangBad {
	for {
		kt, bad := b.next("")
		if bad != nil {
			return bad
		}
		if kt.Kind == pyjson.ObjectEnd {
			return nil
		}
		key := string(kt.Bytes)
		seenKey := key
		if nested {
			seenKey = "details." + key
		}
		if b.seen[seenKey] {
			return b.bad("", kt, "key %q appears twice in one run", key)
		}
		b.seen[seenKey] = true
		vt, bad := b.next(sglangKeyPlace(key))
		if bad != nil {
			return bad
		}
		if nested {
			bad = b.detail(key, vt)
		} else {
			bad = b.field(key, vt)
		}
		if bad != nil {
			return bad
		}
	}
}

// keepExtra stores a value's raw JSON text in Extra, or a short note for a
// value larger than vllmExtraLimit.
func (b *sglangRun) keepExtra(key string, vt pyjson.Token) *sglangBad {
	raw, size, err := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	if err != nil {
		return b.p.syntax(err, sglangKeyPlace(key))
	}
	if size > jsonread.ExtraLimit {
		b.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	b.run.Extra[key] = string(raw)
	return nil
}

// fact records a provenance fact the file states, if it is a valid value
// of its field. An invalid one is noted; when it comes from a top-level key
// (not from inside server_info, which Extra keeps whole) the value goes to
// Extra.
func (b *sglangRun) fact(field, value, key string) {
	if err := provenance.Validate(provenance.Entry{Field: field, Value: value}); err != nil {
		if _, ok := sglangFactKeys[key]; ok {
			b.run.Extra[key] = strconv.Quote(value)
		}
		b.note("%s %q is not a valid %s (%v); not recorded as a fact", key, value, field, err)
		return
	}
	b.run.Facts[field] = value
}

// sglangFactKeys are the top-level string keys read as facts.
var sglangFactKeys = map[string]bool{"backend": true, "dataset_name": true, "tag": true}

// field handles one top-level key of a run.
func (b *sglangRun) field(key string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	switch key {
	case "backend", "dataset_name", "tag":
		switch vt.Kind {
		case pyjson.String:
			s := string(vt.Bytes)
			switch key {
			case "backend":
				b.backend = s
				b.fact("measurement.backend", s, key)
			case "dataset_name":
				b.dataset = s
				b.fact("workload.dataset", s, key)
			case "tag":
				b.fact("measurement.label", s, key)
			}
			return nil
		case pyjson.Null:
			b.run.Extra[key] = "null"
			return nil
		}
		return b.bad(where, vt, "expected a string, found %s", vt.Kind)
	case "request_rate":
		return b.requestRate(vt)
	case "max_concurrency":
		if vt.Kind == pyjson.Null {
			b.run.Extra[key] = "null"
			return nil
		}
		n, bad := b.count(key, vt)
		if bad != nil {
			return bad
		}
		if n == 0 {
			// SGLang sets no limit for 0 ("if max_concurrency").
			b.run.Extra[key] = "0"
			b.note("max_concurrency is 0, which SGLang treats as no limit; workload.concurrency not recorded")
			return nil
		}
		b.fact("workload.concurrency", strconv.FormatInt(n, 10), key)
		return nil
	case "sharegpt_output_len", "random_input_len", "random_output_len", "random_range_ratio":
		return b.arg(key, vt)
	case "server_info":
		return b.serverInfoValue(vt)
	case "accept_length":
		switch vt.Kind {
		case pyjson.Null:
		case pyjson.Number:
			v, err := vt.Float()
			if err != nil {
				return b.bad(where, vt, "%v", err)
			}
			if vt.NonFinite() || v < 0 {
				return b.bad(where, vt, "%s is not a valid speculative accept length", vt.Bytes)
			}
			b.acceptLength = v
		default:
			return b.bad(where, vt, "expected a number or null, found %s", vt.Kind)
		}
		return b.keepExtra(key, vt)
	case "details":
		if vt.Kind != pyjson.ObjectStart {
			return b.keepExtra(key, vt)
		}
		b.nested = true
		return b.keys(true)
	}
	if _, ok := sglangColumnKeys[key]; ok || key == "generated_texts" {
		return b.detail(key, vt)
	}
	if sglangCountKeys[key] || sglangRateKeys[key] {
		return b.summary(key, vt)
	}
	if family, stat, ok := sglangStatMetric(key); ok {
		return b.latencyStat(key, family, stat, vt)
	}
	// Anything else (cache_report, a newer key) is kept as written.
	return b.keepExtra(key, vt)
}

// detail handles a per-request list, at top level or under "details".
func (b *sglangRun) detail(key string, vt pyjson.Token) *sglangBad {
	if col, ok := sglangColumnKeys[key]; ok {
		return b.column(key, col, vt)
	}
	if key == "generated_texts" {
		// Output texts can be most of a file; they stay in the raw bytes.
		b.texts = true
		_, size, err := b.d.Capture(vt, 0, nil)
		if err != nil {
			return b.p.syntax(err, sglangKeyPlace(key))
		}
		b.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	// cached_tokens, cached_tokens_details (--cache-report) and the like.
	return b.keepExtra(key, vt)
}

// requestRate reads the offered rate: a float, Infinity (the default: all
// requests at once), or "trace" (mooncake trace timestamps).
func (b *sglangRun) requestRate(vt pyjson.Token) *sglangBad {
	const key = "request_rate"
	where := sglangKeyPlace(key)
	switch vt.Kind {
	case pyjson.Null:
		b.run.Extra[key] = "null"
		return nil
	case pyjson.String:
		s := string(vt.Bytes)
		b.run.Extra[key] = strconv.Quote(s)
		switch strings.ToLower(s) {
		case "trace":
			b.note("request_rate is \"trace\": requests followed the trace's own timestamps; no request rate recorded")
		case "inf", "infinity":
			b.fact("workload.request_rate", "inf", key)
			delete(b.run.Extra, key)
		default:
			b.note("request_rate holds the string %q; no request rate recorded", s)
		}
		return nil
	case pyjson.Number:
	default:
		return b.bad(where, vt, "expected a number, Infinity or \"trace\", found %s", vt.Kind)
	}
	v, err := vt.Float()
	if err != nil {
		return b.bad(where, vt, "%v", err)
	}
	switch {
	case math.IsInf(v, 1):
		b.fact("workload.request_rate", "inf", key)
	case math.IsNaN(v) || math.IsInf(v, -1):
		return b.bad(where, vt, "%s is not a request rate", vt.Bytes)
	case v <= 0:
		return b.bad(where, vt, "request rate %s is not positive", vt.Bytes)
	default:
		b.fact("workload.request_rate", strconv.FormatFloat(v, 'g', -1, 64), key)
	}
	return nil
}

// arg keeps a length argument for finish, which knows the dataset.
func (b *sglangRun) arg(key string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	switch vt.Kind {
	case pyjson.Null:
	case pyjson.Number:
		if key == "random_range_ratio" {
			v, err := vt.Float()
			if err != nil {
				return b.bad(where, vt, "%v", err)
			}
			if vt.NonFinite() || v < 0 {
				return b.bad(where, vt, "%s is not a valid range ratio", vt.Bytes)
			}
			b.argNum[key] = v
		} else {
			n, bad := b.count(key, vt)
			if bad != nil {
				return bad
			}
			b.argNum[key] = float64(n)
		}
	default:
		return b.bad(where, vt, "expected a number or null, found %s", vt.Kind)
	}
	b.args[key] = vt.Kind
	raw, _, _ := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	b.argRaw[key] = string(raw)
	return nil
}

// count reads a non-negative whole number (200.0 is taken as 200).
func (b *sglangRun) count(key string, vt pyjson.Token) (int64, *sglangBad) {
	where := sglangKeyPlace(key)
	if vt.Kind != pyjson.Number {
		return 0, b.bad(where, vt, "expected a whole number, found %s", vt.Kind)
	}
	n, err := vt.Int()
	if err != nil {
		f, ferr := vt.Float()
		if ferr != nil || vt.NonFinite() || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, b.bad(where, vt, "expected a whole number, found %s", vt.Bytes)
		}
		n = int64(f)
	}
	if n < 0 {
		return 0, b.bad(where, vt, "negative count %d", n)
	}
	return n, nil
}

// summary reads a count or a rate; the ones with a canonical name become
// stated figures, the others go to Extra.
func (b *sglangRun) summary(key string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	if vt.Kind == pyjson.Null {
		if key == "completed" || key == "duration" {
			return b.bad(where, vt, "%s is null", key)
		}
		b.run.Extra[key] = "null"
		return nil
	}
	var v float64
	if sglangCountKeys[key] {
		n, bad := b.count(key, vt)
		if bad != nil {
			return bad
		}
		v = float64(n)
		if key == "completed" {
			b.completed = n
			b.run.Completed = n
		}
	} else {
		if vt.Kind != pyjson.Number {
			return b.bad(where, vt, "expected a number, found %s", vt.Kind)
		}
		f, err := vt.Float()
		if err != nil {
			return b.bad(where, vt, "%v", err)
		}
		if vt.NonFinite() {
			return b.bad(where, vt, "%s is not a valid %s", vt.Bytes, key)
		}
		if f < 0 {
			return b.bad(where, vt, "negative %s %s", key, vt.Bytes)
		}
		if key == "duration" {
			if f == 0 {
				return b.bad(where, vt, "duration is 0")
			}
			b.duration = true
		}
		v = f
	}
	raw, _, _ := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	m, ok := sglangSummary[key]
	if !ok {
		b.run.Extra[key] = string(raw)
		return nil
	}
	cv, cu := format.ToCanonicalUnit(v, m.unit)
	b.stated = append(b.stated, sglangStated{s: benchrun.Stated{Metric: m.metric, Value: cv, Unit: cu, SourceKey: key, SourceUnit: m.unit}, raw: string(raw)})
	return nil
}

// latencyStat reads "{stat}_{family}_ms". NaN is SGLang's mean over no
// completed request (np.mean([])): not a figure, kept in Extra.
func (b *sglangRun) latencyStat(key, family, stat string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	switch vt.Kind {
	case pyjson.Null:
		b.run.Extra[key] = "null"
		return nil
	case pyjson.Number:
	default:
		return b.bad(where, vt, "expected a number, found %s", vt.Kind)
	}
	v, err := vt.Float()
	if err != nil {
		return b.bad(where, vt, "%v", err)
	}
	switch {
	case math.IsNaN(v):
		b.run.Extra[key] = "NaN"
		b.nanKeys = append(b.nanKeys, key)
		return nil
	case math.IsInf(v, 0):
		return b.bad(where, vt, "%s is not a valid time", vt.Bytes)
	case v < 0:
		return b.bad(where, vt, "negative time %s ms", vt.Bytes)
	}
	raw, _, _ := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	cv, cu := format.ToCanonicalUnit(v, "ms")
	b.stated = append(b.stated, sglangStated{s: benchrun.Stated{Metric: family + "." + stat, Value: cv, Unit: cu, SourceKey: key, SourceUnit: "ms"},
		family: family, raw: string(raw)})
	return nil
}

// serverInfoValue reads server_info: the raw JSON of SGLang's /server_info
// (every server argument, the scheduler's limits, internal states and the
// engine version) or null.
func (b *sglangRun) serverInfoValue(vt pyjson.Token) *sglangBad {
	const key = "server_info"
	switch vt.Kind {
	case pyjson.Null:
		b.serverInfo = "null"
		b.run.Extra[key] = "null"
		return nil
	case pyjson.ObjectStart:
	default:
		return b.bad(sglangKeyPlace(key), vt, "expected an object or null, found %s", vt.Kind)
	}
	b.serverInfo = "object"
	raw, size, err := b.d.Capture(vt, sglangServerInfoLimit, nil)
	if err != nil {
		return b.p.syntax(err, sglangKeyPlace(key))
	}
	if size > jsonread.ExtraLimit {
		b.run.Extra[key] = jsonread.OversizeNote(size)
	} else {
		b.run.Extra[key] = string(raw)
	}
	if size > sglangServerInfoLimit {
		b.note("server_info is %d bytes, more than this parser reads for facts; it stays in the raw bytes", size)
		return nil
	}
	b.serverFacts(raw)
	return nil
}

// sglangCommit matches a full git commit hash: the only kind of revision
// that pins a checkpoint (a branch or tag moves).
var sglangCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// serverFacts takes the provenance facts SGLang's /server_info states. A
// prefill/decode-disaggregated router answers with per-role lists; the
// first decode server's info is used then, as bench_serving itself does.
func (b *sglangRun) serverFacts(raw []byte) {
	info := sglangServerStrings(raw, true)
	if _, pd := info["\x00decode"]; pd {
		b.note("server_info is a prefill/decode pair: facts taken from the first decode server's info")
	}
	if info["version"] == "" || info["model_path"] == "" {
		b.note("server_info has no version and model_path, as SGLang's /server_info has; no runtime facts taken from it")
		return
	}
	b.fact("runtime.engine", "sglang", "server_info")
	b.fact("runtime.version", info["version"], "server_info.version")
	b.fact("checkpoint.model_id", info["model_path"], "server_info.model_path")
	if t := info["tokenizer_path"]; t != "" {
		b.fact("checkpoint.tokenizer", t, "server_info.tokenizer_path")
	}
	switch rev := info["revision"]; {
	case rev == "":
	case sglangCommit.MatchString(rev):
		b.fact("checkpoint.revision", rev, "server_info.revision")
	default:
		b.note("server_info names revision %q, a branch or tag rather than a commit: checkpoint.revision not recorded", rev)
	}
	if kv := info["kv_cache_dtype"]; kv != "" && kv != "auto" {
		b.fact("checkpoint.kv_cache_dtype", kv, "server_info.kv_cache_dtype")
	}
	if q := info["quantization"]; q != "" {
		b.fact("checkpoint.precision", q, "server_info.quantization")
	}
}

// sglangServerStrings returns the top-level string values of a server_info
// object. For a disaggregated router's answer ({"decode": [{...}], ...}) it
// returns the first decode server's strings, with the marker key "\x00decode".
func sglangServerStrings(raw []byte, top bool) map[string]string {
	out := map[string]string{}
	d := pyjson.NewDecoderSize(bytes.NewReader(raw), len(raw)+16)
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		return out
	}
	var decode map[string]string
	for {
		k, err := d.Next()
		if err != nil || k.Kind != pyjson.Key {
			break
		}
		key := string(k.Bytes)
		v, err := d.Next()
		if err != nil {
			break
		}
		switch {
		case v.Kind == pyjson.String:
			out[key] = string(v.Bytes)
		case top && key == "decode" && v.Kind == pyjson.ArrayStart:
			el, err := d.Next()
			if err != nil {
				return out
			}
			if el.Kind == pyjson.ObjectStart {
				sub, size, err := d.Capture(el, sglangServerInfoLimit, nil)
				if err != nil || size > sglangServerInfoLimit {
					return out
				}
				decode = sglangServerStrings(sub, false)
			} else if d.Skip(el) != nil {
				return out
			}
			// The rest of the list.
			for {
				t, err := d.Next()
				if err != nil {
					return out
				}
				if t.Kind == pyjson.ArrayEnd {
					break
				}
				if d.Skip(t) != nil {
					return out
				}
			}
			continue
		}
		if d.Skip(v) != nil {
			break
		}
	}
	if decode != nil && out["version"] == "" {
		decode["\x00decode"] = ""
		return decode
	}
	return out
}

func (b *sglangRun) checkCtx() *sglangBad {
	if err := b.p.tick.Tick(); err != nil {
		return &sglangBad{reason: err.Error(), err: err}
	}
	return nil
}

// slot returns request i's record, creating it while the first list sets
// the count; nil for items past the count (a longer list, reported after).
func (b *sglangRun) slot(i int) *benchrun.Request {
	if i < len(b.reqs) {
		return &b.reqs[i]
	}
	if b.nFixed {
		return nil
	}
	if b.reqs == nil {
		// completed (a lower bound of the count) comes before the lists. It
		// sizes the records only up to 64k requests: a hostile line could
		// claim billions, and append grows past that cheaply.
		b.reqs = make([]benchrun.Request, 0, min(max(b.completed, 16), 1<<16))
	}
	b.reqs = append(b.reqs, format.NewRequest(i))
	return &b.reqs[i]
}

// column reads one per-request list into the records. The first list fixes
// the request count and the others must match it.
func (b *sglangRun) column(key string, col sglangColumn, vt pyjson.Token) *sglangBad {
	if vt.Kind != pyjson.ArrayStart {
		return b.bad(sglangKeyPlace(key), vt, "expected a list, found %s", vt.Kind)
	}
	if b.have[col] {
		return b.bad(sglangKeyPlace(key), vt, "the per-request list %q appears twice (at top level and under \"details\")", key)
	}
	b.have[col] = true
	i := 0
	for ; ; i++ {
		if bad := b.checkCtx(); bad != nil {
			return bad
		}
		t, err := b.d.Next()
		if err != nil {
			return b.p.syntax(err, sglangItemPlace(key, i))
		}
		if t.Kind == pyjson.ArrayEnd {
			break
		}
		r := b.slot(i)
		switch col {
		case scolInputLens, scolOutputLens:
			n, bad := b.tokens(key, i, t)
			if bad != nil {
				return bad
			}
			if r != nil {
				if col == scolInputLens {
					r.InputTokens = n
				} else {
					r.OutputTokens = n
				}
			}
		case scolTTFTs:
			v, bad := b.seconds(key, i, t)
			if bad != nil {
				return bad
			}
			if r != nil {
				r.TTFT = v
			}
		case scolITLs:
			g, bad := b.gaps(key, i, t)
			if bad != nil {
				return bad
			}
			if r != nil {
				r.Gaps = g
			}
		case scolErrors:
			if t.Kind != pyjson.String {
				return b.bad(sglangItemPlace(key, i), t, "expected a string, found %s", t.Kind)
			}
			if len(t.Bytes) > 0 {
				b.errFailed++
				if r != nil {
					r.Error = b.errs.Intern(t.Bytes)
				}
			}
		}
	}
	if !b.nFixed {
		b.nFixed, b.nKey = true, key
		return nil
	}
	if i != len(b.reqs) {
		return b.bad(sglangKeyPlace(key), vt, "per-request lists differ in length: %q has %d items but %q has %d", key, i, b.nKey, len(b.reqs))
	}
	return nil
}

// tokens reads a token count.
func (b *sglangRun) tokens(key string, i int, t pyjson.Token) (int32, *sglangBad) {
	n, err := jsonread.Tokens(t)
	if err != nil {
		return 0, b.bad(sglangItemPlace(key, i), t, "%v", err)
	}
	return n, nil
}

// seconds reads a per-request time, which SGLang writes in seconds.
func (b *sglangRun) seconds(key string, i int, t pyjson.Token) (float64, *sglangBad) {
	v, err := jsonread.Seconds(t)
	if err != nil {
		return 0, b.bad(sglangItemPlace(key, i), t, "%v", err)
	}
	return v, nil
}

// errGapBad stands for the *sglangBad a gap-list failure set.
var errGapBad = errors.New("bad gap list")

// gaps reduces one request's inter-token gaps to their summary as they
// stream past.
func (b *sglangRun) gaps(key string, i int, t pyjson.Token) (benchrun.GapStats, *sglangBad) {
	var bad *sglangBad
	g, err := jsonread.Gaps(b.d, t, &b.p.tick, func(k int, tok pyjson.Token, reason string, syntax error) error {
		where := sglangItemPlace(key, i)
		if k >= 0 {
			where = fmt.Sprintf("key %q item %d gap %d", key, i, k)
		}
		if syntax != nil {
			bad = b.p.syntax(syntax, where)
		} else {
			bad = b.bad(where, tok, "%s", reason)
		}
		return errGapBad
	})
	if err != nil && bad == nil {
		return g, &sglangBad{reason: err.Error(), err: err}
	}
	return g, bad
}

// finish checks the run as a whole and decides what needed the whole line:
// the variant, the workload facts, placeholders, the per-request records.
func (b *sglangRun) finish() *sglangBad {
	run := b.run
	switch {
	case b.completed < 0 && !b.duration:
		return &sglangBad{reason: "not an SGLang bench_serving result: no \"completed\" or \"duration\" key"}
	case b.completed < 0:
		return &sglangBad{reason: "no \"completed\" key: SGLang writes it in every version"}
	case !b.duration:
		return &sglangBad{reason: "no \"duration\" key: SGLang writes it in every version"}
	}
	detailed := b.have[scolInputLens] || b.have[scolOutputLens] || b.have[scolTTFTs] || b.have[scolITLs] || b.have[scolErrors]
	b.variant(detailed || b.texts)
	b.lengths()

	if b.nFixed {
		if len(b.reqs) == 0 {
			return &sglangBad{reason: "run has no requests: its per-request lists are empty"}
		}
		b.requests()
	} else {
		b.note("SGLang writes no failure count without --output-details: failed requests are unknown, not zero")
		if b.completed == 0 {
			b.note("completed is 0: every request SGLang sent failed (it cannot run without requests); how many were sent is not in the file")
		}
	}
	b.statedFigures()

	var missing []string
	if _, ok := run.Facts["measurement.date"]; !ok {
		missing = append(missing, "date")
	}
	if _, ok := run.Facts["checkpoint.model_id"]; !ok {
		missing = append(missing, "model")
	}
	if _, ok := run.Facts["workload.request_count"]; !ok {
		missing = append(missing, "request count")
	}
	switch len(missing) {
	case 0:
	case 1:
		b.note("the line states no %s (SGLang does not write it): it must come from the manifest or --set", missing[0])
	default:
		b.note("the line states no %s (SGLang does not write them): they must come from the manifest or --set", sglangList(missing))
	}
	return nil
}

func sglangList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// variant names the generation of the key set: the writer changed its keys
// several times (FORMATS.md §2).
func (b *sglangRun) variant(detailed bool) {
	s := b.seen
	var v string
	switch {
	case s["server_info"] || s["tag"]:
		v = "benchmark/serving.py (with server_info)"
	case s["total_input"] || s["total_output"]:
		v = "benchmark metrics dump (total_input/total_output keys)"
	case s["request_throughput"] || s["mean_ttft_ms"] || s["p99_ttft_ms"]:
		v = "bench_serving.py (2025 key set)"
	default:
		v = "bench_serving.py (2024 minimal key set)"
	}
	if detailed {
		v += " --output-details"
		if b.nested {
			v += " (details nested)"
		}
	}
	b.run.FormatVariant = v
	if b.serverInfo == "null" {
		b.note("server_info is null: the server did not answer /server_info (not an SGLang server, or it failed); no runtime facts")
	}
}

// lengths turns the length arguments into workload facts where they
// describe the workload: SGLang writes every argument's default, so
// random_input_len is 1024 on a ShareGPT run too.
func (b *sglangRun) lengths() {
	used := map[string]bool{}
	num := func(k string) (float64, bool) {
		v, ok := b.argNum[k]
		return v, ok && b.args[k] == pyjson.Number
	}
	switch {
	case strings.HasPrefix(b.dataset, "random"):
		ratio, okR := num("random_range_ratio")
		in, okI := num("random_input_len")
		out, okO := num("random_output_len")
		switch {
		case okR && ratio == 1 && okI && okO && in > 0 && out > 0:
			b.fact("workload.input_len", strconv.FormatFloat(in, 'f', -1, 64), "random_input_len")
			b.fact("workload.output_len", strconv.FormatFloat(out, 'f', -1, 64), "random_output_len")
			used["random_input_len"], used["random_output_len"] = true, true
		case okR && okI && okO:
			b.note("random_range_ratio %s: input and output lengths were drawn up to %s and %s tokens, not fixed; workload.input_len and output_len are not recorded",
				b.argRaw["random_range_ratio"], b.argRaw["random_input_len"], b.argRaw["random_output_len"])
		}
	case b.dataset == "sharegpt":
		if out, ok := num("sharegpt_output_len"); ok && out > 0 {
			b.fact("workload.output_len", strconv.FormatFloat(out, 'f', -1, 64), "sharegpt_output_len")
			used["sharegpt_output_len"] = true
		}
	}
	for _, k := range sglangArgs {
		if raw, ok := b.argRaw[k]; ok && !used[k] {
			b.run.Extra[k] = raw
		}
	}
}

// requests finishes the per-request records once every list has been read.
func (b *sglangRun) requests() {
	run := b.run
	run.Requests = b.reqs
	run.HasRequests = true
	n := int64(len(b.reqs))
	b.fact("workload.request_count", strconv.FormatInt(n, 10), "the per-request lists")

	failed := b.errFailed
	if b.have[scolErrors] && b.completed != n-failed {
		// SGLang writes the response's reason as the error, which can be
		// empty: such a request failed without text. It shows as no first
		// token, no gaps and output length 0.
		var silent []int
		for i := range b.reqs {
			r := &b.reqs[i]
			if r.Error == "" && r.TTFT == 0 && r.Gaps.Count == 0 && r.OutputTokens <= 0 {
				silent = append(silent, i)
			}
		}
		if int64(len(silent)) == n-failed-b.completed {
			for _, i := range silent {
				b.reqs[i].Error = "failed (SGLang recorded an empty error text)"
			}
			failed += int64(len(silent))
			b.note("%d requests with an empty error text taken as failed: completed states %d of %d, and they have no first token and no output", len(silent), b.completed, n)
		} else {
			b.note("completed states %d but the errors list has %d failures among %d requests", b.completed, failed, n)
		}
	}
	if b.have[scolErrors] {
		run.Failed = failed
	} else {
		b.note("the per-request lists have no errors list: failed requests are unknown")
	}
	if b.errs.Cut > 0 {
		b.note("%d error texts cut to %d bytes", b.errs.Cut, jsonread.ErrorMax)
	}

	// SGLang writes 0.0 for the TTFT of a request without any content
	// chunk (failed, or empty output): unknown, not zero. Latency is the
	// last content chunk: TTFT plus the gaps between content chunks.
	emptyOK := 0
	for i := range b.reqs {
		r := &b.reqs[i]
		if b.have[scolTTFTs] && r.TTFT == 0 {
			r.TTFT = benchrun.Unknown
			if r.Error == "" {
				emptyOK++
			}
		}
		if r.Error == "" && b.have[scolTTFTs] && b.have[scolITLs] && benchrun.IsKnown(r.TTFT) {
			r.Latency = r.TTFT + r.Gaps.Sum
		}
	}
	if emptyOK > 0 {
		b.note("%d completed requests have TTFT 0.0 (no content chunk was received): recorded as unknown", emptyOK)
	}
	if b.have[scolTTFTs] && b.have[scolITLs] {
		if b.backend == "trt" {
			b.note("E2E latency derived as TTFT + sum of chunk gaps, the last content chunk, which is how SGLang times the trt backend: the file has no latencies")
		} else {
			b.note("E2E latency derived as TTFT + sum of chunk gaps (the last content chunk): the file has no latencies, and SGLang's own E2E and TPOT figures end at the last chunk received, which can be a later usage or [DONE] chunk")
		}
	}
	if b.serverInfo != "" && b.have[scolInputLens] {
		b.note("input_lens are the server's prompt token counts where it reported them, while total_input_tokens sums the dataset's prompt lengths: the two can differ")
	}
}

// statedFigures keeps the figures that are measurements and moves the rest
// to Extra, each with a note.
func (b *sglangRun) statedFigures() {
	run := b.run
	drop := func(st sglangStated) { run.Extra[st.s.SourceKey] = st.raw }

	// SGLang takes statistics over np.mean(x or 0): with no sample (no
	// completed request, no request with two tokens, no gaps when not
	// streamed) every statistic of the family is exactly 0.
	zero := map[string]bool{}
	for _, st := range b.stated {
		if st.family == "" {
			continue
		}
		if _, ok := zero[st.family]; !ok {
			zero[st.family] = true
		}
		if st.s.Value != 0 {
			zero[st.family] = false
		}
	}
	retokenizedITL := b.serverInfo != "" && b.acceptLength > 0 && (b.backend == "sglang-oai" || b.backend == "sglang-oai-chat")
	multiTurn := false
	for _, st := range b.stated {
		if st.s.Metric == "total_input_tokens" && st.s.Value == 0 && b.completed > 0 {
			multiTurn = true
		}
	}
	var placeholders, noRequests, retok, inputZero []string
	kept := b.stated[:0:0]
	for _, st := range b.stated {
		switch {
		case st.family != "" && b.completed == 0:
			noRequests = append(noRequests, st.s.SourceKey)
			drop(st)
		case st.family != "" && st.family != "e2el" && zero[st.family]:
			placeholders = append(placeholders, st.s.SourceKey)
			drop(st)
		case st.family == "itl" && retokenizedITL:
			retok = append(retok, st.s.SourceKey)
			drop(st)
		case multiTurn && (st.s.Metric == "total_input_tokens" || st.s.Metric == "input_throughput" || st.s.Metric == "total_token_throughput"):
			inputZero = append(inputZero, st.s.SourceKey)
			drop(st)
		default:
			kept = append(kept, st)
		}
	}
	for _, st := range kept {
		run.Stated = append(run.Stated, st.s)
	}
	if len(b.nanKeys) > 0 {
		b.note("%s are NaN (SGLang's mean over no completed request); not stated", strings.Join(b.nanKeys, ", "))
	}
	if len(noRequests) > 0 {
		b.note("no request completed, so %s are SGLang's placeholders, not measurements; kept in Extra", strings.Join(noRequests, ", "))
	}
	if len(placeholders) > 0 {
		b.note("%s are all 0, SGLang's value for a statistic over no samples (np.mean(x or 0)); kept in Extra, not stated", strings.Join(placeholders, ", "))
	}
	if len(retok) > 0 {
		b.note("with speculative decoding (accept_length %g) SGLang states ITL per retokenized token, not per streamed chunk: %s kept in Extra, not as itl", b.acceptLength, strings.Join(retok, ", "))
	}
	if len(inputZero) > 0 {
		b.note("total_input_tokens is 0 although requests completed (SGLang does not count input tokens for multi-turn datasets): %s kept in Extra, not stated", strings.Join(inputZero, ", "))
	}
	if _, ok := run.StatedValue("total_output_tokens"); ok {
		b.note("total_output_tokens counts the server's completion tokens, or the requested output length when the server reported no usage (SGLang's fallback)")
	}
	if slices.ContainsFunc(run.Stated, func(s benchrun.Stated) bool { return strings.HasPrefix(s.Metric, "itl.") }) &&
		(b.backend == "sglang" || b.backend == "sglang-native") {
		b.note("SGLang's native backend splits each chunk's gap evenly over the tokens it carried, so its ITL is a per-token gap (the chunk gap when each chunk carries one token)")
	}
	if !b.nFixed && b.backend != "trt" && slices.ContainsFunc(run.Stated, func(s benchrun.Stated) bool { return strings.HasPrefix(s.Metric, "e2el.") }) {
		b.note("SGLang's E2E latency ends at the last chunk received, which can be a usage or [DONE] chunk after the last content chunk")
	}
}
