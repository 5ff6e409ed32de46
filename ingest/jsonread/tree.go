package jsonread

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// A Node is one value of a small JSON or YAML file held whole, with its
// place, for the formats that need random access (a summary, a report).
type Node struct {
	Kind pyjson.Kind // ObjectStart, ArrayStart, String, Number, True, False, Null, or Omitted
	// Text is a string's decoded text, a number's JSON literal (as a JSON
	// file wrote it; from YAML its shortest form, NaN and ±Infinity as
	// Python writes them), or an omitted value's Extra text.
	Text string
	// Src is a YAML number's literal as written ("1.0", ".nan", "0x1F")
	// when it is not Text; messages quote it (Literal).
	Src  string
	Keys []string // an object's keys, in file order
	Vals []*Node  // an object's values (beside Keys), or an array's items
	// Offset and Line are where the value's first token is; Offset is -1
	// for a value read from YAML.
	Offset int64
	Line   int
}

// Omitted is the Kind of a value a TreeReader skipped (Omit): no value of
// a file has it, and its Text is the value's Extra text, the note standing
// for it.
const Omitted = pyjson.EOF

// Place is "byte B (line L)" of the value, "line L" for a value read from
// YAML, "" for no value.
func (n *Node) Place() string {
	switch {
	case n == nil:
		return ""
	case n.Offset < 0:
		return fmt.Sprintf("line %d", n.Line)
	}
	return fmt.Sprintf("byte %d (line %d)", n.Offset, n.Line)
}

// Absent reports whether a value is missing or null: the tools write null
// for what they did not compute.
func (n *Node) Absent() bool { return n == nil || n.Kind == pyjson.Null }

// Get returns the member named key of an object, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != pyjson.ObjectStart {
		return nil
	}
	if i := slices.Index(n.Keys, key); i >= 0 {
		return n.Vals[i]
	}
	return nil
}

// Path follows object keys; nil when any is missing.
func (n *Node) Path(keys ...string) *Node {
	for _, k := range keys {
		n = n.Get(k)
	}
	return n
}

// Str returns a string value.
func (n *Node) Str() (string, bool) {
	if n == nil || n.Kind != pyjson.String {
		return "", false
	}
	return n.Text, true
}

// Finite returns a finite number value; ok is false for anything else.
func (n *Node) Finite() (float64, bool) {
	if n == nil || n.Kind != pyjson.Number {
		return 0, false
	}
	v, err := pyjson.Token{Kind: pyjson.Number, Bytes: []byte(n.Text)}.Float()
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Literal is a number's literal as the file wrote it, or a value's Text.
func (n *Node) Literal() string {
	if n.Src != "" {
		return n.Src
	}
	return n.Text
}

// Scalar is a value as provenance text: a string that is not empty, a
// finite number as its JSON literal, a boolean; ok is false for anything
// else (null, lists, objects, NaN and ±Infinity).
func (n *Node) Scalar() (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.Kind {
	case pyjson.String:
		return n.Text, n.Text != ""
	case pyjson.Number:
		_, ok := n.Finite()
		return n.Text, ok
	case pyjson.True:
		return "true", true
	case pyjson.False:
		return "false", true
	}
	return "", false
}

// Describe names a value for a message: a number's literal or a short
// string, else its kind.
func (n *Node) Describe() string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == pyjson.Number:
		return n.Literal()
	case n.Kind == pyjson.String && len(n.Text) <= 40:
		return strconv.Quote(n.Text)
	case n.Kind == Omitted:
		return "omitted value"
	}
	return n.Kind.String()
}

// Noun names a value's kind for a message about a file that may be YAML:
// an array is a "list".
func (n *Node) Noun() string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == pyjson.ArrayStart:
		return "list"
	case n.Kind == Omitted:
		return "omitted value"
	}
	return n.Kind.String()
}

// Raw is a scalar's JSON text in the Extra encoding.
func (n *Node) Raw() string { return string(n.AppendJSON(nil)) }

// Extra is the value's Run.Extra text: the compact encoding, or the note
// standing for a value longer than ExtraLimit.
func (n *Node) Extra() string { return Extra(string(n.AppendJSON(nil))) }

// ExtraBounded is Extra written only up to ExtraLimit: past it the values
// are left out (keys and brackets still written), so a note gives the
// size written by then, not the value's whole size. guidellm's and
// GPUStack's reports have always been kept so, and the ids of their
// archived runs hang on these bytes.
func (n *Node) ExtraBounded() string { return Extra(string(n.appendJSON(nil, ExtraLimit))) }

// AppendJSON writes the value in the Extra encoding (see extra.go); no
// value is null, an omitted one its note.
func (n *Node) AppendJSON(b []byte) []byte { return n.appendJSON(b, -1) }

// appendJSON is AppendJSON leaving out each value met once b is longer
// than stop (-1: none).
func (n *Node) appendJSON(b []byte, stop int) []byte {
	if stop >= 0 && len(b) > stop {
		return b
	}
	if n == nil {
		return append(b, "null"...)
	}
	switch n.Kind {
	case pyjson.ObjectStart:
		b = append(b, '{')
		for i, k := range n.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendExtraString(b, k)
			b = append(b, ':')
			b = n.Vals[i].appendJSON(b, stop)
		}
		return append(b, '}')
	case pyjson.ArrayStart:
		b = append(b, '[')
		for i, v := range n.Vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.appendJSON(b, stop)
		}
		return append(b, ']')
	case pyjson.String:
		return AppendExtraString(b, n.Text)
	case pyjson.Number, Omitted:
		return append(b, n.Text...)
	case pyjson.True:
		return append(b, "true"...)
	case pyjson.False:
		return append(b, "false"...)
	}
	return append(b, "null"...)
}

