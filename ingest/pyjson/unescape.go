package pyjson

// Unescape appends to dst the text of a JSON string's contents s (between
// its quotes) whose escapes are valid: \" \\ \/ \b \f \n \r \t and \u with
// four hex digits. A surrogate pair becomes its character and a lone
// surrogate U+FFFD, as encoding/json reads them.
func Unescape(dst, s []byte) []byte { return unescape(dst, s) }
