// Package escape is the one HTML and URL escaper of the pages benchledger
// writes by hand (the site's rows and fixed texts): the bytes html/template
// writes for the same value, so a part written in Go and a part written by
// a template agree, and a test can compare them with the template's.
package escape

import (
	"io"
	"strings"
	"unicode/utf8"
)

// htmlPairs is html/template's escaping of text in element content and
// in quoted attribute values (its htmlEscaper): NUL becomes U+FFFD, and
// + is escaped as well as & < > " '. Each old text is one byte.
var htmlPairs = []string{"\x00", "\uFFFD", `&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", `'`, "&#39;", `+`, "&#43;"}

// htmlReplacer writes htmlPairs' replacements.
var htmlReplacer = strings.NewReplacer(htmlPairs...)

// htmlEscaped marks the bytes htmlPairs replaces.
var htmlEscaped = func() (t [256]bool) {
	for i := 0; i < len(htmlPairs); i += 2 {
		t[htmlPairs[i][0]] = true
	}
	return t
}()

// plainPrefix is the length of s's first run of bytes that HTML writes as
// they are (len(s) for most texts of a page).
func plainPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if htmlEscaped[s[i]] {
			return i
		}
	}
	return len(s)
}

// HTML escapes s for element content and double- or single-quoted
// attribute values.
func HTML(s string) string { return htmlReplacer.Replace(s) }

// WriteHTML writes s, escaped as HTML does, to sb without making a string.
func WriteHTML(sb *strings.Builder, s string) { htmlReplacer.WriteString(sb, s) }

// URLComponent escapes s as one component of a URL's query or fragment
// (the runs page's #campaign=<name>): every byte but the unreserved ASCII
// letters, digits and -._~ becomes %xx in lowercase hex, as html/template
// writes a value in that place (a template's #campaign={{.}} gives the
// same bytes). Nothing is left that could end the attribute, start
// another key (& =) or the fragment (#), and the browser's
// decodeURIComponent gives back s. Invalid UTF-8, which html/template
// escapes byte by byte and on which decodeURIComponent throws (and the
// runs page's filters with it), becomes U+FFFD first.
func URLComponent(s string) string {
	const hex = "0123456789abcdef"
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&0xf])
	}
	return sb.String()
}

// Writer is a page's buffer (a bytes.Buffer or strings.Builder).
type Writer interface {
	io.Writer
	io.StringWriter
}

// WriteHTMLTo writes s, escaped as HTML does, to w (a page's buffer,
// which cannot fail). The bytes before the first one to escape are
// written in one call (all of s, for most texts); the replacer writes
// the rest.
func WriteHTMLTo(w Writer, s string) {
	i := plainPrefix(s)
	if i > 0 {
		_, _ = w.WriteString(s[:i])
	}
	if i < len(s) {
		_, _ = htmlReplacer.WriteString(w, s[i:])
	}
}
