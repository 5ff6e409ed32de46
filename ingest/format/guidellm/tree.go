package guidellm

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"go.yaml.in/yaml/v3"
)

// glNode is a JSON or YAML value held in memory, with where it was found.
// guidellm and GPUStack reports are read into these one benchmark at a time
// (a guidellm report's per-request samples are converted as they stream past
// instead), so a benchmark's many small summaries can be looked up by path
// without a Go struct per report generation: the layout changed with every
// guidellm release and unknown keys must be kept, not rejected.
type glNode struct {
	kind  glKind
	num   float64
	text  string // a number's literal, a string's value, an omitted value's size note
	b     bool
	keys  []string
	vals  []*glNode
	items []*glNode
	line  int
	off   int64 // byte offset in a JSON file; -1 for YAML
}

type glKind uint8

const (
	glNull glKind = iota
	glBool
	glNum
	glStr
	glArr
	glObj
	// glOmitted stands for a value skipped while reading (prompt and output
	// texts, probability density arrays): the raw bytes keep it.
	glOmitted
)

var glKindNames = [...]string{glNull: "null", glBool: "boolean", glNum: "number", glStr: "string",
	glArr: "list", glObj: "object", glOmitted: "omitted value"}

func (k glKind) String() string { return glKindNames[k] }

// get returns an object's value for key; nil when n is not an object or has
// no such key.
func (n *glNode) get(key string) *glNode {
	if n == nil || n.kind != glObj {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// at follows a path of object keys.
func (n *glNode) at(keys ...string) *glNode {
	for _, k := range keys {
		n = n.get(k)
	}
	return n
}

// absent reports whether a value is missing or null: guidellm writes null
// for what it did not compute.
func (n *glNode) absent() bool { return n == nil || n.kind == glNull }

// where is the node's position for messages.
func (n *glNode) where() string {
	if n == nil {
		return ""
	}
	if n.off >= 0 {
		return fmt.Sprintf("byte %d (line %d)", n.off, n.line)
	}
	return fmt.Sprintf("line %d", n.line)
}

// finite reports whether a number node holds a finite value.
func (n *glNode) finite() bool {
	return n != nil && n.kind == glNum && !math.IsNaN(n.num) && !math.IsInf(n.num, 0)
}

// scalarText renders a string, number or boolean as provenance text; ok is
// false for null, lists, objects, empty strings and non-finite numbers.
func (n *glNode) scalarText() (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.kind {
	case glStr:
		return n.text, n.text != ""
	case glNum:
		if !n.finite() {
			return "", false
		}
		if n.text != "" && n.off >= 0 {
			return n.text, true
		}
		return strconv.FormatFloat(n.num, 'g', -1, 64), true
	case glBool:
		return strconv.FormatBool(n.b), true
	}
	return "", false
}

// glMaxNodes bounds one tree: a benchmark summary has a few thousand values,
// a GPUStack record a few more, and a hostile file (YAML aliases expand)
// must not make the reader build millions.
const glMaxNodes = 1 << 20

// glTooLarge is a tree past glMaxNodes.
type glTooLarge struct{ where string }

func (e *glTooLarge) Error() string {
	return fmt.Sprintf("the value starting at %s holds more than %d items: too large to read as one report part", e.where, glMaxNodes)
}

// glJSONReader builds glNodes from a pyjson token stream.
type glJSONReader struct {
	d     *pyjson.Decoder
	nodes int
}

// cursor reads an object of the stream; its decoder errors stay as they
// are, for glSyntax to place.
func (g *glJSONReader) cursor() *jsonread.Cursor {
	return &jsonread.Cursor{Dec: g.d, Wrap: jsonread.Raw}
}

// value reads the value that begins with t. Keys in omit, at any depth, are
// skipped and stand as glOmitted nodes.
func (g *glJSONReader) value(t pyjson.Token, omit map[string]bool) (*glNode, error) {
	g.nodes++
	if g.nodes > glMaxNodes {
		return nil, &glTooLarge{fmt.Sprintf("byte %d (line %d)", t.Offset, t.Line)}
	}
	n := &glNode{line: t.Line, off: t.Offset}
	switch t.Kind {
	case pyjson.Null:
		n.kind = glNull
	case pyjson.True, pyjson.False:
		n.kind, n.b = glBool, t.Kind == pyjson.True
	case pyjson.String:
		n.kind, n.text = glStr, string(t.Bytes)
	case pyjson.Number:
		v, err := t.Float()
		if err != nil {
			return nil, &pyjson.Error{Offset: t.Offset, Line: t.Line, Msg: err.Error()}
		}
		n.kind, n.num, n.text = glNum, v, string(t.Bytes)
	case pyjson.ArrayStart:
		n.kind = glArr
		for {
			e, err := g.d.Next()
			if err != nil {
				return nil, err
			}
			if e.Kind == pyjson.ArrayEnd {
				break
			}
			v, err := g.value(e, omit)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	case pyjson.ObjectStart:
		n.kind = glObj
		_, err := g.cursor().Object(nil, func(m jsonread.Member) error {
			var v *glNode
			var err error
			if omit[m.Key] && m.Value.Kind != pyjson.Null {
				v, err = g.omitted(m.Value)
			} else {
				v, err = g.value(m.Value, omit)
			}
			if err != nil {
				return err
			}
			n.keys = append(n.keys, m.Key)
			n.vals = append(n.vals, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, &pyjson.Error{Offset: t.Offset, Line: t.Line, Msg: "unexpected " + t.Kind.String()}
	}
	return n, nil
}

// omitted consumes a value without building it, keeping only its size.
func (g *glJSONReader) omitted(t pyjson.Token) (*glNode, error) {
	n := &glNode{kind: glOmitted, line: t.Line, off: t.Offset}
	size := int64(len(t.Bytes))
	if t.Kind == pyjson.ObjectStart || t.Kind == pyjson.ArrayStart {
		_, s, err := g.d.Capture(t, 0, nil)
		if err != nil {
			return nil, err
		}
		size = s
	}
	n.text = jsonread.OversizeNote(size)
	return n, nil
}

// glFromYAML converts a decoded YAML document. Python's yaml.safe_dump
// (GPUStack's export, guidellm's .yaml output) writes plain mappings,
// sequences and scalars; aliases are followed within the node budget.
func glFromYAML(y *yaml.Node, omit map[string]bool) (*glNode, error) {
	count := 0
	var conv func(y *yaml.Node, depth int) (*glNode, error)
	conv = func(y *yaml.Node, depth int) (*glNode, error) {
		count++
		if count > glMaxNodes {
			return nil, &glTooLarge{fmt.Sprintf("line %d", y.Line)}
		}
		if depth > pyjson.DefaultMaxDepth {
			return nil, fmt.Errorf("line %d: nested deeper than %d levels", y.Line, pyjson.DefaultMaxDepth)
		}
		n := &glNode{line: y.Line, off: -1}
		switch y.Kind {
		case yaml.DocumentNode:
			if len(y.Content) == 0 {
				n.kind = glNull
				return n, nil
			}
			return conv(y.Content[0], depth+1)
		case yaml.AliasNode:
			if y.Alias == nil {
				return nil, fmt.Errorf("line %d: an alias without its anchor", y.Line)
			}
			return conv(y.Alias, depth+1)
		case yaml.MappingNode:
			n.kind = glObj
			for i := 0; i+1 < len(y.Content); i += 2 {
				k, v := y.Content[i], y.Content[i+1]
				if k.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("line %d: a mapping key that is not a plain value", k.Line)
				}
				var cv *glNode
				if omit[k.Value] && !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null") {
					cv = &glNode{kind: glOmitted, line: v.Line, off: -1, text: strconv.Quote("<kept in raw bytes only>")}
				} else {
					var err error
					if cv, err = conv(v, depth+1); err != nil {
						return nil, err
					}
				}
				n.keys = append(n.keys, k.Value)
				n.vals = append(n.vals, cv)
			}
		case yaml.SequenceNode:
			n.kind = glArr
			for _, c := range y.Content {
				cv, err := conv(c, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, cv)
			}
		case yaml.ScalarNode:
			switch y.ShortTag() {
			case "!!null":
				n.kind = glNull
			case "!!bool":
				var b bool
				if err := y.Decode(&b); err != nil {
					return nil, fmt.Errorf("line %d: %w", y.Line, err)
				}
				n.kind, n.b = glBool, b
			case "!!int", "!!float":
				var f float64
				if err := y.Decode(&f); err != nil {
					return nil, fmt.Errorf("line %d: %q is not a number", y.Line, y.Value)
				}
				n.kind, n.num, n.text = glNum, f, y.Value
			default:
				n.kind, n.text = glStr, y.Value
			}
		default:
			return nil, fmt.Errorf("line %d: unexpected YAML node", y.Line)
		}
		return n, nil
	}
	return conv(y, 0)
}

// glParseYAML decodes YAML text into a tree, skipping the keys in omit.
func glParseYAML(data []byte, omit map[string]bool) (*glNode, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, errors.New("the file holds no YAML document")
	}
	return glFromYAML(&doc, omit)
}

// glText renders a node as JSON text for Run.Extra, at most jsonread.ExtraLimit bytes
// (a longer value is replaced by a note: the raw bytes keep it).
func glText(n *glNode) string {
	var sb strings.Builder
	glWrite(&sb, n)
	return jsonread.Extra(sb.String())
}

func glWrite(sb *strings.Builder, n *glNode) {
	if sb.Len() > jsonread.ExtraLimit {
		return
	}
	if n == nil {
		sb.WriteString("null")
		return
	}
	switch n.kind {
	case glNull:
		sb.WriteString("null")
	case glBool:
		sb.WriteString(strconv.FormatBool(n.b))
	case glNum:
		switch {
		case math.IsNaN(n.num):
			sb.WriteString("NaN")
		case math.IsInf(n.num, 1):
			sb.WriteString("Infinity")
		case math.IsInf(n.num, -1):
			sb.WriteString("-Infinity")
		case n.off >= 0 && n.text != "":
			sb.WriteString(n.text)
		default:
			sb.WriteString(strconv.FormatFloat(n.num, 'g', -1, 64))
		}
	case glStr:
		glQuote(sb, n.text)
	case glOmitted:
		sb.WriteString(n.text)
	case glArr:
		sb.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				sb.WriteByte(',')
			}
			glWrite(sb, it)
		}
		sb.WriteByte(']')
	case glObj:
		sb.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			glQuote(sb, k)
			sb.WriteByte(':')
			glWrite(sb, n.vals[i])
		}
		sb.WriteByte('}')
	}
}

// glQuote writes s as a JSON string of an Extra value.
func glQuote(sb *strings.Builder, s string) { sb.Write(jsonread.AppendExtraString(nil, s)) }
