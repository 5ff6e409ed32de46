package ingest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitFor reports whether ch delivers within a second.
func waitFor(ch <-chan string) (string, bool) {
	select {
	case s := <-ch:
		return s, true
	case <-time.After(time.Second):
		return "", false
	}
}

// TestCoresWriterFirst: a core given back goes to the waiting writer
// before the preparing files that waited longer; the core left over after
// the writer's goes to them; a writer that gives up waiting (its context
// ended) holds up no one.
func TestCoresWriterFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCores(2)
	if err := c.take(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := c.take(ctx, false); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 4)
	for _, name := range []string{"preparer 1", "preparer 2"} {
		go func() {
			if c.take(ctx, false) == nil {
				got <- name
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // the preparers wait first
	go func() {
		if c.take(ctx, true) == nil {
			got <- "writer"
		}
	}()
	waitingWriter(t, c)
	c.give()
	if who, ok := waitFor(got); !ok || who != "writer" {
		t.Fatalf("the core given back went to %q, want the writer", who)
	}
	c.give()
	if who, ok := waitFor(got); !ok || who == "writer" {
		t.Fatalf("the next core went to %q, want a preparer", who)
	}
	select {
	case who := <-got:
		t.Fatalf("%s took a core none gave back", who)
	case <-time.After(20 * time.Millisecond):
	}

	// A writer whose context ends while it waits leaves the next core to
	// the preparer still waiting.
	wctx, cancel := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() { werr <- c.take(wctx, true) }()
	waitingWriter(t, c)
	cancel()
	if err := <-werr; !errors.Is(err, context.Canceled) {
		t.Fatalf("the writer's take after its context ended: %v", err)
	}
	c.give()
	if who, ok := waitFor(got); !ok || who == "writer" {
		t.Fatalf("after the writer gave up, the core went to %q, want the other preparer", who)
	}
}

// waitingWriter returns once the writer waits for a core.
func waitingWriter(t *testing.T, c *cores) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		c.mu.Lock()
		w := c.writer
		c.mu.Unlock()
		if w {
			return
		}
	}
	t.Fatal("the writer never waited")
}

// TestCoresContextEnds: a preparing file that waits for a core stops when
// the ingest's context ends.
func TestCoresContextEnds(t *testing.T) {
	t.Parallel()
	c := newCores(1)
	if err := c.take(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.take(ctx, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("take with no core free and the context ended: %v", err)
	}
}
