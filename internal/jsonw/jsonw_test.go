package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStringMatchesMarshal: every escaping case json.Marshal has, and
// random bytes, give the same bytes.
func TestStringMatchesMarshal(t *testing.T) {
	cases := []string{"", "plain", `q"uo\te`, "<script>alert(1)</script>", "a&b", "\x00\x01\x1f\x7f",
		"\b\f\n\r\t", "line\u2028sep\u2029", "中文 ✓ ünï", "bad \xff\xfe utf8", "\xe2\x80", "tail\xe2",
		"\U0001F600", "\ufffd"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, json.Marshal %s", s, got, want)
		}
	}
}

// stringCases are every escaping case, and random bytes.
func stringCases() []string {
	cases := []string{"", "plain", `q"uo\te`, "<script>alert(1)</script>", "a&b", "\x00\x01\x1f\x7f",
		"\b\f\n\r\t", "line\u2028sep\u2029", "中文 ✓ ünï", "bad \xff\xfe utf8", "\xe2\x80", "tail\xe2",
		"\U0001F600", "\ufffd"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		cases = append(cases, string(b))
	}
	return cases
}

// TestStringNoHTMLMatchesEncoder: NoHTML is encoding/json's Encoder with
// SetEscapeHTML(false).
func TestStringNoHTMLMatchesEncoder(t *testing.T) {
	for _, s := range stringCases() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendStringAs(nil, s, NoHTML); string(got) != string(want) {
			t.Errorf("%q: got %s, Encoder %s", s, got, want)
		}
	}
}

// TestStringMinimal: the trace's escaping, case by case, and always valid
// JSON that reads back as s with invalid bytes replaced.
func TestStringMinimal(t *testing.T) {
	for s, want := range map[string]string{
		"plain <&>":        `"plain <&>"`,
		"q\"b\\":           `"q\"b\\"`,
		"\n\r\t":           `"\n\r\t"`,
		"\b\f\x00\x1f\x7f": `"\u0008\u000c\u0000\u001f\u007f"`,
		"\u2028 中文":        "\"\u2028 中文\"",
		"bad \xff":         "\"bad \ufffd\"",
	} {
		if got := AppendStringAs(nil, s, Minimal); string(got) != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	for _, s := range stringCases() {
		got := AppendStringAs(nil, s, Minimal)
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != perByteValid(s) {
			t.Errorf("%q: %s reads back as %q, %v", s, got, back, err)
		}
	}
}

func TestFloatMatchesMarshal(t *testing.T) {
	cases := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 1e21, 9.99e20, 1e22, -1e-9, 123456.789,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 17961.25, 0.0123}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		cases = append(cases, math.Float64frombits(rng.Uint64()))
	}
	for _, f := range cases {
		want, werr := json.Marshal(f)
		got, err := AppendFloat(nil, f)
		if (werr != nil) != (err != nil) {
			t.Errorf("%v: error %v, json.Marshal's %v", f, err, werr)
			continue
		}
		if werr == nil && string(got) != string(want) {
			t.Errorf("%v: got %s, json.Marshal %s", f, got, want)
		}
	}
}

// perByteValid is s with each invalid byte replaced by U+FFFD.
func perByteValid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// TestStringsMatchesMarshal: a nil list, an empty one and lists of
// strings json.Marshal escapes give json.Marshal's bytes.
func TestStringsMatchesMarshal(t *testing.T) {
	for _, ss := range [][]string{nil, {}, {""}, {"a", `<b>&"c"`, "\u2028", "bad \xff"}} {
		want, _ := json.Marshal(ss)
		if got := AppendStrings([]byte("x"), ss); string(got) != "x"+string(want) {
			t.Errorf("%q: got %s, json.Marshal %s", ss, got, want)
		}
	}
}
