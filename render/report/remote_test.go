package report

import (
	"strings"
	"testing"
)

// TestCheckRemoteLinkHosts: a link or autolink to a host the spec's
// link_hosts names is allowed (a link fetches nothing until clicked);
// every image, raw HTML URL, other scheme and other host is refused, naming
// the line.
func TestCheckRemoteLinkHosts(t *testing.T) {
	t.Parallel()
	hosts := []string{"docs.vllm.ai", "127.0.0.1"}
	for _, c := range []struct {
		md     string
		refuse string // "" allowed, else a word the error has
	}{
		{"See [the docs](https://docs.vllm.ai/en/latest/).", ""},
		{"See [the docs](https://DOCS.vllm.ai/x).", ""},
		{"Local: <http://127.0.0.1:8080/page>.", ""},
		{"Bare: https://docs.vllm.ai/page ends here.", ""},
		{"As text: `https://evil.example/x`.", ""},
		{"[mail](mailto:a@b.c) and [top](#top)", ""},
		{"See [x](https://evil.example/p).", "link_hosts"},
		{"Bare: https://evil.example/page here.", "link"},
		{"See [x](https://sub.docs.vllm.ai/p).", "link"},
		{"See [x](//docs.vllm.ai/p).", "link"},
		{"See [x](ftp://docs.vllm.ai/p).", "link"},
		{"See [x](https://user@docs.vllm.ai/p).", "link"},
		{"![chart](https://docs.vllm.ai/c.png)", "image"},
		{`<img src="https://docs.vllm.ai/c.png">`, "raw HTML"},
		{`<a href="https://docs.vllm.ai/">x</a>`, "raw HTML"},
	} {
		err := checkRemote("n.md", []byte("# T\n\n"+c.md+"\n"), hosts)
		switch {
		case c.refuse == "" && err != nil:
			t.Errorf("%q refused: %v", c.md, err)
		case c.refuse != "" && err == nil:
			t.Errorf("%q allowed, want it refused", c.md)
		case c.refuse != "" && (!strings.Contains(err.Error(), c.refuse) || !strings.Contains(err.Error(), "n.md:3:")):
			t.Errorf("%q: %v, want n.md:3 and %q", c.md, err, c.refuse)
		}
	}
	if err := checkRemote("n.md", []byte("[x](https://docs.vllm.ai/)\n"), nil); err == nil {
		t.Error("a link is allowed without link_hosts")
	}
}
