package site

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestAppendQuoteJoinedMatchesQuote: the parts quoted one by one are the
// quoted joined text, for texts of any bytes (invalid UTF-8 at a part's
// ends, runes of every width, quotes, backslashes, control characters).
func TestAppendQuoteJoinedMatchesQuote(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "\x00", "\"", "\\", "\n", "\x7f", "é", "日", "😀", "\xe6", "\x97", "\xf0\x9f", "\u2028", "\ufffd", " "}
	b := []byte("prefix ")
	for range 20000 {
		parts := make([]string, rng.IntN(8))
		for i := range parts {
			var sb strings.Builder
			for range rng.IntN(6) {
				sb.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			parts[i] = sb.String()
		}
		got := appendQuoteJoined(b[:7], "\x00", parts...)
		if want := "prefix " + strconv.Quote(strings.Join(parts, "\x00")); string(got) != want {
			t.Fatalf("%q:\ngot  %s\nwant %s", parts, got, want)
		}
		b = got
	}
}