// A TreeReader reads values whole into Nodes, bounded in size. Its
// Cursor's Wrap (or Syntax) places decoder errors.
type TreeReader struct {
	Cursor
	// MaxNodes bounds the values read; past it the reason is "more than
	// MaxNodes JSON values: " and TooMany, or TooLarge's when it is set,
	// which gets the place of the value that went past.
	MaxNodes int
	TooMany  string
	TooLarge func(place string) string
	// Count is the values read so far (an omitted one is not counted): a
	// reader of a file in parts may reset it between parts.
	Count int
	// Paths places errors by the dotted path of the value being read
	// (`key "a.b[2]", `) and names a repeated key by its path; without it
	// a repeat is "key %q appears twice in one object".
	Paths bool
	// Repeats keeps a key an object repeats (Get finds its first value)
	// instead of refusing the object.
	Repeats bool
	// Ranged refuses a number beyond float64's range where it is read, as
	// a decoder error ("number 1e999 is out of range").
	Ranged bool
	// Omit names keys whose value, unless null, is skipped at any depth
	// (prompt texts, density arrays): it stands as a Node of Kind Omitted
	// whose Text is the OversizeNote of its size.
	Omit map[string]bool
}

// Value reads the value that begins with first.
func (t *TreeReader) Value(first pyjson.Token) (*Node, error) { return t.value(first, "") }

// tooMany is the reason of a value past MaxNodes, at place.
func (t *TreeReader) tooMany(place string) string {
	if t.TooLarge != nil {
		return t.TooLarge(place)
	}
	return fmt.Sprintf("more than %d JSON values: %s", t.MaxNodes, t.TooMany)
}

func (t *TreeReader) value(first pyjson.Token, path string) (*Node, error) {
	t.Count++
	if t.Count > t.MaxNodes {
		place := Place("", first)
		return nil, format.Errorf(t.File, place, "%s", t.tooMany(place))
	}
	n := &Node{Kind: first.Kind, Offset: first.Offset, Line: first.Line}
	where := ""
	if t.Paths && path != "" {
		where = KeyPlace(path)
	}
	switch first.Kind {
	case pyjson.String:
		n.Text = string(first.Bytes)
	case pyjson.Number:
		if t.Ranged {
			if _, err := first.Float(); err != nil {
				return nil, t.Syntax(where, &pyjson.Error{Offset: first.Offset, Line: first.Line, Msg: err.Error()})
			}
		}
		n.Text = string(first.Bytes)
	case pyjson.True, pyjson.False, pyjson.Null:
	case pyjson.ObjectStart:
		var seen map[string]bool // past a few keys, so the check stays linear
		for {
			kt, err := t.Next(where)
			if err != nil {
				return nil, err
			}
			if kt.Kind == pyjson.ObjectEnd {
				return n, nil
			}
			key := string(kt.Bytes)
			if len(n.Keys) == 16 && !t.Repeats {
				seen = make(map[string]bool, 64)
				for _, k := range n.Keys {
					seen[k] = true
				}
			}
			child := key
			if t.Paths && path != "" {
				child = path + "." + key
			}
			if !t.Repeats && (seen != nil && seen[key] || seen == nil && slices.Contains(n.Keys, key)) {
				if t.Paths {
					return nil, format.Errorf(t.File, Place("", kt), "key %q appears twice", child)
				}
				return nil, format.Errorf(t.File, Place("", kt), "key %q appears twice in one object", key)
			}
			childWhere := ""
			if t.Paths {
				childWhere = KeyPlace(child)
			}
			vt, err := t.Next(childWhere)
			if err != nil {
				return nil, err
			}
			var kid *Node
			if t.Omit[key] && vt.Kind != pyjson.Null {
				kid, err = t.omitted(vt, childWhere)
			} else {
				kid, err = t.value(vt, child)
			}
			if err != nil {
				return nil, err
			}
			n.Keys = append(n.Keys, key)
			n.Vals = append(n.Vals, kid)
			if seen != nil {
				seen[key] = true
			}
		}
	case pyjson.ArrayStart:
		for i := 0; ; i++ {
			vt, err := t.Next(where)
			if err != nil {
				return nil, err
			}
			if vt.Kind == pyjson.ArrayEnd {
				return n, nil
			}
			item := ""
			if t.Paths {
				item = fmt.Sprintf("%s[%d]", path, i)
			}
			kid, err := t.value(vt, item)
			if err != nil {
				return nil, err
			}
			n.Vals = append(n.Vals, kid)
		}
	default:
		return nil, format.Errorf(t.File, Place(where, first), "unexpected %s", first.Kind)
	}
	return n, nil
}

// omitted reads past the value that begins with first, keeping its size.
func (t *TreeReader) omitted(first pyjson.Token, where string) (*Node, error) {
	size := int64(len(first.Bytes))
	if first.Kind == pyjson.ObjectStart || first.Kind == pyjson.ArrayStart {
		_, s, err := t.Dec.Capture(first, 0, nil)
		if err != nil {
			return nil, t.Syntax(where, err)
		}
		size = s
	}
	return &Node{Kind: Omitted, Text: OversizeNote(size), Offset: first.Offset, Line: first.Line}, nil
}
