// Package browser checks and prints benchledger's HTML reports in a real
// headless Chromium (Debian's chromium package), driven over the DevTools
// protocol with chromedp.
//
// A report is a self-contained file opened from disk, so a Page records what
// would betray a broken or leaky report: console errors and warnings, uncaught
// exceptions, and every network request the page makes.
package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/benchledger/benchledger/internal/atomicfile"
)

// EnvChromium names the environment variable that overrides which browser
// binary is used (a path, or a name looked up on PATH).
const EnvChromium = "BENCHLEDGER_CHROMIUM"

// ErrNoChromium is wrapped by every error caused by a missing browser, so
// callers (and tests) can tell "not installed" from "the page is broken".
var ErrNoChromium = errors.New("browser: Chromium not found")

// DefaultTimeout bounds loading, the readiness wait and each later call on a
// Page when Options.Timeout is zero. It is a bound for a browser that hangs,
// not a wait (each wait ends as soon as its condition holds): generous, since
// on a busy machine (load 30-40 on two cores) loading and drawing a report
// took longer than the 20 s it used to be, and a print (report --format pdf)
// failed.
const DefaultTimeout = 2 * time.Minute

// Default viewport: wide enough for a report's side-by-side charts.
const (
	DefaultWidth  = 1280
	DefaultHeight = 800
)

// Available reports the browser binary to use. EnvChromium wins when set (and
// then nothing else is tried, so a wrong setting is not silently ignored);
// otherwise Debian's /usr/bin/chromium, then chromium, chromium-browser or
// google-chrome on PATH.
func Available() (path string, ok bool) {
	if v := os.Getenv(EnvChromium); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", false
		}
		return p, true
	}
	candidates := []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, true
		}
	}
	return "", false
}

func noChromium() error {
	if v := os.Getenv(EnvChromium); v != "" {
		return fmt.Errorf("%w: %s=%q is not an executable; install Debian's chromium (apt-get install chromium) or fix %s",
			ErrNoChromium, EnvChromium, v, EnvChromium)
	}
	return fmt.Errorf("%w: install Debian's chromium (apt-get install chromium), or set %s to a Chromium binary",
		ErrNoChromium, EnvChromium)
}

// Options tune Open. The zero value loads the page and waits for its load
// event only.
type Options struct {
	// ReadyExpr, when set, is a JavaScript expression polled after the load
	// event until it is truthy, e.g. `window.__chartsReady === true`. It may
	// return a promise, which is awaited.
	ReadyExpr string
	// Timeout bounds load plus readiness, and each later Page call.
	// Zero means DefaultTimeout.
	Timeout time.Duration
	// Width and Height set the viewport in CSS pixels; zero means the defaults.
	Width, Height int
	// LocalDir, when set, is a folder whose files the page may load (a
	// static site's stylesheet, scripts and data): file:// URLs under it
	// are not counted as network requests. Everything else still is.
	LocalDir string
}

// Message is one console message, uncaught exception or browser log entry.
type Message struct {
	Level  string // "error", "warning", "info", "log", "debug", ...
	Source string // "console", "exception", or the log source ("network", "security", ...)
	Text   string
	URL    string // where it came from, when known
}

func (m Message) String() string {
	s := m.Level + " (" + m.Source + "): " + m.Text
	if m.URL != "" {
		s += " [" + m.URL + "]"
	}
	return s
}

// Page is one report loaded in its own headless Chromium.
type Page struct {
	url      string
	timeout  time.Duration
	localDir string // file:// URL prefix of Options.LocalDir, with a final /

	ctx         context.Context // the tab; lives until Close
	cancelTab   context.CancelFunc
	cancelAlloc context.CancelFunc
	closeOnce   sync.Once

	mu       sync.Mutex
	messages []Message
	requests []string
	output   *tailBuffer
}

