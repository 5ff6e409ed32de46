// Package jsonstr is the one reader of JSON strings: Scan checks a
// string's grammar (over a whole text, or over a buffer that more bytes
// follow), Unescape decodes its escapes, and Read does both for a whole
// text. The Python-JSON decoder (ingest/pyjson), the site's build record
// reader (render/site) and the archive's extra columns (store) read their
// strings with it.
package jsonstr

import "unicode/utf8"

// Unescape appends to dst the text of a JSON string's contents s (between
// its quotes) whose escapes are valid: \" \\ \/ \b \f \n \r \t and \u with
// four hex digits. A surrogate pair becomes its character and a lone
// surrogate U+FFFD, as encoding/json reads them.
func Unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+2:])
			i += 6
			if r >= 0xd800 && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2 := hex4(s[i+2:]); r2 >= 0xdc00 && r2 < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
					i += 6
				}
			}
			// A lone surrogate (Python writes one for a surrogate-escaped
			// byte) has no UTF-8 form; AppendRune writes U+FFFD for it.
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
