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

// TestCoresTakeOthers: the writer, holding one core, takes the others
// once the files being prepared give theirs back, before any file waiting
// to be prepared; giving them back lets those go on.
func TestCoresTakeOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCores(3)
	for range 2 { // the writer's core and a file being prepared
		if err := c.take(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, 2)
	var giveBack func()
	go func() {
		var err error
		if giveBack, err = c.takeOthers(ctx); err == nil {
			got <- "writer"
		}
	}()
	// The preparer asks once the writer waits (it took the free core and
	// wants the one still being prepared): a fixed sleep let a busy
	// machine start the preparer first, and it took the free core.
	waitingWriter(t, c)
	go func() {
		if c.take(ctx, false) == nil {
			got <- "preparer"
		}
	}()
	if s, ok := waitFor(got); ok {
		t.Fatalf("%s went on while a file was still being prepared", s)
	}
	c.give() // that file is prepared
	if s, ok := waitFor(got); !ok || s != "writer" {
		t.Fatalf("after the file was prepared: %q went on, want the writer", s)
	}
	if s, ok := waitFor(got); ok {
		t.Fatalf("%s went on while the writer held every core", s)
	}
	giveBack()
	if s, ok := waitFor(got); !ok || s != "preparer" {
		t.Fatalf("after the writer gave its cores back: %q, want the preparer", s)
	}
}
