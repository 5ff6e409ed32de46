// Package jsonread is the reading toolkit the JSON formats share, over the
// pyjson tokenizer: a Cursor that walks an object's members once for every
// format (and SniffObject, the detectors' lenient walk), the place of an
// InputError ("key \"ttfts\" item 3, byte B (line L)"), the conversion of
// decoder errors, the per-request value readers (token counts, seconds, gap
// lists, error texts), the bounds on what is kept, and one node tree
// (Node, TreeReader) with one Extra encoding for the formats that need
// random access to a small file.
package jsonread

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

const (
	// ExtraLimit caps one value kept in Run.Extra; larger values stay in
	// the archived raw bytes only.
	ExtraLimit = 64 << 10
	// CtxEvery is how many array items pass between cancellation checks.
	CtxEvery = 1 << 16
)

// Place formats where a token is: a context prefix such as `key "ttfts"
// item 3, ` followed by "byte B (line L)".
func Place(prefix string, tok pyjson.Token) string {
	return fmt.Sprintf("%sbyte %d (line %d)", prefix, tok.Offset, tok.Line)
}

// KeyPlace is the place prefix of a top-level key's value.
func KeyPlace(key string) string { return fmt.Sprintf("key %q, ", key) }

// ItemPlace is the place prefix of item i of a key's list.
func ItemPlace(key string, i int) string { return fmt.Sprintf("key %q item %d, ", key, i) }

// Reason is the InputError reason for a decoder error: a read failure as it
// is, a syntax error as malformed JSON, a cut-off file suspected of being
// truncated.
func Reason(e *pyjson.Error) string {
	reason := "malformed JSON: " + e.Msg
	switch {
	case e.Err != nil:
		reason = e.Msg
	case strings.Contains(e.Msg, "unexpected end of input"):
		reason += " (is the file truncated?)"
	}
	return reason
}

// Syntax turns a decoder error into an InputError whose place starts with
// prefix (`key "x", `).
func Syntax(file, prefix string, err error) error {
	var e *pyjson.Error
	if !errors.As(err, &e) {
		return &format.InputError{File: file, Place: strings.TrimSuffix(prefix, ", "), Reason: err.Error(), Err: err}
	}
	return &format.InputError{File: file, Place: prefix + e.Place(), Reason: Reason(e), Err: err}
}

// Start reads a file's first token and refuses an empty file.
func Start(file string, d *pyjson.Decoder) (pyjson.Token, error) {
	tok, err := d.Next()
	if err != nil {
		return tok, Syntax(file, "", err)
	}
	if tok.Kind == pyjson.EOF {
		if tok.Offset == 0 {
			return tok, format.Errorf(file, "", "the file is empty")
		}
		return tok, format.Errorf(file, Place("", tok), "the file holds only whitespace, no JSON value")
	}
	return tok, nil
}

// Expect is Start for a file that holds one value of kind want: any other
// is refused as "not <what>: the file holds a <kind>, not <as>".
func Expect(file string, d *pyjson.Decoder, want pyjson.Kind, what, as string) (pyjson.Token, error) {
	tok, err := Start(file, d)
	if err == nil && tok.Kind != want {
		err = format.Errorf(file, Place("", tok), "not %s: the file holds a %s, not %s", what, tok.Kind, as)
	}
	return tok, err
}

// End reads what follows a file's one top-level value: only whitespace
// may. what names the file kind for the message.
func End(file string, d *pyjson.Decoder, what string) error {
	tok, err := d.Next()
	if err != nil {
		return Syntax(file, "", err)
	}
	if tok.Kind != pyjson.EOF {
		return format.Errorf(file, Place("", tok), "a second JSON value after the first: %s holds one", what)
	}
	return nil
}

// OversizeNote is the Extra text standing for a value of size bytes too
// large to keep beside the run: the raw bytes keep it.
func OversizeNote(size int64) string {
	switch {
	case size >= 1e6:
		return fmt.Sprintf(`"<kept in raw bytes only: %.1f MB>"`, float64(size)/1e6)
	default:
		return fmt.Sprintf(`"<kept in raw bytes only: %.1f kB>"`, float64(size)/1e3)
	}
}

// Show describes a token for a message: its literal when short.
func Show(t pyjson.Token) string {
	switch t.Kind {
	case pyjson.Number:
		return string(t.Bytes)
	case pyjson.String:
		if len(t.Bytes) <= 40 {
			return strconv.Quote(string(t.Bytes))
		}
	}
	return t.Kind.String()
}
