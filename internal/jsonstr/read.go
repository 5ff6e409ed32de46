package jsonstr

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
	j, st, escaped, _ := Scan(s, i+1, true)
	if st != Done {
		return "", j, false
	}
	if !escaped {
		return string(s[i+1 : j-1]), j, true
	}
	return string(Unescape(make([]byte, 0, j-i-2), []byte(s[i+1:j-1]))), j, true
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
