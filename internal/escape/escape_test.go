package escape

import (
	"bytes"
	htmltemplate "html/template"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// hostile are campaign names and texts chosen to break out of an attribute,
// a URL or the runs page's #key=value&key=value filter.
var hostile = []string{
	"",
	"qwen3-batch",
	`"><script>alert('x')</script>`,
	"a&b=c",
	"x#y",
	"100%",
	"%41",
	"a+b c",
	"/?#&=",
	"javascript:alert(1)",
	"tab\there\nnew\rline",
	"\x00nul",
	"中文 キャンペーン",
	"emoji 🚀",
	"~tilde_dot.dash-",
	"'single' \"double\" `back`",
	"\u2028\u2029",
	"&amp;",
}

// TestURLComponentLikeTheTemplate: the one escaper writes what
// html/template writes for a value after #campaign= in an href.
func TestURLComponentLikeTheTemplate(t *testing.T) {
	t.Parallel()
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`<a href="runs.html#campaign={{.}}">`))
	for _, name := range hostile {
		var want bytes.Buffer
		if err := tpl.Execute(&want, name); err != nil {
			t.Fatal(err)
		}
		if got := `<a href="runs.html#campaign=` + URLComponent(name) + `">`; got != want.String() {
			t.Errorf("%q:\ngot  %s\nwant %s", name, got, want.String())
		}
	}
}

// TestURLComponentRoundTrips: in the browser (decodeURIComponent, in a
// JavaScript engine), the runs page's reading of its hash (site.js: split
// on &, then at the first =) gives back every name whole, and nothing in
// the escaped form can end the attribute or start another key.
func TestURLComponentRoundTrips(t *testing.T) {
	t.Parallel()
	vm := goja.New()
	readHash, err := vm.RunString(`(function (h) {
		var out = {}, n = 0;
		h.replace(/^#/, '').split('&').forEach(function (kv) {
			var i = kv.indexOf('=');
			if (i < 0) { return; }
			out[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
			n++;
		});
		return [n, out.campaign];
	})`)
	if err != nil {
		t.Fatal(err)
	}
	fn, ok := goja.AssertFunction(readHash)
	if !ok {
		t.Fatal("not a function")
	}
	names := append(hostile, "bad \xff\xfe utf-8", "\xc3")
	for _, name := range names {
		e := URLComponent(name)
		if i := strings.IndexFunc(e, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~%", r))
		}); i >= 0 {
			t.Errorf("%q: escaped form %q holds %q", name, e, e[i])
		}
		res, err := fn(goja.Undefined(), vm.ToValue("#campaign="+e+"&gpu=H100"))
		if err != nil {
			t.Errorf("%q: the page cannot read its hash: %v", name, err)
			continue
		}
		got := res.Export().([]any)
		want := name
		if !utf8.ValidString(want) {
			want = strings.ToValidUTF8(want, "\uFFFD")
		}
		if got[0].(int64) != 2 || got[1] != want {
			t.Errorf("%q: the page reads %v pairs and campaign %q, want 2 and %q", name, got[0], got[1], want)
		}
	}
}

// TestHTMLLikeTheTemplate: HTML writes html/template's bytes for a value
// in element content and in a quoted attribute.
func TestHTMLLikeTheTemplate(t *testing.T) {
	t.Parallel()
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`<p title="{{.}}" data-x='{{.}}'>{{.}}</p>`))
	for _, s := range hostile {
		var want bytes.Buffer
		if err := tpl.Execute(&want, s); err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		WriteHTML(&sb, s)
		if got := `<p title="` + HTML(s) + `" data-x='` + sb.String() + `'>` + HTML(s) + `</p>`; got != want.String() {
			t.Errorf("%q:\ngot  %s\nwant %s", s, got, want.String())
		}
	}
}

// TestWriteHTMLToLikeHTML: WriteHTMLTo, which writes a text's plain
// bytes before its first escaped one in one call, writes what HTML
// returns, for texts with escaped bytes first, last, alone, in runs and
// none at all.
func TestWriteHTMLToLikeHTML(t *testing.T) {
	t.Parallel()
	texts := append([]string{"plain text", "+", "a+", "+a", "++a&&", "x\x00", "<<>>", "tail 'q'"}, hostile...)
	for _, s := range texts {
		var b bytes.Buffer
		b.WriteString("[")
		WriteHTMLTo(&b, s)
		if got, want := b.String(), "["+htmlReplacer.Replace(s); got != want {
			t.Errorf("%q: got %q, want %q", s, got, want)
		}
	}
}

// BenchmarkWriteHTMLTo: a run page's texts, most of them with nothing
// to escape.
func BenchmarkWriteHTMLTo(b *testing.B) {
	texts := []string{"Qwen/Qwen3-8B", "vllm bench serve", "output throughput", "H100 80GB HBM3", "p99 TTFT", "random <in=1024, out=128>", "2026-11-03 10:00", "tok/s"}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		for _, s := range texts {
			WriteHTMLTo(&buf, s)
		}
	}
}
