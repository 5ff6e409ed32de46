package jsonread

import (
	"context"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// A Cursor reads a JSON value member by member and carries what an
// InputError needs: the file and the place prefix (`object 2, `). The
// "next key, check the end, next value" loop of every format is Object's.
type Cursor struct {
	Dec    *pyjson.Decoder
	File   string
	Prefix string
	// Ctx, when set, is checked once every 1024 members of an object.
	Ctx context.Context
	// Wrap, when set, converts a decoder error in place of
	// Syntax(File, Prefix+where, err).
	Wrap Wrapper
}

// A Wrapper converts a decoder error met at where: "" at a key,
// KeyPlace(key) at the key's value. Make it a value that does not hold the
// parser (Raw, a small struct): one that does moves the parser to the heap.
type Wrapper interface {
	Syntax(where string, err error) error
}

// Raw is the Wrapper that keeps a decoder error as it is (a *pyjson.Error)
// for a parser that places it where its loop returns (see Placed): a
// Wrapper holding the parser itself would move the parser to the heap.
var Raw Wrapper = rawErrors{}

type rawErrors struct{}

func (rawErrors) Syntax(_ string, err error) error { return err }

// Placed converts err with place when it is a decoder error a Raw cursor
// passed on, and returns any other error as it is.
func Placed(err error, place func(error) error) error {
	if _, ok := err.(*pyjson.Error); ok {
		return place(err)
	}
	return err
}

// A Member is one key of an object and the first token of its value.
type Member struct {
	Key   string
	At    pyjson.Token // the key's token; its Bytes are no longer valid
	Value pyjson.Token
}

// Next reads a token; a decoder error is placed at where.
func (c *Cursor) Next(where string) (pyjson.Token, error) {
	tok, err := c.Dec.Next()
	if err != nil {
		return tok, c.Syntax(where, err)
	}
	return tok, nil
}

// Syntax converts a decoder error met at where (see Wrap).
func (c *Cursor) Syntax(where string, err error) error {
	if c.Wrap != nil {
		return c.Wrap.Syntax(where, err)
	}
	return Syntax(c.File, c.Prefix+where, err)
}

// Errorf is an InputError at tok, its place prefixed by c.Prefix+where.
func (c *Cursor) Errorf(where string, tok pyjson.Token, msgf string, args ...any) error {
	return format.Errorf(c.File, Place(c.Prefix+where, tok), msgf, args...)
}

// Object reads the members of the object whose '{' was just read, up to
// its '}', which it returns. fn gets each member and reads (or skips) its
// value whole. With seen set, the object's keys are remembered in it and a
// repeated one is the error "key %q appears twice" at the key (a format
// that words it otherwise checks in a Keys loop, before the value).
func (c *Cursor) Object(seen map[string]bool, fn func(m Member) error) (pyjson.Token, error) {
	for n := 0; ; n++ {
		if c.Ctx != nil && n%1024 == 0 {
			if err := c.Ctx.Err(); err != nil {
				return pyjson.Token{}, err
			}
		}
		kt, err := c.Next("")
		if err != nil {
			return kt, err
		}
		if kt.Kind == pyjson.ObjectEnd {
			return kt, nil
		}
		m := Member{Key: string(kt.Bytes), At: pyjson.Token{Kind: kt.Kind, Line: kt.Line, Offset: kt.Offset}}
		if seen != nil {
			if seen[m.Key] {
				return kt, c.Errorf("", m.At, "key %q appears twice", m.Key)
			}
			seen[m.Key] = true
		}
		if m.Value, err = c.Dec.Next(); err != nil {
			return m.Value, c.Syntax(KeyPlace(m.Key), err)
		}
		if err := fn(m); err != nil {
			return m.Value, err
		}
	}
}

// Keys is Object for a loop that must not make a string of each key (one
// request line among millions): fn gets each key's token, whose Bytes last
// until the next read, and reads the key's value itself with Next.
func (c *Cursor) Keys(fn func(k pyjson.Token) error) (pyjson.Token, error) {
	for {
		kt, err := c.Next("")
		if err != nil || kt.Kind == pyjson.ObjectEnd {
			return kt, err
		}
		if err := fn(kt); err != nil {
			return kt, err
		}
	}
}

// Skip reads past the rest of the value that starts with t.
func (c *Cursor) Skip(where string, t pyjson.Token) error {
	if err := c.Dec.Skip(t); err != nil {
		return c.Syntax(where, err)
	}
	return nil
}

// Keep reads the value that starts with t as its raw JSON text for
// Run.Extra: the bytes as written, or the note standing for a value longer
// than ExtraLimit.
func (c *Cursor) Keep(where string, t pyjson.Token) (string, error) {
	raw, size, err := c.Dec.Capture(t, ExtraLimit, nil)
	if err != nil {
		return "", c.Syntax(where, err)
	}
	if size > ExtraLimit {
		return OversizeNote(size), nil
	}
	return string(raw), nil
}

// HeadObject starts a detector's walk over a file's first bytes: a decoder
// over head that has read the opening '{' of a top-level object, or false
// when head does not start with one.
func HeadObject(head []byte) (*pyjson.Decoder, bool) {
	d := pyjson.NewDecoderSize(pyjson.NewInput(head), len(head)+16)
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		return nil, false
	}
	return d, true
}

// SniffObject walks the members of the object whose '{' was just read,
// for a detector reading a file's first bytes: fn sees each key and its
// value's first token and returns false to stop. Whatever of the value fn
// leaves unread is skipped. A value cut off by the end of the bytes (or
// malformed) comes as a token of Kind EOF, and the walk stops after it; it
// also stops at the object's end and at any other error.
func SniffObject(d *pyjson.Decoder, fn func(key string, v pyjson.Token) bool) {
	for {
		kt, err := d.Next()
		if err != nil || kt.Kind != pyjson.Key {
			return
		}
		key := string(kt.Bytes)
		vt, err := d.Next()
		if err != nil {
			fn(key, pyjson.Token{Kind: pyjson.EOF})
			return
		}
		depth := d.Depth()
		if !fn(key, vt) {
			return
		}
		if vt.Kind != pyjson.ObjectStart && vt.Kind != pyjson.ArrayStart {
			continue
		}
		for d.Depth() >= depth { // the levels of the value fn left open
			if d.Skip(pyjson.Token{Kind: pyjson.ObjectStart}) != nil {
				return
			}
		}
	}
}

// SniffWhole is SniffObject for a detector that counts a key only with its
// value: a value cut off by the end of the bytes ends the walk before fn
// sees it.
func SniffWhole(d *pyjson.Decoder, fn func(key string, v pyjson.Token) bool) {
	SniffObject(d, func(key string, v pyjson.Token) bool { return v.Kind != pyjson.EOF && fn(key, v) })
}