// Open starts a fresh headless Chromium, loads fileOrURL (a path is turned into
// a file:// URL), waits for the load event and then for opt.ReadyExpr. ctx
// bounds only the opening; the browser lives until Close. On error nothing is
// left running. While Share is on, the page is a new tab of the shared
// browser instead, and Close closes the tab.
func Open(ctx context.Context, fileOrURL string, opt Options) (*Page, error) {
	exe, ok := Available()
	if !ok {
		return nil, noChromium()
	}
	u, err := pageURL(fileOrURL)
	if err != nil {
		return nil, err
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Width <= 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height <= 0 {
		opt.Height = DefaultHeight
	}

	p := &Page{url: u, timeout: opt.Timeout, output: &tailBuffer{max: 4096}}
	if opt.LocalDir != "" {
		dir, err := pageURL(opt.LocalDir)
		if err != nil {
			return nil, err
		}
		p.localDir = strings.TrimSuffix(dir, "/") + "/"
	}

	if sh := sharing(); sh != nil {
		// A tab of the shared browser (Share), in a browser context of
		// its own, as isolated as a fresh browser's profile.
		base, out, err := sh.browser(ctx, exe, opt.Timeout)
		if err != nil {
			return nil, err
		}
		p.output = out
		p.ctx, p.cancelTab = chromedp.NewContext(base, chromedp.WithNewBrowserContext())
		p.cancelAlloc = func() {}
	} else {
		// A fresh profile (newAllocator), removed when the allocator is
		// cancelled (in Close). The browser is used after Open returns, so
		// it must not die with ctx; Close ends it.
		allocCtx, cancelAlloc, err := newAllocator(context.WithoutCancel(ctx), exe, p.output)
		if err != nil {
			return nil, err
		}
		tabCtx, cancelTab := chromedp.NewContext(allocCtx)
		p.ctx, p.cancelTab, p.cancelAlloc = tabCtx, cancelTab, cancelAlloc
	}

	if err := p.open(ctx, opt); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// newAllocator makes the allocator of a browser of its own, and the
// function that ends it. chromedp makes the profile, and at the end kills
// what is left of the browser's processes and removes the profile. Chromium
// also makes a folder under TMPDIR for its singleton socket, which it
// leaves when ended as chromedp ends it: its TMPDIR is a new folder of
// ours, removed once the browser has ended. Not when that folder's path is
// so long that the socket's would exceed what a Unix socket's path may
// have: Chromium would not start at all.
func newAllocator(parent context.Context, exe string, output *tailBuffer) (context.Context, context.CancelFunc, error) {
	opts := allocatorOptions(exe, output)
	tmp, err := os.MkdirTemp("", "blc")
	if err != nil {
		return nil, nil, fmt.Errorf("browser: a temporary folder for Chromium: %w", err)
	}
	if len(tmp)+len(singletonSocket) <= maxSocketPath {
		opts = append(opts, chromedp.Env("TMPDIR="+tmp))
	} else {
		os.Remove(tmp)
		tmp = ""
	}
	ctx, cancel := chromedp.NewExecAllocator(parent, opts...)
	return ctx, func() {
		cancel() // waits for the browser's processes and removes the profile
		if tmp != "" {
			removeAll(tmp)
		}
	}, nil
}

// singletonSocket is the longest path Chromium (or Chrome, whose folder's
// name is shorter) gives its singleton socket under TMPDIR, and
// maxSocketPath the most a Unix socket's path may have (sun_path's 108
// bytes with the final NUL).
const (
	singletonSocket = "/org.chromium.Chromium.XXXXXX/SingletonSocket"
	maxSocketPath   = 107
)

// removeAll removes dir, trying again for a little while: a process that
// outlives the browser for a moment may still write there.
func removeAll(dir string) {
	for i := 0; os.RemoveAll(dir) != nil && i < 50; i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

// allocatorOptions are the flags known to work on this project's
// machines: the background-networking ones keep Chromium from dialling
// Google (refused by the closed network, and noise in NetworkRequests).
func allocatorOptions(exe string, output *tailBuffer) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.CombinedOutput(output),
	}
}

// started runs the first call on a new context (which starts the browser
// or creates the tab) and waits for it, bounded by ctx and timeout but
// without giving it a deadline: the first Run's deadline would kill the
// browser.
func started(ctx context.Context, first func() error, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- first() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(timeout):
		return fmt.Errorf("browser did not start within %s", timeout)
	}
}

