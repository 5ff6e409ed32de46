package csp

import (
	"crypto/sha256"
	"encoding/base64"
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
