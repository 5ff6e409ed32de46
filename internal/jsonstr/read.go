package jsonstr

import "unicode/utf8"

// Read reads the JSON string whose opening quote is s[i] as json.Unmarshal
// does, returning its text and the place after its closing quote. ok is
// false where json.Unmarshal would refuse the string or read it otherwise
// than its bytes say: no string there, an unterminated one, a control
// character, a bad escape, or invalid UTF-8 (which it reads as U+FFFD; a
// caller that meets it leaves the text to json.Unmarshal).
func Read[T string | []byte](s T, i int) (text string, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", i, false
	}
	start, plain := i+1, true
	for j := start; j < len(s); {
		c := s[j]
		switch {
		case c == '"':
			if plain {
				return string(s[start:j]), j + 1, true
			}
			return string(Unescape(make([]byte, 0, j-start), []byte(s[start:j]))), j + 1, true
		case c == '\\':
			n := escapeLen(s[j:])
			if n == 0 {
				return "", j, false
			}
			plain = false
			j += n
		case c < 0x20:
			return "", j, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(string(s[j:min(j+utf8.UTFMax, len(s))]))
			if r == utf8.RuneError && n == 1 {
				return "", j, false
			}
			j += n
		default:
			j++
		}
	}
	return "", len(s), false
}

// escapeLen is the length of the valid escape s starts with (its
// backslash first), 0 when it is not one.
func escapeLen[T string | []byte](s T) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) < 6 {
			return 0
		}
		for k := 2; k < 6; k++ {
			if h := s[k]; !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// StringObject reads s, a JSON object of string values with no space
// between its tokens (json.Marshal's form of a map[string]string), as
// json.Unmarshal reads it into a map[string]string: a key given twice
// keeps its last value, and {} gives an empty map. ok is false for any
// other text, which is then json.Unmarshal's to read and to judge.
func StringObject(s string) (m map[string]string, ok bool) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	m = map[string]string{}
	if len(s) == 2 {
		return m, true
	}
	for i := 1; ; {
		k, j, ok := Read(s, i)
		if !ok || j >= len(s) || s[j] != ':' {
			return nil, false
		}
		v, j, ok := Read(s, j+1)
		if !ok || j >= len(s) {
			return nil, false
		}
		m[k] = v
		switch {
		case s[j] == ',':
			i = j + 1
		case j == len(s)-1: // the closing brace
			return m, true
		default:
			return nil, false
		}
	}
}