func (p *Page) open(ctx context.Context, opt Options) error {
	// The first Run starts the browser (or opens the shared browser's tab).
	if err := started(ctx, func() error { return chromedp.Listen(p.ctx, p.record) }, opt.Timeout); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return p.launchError(err)
	}

	lctx, cancel := p.callContext(ctx)
	defer cancel()
	err := chromedp.Do(lctx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(opt.Width), Height: int64(opt.Height), DeviceScaleFactor: 1,
			})
			return err
		}),
		chromedp.Navigate(p.url),
	)
	if err != nil {
		return fmt.Errorf("browser: loading %s: %w", p.url, err)
	}
	if opt.ReadyExpr != "" {
		if err := p.waitReady(lctx, opt.ReadyExpr); err != nil {
			return err
		}
	}
	return nil
}

// waitReady polls expr until it is truthy or ctx ends.
func (p *Page) waitReady(ctx context.Context, expr string) error {
	// Wrapping in an async function lets expr be a plain value or a promise.
	js := "(async () => Boolean(await (" + expr + ")))()"
	var last error
	for {
		ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		if err == nil && ready {
			return nil
		}
		if err != nil && ctx.Err() == nil {
			last = err // e.g. a ReferenceError before the page defines the flag
		}
		select {
		case <-ctx.Done():
			msg := fmt.Sprintf("browser: %s not ready: %s still false", p.url, expr)
			if last != nil {
				msg += " (last error: " + last.Error() + ")"
			}
			if errs := p.ConsoleErrors(); len(errs) > 0 {
				msg += "; console errors: " + strings.Join(errs, "; ")
			}
			return fmt.Errorf("%s: %w", msg, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (p *Page) launchError(err error) error {
	msg := fmt.Sprintf("browser: starting Chromium: %v", err)
	if out := strings.TrimSpace(p.output.String()); out != "" {
		msg += "\nbrowser output:\n" + out
	}
	return errors.New(msg)
}

// callContext bounds one call on the tab by parent and the page timeout.
func (p *Page) callContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	stop := context.AfterFunc(parent, cancel)
	return ctx, func() { stop(); cancel() }
}

// record runs on chromedp's reading goroutine, before any later command
// returns, so whatever a caller reads after Open or Eval is complete. It must
// be quick and must not call the browser.
func (p *Page) record(ev any) {
	var m *Message
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		level := string(ev.Type)
		switch level {
		case "assert":
			level = "error" // a failed console.assert is an error in DevTools too
		case "warn":
			level = "warning"
		}
		m = &Message{Level: level, Source: "console", Text: argsText(ev.Args)}
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			m.URL = st.CallFrames[0].URL
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			desc, _, _ := strings.Cut(d.Exception.Description, "\n")
			text += " " + desc
		}
		m = &Message{Level: "error", Source: "exception", Text: text, URL: d.URL}
	case *log.EventEntryAdded:
		e := ev.Entry
		m = &Message{Level: string(e.Level), Source: string(e.Source), Text: e.Text, URL: e.URL}
	case *network.EventRequestWillBeSent:
		// Under the lock: Load changes the page's URL while events arrive.
		p.mu.Lock()
		if ev.Request != nil && p.countsAsNetwork(ev.Request.URL) {
			p.requests = append(p.requests, ev.Request.URL)
		}
		p.mu.Unlock()
		return
	default:
		return
	}
	p.mu.Lock()
	p.messages = append(p.messages, *m)
	p.mu.Unlock()
}

// countsAsNetwork: everything but the page's own document and inline data.
// Other file:// URLs count, since a self-contained report loads no sibling.
func (p *Page) countsAsNetwork(raw string) bool {
	noFrag, _, _ := strings.Cut(raw, "#")
	pageNoFrag, _, _ := strings.Cut(p.url, "#")
	if noFrag == pageNoFrag {
		return false
	}
	if p.localDir != "" && strings.HasPrefix(noFrag, p.localDir) && !strings.Contains(noFrag[len(p.localDir):], "/../") {
		return false
	}
	for _, prefix := range []string{"data:", "blob:", "about:"} {
		if strings.HasPrefix(raw, prefix) {
			return false
		}
	}
	return true
}

// argsText renders console arguments roughly as DevTools does: strings bare,
// other primitives as JSON, objects by their description.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a.Type == runtime.RemoteObjectTypeString:
			var s string
			if json.Unmarshal(a.Value, &s) == nil {
				parts = append(parts, s)
				continue
			}
			parts = append(parts, string(a.Value))
		case a.UnserializableValue != "":
			parts = append(parts, string(a.UnserializableValue))
		case a.Description != "":
			parts = append(parts, a.Description)
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

// URL is the page's address as loaded.
func (p *Page) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Messages returns every console message, exception and log entry so far.
func (p *Page) Messages() []Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Message(nil), p.messages...)
}

