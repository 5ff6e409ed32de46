package site

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// TestCampaignLinksAgree: the index's campaign list (through the embedded
// index template) and a run page's overview link a hostile campaign name
// to the same filtered runs page, whose hash gives the name back whole.
// (They used to escape it two ways: %XX with ~ escaped, and %xx.)
func TestCampaignLinksAgree(t *testing.T) {
	t.Parallel()
	ts, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	l := locales.MustMatch("en")
	b := &builder{opt: Options{ToolVersion: "test"}, locs: []locales.Locale{l}, tpl: ts}
	indexHref := regexp.MustCompile(`<a class="campaign" href="([^"]*)">`)
	runHref := regexp.MustCompile(`<a class="campaign" href="\.\./([^"]*)">`)
	for _, name := range []string{"qwen3-batch", `"><script>alert(1)</script>`, "a&gpu=H100", "x#y z", "100%+~", "中文 / キャンペーン", "'\x00\n"} {
		p := b.page(l, "index.html", "t")
		idx := &indexView{P: p, Campaigns: []campaignView{{Name: name, Href: campaignLink(name)}}}
		var buf bytes.Buffer
		if err := ts.execute(&buf, l.Tag(), b.labels(l), p, "index", idx); err != nil {
			t.Fatal(err)
		}
		m := indexHref.FindStringSubmatch(buf.String())
		if m == nil {
			t.Fatalf("%q: no campaign link on the index", name)
		}
		rp := &runPageView{P: b.page(l, "run/ab.html", "t"), Sum: store.RunSummary{Campaign: name}, V: &runview.View{}}
		r := runHref.FindStringSubmatch(string(overviewRows(rp)))
		if r == nil {
			t.Fatalf("%q: no campaign link on the run page: %s", name, overviewRows(rp))
		}
		if m[1] != r[1] {
			t.Errorf("%q: the index links %s, the run page %s", name, m[1], r[1])
		}
		frag, ok := strings.CutPrefix(m[1], "runs.html#campaign=")
		if !ok || strings.ContainsAny(frag, "&=#\"'<> ") {
			t.Errorf("%q: link %s", name, m[1])
			continue
		}
		if got, err := url.PathUnescape(frag); err != nil || got != name {
			t.Errorf("%q: the link's value reads back as %q (%v)", name, got, err)
		}
	}
}
