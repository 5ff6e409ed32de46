package jsonstr

import (
	"encoding/json"
	"maps"
	"testing"
)

// readCases are texts Read and StringObject must read as encoding/json
// does, or leave to it.
var readCases = []string{
	`""`, `"plain"`, `"\"\\\/\b\f\n\r\t"`, `"caf\u00e9"`, `"\ud83d\ude00"`, `"lone \ud800"`, `"ünï"`,
	`"unterminated`, `"bad \x escape"`, `"short \u12"`, `"ctl ` + "\x01" + `"`, `"bad utf8 ` + "\xff" + `"`, `x"`, ``,
	`{}`, `{"a":"b"}`, `{"a":"b","c":"\"d\""}`, `{"a":"1","a":"2"}`, `{"a":"\u003ckept\u003e"}`, `{"a":null}`,
	`{"a":1}`, `{ "a":"b"}`, `{"a":"b",}`, `{"a":"b"}}`, `{"a""b"}`, `{"a":"b"} `, `{"a":"b"`, `{"a`, `{`, `}`,
	`null`, `[]`, `{"` + "\xff" + `":"b"}`, `{"a":"b","c"}`,
}

// Read's text is encoding/json's reading of the string up to where Read
// stopped; where it refuses, encoding/json is left to judge.
func FuzzRead(f *testing.F) {
	for _, s := range readCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, next, ok := Read(s, 0)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(s[:next]), &want); err != nil {
			t.Fatalf("Read(%q) = %q, but encoding/json refuses %q: %v", s, text, s[:next], err)
		}
		if text != want {
			t.Fatalf("Read(%q) = %q, encoding/json reads %q", s, text, want)
		}
		if b, _, _ := Read([]byte(s), 0); b != text {
			t.Fatalf("Read of bytes %q = %q, of the string %q", s, b, text)
		}
	})
}

// StringObject reads what it accepts as json.Unmarshal reads it into a
// map[string]string, and accepts every map json.Marshal writes.
func FuzzStringObject(f *testing.F) {
	for _, s := range readCases {
		f.Add(s, "k", "v")
	}
	f.Add("", "endpoint_type", `"openai"`)
	f.Add("", "<&>", "\u2028\xff\x00")
	f.Fuzz(func(t *testing.T, s, k, v string) {
		if m, ok := StringObject(s); ok {
			var want map[string]string
			if err := json.Unmarshal([]byte(s), &want); err != nil {
				t.Fatalf("StringObject(%q) = %v, but encoding/json refuses it: %v", s, m, err)
			}
			if m == nil || !maps.Equal(m, want) {
				t.Fatalf("StringObject(%q) = %v, encoding/json reads %v", s, m, want)
			}
		}
		written, err := json.Marshal(map[string]string{k: v, "other": v + k})
		if err != nil {
			t.Fatal(err)
		}
		m, ok := StringObject(string(written))
		var want map[string]string
		if err := json.Unmarshal(written, &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !maps.Equal(m, want) {
			t.Fatalf("StringObject(%s) = %v, %v; encoding/json reads %v", written, m, ok, want)
		}
	})
}

// The texts StringObject leaves to encoding/json.
func TestStringObjectRefuses(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`{"a":null}`, `{"a":1}`, `{ "a":"b"}`, `{"a":"b",}`, `{"a":"b"}}`, `{"a":"b"} `, `null`, `{"` + "\xff" + `":"b"}`, `{"a":"b","c"}`} {
		if m, ok := StringObject(s); ok {
			t.Errorf("StringObject(%q) = %v, want it left to encoding/json", s, m)
		}
	}
	for _, s := range []string{`{}`, `{"a":"b"}`, `{"a":"1","a":"2"}`, `{"a":"\u003c\"x\"\ud83d\ude00"}`} {
		if _, ok := StringObject(s); !ok {
			t.Errorf("StringObject(%q) refused", s)
		}
	}
}
