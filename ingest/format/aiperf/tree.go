package aiperf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// aiperfNode is one value of a small JSON file held whole, with its place.
type aiperfNode struct {
	kind pyjson.Kind
	text string // a string's text, or a number's literal as written
	keys []string
	vals []*aiperfNode // object members (beside keys) or array items
	off  int64
	line int
}

func (n *aiperfNode) place() string { return fmt.Sprintf("byte %d (line %d)", n.off, n.line) }

// get returns the member named key of an object, or nil.
func (n *aiperfNode) get(key string) *aiperfNode {
	if n == nil || n.kind != pyjson.ObjectStart {
		return nil
	}
	if i := slices.Index(n.keys, key); i >= 0 {
		return n.vals[i]
	}
	return nil
}

// path follows object keys; nil when any is missing.
func (n *aiperfNode) path(keys ...string) *aiperfNode {
	for _, k := range keys {
		n = n.get(k)
	}
	return n
}

// str returns a string value.
func (n *aiperfNode) str() (string, bool) {
	if n == nil || n.kind != pyjson.String {
		return "", false
	}
	return n.text, true
}

// finite returns a finite number value; ok is false for anything else.
func (n *aiperfNode) finite() (float64, bool) {
	if n == nil || n.kind != pyjson.Number {
		return 0, false
	}
	v, err := pyjson.Token{Kind: pyjson.Number, Bytes: []byte(n.text)}.Float()
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// describe names a value for a message: a number's literal, else its kind.
func (n *aiperfNode) describe() string {
	switch {
	case n == nil:
		return "nothing"
	case n.kind == pyjson.Number:
		return n.text
	case n.kind == pyjson.String && len(n.text) <= 40:
		return strconv.Quote(n.text)
	}
	return n.kind.String()
}

// extraOf is a value's Run.Extra text (jsonread's compact encoding).
func extraOf(n *aiperfNode) string { return jsonread.Extra(n.jsonText()) }

// jsonText writes the value back as compact JSON, for Run.Extra.
func (n *aiperfNode) jsonText() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *aiperfNode) write(b *strings.Builder) {
	switch n.kind {
	case pyjson.ObjectStart:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonread.AppendExtraString(nil, k))
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case pyjson.ArrayStart:
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	case pyjson.String:
		b.Write(jsonread.AppendExtraString(nil, n.text))
	case pyjson.Number:
		b.WriteString(n.text)
	case pyjson.True:
		b.WriteString("true")
	case pyjson.False:
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
}

// aiperfTooLarge is the reading error of a file past aiperfSummaryMax.
var aiperfTooLarge = errors.New("the file is larger than a summary can be")

// aiperfLimitReader fails once more than max bytes have been read.
type aiperfLimitReader struct {
	r    io.Reader
	left int64
}

func (l *aiperfLimitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, aiperfTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, aiperfTooLarge
	}
	return n, err
}

// aiperfTreeReader builds a tree from a decoder and turns its errors into
// InputErrors.
type aiperfTreeReader struct {
	file  string
	d     *pyjson.Decoder
	nodes int
}

func (t *aiperfTreeReader) syntax(err error) error {
	if errors.Is(err, aiperfTooLarge) {
		return &format.InputError{File: t.file, Reason: fmt.Sprintf("%v (%d MiB): not an AIPerf or GenAI-Perf summary", err, aiperfSummaryMax>>20), Err: err}
	}
	return jsonread.Syntax(t.file, "", err)
}

// aiperfReadTree reads a whole small JSON file: one value, nothing after it.
func aiperfReadTree(file string, r io.Reader) (*aiperfNode, error) {
	d := pyjson.NewDecoder(&aiperfLimitReader{r: r, left: aiperfSummaryMax})
	d.SetMaxDepth(aiperfMaxDepth)
	t := &aiperfTreeReader{file: file, d: d}
	first, err := d.Next()
	if err != nil {
		return nil, t.syntax(err)
	}
	if first.Kind == pyjson.EOF {
		if first.Offset == 0 {
			return nil, format.Errorf(file, "", "the file is empty")
		}
		return nil, format.Errorf(file, "", "the file holds only whitespace, no JSON value")
	}
	root, err := t.value(first)
	if err != nil {
		return nil, err
	}
	end, err := d.Next()
	if err != nil {
		return nil, t.syntax(err)
	}
	if end.Kind != pyjson.EOF {
		return nil, format.Errorf(file, fmt.Sprintf("byte %d (line %d)", end.Offset, end.Line), "a second JSON value after the first: a summary file holds one object")
	}
	return root, nil
}

func (t *aiperfTreeReader) value(tok pyjson.Token) (*aiperfNode, error) {
	t.nodes++
	if t.nodes > aiperfMaxNodes {
		return nil, format.Errorf(t.file, fmt.Sprintf("byte %d (line %d)", tok.Offset, tok.Line),
			"more than %d JSON values: not an AIPerf or GenAI-Perf summary", aiperfMaxNodes)
	}
	n := &aiperfNode{kind: tok.Kind, off: tok.Offset, line: tok.Line}
	switch tok.Kind {
	case pyjson.String, pyjson.Number:
		n.text = string(tok.Bytes)
	case pyjson.ObjectStart:
		var seen map[string]bool // past a few keys, so the check stays linear
		for {
			k, err := t.d.Next()
			if err != nil {
				return nil, t.syntax(err)
			}
			if k.Kind == pyjson.ObjectEnd {
				return n, nil
			}
			key := string(k.Bytes)
			if len(n.keys) == 16 {
				seen = make(map[string]bool, 64)
				for _, k := range n.keys {
					seen[k] = true
				}
			}
			if seen != nil && seen[key] || seen == nil && slices.Contains(n.keys, key) {
				return nil, format.Errorf(t.file, fmt.Sprintf("byte %d (line %d)", k.Offset, k.Line), "key %q appears twice in one object", key)
			}
			v, err := t.d.Next()
			if err != nil {
				return nil, t.syntax(err)
			}
			child, err := t.value(v)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, child)
			if seen != nil {
				seen[key] = true
			}
		}
	case pyjson.ArrayStart:
		for {
			v, err := t.d.Next()
			if err != nil {
				return nil, t.syntax(err)
			}
			if v.Kind == pyjson.ArrayEnd {
				return n, nil
			}
			child, err := t.value(v)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, child)
		}
	}
	return n, nil
}
