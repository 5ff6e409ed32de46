package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress writes notes to stderr and, on a terminal only, a one-line status
// that later notes overwrite (restic's approach: no bar library needed for
// "ingesting 37/120 files").
type progress struct {
	w       io.Writer
	tty     bool
	shown   bool
	last    time.Time
	enabled bool
}

func newProgress(w io.Writer, enabled bool) *progress {
	p := &progress{w: w, enabled: enabled}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// status replaces the status line, at most ten times a second.
func (p *progress) status(s string) {
	if !p.tty || !p.enabled || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.clear()
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	fmt.Fprint(p.w, s)
	p.shown = true
}

// note prints a line that stays.
func (p *progress) note(s string) {
	p.clear()
	fmt.Fprintln(p.w, s)
}

func (p *progress) done() { p.clear() }
