package jsonstr

import (
	"encoding/json"
	"testing"
)

// Unescape reads a string's contents as encoding/json does, for every
// escape JSON allows, surrogates paired and lone.
func TestUnescapeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		``, `plain`, `\"\\\/\b\f\n\r\t`, `caf\u00e9 \u00E9`, `\u4e2d\u6587`, `\ud83d\ude00 emoji`,
		`lone \ud800 high`, `lone \udc00 low`, `\ud800\u0041 high then A`, `\ud83d`, `tail \\`, `ünïcödé as is`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := string(Unescape(nil, []byte(s))); got != want {
			t.Errorf("Unescape(%q) = %q, encoding/json reads %q", s, got, want)
		}
	}
}
