package browser

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// needChromium skips when no browser is installed. .ci/run installs Debian's
// chromium, so under CI a missing browser fails rather than passing by skip.
func needChromium(t *testing.T) {
	t.Helper()
	if _, ok := Available(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Chromium not installed under CI: .ci/run should have installed Debian's chromium")
		}
		t.Skipf("Chromium not installed (apt-get install chromium, or set %s): skipping browser test", EnvChromium)
	}
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func open(t *testing.T, name string, opt Options) *Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	start := time.Now()
	p, err := Open(ctx, testdata(t, name), opt)
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	t.Logf("Open(%s) took %s", name, time.Since(start).Round(time.Millisecond))
	t.Cleanup(p.Close)
	return p
}

func TestReportPage(t *testing.T) {
	needChromium(t)
	// The profile dir, and Chromium's own temporary folder, are made under
	// TMPDIR; a private one shows that Close removes them.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	p := open(t, "report.html", Options{ReadyExpr: "window.__chartsReady === true"})

	if n := countProfiles(t, tmp); n != 1 {
		t.Errorf("want 1 fresh profile dir under TMPDIR while open, found %d", n)
	}
	// Chromium's own folder, for its singleton socket, which it would
	// leave behind, is in a folder of the Page's.
	if own, _ := filepath.Glob(filepath.Join(tmp, "blc*", "org.chromium.Chromium.*", "SingletonSocket")); len(own) != 1 {
		entries, _ := os.ReadDir(tmp)
		t.Errorf("want Chromium's singleton socket in the Page's folder under TMPDIR, found %v (TMPDIR holds %v)", own, entries)
	}

	var ready bool
	if err := p.Eval("window.__chartsReady", &ready); err != nil || !ready {
		t.Fatalf("__chartsReady = %v, %v; want true", ready, err)
	}
	if errs := p.ConsoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if w := p.ConsoleWarnings(); len(w) > 0 {
		t.Errorf("console warnings: %q", w)
	}
	if reqs := p.NetworkRequests(); len(reqs) > 0 {
		t.Errorf("offline report made network requests: %q", reqs)
	}

	var heading string
	if err := p.Eval(`document.getElementById("cjk").textContent`, &heading); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(heading, "吞吐量报告") {
		t.Errorf("CJK heading = %q", heading)
	}

	links, err := p.Links()
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 {
		t.Fatalf("links = %q, want one", links)
	}
	path, ok := LocalPath(links[0])
	if !ok {
		t.Fatalf("link %q is not a file:// URL", links[0])
	}
	if path != testdata(t, "sibling.html") {
		t.Errorf("link resolves to %s, want testdata/sibling.html", path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("link target: %v", err)
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	if err := p.Screenshot(shot, true); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, shot)
	if err := p.Screenshot(shot, false); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, shot)

	p.Close()
	if n := countProfiles(t, tmp); n != 0 {
		t.Errorf("%d profile dirs left under TMPDIR after Close", n)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left under TMPDIR after Close: %v", left)
	}
}

// countProfiles counts the browser profile dirs (chromedp-runner*) in dir.
func countProfiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "chromedp-runner") {
			n++
		}
	}
	return n
}

// checkPNG asserts the file is a decodable PNG of more than one colour, i.e.
// something was actually drawn.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 100 || b.Dy() < 100 {
		t.Fatalf("%s: tiny image %v", path, b)
	}
	colours := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 5 {
		t.Errorf("%s: only %d colours; page not rendered?", path, len(colours))
	}
	t.Logf("%s: %v, %d colours sampled", filepath.Base(path), b.Size(), len(colours))
}

func TestConsoleErrorsDetected(t *testing.T) {
	needChromium(t)
	p := open(t, "console_error.html", Options{})

	errs := p.ConsoleErrors()
	if !slices.ContainsFunc(errs, func(s string) bool { return strings.Contains(s, "boom: series missing") }) {
		t.Errorf("console.error not recorded; errors = %q", errs)
	}
	if !slices.ContainsFunc(errs, func(s string) bool { return strings.Contains(s, "uncaught in report") }) {
		t.Errorf("uncaught exception not recorded; errors = %q", errs)
	}
	warns := p.ConsoleWarnings()
	if !slices.ContainsFunc(warns, func(s string) bool { return strings.Contains(s, "chart option deprecated 42") }) {
		t.Errorf("console.warn not recorded; warnings = %q", warns)
	}
	if reqs := p.NetworkRequests(); len(reqs) > 0 {
		t.Errorf("network requests: %q", reqs)
	}

	// An exception in Eval is an error, and not-ready pages time out with
	// the console errors in the message.
	if err := p.Eval(`(() => { throw new Error("eval boom") })()`, nil); err == nil || !strings.Contains(err.Error(), "eval boom") {
		t.Errorf("Eval of a throwing expression: err = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := p.waitReady(ctx, "window.neverReady"); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Errorf("waitReady on a never-ready page: err = %v", err)
	}
}

func TestNetworkRequestDetected(t *testing.T) {
	needChromium(t)
	p := open(t, "fetch.html", Options{ReadyExpr: "window.__done === true"})

	reqs := p.NetworkRequests()
	if !slices.Contains(reqs, "http://127.0.0.1:9/x") {
		t.Errorf("fetch to loopback not recorded; requests = %q", reqs)
	}
	t.Logf("requests %q; errors %q", reqs, p.ConsoleErrors())
}

func TestPrintPDF(t *testing.T) {
	needChromium(t)
	out := filepath.Join(t.TempDir(), "report.pdf")
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	start := time.Now()
	if err := PrintPDF(ctx, testdata(t, "report.html"), out); err != nil {
		t.Fatal(err)
	}
	t.Logf("PrintPDF took %s", time.Since(start).Round(time.Millisecond))
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF")) || len(data) < 1000 {
		t.Errorf("not a PDF: %d bytes starting %q", len(data), data[:min(len(data), 8)])
	}
	// Chromium writes page dictionaries uncompressed: A4 is 595.92 x 841.92 pt.
	if !bytes.Contains(data, []byte("/MediaBox [0 0 595.9")) {
		t.Errorf("PDF is not A4 (no 595.9pt-wide MediaBox)")
	}
}

