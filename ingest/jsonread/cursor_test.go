package jsonread_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// open returns a cursor on in, past its first '{'.
func open(t *testing.T, in string) *jsonread.Cursor {
	t.Helper()
	d := pyjson.NewDecoder(strings.NewReader(in))
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		t.Fatalf("%q: first token %v %v", in, tok.Kind, err)
	}
	return &jsonread.Cursor{Dec: d, File: "f.json", Prefix: "object 1, "}
}

func TestCursorObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in    string
		seen        bool
		keys        string // the keys fn saw, joined
		place, fail string // the InputError's, when there is one
	}{
		{name: "members", in: `{"a": 1, "b": [2, {"c": 3}], "d": "x"}`, keys: "a,b,d"},
		{name: "empty", in: `{}`},
		{name: "repeat kept", in: `{"a": 1, "a": 2}`, keys: "a,a"},
		{name: "repeat refused", in: `{"a": 1, "a": 2}`, seen: true, keys: "a",
			place: "object 1, byte 9 (line 1)", fail: `key "a" appears twice`},
		{name: "bad value", in: `{"a": tru}`, keys: "",
			place: `object 1, key "a", byte`, fail: "malformed JSON"},
		{name: "bad key", in: `{"a": 1, 2}`, keys: "a",
			place: "object 1, byte", fail: "malformed JSON"},
		{name: "cut off", in: `{"a": 1, `, keys: "a", fail: "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := open(t, tc.in)
			var seen map[string]bool
			if tc.seen {
				seen = map[string]bool{}
			}
			var keys []string
			end, err := c.Object(seen, func(m jsonread.Member) error {
				keys = append(keys, m.Key)
				return c.Skip(jsonread.KeyPlace(m.Key), m.Value)
			})
			if got := strings.Join(keys, ","); got != tc.keys {
				t.Errorf("keys %q, want %q", got, tc.keys)
			}
			if tc.fail == "" {
				if err != nil || end.Kind != pyjson.ObjectEnd {
					t.Fatalf("end %v err %v", end.Kind, err)
				}
				return
			}
			var ie *format.InputError
			if !errors.As(err, &ie) || ie.File != "f.json" || !strings.HasPrefix(ie.Place, tc.place) || !strings.Contains(ie.Reason, tc.fail) {
				t.Fatalf("err %#v, want place %q reason %q", err, tc.place, tc.fail)
			}
		})
	}
}

func TestCursorRawAndKeys(t *testing.T) {
	t.Parallel()
	c := open(t, `{"a": 1, "b": [1, 2], 7}`)
	c.Wrap = jsonread.Raw
	n := 0
	_, err := c.Keys(func(k pyjson.Token) error {
		n++
		v, err := c.Next("")
		if err != nil {
			return err
		}
		return c.Skip("", v)
	})
	var pe *pyjson.Error
	if n != 2 || !errors.As(err, &pe) {
		t.Fatalf("%d keys, err %T %v: want 2 keys and the decoder's own error", n, err, err)
	}
	placed := jsonread.Placed(err, func(err error) error { return jsonread.Syntax("f.json", "line 1, ", err) })
	var ie *format.InputError
	if !errors.As(placed, &ie) || !strings.HasPrefix(ie.Place, "line 1, byte") {
		t.Fatalf("placed %v", placed)
	}
	if other := errors.New("x"); jsonread.Placed(other, nil) != other {
		t.Fatal("Placed changed an error that is not the decoder's")
	}
}

func TestCursorKeep(t *testing.T) {
	t.Parallel()
	big := `"` + strings.Repeat("x", jsonread.ExtraLimit) + `"`
	c := open(t, `{"a": {"b" : [1, 2.50]}, "c": `+big+`}`)
	got := map[string]string{}
	if _, err := c.Object(nil, func(m jsonread.Member) error {
		var err error
		got[m.Key], err = c.Keep(jsonread.KeyPlace(m.Key), m.Value)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got["a"] != `{"b" : [1, 2.50]}` || got["c"] != jsonread.OversizeNote(int64(len(big))) {
		t.Fatalf("kept %q", got)
	}
}

func TestSniffObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, head string
		whole      bool   // SniffWhole
		want       string // key=kind of each member fn saw
	}{
		{name: "flat", head: `{"a": 1, "b": "x"}`, want: "a=number b=string"},
		{name: "nested skipped", head: `{"a": {"x": [1, {"y": 2}]}, "b": null}`, want: "a=object b=null"},
		{name: "cut value", head: `{"a": 1, "b": "unfini`, want: "a=number b=end of input"},
		{name: "cut value, whole only", whole: true, head: `{"a": 1, "b": "unfini`, want: "a=number"},
		{name: "open list, whole only", whole: true, head: `{"a": 1, "b": [1, 2`, want: "a=number b=array"},
		{name: "cut key", head: `{"a": 1, "b`, want: "a=number"},
		{name: "partly read", head: `{"m": {"unit": "ms", "avg": {"p": 1}}, "n": 2}`, want: "m=object n=number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := pyjson.NewDecoder(strings.NewReader(tc.head))
			if _, err := d.Next(); err != nil {
				t.Fatal(err)
			}
			var saw []string
			sniff := jsonread.SniffObject
			if tc.whole {
				sniff = jsonread.SniffWhole
			}
			sniff(d, func(key string, v pyjson.Token) bool {
				saw = append(saw, key+"="+v.Kind.String())
				if key == "m" {
					d.Next() // read into the value: the walk skips the rest
				}
				return true
			})
			if got := strings.Join(saw, " "); got != tc.want {
				t.Errorf("saw %q, want %q", got, tc.want)
			}
		})
	}
}
