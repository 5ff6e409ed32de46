package jsonread_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

func tooLarge(place string) string { return "too large at " + place }

// TestTreeOptions: the options guidellm's reports need — skipped keys
// (never null ones, not counted), repeated keys kept, numbers out of range
// refused where they are read, the caller's wording past MaxNodes.
func TestTreeOptions(t *testing.T) {
	t.Parallel()
	in := `{"p": {"x": [1, 2]}, "q": "héllo", "n": null, "k": 1, "k": 2, "l": [{"p": 7}]}`
	d := pyjson.NewDecoder(strings.NewReader(in))
	tr := &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d, File: "f.json"}, MaxNodes: 100, Repeats: true,
		Omit: map[string]bool{"p": true, "q": true, "n": true}}
	first, _ := tr.Next("")
	root, err := tr.Value(first)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := root.Extra(), `{"p":"<kept in raw bytes only: 0.0 kB>","q":"<kept in raw bytes only: 0.0 kB>","n":null,"k":1,"k":2,"l":[{"p":"<kept in raw bytes only: 0.0 kB>"}]}`; got != want {
		t.Errorf("Extra %s\nwant  %s", got, want)
	}
	if p := root.Get("p"); p.Kind != jsonread.Omitted || p.Noun() != "omitted value" || p.Describe() != "omitted value" || p.Absent() {
		t.Errorf("omitted %+v", p)
	}
	if v, ok := root.Get("k").Finite(); !ok || v != 1 {
		t.Errorf("a repeated key reads %v, want its first value", v)
	}
	if !root.Get("n").Absent() || !root.Get("none").Absent() {
		t.Error("null or missing is not absent")
	}
	// root, n, k, k, l, l[0]: the three omitted values are not counted.
	if tr.Count != 6 {
		t.Errorf("Count %d, want 6", tr.Count)
	}

	for _, tc := range []struct {
		name, in     string
		tr           jsonread.TreeReader
		place, issue string
	}{
		{name: "range", in: `{"a": [1e999]}`, tr: jsonread.TreeReader{MaxNodes: 10, Ranged: true}, place: "byte 7 (line 1)", issue: "malformed JSON: number 1e999 is out of range"},
		{name: "repeat", in: `{"a": 1, "a": 2}`, tr: jsonread.TreeReader{MaxNodes: 10}, place: "byte 9 (line 1)", issue: `key "a" appears twice in one object`},
		{name: "too large", in: `[1, [2, 3]]`, tr: jsonread.TreeReader{MaxNodes: 3, TooLarge: tooLarge}, place: "byte 5 (line 1)", issue: "too large at byte 5 (line 1)"},
	} {
		d := pyjson.NewDecoder(strings.NewReader(tc.in))
		tc.tr.Cursor = jsonread.Cursor{Dec: d, File: "f.json"}
		first, _ := tc.tr.Next("")
		_, err := tc.tr.Value(first)
		var ie *format.InputError
		if !errors.As(err, &ie) || ie.Place != tc.place || ie.Reason != tc.issue {
			t.Errorf("%s: err %v; want place %q, reason %q", tc.name, err, tc.place, tc.issue)
		}
	}
	// Without Ranged the number is read as written; Finite refuses it.
	d = pyjson.NewDecoder(strings.NewReader(`1e999`))
	tr = &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d}, MaxNodes: 10}
	first, _ = tr.Next("")
	if n, err := tr.Value(first); err != nil || n.Text != "1e999" {
		t.Errorf("unranged %v %v", n, err)
	} else if _, ok := n.Finite(); ok {
		t.Error("1e999 is finite")
	}
}

