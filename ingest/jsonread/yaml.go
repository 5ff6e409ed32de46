package jsonread

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/benchledger/benchledger/ingest/pyjson"
	"go.yaml.in/yaml/v3"
)

// YAML reads a YAML document into the tree Value reads from JSON, for the
// tools that write the same report as YAML: Python's yaml.safe_dump
// (GPUStack's export, guidellm's .yaml output) writes plain mappings,
// sequences and scalars. Aliases are followed within MaxNodes (every
// document, alias and value counts); Omit applies as to JSON, the note
// without a size. A value's place is its line (Offset is -1); a
// number's Text is its JSON form and Src its literal. Errors are plain:
// "line L: ...", the YAML decoder's own, or TooLarge's reason.
func (t *TreeReader) YAML(data []byte) (*Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, errors.New("the file holds no YAML document")
	}
	t.Count = 0
	return t.yamlValue(&doc, 0)
}

// yamlOmitted is the Extra text of a value Omit skipped in YAML.
var yamlOmitted = strconv.Quote("<kept in raw bytes only>")

func (t *TreeReader) yamlValue(y *yaml.Node, depth int) (*Node, error) {
	t.Count++
	if t.Count > t.MaxNodes {
		return nil, errors.New(t.tooMany(fmt.Sprintf("line %d", y.Line)))
	}
	if depth > pyjson.DefaultMaxDepth {
		return nil, fmt.Errorf("line %d: nested deeper than %d levels", y.Line, pyjson.DefaultMaxDepth)
	}
	n := &Node{Offset: -1, Line: y.Line}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			n.Kind = pyjson.Null
			return n, nil
		}
		return t.yamlValue(y.Content[0], depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, fmt.Errorf("line %d: an alias without its anchor", y.Line)
		}
		return t.yamlValue(y.Alias, depth+1)
	case yaml.MappingNode:
		n.Kind = pyjson.ObjectStart
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a mapping key that is not a plain value", k.Line)
			}
			var kid *Node
			if t.Omit[k.Value] && !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null") {
				kid = &Node{Kind: Omitted, Text: yamlOmitted, Offset: -1, Line: v.Line}
			} else {
				var err error
				if kid, err = t.yamlValue(v, depth+1); err != nil {
					return nil, err
				}
			}
			n.Keys = append(n.Keys, k.Value)
			n.Vals = append(n.Vals, kid)
		}
	case yaml.SequenceNode:
		n.Kind = pyjson.ArrayStart
		for _, c := range y.Content {
			kid, err := t.yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			n.Vals = append(n.Vals, kid)
		}
	case yaml.ScalarNode:
		switch y.ShortTag() {
		case "!!null":
			n.Kind = pyjson.Null
		case "!!bool":
			var b bool
			if err := y.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %w", y.Line, err)
			}
			n.Kind = pyjson.False
			if b {
				n.Kind = pyjson.True
			}
		case "!!int", "!!float":
			var f float64
			if err := y.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number", y.Line, y.Value)
			}
			n.Kind, n.Text = pyjson.Number, jsonNumber(f)
			if y.Value != n.Text {
				n.Src = y.Value
			}
		default:
			n.Kind, n.Text = pyjson.String, y.Value
		}
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node", y.Line)
	}
	return n, nil
}

// jsonNumber is f as a JSON literal in the Extra encoding: the shortest
// form that reads back as f, NaN and ±Infinity as Python writes them.
func jsonNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
