package ingest

import (
	"context"
	"sync"
)

// cores hands the cores an ingest may use to the files being prepared and
// to the one writer, the writer first. The writer paces an ingest of many
// files: while it waits for a core, every file behind it waits too, where
// a file being prepared only adds to what is ready ahead of it. Given a
// core each in turn, the writer of 1,000 ordinary files often waited
// behind two preparing files; taking the next free core before any
// preparing file does, the ingest took 0.92x its wall time (median of 10
// alternating pairs).
type cores struct {
	mu      sync.Mutex
	all     int // the cores handed out
	free    int
	writer  bool          // the writer waits for a core
	changed chan struct{} // closed, and replaced, when free or writer change
}

func newCores(n int) *cores { return &cores{all: n, free: n, changed: make(chan struct{})} }

// take waits for a core; the writer (writer true, one goroutine) before
// any other. It fails only when ctx ends first.
func (c *cores) take(ctx context.Context, writer bool) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if writer {
		c.writer = true
		defer func() {
			// Taken or given up, the writer waits no more: the preparing
			// files may take what is left.
			c.writer = false
			c.wake()
		}()
	}
	for c.free == 0 || !writer && c.writer {
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			err = ctx.Err()
		}
		c.mu.Lock()
		if err != nil {
			return err
		}
	}
	c.free--
	return nil
}

// takeOthers has the writer, which holds one core, take all the others
// too, so that no file is being prepared; the function returned gives
// them back.
func (c *cores) takeOthers(ctx context.Context) (giveBack func(), err error) {
	taken := 0
	giveBack = func() {
		for ; taken > 0; taken-- {
			c.give()
		}
	}
	for taken < c.all-1 {
		if err := c.take(ctx, true); err != nil {
			giveBack()
			return nil, err
		}
		taken++
	}
	return giveBack, nil
}

// give returns a core taken.
func (c *cores) give() {
	c.mu.Lock()
	c.free++
	c.wake()
	c.mu.Unlock()
}

// wake tells the waiting goroutines to look again (c.mu held).
func (c *cores) wake() {
	close(c.changed)
	c.changed = make(chan struct{})
}