// TestExtraBounded: past ExtraLimit the bounded writer leaves values out,
// so its note gives the size written by then; Extra's gives the whole.
func TestExtraBounded(t *testing.T) {
	t.Parallel()
	in := "[" + strings.Repeat(`"abc",`, 20000) + "1]"
	d := pyjson.NewDecoder(strings.NewReader(in))
	tr := &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d}, MaxNodes: 1 << 20}
	first, _ := tr.Next("")
	n, err := tr.Value(first)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.Extra(), `"<kept in raw bytes only: 120.0 kB>"`; got != want {
		t.Errorf("Extra %s, want %s", got, want)
	}
	// Items are written up to 64 KiB, then only the commas between the rest.
	if got, want := n.ExtraBounded(), `"<kept in raw bytes only: 74.6 kB>"`; got != want {
		t.Errorf("ExtraBounded %s, want %s", got, want)
	}
	small := n.Vals[0]
	if small.ExtraBounded() != small.Extra() {
		t.Errorf("a short value: %s and %s", small.ExtraBounded(), small.Extra())
	}
}

func TestTreeNil(t *testing.T) {
	t.Parallel()
	var n *jsonread.Node
	if n.Place() != "" || n.Extra() != "null" || n.Noun() != "nothing" || !n.Absent() {
		t.Errorf("nil node: %q %q %q", n.Place(), n.Extra(), n.Noun())
	}
	if _, ok := n.Scalar(); ok {
		t.Error("nil is a scalar")
	}
}

// TestYAML: a YAML document reads into the same tree as JSON: kinds, a
// number's JSON form beside its literal, places by line, omitted keys,
// the budget over aliases, and the errors.
func TestYAML(t *testing.T) {
	t.Parallel()
	in := "a: [1, 1.0, 0x1F, .nan, -.inf, 1000000, '7', true, null, ~]\nb:\n  s: text\n  p: {x: 1}\n  q: null\n"
	tr := &jsonread.TreeReader{MaxNodes: 100, Omit: map[string]bool{"p": true, "q": true}}
	root, err := tr.YAML([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := root.Extra(), `{"a":[1,1,31,NaN,-Infinity,1e+06,"7",true,null,null],"b":{"s":"text","p":"<kept in raw bytes only>","q":null}}`; got != want {
		t.Errorf("Extra %s\nwant  %s", got, want)
	}
	a := root.Get("a").Vals
	for i, want := range []string{"1", "1.0", "0x1F", ".nan", "-.inf", "1000000", "7"} {
		if got := a[i].Literal(); got != want {
			t.Errorf("item %d: Literal %q, want %q", i, got, want)
		}
	}
	if s, ok := a[1].Scalar(); !ok || s != "1" {
		t.Errorf("Scalar of 1.0: %q %v", s, ok)
	}
	if _, ok := a[3].Scalar(); ok {
		t.Error(".nan is a scalar")
	}
	if got := a[7].Noun(); got != "boolean" {
		t.Errorf("Noun %q", got)
	}
	if got := root.Get("a").Noun(); got != "list" {
		t.Errorf("Noun %q", got)
	}
	if got := root.Path("b", "p").Place(); got != "line 4" {
		t.Errorf("Place %q", got)
	}
	// The document, its mapping, a and its 10 items, b, s and q (p is
	// omitted): 16.
	if tr.Count != 16 {
		t.Errorf("Count %d, want 16", tr.Count)
	}

	for _, tc := range []struct{ in, err string }{
		{"", "the file holds no YAML document"},
		{"{[1]: 2}\n", "line 1: a mapping key that is not a plain value"},
		{"a: &a [1, 2]\nb: [*a, *a, *a]\n", "too large at line 1"},
		{"a: [1, 2\n", "yaml:"},
		{"a: !!int x\n", `line 1: "x" is not a number`},
		{strings.Repeat("- ", 520) + "1\n", "nested deeper than 512 levels"},
	} {
		tr := &jsonread.TreeReader{MaxNodes: 8, TooLarge: tooLarge}
		if strings.HasPrefix(tc.in, "-") {
			tr.MaxNodes = 1000
		}
		if _, err := tr.YAML([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
		}
	}
}