// TestPrintPDFs prints two different pages in one browser: each PDF holds
// its own page's text (the second load replaced the first document, and
// the print waited for it).
func TestPrintPDFs(t *testing.T) {
	needChromium(t)
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (apt-get install poppler-utils)")
	}
	dir := t.TempDir()
	var jobs []PDFJob
	for _, word := range []string{"Alpha", "Bravo", "Charlie"} {
		html := filepath.Join(dir, word+".html")
		page := "<!doctype html><title>" + word + "</title><p>page " + word + "</p>" +
			"<script>window.__chartsReady = false; setTimeout(() => { document.body.insertAdjacentHTML('beforeend', '<p>drawn " + word + "</p>'); window.__chartsReady = true }, 50)</script>"
		if err := os.WriteFile(html, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, PDFJob{HTML: html, PDF: filepath.Join(dir, word+".pdf")})
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	if err := PrintPDFs(ctx, jobs...); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		text, err := exec.Command("pdftotext", j.PDF, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		word := strings.TrimSuffix(filepath.Base(j.HTML), ".html")
		if got := strings.Fields(string(text)); !slices.Equal(got, []string{"page", word, "drawn", word}) {
			t.Errorf("%s: text %q, want its own page, drawn", j.PDF, got)
		}
	}
	if err := PrintPDFs(ctx, PDFJob{HTML: filepath.Join(dir, "missing.html"), PDF: filepath.Join(dir, "m.pdf")}); err == nil || !strings.Contains(err.Error(), "missing.html") {
		t.Errorf("a missing page: err = %v, want one naming it", err)
	}
}

// Runs without Chromium too: a missing browser is a clear, typed error.
func TestNoChromium(t *testing.T) {
	t.Setenv(EnvChromium, filepath.Join(t.TempDir(), "no-such-chromium"))
	if p, ok := Available(); ok {
		t.Fatalf("Available() = %q, true with a bad %s", p, EnvChromium)
	}
	err := PrintPDF(context.Background(), testdata(t, "report.html"), filepath.Join(t.TempDir(), "x.pdf"))
	if !errors.Is(err, ErrNoChromium) {
		t.Fatalf("PrintPDF err = %v, want ErrNoChromium", err)
	}
	if !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("error does not say how to install: %v", err)
	}
	if _, err := Open(context.Background(), testdata(t, "report.html"), Options{}); !errors.Is(err, ErrNoChromium) {
		t.Errorf("Open err = %v, want ErrNoChromium", err)
	}
}

func TestPageURL(t *testing.T) {
	u, err := pageURL(filepath.Join("testdata", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "file:///") || !strings.HasSuffix(u, "/testdata/report.html") {
		t.Errorf("pageURL = %q", u)
	}
	if got, _ := LocalPath(u); got != testdata(t, "report.html") {
		t.Errorf("LocalPath(%q) = %q", u, got)
	}
	if _, err := pageURL(filepath.Join("testdata", "missing.html")); err == nil {
		t.Error("pageURL of a missing file: no error")
	}
	if u, _ := pageURL("http://127.0.0.1:8080/r.html"); u != "http://127.0.0.1:8080/r.html" {
		t.Errorf("URL changed: %q", u)
	}
}

// TestLongTempDir: under a TMPDIR so long that Chromium's singleton socket
// could not be made in a folder of the Page's, the browser still starts
// (newAllocator leaves Chromium's TMPDIR as it is) and Close leaves no
// profile.
func TestLongTempDir(t *testing.T) {
	needChromium(t)
	// Short enough for Chromium's own folder, too long for one more level
	// ("/blc" and ten digits).
	tmp := t.TempDir()
	for len(tmp) < maxSocketPath-len(singletonSocket)-8 {
		tmp = filepath.Join(tmp, "x")
	}
	if len(tmp)+len(singletonSocket) > maxSocketPath {
		t.Skipf("the test's temporary folder %s is too long already", tmp)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	p := open(t, "report.html", Options{})
	p.Close()
	if n := countProfiles(t, tmp); n != 0 {
		t.Errorf("%d profile dirs left under TMPDIR after Close", n)
	}
}
