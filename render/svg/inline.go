package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// The HTML report places each chart's SVG, drawn here by ECharts' SSR, in
// the page itself instead of inlining ECharts (1 MB) to draw it in the
// browser. Two things change for SVG inside an HTML document:
//
//   - ids and CSS classes are document-wide: zrender names them zr-0,
//     zr-1, ... in every chart, and a <style> of one chart would style
//     the others, a clip path would clip the wrong chart. Inline renames
//     them per chart.
//   - zrender writes attribute values without escaping them. The options
//     are the tool's own (colours, fonts, numbers) and every text is a text
//     node, which it escapes; still, a page must not depend on that, so
//     Inline parses the document and accepts only the elements and
//     attributes ECharts draws with, and no scripting at all.

// inlineElements are the SVG elements zrender's SVG renderer writes.
var inlineElements = map[string]bool{
	"svg": true, "g": true, "defs": true, "style": true, "title": true,
	"path": true, "rect": true, "circle": true, "ellipse": true, "line": true,
	"polyline": true, "polygon": true, "text": true, "tspan": true, "image": true,
	"clipPath": true, "linearGradient": true, "radialGradient": true, "stop": true, "pattern": true,
}

// inlineID matches, where zrender puts them, the ids Normalize wrote: in
// class and id attributes and url(#...) references. Text nodes are not
// matched: a label "zr-1" stays as written.
var (
	inlineID    = regexp.MustCompile(`(class="|id="|url\(#)zr-(\d+)\b`)
	inlineClass = regexp.MustCompile(`\.zr-(\d+)\b`)
	inlineStyle = regexp.MustCompile(`(?s)<style[^>]*>.*?</style>`)
)

// Inline returns doc, an SVG document from Render (normalized), ready to
// be placed in an HTML page among other charts: its ids and classes
// renamed to zr<prefix>-N (prefix: letters, digits, '-' or '_', unique in
// the page), and an error when it holds anything besides drawing: an
// element or attribute outside what ECharts draws with, an event handler,
// a link, a style that loads something.
func Inline(doc []byte, prefix string) ([]byte, error) {
	if prefix == "" || strings.Trim(prefix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return nil, fmt.Errorf("svg inline: prefix %q: want letters, digits, '-' or '_'", prefix)
	}
	if err := checkInline(doc); err != nil {
		return nil, fmt.Errorf("svg inline: %w", err)
	}
	to := "zr" + prefix + "-"
	out := inlineID.ReplaceAll(doc, []byte("${1}"+to+"${2}"))
	out = inlineStyle.ReplaceAllFunc(out, func(s []byte) []byte {
		return inlineClass.ReplaceAll(s, []byte("."+to+"${1}"))
	})
	return out, nil
}

// checkInline walks doc as XML and refuses what a chart has no use for.
func checkInline(doc []byte) error {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	depth, roots := 0, 0
	inStyle := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if !inlineElements[name] || (t.Name.Space != "" && t.Name.Space != "http://www.w3.org/2000/svg") {
				return fmt.Errorf("element <%s> is not one a chart draws with", name)
			}
			if depth == 0 {
				if roots++; name != "svg" || roots > 1 {
					return errors.New("not one <svg> document")
				}
			}
			for _, a := range t.Attr {
				if err := checkAttr(a); err != nil {
					return fmt.Errorf("<%s>: %w", name, err)
				}
			}
			inStyle = name == "style"
			depth++
		case xml.EndElement:
			inStyle = false
			depth--
		case xml.CharData:
			if inStyle {
				s := strings.ToLower(string(t))
				if strings.Contains(s, "@import") || strings.Contains(strings.ReplaceAll(s, "url(#", ""), "url(") || strings.Contains(s, "<") {
					return errors.New("a <style> that loads or closes something")
				}
			}
		case xml.ProcInst, xml.Directive:
			return errors.New("a processing instruction or directive")
		}
	}
	if roots != 1 {
		return errors.New("not one <svg> document")
	}
	return nil
}

func checkAttr(a xml.Attr) error {
	name := strings.ToLower(a.Name.Local)
	v := strings.ToLower(strings.TrimSpace(a.Value))
	switch {
	case strings.HasPrefix(name, "on"):
		return fmt.Errorf("event handler %s", a.Name.Local)
	case name == "href":
		if !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "data:image/png;") && !strings.HasPrefix(v, "data:image/jpeg;") {
			return fmt.Errorf("link %q", a.Value)
		}
	case strings.Contains(v, "javascript:") || strings.Contains(v, "<") ||
		strings.Contains(strings.ReplaceAll(v, "url(#", ""), "url("):
		return fmt.Errorf("attribute %s=%q", a.Name.Local, a.Value)
	}
	return nil
}
