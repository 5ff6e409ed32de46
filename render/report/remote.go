package report

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// remoteRE finds what could make a reader fetch: a URL with a scheme or a
// protocol-relative one, in raw HTML a narrative carries.
var remoteRE = regexp.MustCompile(`(?i)(?:[a-z][a-z0-9+.-]*:)?//[^\s"'<>]+`)

// checkRemote refuses a narrative that names anything on another host: an
// image (the HTML or a PDF printer, or a Markdown viewer, would fetch it), a
// link or autolink to a host the spec's link_hosts does not name, or raw
// HTML with a URL in it. Every output the tool writes opens with no network
// (docs/casestudy.md): a link is only followed when a reader clicks it, so
// an allowed host's http(s) link stays; line says where.
func checkRemote(file string, src []byte, linkHosts []string) error {
	doc := md.Parser().Parse(text.NewReader(src))
	var err error
	line := func(n ast.Node) int {
		for ; n != nil; n = n.Parent() {
			if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
				return bytes.Count(src[:n.Lines().At(0).Start], []byte("\n")) + 1
			}
		}
		return 0
	}
	refuse := func(n ast.Node, what, dest string) {
		if err == nil {
			hint := ""
			if what == "link" {
				hint = "; to link to it, name its host in the spec's link_hosts, or write the URL as code (`...`) to show it as text"
			}
			err = fmt.Errorf("%s:%d: %s %q is on another host: a narrative may not name remote images, raw HTML URLs or links to hosts the spec does not allow (nothing the tool writes fetches from the network)%s",
				file, line(n), what, dest, hint)
		}
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || err != nil {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Image:
			if d := string(v.Destination); !localImage(d) {
				refuse(n, "image", d)
			}
		case *ast.Link:
			if d := string(v.Destination); remote(d) && !allowedLink(d, linkHosts) {
				refuse(n, "link", d)
			}
		case *ast.AutoLink:
			if d := string(v.URL(src)); v.AutoLinkType == ast.AutoLinkURL && remote(d) && !allowedLink(d, linkHosts) {
				refuse(n, "link", d)
			}
		case *ast.RawHTML:
			var sb strings.Builder
			for i := 0; i < v.Segments.Len(); i++ {
				seg := v.Segments.At(i)
				sb.Write(seg.Value(src))
			}
			if m := remoteRE.FindString(sb.String()); m != "" {
				refuse(n, "raw HTML URL", m)
			}
		case *ast.HTMLBlock:
			var sb strings.Builder
			for i := 0; i < v.Lines().Len(); i++ {
				seg := v.Lines().At(i)
				sb.Write(seg.Value(src))
			}
			if m := remoteRE.FindString(sb.String()); m != "" {
				refuse(n, "raw HTML URL", m)
			}
		}
		return ast.WalkContinue, nil
	})
	return err
}

// remote says whether a link destination names another host: a URL with
// an authority (http://host/, //host/, ftp://...). Fragments, relative
// paths, mailto: and schemes without a host (javascript:, which goldmark's
// safe mode drops anyway) are not.
func remote(dest string) bool {
	d := strings.TrimSpace(dest)
	if strings.HasPrefix(d, "//") || strings.HasPrefix(d, `\\`) {
		return true
	}
	u, err := url.Parse(d)
	if err != nil {
		return true
	}
	return u.Host != ""
}

// allowedLink: an http(s) link to a host of hosts (exact, any port).
func allowedLink(dest string, hosts []string) bool {
	u, err := url.Parse(strings.TrimSpace(dest))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	return slices.Contains(hosts, strings.ToLower(u.Hostname()))
}

// localImage: an image may only be inline data; a file path would not be
// in a one-file report, and a URL would be fetched.
func localImage(dest string) bool {
	return strings.HasPrefix(strings.TrimSpace(strings.ToLower(dest)), "data:image/")
}
