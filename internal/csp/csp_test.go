package csp

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	t.Parallel()
	page := "<!DOCTYPE html><html><head>\n<meta charset=\"utf-8\">\n<title>x</title></head><body>" +
		`<script type="application/json" id="d">{"a":1}</script><script>run()</script><script src="x.js"></script></body></html>`
	sum := sha256.Sum256([]byte("run()"))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	for _, c := range []struct {
		kind Kind
		want string
	}{
		{Standalone, "default-src 'none'; script-src " + hash + "; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"},
		{Site, "default-src 'none'; script-src 'self' " + hash + "; style-src 'unsafe-inline' 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"},
	} {
		out := string(Apply([]byte(page), c.kind))
		want := `<meta charset="utf-8">` + "\n" + `<meta http-equiv="Content-Security-Policy" content="` + c.want + `">`
		if !strings.Contains(out, want) {
			t.Errorf("kind %d: got\n%s\nwant it to contain\n%s", c.kind, out, want)
		}
		if again := string(Apply([]byte(out), c.kind)); again != out {
			t.Errorf("kind %d: a second Apply changed the page", c.kind)
		}
	}
	if got := Policy([]byte("<html></html>"), Standalone); !strings.Contains(got, "script-src 'none'") {
		t.Errorf("a page without scripts: %s", got)
	}
}

// ApplyBuffer makes the bytes Apply makes, in the buffer it is given:
// for a page with scripts, one already carrying a policy, one without
// <meta charset>, and with the buffer's spare room small or large.
func TestApplyBuffer(t *testing.T) {
	t.Parallel()
	page := "<!DOCTYPE html><html><head>\n<meta charset=\"utf-8\">\n<title>x</title></head><body><script>run()</script><p>" +
		strings.Repeat("é<b>", 300) + "</p></body></html>"
	pages := []string{page, string(Apply([]byte(page), Site)), "<html><body>no charset</body></html>", ""}
	for i, p := range pages {
		for _, kind := range []Kind{Standalone, Site} {
			for _, spare := range []int{0, 3, 4096} {
				var buf bytes.Buffer
				buf.Grow(len(p) + spare)
				buf.WriteString(p)
				ApplyBuffer(&buf, kind)
				if want := string(Apply([]byte(p), kind)); buf.String() != want {
					t.Errorf("page %d, kind %d, spare %d: got\n%s\nwant\n%s", i, kind, spare, buf.String(), want)
				}
			}
		}
	}
}

// inlineScriptRE is the regular expression inlineScripts stands for.
var inlineScriptRE = regexp.MustCompile(`(?s)<script(?:\s+type="(?:text/javascript|module)")?>(.*?)</script>`)

// inlineScripts finds what the regular expression finds, on pages made of
// the pieces a page and its tricks have.
func TestInlineScriptsAsRegexp(t *testing.T) {
	t.Parallel()
	pieces := []string{"<script>", "<script", "</script>", "</script", ">", " ", "\n", "\t", "\f", "\r", "\v", `type="text/javascript">`,
		`type="module">`, `type="application/json">`, `type="module"`, ` src="x.js">`, "run()", "{\"a\":\"</scr\"}", "<", "script", "x"}
	pages := []string{
		"", "<script>a</script>", "<script >a</script>", "<script\ttype=\"module\">m</script>", "<script type=\"text/javascript\">j</script>",
		"<script type=\"application/json\">{\"<script>\":1}</script><script>x</script>", "<script>unclosed", "<script><script>a</script></script>",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		pages = append(pages, b.String())
	}
	for _, p := range pages {
		var want [][]byte
		for _, m := range inlineScriptRE.FindAllSubmatch([]byte(p), -1) {
			want = append(want, m[1])
		}
		got := inlineScripts([]byte(p))
		if len(got) != len(want) {
			t.Fatalf("%q: %q, the expression finds %q", p, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: %q, the expression finds %q", p, got, want)
			}
		}
	}
}