func (p *Page) byLevel(level string) []string {
	var out []string
	for _, m := range p.Messages() {
		if m.Level == level {
			out = append(out, m.String())
		}
	}
	return out
}

// ConsoleErrors returns console.error calls, failed assertions, uncaught
// exceptions and browser log errors (such as a failed resource load).
func (p *Page) ConsoleErrors() []string { return p.byLevel("error") }

// ConsoleWarnings returns console.warn calls and browser log warnings.
func (p *Page) ConsoleWarnings() []string { return p.byLevel("warning") }

// NetworkRequests returns the URL of every request other than the page's own
// file and data:/blob: URLs; an offline report must have none.
func (p *Page) NetworkRequests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Eval runs a JavaScript expression (a promise is awaited) and decodes its
// JSON value into out; out may be nil to discard it. An exception is an error.
func (p *Page) Eval(expr string, out any) error {
	ctx, cancel := p.callContext(context.Background())
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("browser: eval %q: %w", expr, err)
	}
	if out == nil {
		return nil
	}
	if len(raw) == 0 {
		raw = []byte("null") // undefined
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("browser: eval %q: decoding %s: %w", expr, raw, err)
	}
	return nil
}

// WaitFor polls a JavaScript expression until it is truthy, within the
// page timeout: after a click that navigates or loads data, say.
func (p *Page) WaitFor(expr string) error {
	ctx, cancel := p.callContext(context.Background())
	defer cancel()
	return p.waitReady(ctx, expr)
}

// Links returns the resolved href of every <a href> in the document.
func (p *Page) Links() ([]string, error) {
	var links []string
	err := p.Eval(`Array.from(document.querySelectorAll("a[href]"), a => a.href)`, &links)
	return links, err
}

// Screenshot writes a PNG of the viewport, or of the whole page when fullPage.
func (p *Page) Screenshot(path string, fullPage bool) error {
	ctx, cancel := p.callContext(context.Background())
	defer cancel()
	png, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
		if fullPage {
			m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
			if err != nil {
				return nil, err
			}
			if cs := m.CSSContentSize; cs != nil && cs.Width > 0 && cs.Height > 0 {
				beyond := true
				params.CaptureBeyondViewport = &beyond
				params.Clip = &page.Viewport{Width: cs.Width, Height: cs.Height, Scale: 1}
			}
		}
		res, err := cdp.Call(ctx, t, page.CaptureScreenshot, params)
		if err != nil {
			return nil, err
		}
		return res.Data, nil
	})
	if err != nil {
		return fmt.Errorf("browser: screenshot of %s: %w", p.url, err)
	}
	return atomicfile.Write(path, png)
}

// EmulateMedia lays the page out for a CSS media type ("print", or ""
// for the default screen) without redrawing its scripts' output, as
// printing does: a test can then read the boxes a PDF would have.
func (p *Page) EmulateMedia(media string) error {
	ctx, cancel := p.callContext(context.Background())
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: media})
		return err
	}))
	if err != nil {
		return fmt.Errorf("browser: media %q on %s: %w", media, p.url, err)
	}
	return nil
}

