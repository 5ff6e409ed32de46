package jsonstr

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// scanCases are string contents (after the opening quote) for Scan.
var scanCases = []string{
	`"`, `plain"`, `\"\\\/\b\f\n\r\t"`, `caf\u00e9"`, `\ud83d\ude00"`, `ünï"`, `日本語"`, `tail"rest`,
	`unterminated`, `bad \x escape"`, `short \u12"`, `hex \u12g4"`, "ctl \x01\"", "bad utf8 \xff\"", "cut utf8 \xe6\x97",
	`ends in \`, `ends in \u00`,
}

// Scan judges a string as encoding/json does (invalid UTF-8 aside, which
// it refuses), and cut anywhere before the input's end it asks for more
// and then ends where the whole scan ends.
func FuzzScan(f *testing.F) {
	for _, s := range scanCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		j, st, escaped, msg := Scan(s, 0, true)
		switch st {
		case Done:
			var text string
			if err := json.Unmarshal([]byte(`"`+s[:j]), &text); err != nil || !utf8.ValidString(s[:j]) {
				t.Fatalf("Scan(%q) done at %d, but encoding/json refuses %q (%v) or it is not UTF-8", s, j, s[:j], err)
			}
			if escaped != strings.Contains(s[:j], `\`) {
				t.Fatalf("Scan(%q): escaped %v", s, escaped)
			}
		case Bad:
			if msg == "" {
				t.Fatalf("Scan(%q) bad at %d without a message", s, j)
			}
			// No string encoding/json reads ends in s, but one holding
			// invalid UTF-8 (which it reads as U+FFFD).
			for k := 1; k <= len(s) && k <= 64; k++ {
				var text string
				if json.Unmarshal([]byte(`"`+s[:k]), &text) == nil && (utf8.ValidString(s[:k]) || msg != "invalid UTF-8 in string") {
					t.Fatalf("Scan(%q) bad at %d (%s), encoding/json reads %q from %q", s, j, msg, text, s[:k])
				}
			}
		case More:
			t.Fatalf("Scan(%q) at the input's end asks for more", s)
		}
		for cut := 0; cut < len(s); cut++ {
			i, esc := 0, false
			cj, cst, e, _ := Scan(s[:cut], i, false)
			esc = esc || e
			if cst == More {
				if cj > cut {
					t.Fatalf("Scan(%q) cut at %d resumes at %d", s, cut, cj)
				}
				cj, cst, e, _ = Scan(s, cj, true)
				esc = esc || e
			}
			if cj != j || cst != st || (st == Done && esc != escaped) {
				t.Fatalf("Scan(%q) cut at %d: %d %v, whole: %d %v", s, cut, cj, cst, j, st)
			}
		}
	})
}

// Read and Scan on bytes and on a string agree.
func TestScanBytesAndString(t *testing.T) {
	t.Parallel()
	for _, s := range scanCases {
		j1, st1, e1, m1 := Scan(s, 0, true)
		j2, st2, e2, m2 := Scan([]byte(s), 0, true)
		if j1 != j2 || st1 != st2 || e1 != e2 || m1 != m2 {
			t.Errorf("Scan(%q): string %d %v %v %q, bytes %d %v %v %q", s, j1, st1, e1, m1, j2, st2, e2, m2)
		}
	}
}
