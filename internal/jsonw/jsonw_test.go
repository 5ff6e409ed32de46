package jsonw

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
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
