package jsonstr

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Status says where Scan stopped.
type Status uint8

const (
	// Done: the closing quote was found.
	Done Status = iota
	// More: the bytes ended inside the string, before the input's end;
	// scan again from the place returned once more bytes follow.
	More
	// Bad: the string is not one JSON allows (unterminated, a control
	// character, a bad escape, invalid UTF-8).
	Bad
)

// plain marks bytes that may appear unescaped in a string and need no
// further check: printable ASCII except '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool { return c-'0' < 10 || (c|0x20)-'a' < 6 }

// Scan is the one check of a JSON string's grammar: json.Unmarshal's,
// except that invalid UTF-8, which it reads as U+FFFD, is Bad. It scans
// the contents of the string whose opening quote is just before s[i]. eof
// says s ends where the input does. It returns, with Done, the place just
// past the closing quote; with More, the start of an escape or UTF-8
// sequence that s cuts (or len(s)), from which to scan again; with Bad, the
// offending place and msg, what is wrong there. escaped reports a
// backslash escape among the bytes it passed (Unescape is then needed).
func Scan[T string | []byte](s T, i int, eof bool) (j int, st Status, escaped bool, msg string) {
	n := len(s)
	for {
		for i < n && plain[s[i]] {
			i++
		}
		if i == n {
			if eof {
				return i, Bad, escaped, "unexpected end of input inside string"
			}
			return i, More, escaped, ""
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, Done, escaped, ""
		case c == '\\':
			escaped = true
			if i+1 >= n {
				if eof {
					return i, Bad, escaped, "unexpected end of input inside string escape"
				}
				return i, More, escaped, ""
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= n {
						if eof {
							return i, Bad, escaped, "unexpected end of input inside \\u escape"
						}
						return i, More, escaped, ""
					}
					if !isHex(s[k]) {
						return k, Bad, escaped, "invalid \\u escape: expected a hex digit, found " + DescribeByte(s[k])
					}
				}
				i += 6
			default:
				return i, Bad, escaped, "invalid escape \\" + string(rune(s[i+1]))
			}
		case c < 0x20:
			return i, Bad, escaped, fmt.Sprintf("control character 0x%02x in string", c)
		default:
			// At most four bytes: their string is made on the stack.
			r := string(s[i:min(i+utf8.UTFMax, n)])
			if !utf8.FullRuneInString(r) {
				if eof {
					return i, Bad, escaped, "invalid UTF-8 in string"
				}
				return i, More, escaped, ""
			}
			c, size := utf8.DecodeRuneInString(r)
			if c == utf8.RuneError && size == 1 {
				return i, Bad, escaped, "invalid UTF-8 in string"
			}
			i += size
		}
	}
}

// DescribeByte names a byte for an error message: itself quoted when it is
// printable ASCII, else its value.
func DescribeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