// PDF prints the page to pdfPath on A4 with backgrounds.
func (p *Page) PDF(pdfPath string) error {
	ctx, cancel := p.callContext(context.Background())
	defer cancel()
	data, err := chromedp.Run(ctx, chromedp.PrintToPDF(
		chromedp.PDFPaper(chromedp.PaperA4),
		chromedp.PDFPrintBackground(),
	))
	if err != nil {
		return fmt.Errorf("browser: printing %s: %w", p.url, err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF")) {
		return fmt.Errorf("browser: printing %s: output is not a PDF", p.url)
	}
	return atomicfile.Write(pdfPath, data)
}

// Close shuts the browser down and removes its profile directory. It is safe
// to call more than once.
func (p *Page) Close() {
	p.closeOnce.Do(func() {
		// Cancelling the tab of the first context closes the browser
		// gracefully; cancelling the allocator then waits for the process and
		// removes the temporary user-data-dir.
		p.cancelTab()
		p.cancelAlloc()
	})
}

// PrintReadyExpr is what PrintPDF waits for after the load event: web fonts
// loaded, and window.__chartsReady true when the page defines it (reports set
// it once every chart has drawn).
const PrintReadyExpr = `document.fonts.ready.then(() => window.__chartsReady === undefined || window.__chartsReady === true)`

// a4PrintableWidth is A4's width less Chromium's default 1 cm margins, in CSS
// pixels: charts sized to the viewport then fit the printed page.
const a4PrintableWidth = 718

// PrintWidth is the viewport width PrintPDF lays a page out at, for a test
// that reads the boxes a PDF will have.
const PrintWidth = a4PrintableWidth

// PrintPDF renders the HTML file at htmlPath to an A4 PDF at pdfPath, with
// backgrounds. It returns an error wrapping ErrNoChromium when no browser is
// installed.
func PrintPDF(ctx context.Context, htmlPath, pdfPath string) error {
	return PrintPDFs(ctx, PDFJob{HTML: htmlPath, PDF: pdfPath})
}

// PDFJob is one HTML file to print and the PDF to write.
type PDFJob struct{ HTML, PDF string }

// PrintPDFs prints each job as PrintPDF does, in order, in one browser: a
// report's languages and audit pages are loaded one after the other in the
// same tab rather than each starting a Chromium of its own (a start costs
// more than a print). The first failure stops it and names its file.
func PrintPDFs(ctx context.Context, jobs ...PDFJob) error {
	if len(jobs) == 0 {
		return nil
	}
	p, err := Open(ctx, jobs[0].HTML, Options{ReadyExpr: PrintReadyExpr, Width: a4PrintableWidth, Height: 1000})
	if err != nil {
		return err
	}
	defer p.Close()
	for i, j := range jobs {
		if i > 0 {
			if err := p.Load(ctx, j.HTML, PrintReadyExpr); err != nil {
				return err
			}
		}
		if err := p.PDF(j.PDF); err != nil {
			return err
		}
	}
	return nil
}

// Load navigates the page's tab to another file or URL and waits for its
// load event and then for readyExpr (when set), as Open does: one browser
// serves several pages. What was recorded of the page before (messages,
// requests) is dropped, so that those of the new page are its own.
func (p *Page) Load(ctx context.Context, fileOrURL, readyExpr string) error {
	u, err := pageURL(fileOrURL)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.url, p.messages, p.requests = u, nil, nil
	p.mu.Unlock()
	lctx, cancel := p.callContext(ctx)
	defer cancel()
	if err := chromedp.Do(lctx, chromedp.Navigate(u)); err != nil {
		return fmt.Errorf("browser: loading %s: %w", u, err)
	}
	if readyExpr != "" {
		return p.waitReady(lctx, readyExpr)
	}
	return nil
}

// pageURL turns a path into a file:// URL; anything with a scheme is kept.
func pageURL(fileOrURL string) (string, error) {
	if u, err := url.Parse(fileOrURL); err == nil && len(u.Scheme) > 1 {
		return fileOrURL, nil // len>1 keeps Windows drive letters out
	}
	abs, err := filepath.Abs(fileOrURL)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("browser: %w", err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// LocalPath returns the file a file:// URL names, e.g. to check that a
// report's links point at files that exist.
func LocalPath(link string) (string, bool) {
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// tailBuffer keeps the last max bytes of the browser's output for launch
// errors; chromedp writes to it from its own goroutine.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
