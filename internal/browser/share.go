package browser

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
)

// shared is the one Chromium of the process while Share is on.
type shared struct {
	mu     sync.Mutex
	ctx    context.Context // the browser's first tab: a child context is a new tab
	stop   func()          // ends the browser
	output *tailBuffer
}

var (
	shareMu sync.Mutex
	sharedB *shared // nil: every Open starts a browser of its own
)

func sharing() *shared {
	shareMu.Lock()
	defer shareMu.Unlock()
	return sharedB
}

// Share makes every Open (and so PrintPDFs) in this process open its page
// in a tab of one Chromium, started by the first Open, instead of starting
// a Chromium for each page: a start costs about a second of CPU and two of
// wall time, and the command's tests open dozens of pages. Each tab has a
// browser context of its own (cookies, storage, cache), as a fresh
// browser's profile would be. It is a hook for tests; the command itself
// never shares. The returned stop ends the browser and turns sharing off.
func Share() (stop func()) {
	sh := &shared{}
	shareMu.Lock()
	sharedB = sh
	shareMu.Unlock()
	return func() {
		shareMu.Lock()
		if sharedB == sh {
			sharedB = nil
		}
		shareMu.Unlock()
		sh.mu.Lock()
		defer sh.mu.Unlock()
		if sh.stop != nil {
			sh.stop()
			sh.stop, sh.ctx = nil, nil
		}
	}
}

// running reports whether the browser of ctx has a process that has not
// been waited for: chromedp ends the context of a browser that has gone
// only once it has read the end of its pipe, which can come after the
// process has been reaped.
func running(ctx context.Context) bool {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return false
	}
	return !errors.Is(c.Browser.Process().Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// browser is the shared browser's context (a new tab's parent) and its
// output, started at the first call; a failed start is tried again by the
// next, and a browser that has gone (its context ended) is started again.
func (sh *shared) browser(ctx context.Context, exe string, timeout time.Duration) (context.Context, *tailBuffer, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.ctx != nil && sh.ctx.Err() == nil && running(sh.ctx) {
		return sh.ctx, sh.output, nil
	}
	if sh.stop != nil {
		sh.stop()
		sh.stop, sh.ctx = nil, nil
	}
	out := &tailBuffer{max: 4096}
	allocCtx, cancelAlloc, err := newAllocator(context.Background(), exe, out)
	if err != nil {
		return nil, nil, err
	}
	bctx, cancelBrowser := chromedp.NewContext(allocCtx)
	stop := func() { cancelBrowser(); cancelAlloc() }
	if err := started(ctx, func() error { return chromedp.Do(bctx) }, timeout); err != nil {
		stop()
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, (&Page{output: out}).launchError(err)
	}
	sh.ctx, sh.stop, sh.output = bctx, stop, out
	return bctx, out, nil
}
