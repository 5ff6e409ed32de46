package jsonread

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// A Node is one value of a small JSON file held whole, with its place, for
// the formats that need random access (a summary, a report).
type Node struct {
	Kind pyjson.Kind  // ObjectStart for an object, ArrayStart for an array
	Text string       // a string's decoded text, or a number's literal as written
	Keys []string     // an object's keys, in file order
	Vals []*Node      // an object's values (beside Keys), or an array's items
	At   pyjson.Token // Offset and Line of the value's first token
}

// Place is "byte B (line L)" of the value.
func (n *Node) Place() string { return Place("", n.At) }

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

// Describe names a value for a message: a number's literal or a short
// string, else its kind.
func (n *Node) Describe() string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == pyjson.Number:
		return n.Text
	case n.Kind == pyjson.String && len(n.Text) <= 40:
		return strconv.Quote(n.Text)
	}
	return n.Kind.String()
}

// Raw is a scalar's JSON text in the Extra encoding.
func (n *Node) Raw() string { return string(n.AppendJSON(nil)) }

// Extra is the value's Run.Extra text: the compact encoding, or the note
// standing for a value longer than ExtraLimit.
func (n *Node) Extra() string { return Extra(string(n.AppendJSON(nil))) }

// AppendJSON writes the value in the Extra encoding (see extra.go).
func (n *Node) AppendJSON(b []byte) []byte {
	switch n.Kind {
	case pyjson.ObjectStart:
		b = append(b, '{')
		for i, k := range n.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendExtraString(b, k)
			b = append(b, ':')
			b = n.Vals[i].AppendJSON(b)
		}
		return append(b, '}')
	case pyjson.ArrayStart:
		b = append(b, '[')
		for i, v := range n.Vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.AppendJSON(b)
		}
		return append(b, ']')
	case pyjson.String:
		return AppendExtraString(b, n.Text)
	case pyjson.Number:
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
	// MaxNodes JSON values: " and TooMany.
	MaxNodes int
	TooMany  string
	// Paths places errors by the dotted path of the value being read
	// (`key "a.b[2]", `) and names a repeated key by its path; without it
	// a repeat is "key %q appears twice in one object".
	Paths bool
	nodes int
}

// Value reads the value that begins with first.
func (t *TreeReader) Value(first pyjson.Token) (*Node, error) { return t.value(first, "") }

func (t *TreeReader) value(first pyjson.Token, path string) (*Node, error) {
	t.nodes++
	if t.nodes > t.MaxNodes {
		return nil, format.Errorf(t.File, Place("", first), "more than %d JSON values: %s", t.MaxNodes, t.TooMany)
	}
	n := &Node{Kind: first.Kind, At: pyjson.Token{Offset: first.Offset, Line: first.Line}}
	where := ""
	if t.Paths && path != "" {
		where = KeyPlace(path)
	}
	switch first.Kind {
	case pyjson.String, pyjson.Number:
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
			if len(n.Keys) == 16 {
				seen = make(map[string]bool, 64)
				for _, k := range n.Keys {
					seen[k] = true
				}
			}
			child := key
			if t.Paths && path != "" {
				child = path + "." + key
			}
			if seen != nil && seen[key] || seen == nil && slices.Contains(n.Keys, key) {
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
			kid, err := t.value(vt, child)
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
