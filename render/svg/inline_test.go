package svg

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestInlineCharts: every sample chart, hostile labels included, passes
// the check for inline use, and its ids and classes are renamed so two
// charts in one page share none (a chart's <style> would otherwise style
// the others' marks); the drawing is otherwise the same bytes.
func TestInlineCharts(t *testing.T) {
	r := renderer(t)
	l := chinese
	l.Title, l.Baseline = "zr-1 "+hostile, hostile
	seen := map[string]int{}
	tokens := regexp.MustCompile(`zr[0-9a-z]*-\d+`)
	for i, c := range sampleCharts(t, l) {
		doc, err := r.Render(c.Option, 800, 450)
		if err != nil {
			t.Fatal(err)
		}
		prefix := string(rune('0' + i))
		in, err := Inline(doc, prefix)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if !bytes.Contains(doc, []byte(`class="zr-0"`)) || !bytes.Contains(in, []byte(`class="zr`+prefix+`-0"`)) || bytes.Contains(in, []byte(`class="zr-`)) {
			t.Errorf("%s: classes not renamed per chart", c.ID)
		}
		if bytes.Contains(doc, []byte("<style")) && !bytes.Contains(in, []byte(".zr"+prefix+"-")) {
			t.Errorf("%s: the chart's <style> does not follow its renamed classes", c.ID)
		}
		for _, tok := range tokens.FindAll(in, -1) {
			if s := string(tok); !strings.HasPrefix(s, "zr"+prefix+"-") && s != "zr-1" {
				t.Errorf("%s: token %s left as it was", c.ID, s)
			}
		}
		for _, tok := range tokens.FindAll(in, -1) {
			seen[string(tok)] |= 1 << i
		}
		// Only ids change: the same text, the same drawing.
		if got, want := texts(t, in), texts(t, doc); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: texts changed: %q, want %q", c.ID, got, want)
		}
		if !strings.Contains(strings.Join(texts(t, in), "\n"), "zr-1 "+hostile) {
			t.Errorf("%s: a label that looks like an id was renamed", c.ID)
		}
		if len(in) != len(doc)+len(prefix)*countRenamed(doc) {
			t.Errorf("%s: inline is %d bytes, want %d (the ids one prefix longer)", c.ID, len(in), len(doc)+len(prefix)*countRenamed(doc))
		}
	}
	for tok, charts := range seen {
		if tok != "zr-1" && charts&(charts-1) != 0 {
			t.Errorf("%s is used by more than one chart", tok)
		}
	}
}

// countRenamed counts the ids and classes Inline renames in doc.
func countRenamed(doc []byte) int {
	n := len(inlineID.FindAll(doc, -1))
	for _, s := range inlineStyle.FindAll(doc, -1) {
		n += len(inlineClass.FindAll(s, -1))
	}
	return n
}

// TestInlineRefuses: anything but drawing makes Inline fail, so a page
// never carries it even if ECharts wrote it (zrender does not escape
// attribute values).
func TestInlineRefuses(t *testing.T) {
	const ok = `<svg width="10" height="10" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><style ><![CDATA[
.zr-0:hover {
cursor:pointer;
}
]]></style><defs><clipPath id="zr-1"><path d="M0 0L1 1"></path></clipPath></defs><g clip-path="url(#zr-1)"><path d="M0 0" fill="#fff" class="zr-0"></path><text xml:space="preserve" style="font-size:12px;font-family:sans-serif;">a &lt;b&gt;</text></g></svg>`
	got, err := Inline([]byte(ok), "x1")
	if err != nil {
		t.Fatalf("a plain chart: %v", err)
	}
	for _, want := range []string{`.zrx1-0:hover`, `id="zrx1-1"`, `url(#zrx1-1)`, `class="zrx1-0"`} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("renamed chart lacks %s:\n%s", want, got)
		}
	}
	for _, bad := range []struct{ name, doc string }{
		{"script", strings.Replace(ok, "<defs>", `<script>alert(1)</script><defs>`, 1)},
		{"foreignObject", strings.Replace(ok, "<defs>", `<foreignObject><p>x</p></foreignObject><defs>`, 1)},
		{"handler", strings.Replace(ok, `fill="#fff"`, `fill="#fff" onmouseover="alert(1)"`, 1)},
		{"handler in an attribute value", strings.Replace(ok, `fill="#fff"`, `fill="#fff" onload="x"`, 1)},
		{"link", strings.Replace(ok, `<path d="M0 0" `, `<image href="https://example.org/x.png"></image><path d="M0 0" `, 1)},
		{"javascript", strings.Replace(ok, `fill="#fff"`, `fill="javascript:alert(1)"`, 1)},
		{"remote url", strings.Replace(ok, `fill="#fff"`, `fill="url(https://example.org/#x)"`, 1)},
		{"style import", strings.Replace(ok, `cursor:pointer;`, `@import "https://example.org/x.css";`, 1)},
		{"style url", strings.Replace(ok, `cursor:pointer;`, `background:url(https://example.org/x.png);`, 1)},
		{"broken", strings.Replace(ok, `fill="#fff"`, `fill="#fff`, 1)},
		{"two documents", ok + ok},
		{"not svg", `<html></html>`},
		{"directive", `<!DOCTYPE svg>` + ok},
	} {
		if _, err := Inline([]byte(bad.doc), "x"); err == nil {
			t.Errorf("%s: accepted", bad.name)
		}
	}
	for _, p := range []string{"", `x"`, "a b", "é"} {
		if _, err := Inline([]byte(ok), p); err == nil {
			t.Errorf("prefix %q accepted", p)
		}
	}
}
