// Package csp puts a strict Content-Security-Policy into the HTML pages
// benchledger writes, so that nothing in a page — a narrative, a
// provenance value, a raw file's name — can load from the network or run
// a script the tool did not put there.
//
// A policy is a <meta http-equiv> element inserted right after the page's
// <meta charset>: default-src 'none', inline styles, and as scripts only
// the page's own inline scripts, each allowed by its SHA-256 (computed
// from the bytes written, so an injected script never matches), plus, for
// a site page, the site's own files ('self').
package csp

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
)

// marker starts the element Apply inserts; a page that has one is left
// alone (a report rendered into a site keeps its own policy).
const marker = `<meta http-equiv="Content-Security-Policy"`

// Kind says what a page may load besides itself.
type Kind int

const (
	// Standalone: one file that opens from disk with everything inline (a
	// report, an audit page).
	Standalone Kind = iota
	// Site: a page of the static site, which loads the site's stylesheet,
	// scripts and data from its own folder.
	Site
)

// inlineScripts returns the text of each <script> element without a src
// and without a type (or with a JavaScript type: exactly <script>,
// <script type="text/javascript"> or <script type="module">, with any
// white space before type), up to the first </script>; data blocks
// (type="application/json") are not scripts and need no hash. It scans
// with bytes.Index: a report page inlines a megabyte of ECharts, which a
// regular expression with a lazy capture crossed many times slower.
func inlineScripts(page []byte) [][]byte {
	var out [][]byte
	open, end := []byte("<script"), []byte("</script>")
	for i := 0; ; {
		j := bytes.Index(page[i:], open)
		if j < 0 {
			return out
		}
		at := i + j + len(open)
		if body, ok := scriptBody(page[at:]); ok {
			if k := bytes.Index(page[at+body:], end); k >= 0 {
				out = append(out, page[at+body:at+body+k])
				i = at + body + k + len(end)
				continue
			}
		}
		i = i + j + 1
	}
}

// scriptBody says where the text of a script element starts in rest (what
// follows "<script"), and whether the tag is one inlineScripts hashes.
func scriptBody(rest []byte) (int, bool) {
	if len(rest) > 0 && rest[0] == '>' {
		return 1, true
	}
	n := 0
	for n < len(rest) && isSpace(rest[n]) {
		n++
	}
	if n == 0 {
		return 0, false
	}
	for _, t := range []string{`type="text/javascript">`, `type="module">`} {
		if bytes.HasPrefix(rest[n:], []byte(t)) {
			return n + len(t), true
		}
	}
	return 0, false
}

// isSpace is \s of Go's regular expressions: [\t\n\f\r ].
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// Policy returns the policy for page, a complete HTML document.
func Policy(page []byte, kind Kind) string {
	script := ""
	if kind == Site {
		script = " 'self'"
	}
	seen := map[string]bool{}
	for _, text := range inlineScripts(page) {
		sum := sha256.Sum256(text)
		h := " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !seen[h] {
			seen[h] = true
			script += h
		}
	}
	if script == "" {
		script = " 'none'"
	}
	p := "default-src 'none'; script-src" + script + "; style-src 'unsafe-inline'"
	if kind == Site {
		p += " 'self'; img-src 'self' data:"
	} else {
		p += "; img-src data:"
	}
	return p + "; base-uri 'none'; form-action 'none'"
}

var charset = []byte(`<meta charset="utf-8">`)

// Apply returns page with its policy inserted after <meta charset>. A page
// with no such element, or already carrying a policy, is returned as it is.
func Apply(page []byte, kind Kind) []byte {
	i, el := insertion(page, kind)
	if el == "" {
		return page
	}
	out := make([]byte, 0, len(page)+len(el))
	out = append(out, page[:i]...)
	out = append(out, el...)
	return append(out, page[i:]...)
}

// ApplyBuffer inserts the policy into the page buf holds, as Apply would,
// in place: a site build makes ten thousand pages, and a copy of each was
// a tenth of what the build allocated.
func ApplyBuffer(buf *bytes.Buffer, kind Kind) {
	i, el := insertion(buf.Bytes(), kind)
	if el == "" {
		return
	}
	n := buf.Len()
	buf.WriteString(el) // room at the end, moved to i below
	page := buf.Bytes()
	copy(page[i+len(el):], page[i:n])
	copy(page[i:], el)
}

// insertion is where page gets its policy and the element to insert
// there; el is empty when the page has no <meta charset> or already
// carries a policy.
func insertion(page []byte, kind Kind) (i int, el string) {
	if bytes.Contains(page, []byte(marker)) {
		return 0, ""
	}
	i = bytes.Index(page, charset)
	if i < 0 {
		return 0, ""
	}
	return i + len(charset), element(page, kind)
}

func element(page []byte, kind Kind) string {
	return "\n" + marker + ` content="` + Policy(page, kind) + `">`
}

// NoInlineScripts is the element Apply puts after <meta charset> in a page
// of kind with no inline script, with its leading newline: a page written
// by code that writes no inline script, and escapes every value it
// writes, can carry it from the start (Apply then leaves the page alone).
func NoInlineScripts(kind Kind) string { return element(nil, kind) }

// Has says whether page carries a policy (tests).
func Has(page []byte) bool { return bytes.Contains(page, []byte(marker)) }
