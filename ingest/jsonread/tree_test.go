package jsonread_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

func readTree(in string, paths bool, maxNodes int) (*jsonread.Node, error) {
	d := pyjson.NewDecoder(strings.NewReader(in))
	t := &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d, File: "f.json"}, MaxNodes: maxNodes, TooMany: "too large", Paths: paths}
	first, err := t.Next("")
	if err != nil {
		return nil, err
	}
	return t.Value(first)
}

func TestTreeValues(t *testing.T) {
	t.Parallel()
	in := "{\"s\": \"a<b\\u00e9\", \"n\": 2.50, \"f\": NaN, \"t\": true,\n \"z\": null, \"l\": [1, {\"k\": []}], \"o\": {}}"
	root, err := readTree(in, false, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := root.Extra(), `{"s":"a<bé","n":2.50,"f":NaN,"t":true,"z":null,"l":[1,{"k":[]}],"o":{}}`; got != want {
		t.Errorf("Extra %s, want %s", got, want)
	}
	if s, ok := root.Get("s").Str(); !ok || s != "a<bé" {
		t.Errorf("Str %q %v", s, ok)
	}
	if v, ok := root.Get("n").Finite(); !ok || v != 2.5 {
		t.Errorf("Finite %v %v", v, ok)
	}
	if _, ok := root.Get("f").Finite(); ok {
		t.Error("NaN is finite")
	}
	if n := root.Path("l", "k"); n != nil {
		t.Errorf("Path through a list: %v", n)
	}
	if got := root.Get("z").Place(); got != "byte 57 (line 2)" {
		t.Errorf("Place %q", got)
	}
	for n, want := range map[*jsonread.Node]string{root.Get("n"): "2.50", root.Get("s"): `"a<bé"`, root.Get("t"): "boolean", nil: "nothing"} {
		if got := n.Describe(); got != want {
			t.Errorf("Describe %q, want %q", got, want)
		}
	}
	if got := root.Get("s").Raw(); got != `"a<bé"` {
		t.Errorf("Raw %s", got)
	}
}

func TestTreeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in     string
		paths        bool
		max          int // nodes; 100 when 0
		place, issue string
	}{
		{name: "repeat", in: `{"a": {"b": 1, "b": 2}}`, place: "byte 15 (line 1)", issue: `key "b" appears twice in one object`},
		{name: "repeat by path", in: `{"a": {"b": 1, "b": 2}}`, paths: true, place: "byte 15 (line 1)", issue: `key "a.b" appears twice`},
		{name: "many keys", in: `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1,"c":2}`,
			place: "byte 103 (line 1)", issue: `key "c" appears twice`},
		{name: "bad value by path", in: `{"a": [1, {"b": tru}]}`, paths: true, place: `key "a[1].b", byte`, issue: "malformed JSON"},
		{name: "bad item by path", in: `{"a": [1, ]}`, paths: true, place: `key "a", byte`, issue: "malformed JSON"},
		{name: "bad value", in: `{"a": [1, {"b": tru}]}`, place: `byte`, issue: "malformed JSON"},
		{name: "too many", in: `[1, 2, 3, 4]`, max: 4, place: "byte 10 (line 1)", issue: "more than 4 JSON values: too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.max == 0 {
				tc.max = 100
			}
			_, err := readTree(tc.in, tc.paths, tc.max)
			var ie *format.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(ie.Place, tc.place) || !strings.Contains(ie.Reason, tc.issue) {
				t.Fatalf("err %v; want place %q, reason %q", err, tc.place, tc.issue)
			}
		})
	}
}
