package sglang

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/ingest/textread"
)

// New returns the parser for the JSON Lines files of SGLang's
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
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	var backend, dataset, lengths bool
	vllm := false
	jsonread.SniffObject(d, func(key string, _ pyjson.Token) bool {
		switch {
		case sglangVLLMIdentity[key]:
			vllm = true
			return false
		case key == "backend":
			backend = true
		case key == "dataset_name":
			dataset = true
		case key == "random_input_len", key == "random_output_len", key == "random_range_ratio", key == "sharegpt_output_len":
			lengths = true
		}
		return true
	})
	return !vllm && backend && dataset && lengths
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
// and why. It becomes the run's rejection (format.Reject).
type sglangBad struct {
	where  string // `key "ttfts" item 3`, or "" for the line as a whole
	col    int64  // 1-based column in the line; 0 when not known
	reason string
	err    error
}

// Error lets a sglangBad pass through jsonread.Cursor.
func (b *sglangBad) Error() string { return b.reason }

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

type sglangParser struct {
	ctx   context.Context
	lines *sglangLines
	tick  jsonread.Ticker // array items read since the last cancellation check
}

// Parse reads every line and emits one run per line in file order. A bad
// line is emitted as a rejected run (format.Reject) at its place within the
// line, so the file's other runs are still archived; the batch rejects the
// file when no line holds a readable run (format.Settle).
func (sglangJSONL) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	p := &sglangParser{ctx: ctx, tick: jsonread.Ticker{Ctx: ctx}, lines: &sglangLines{br: bufio.NewReaderSize(r, sglangLineBuffer)}}
	var (
		ordinal int
		bytesIn bool
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
			run = format.Reject(ordinal, &format.InputError{File: name, Place: why.placeIn(lineNo), Reason: why.reason, Err: why.err})
		}
		if err := emit(run); err != nil {
			return err
		}
		ordinal++
	}
	switch {
	case p.lines.err != nil:
		return readErr("")
	case ordinal > 0:
		return nil
	case !bytesIn:
		return format.Errorf(name, "", "the file is empty")
	}
	return format.Errorf(name, "", "the file holds only whitespace, no JSON line")
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
