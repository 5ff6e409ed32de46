// Package vllmconsole reads the "Serving Benchmark Result" blocks that
// vllm bench serve prints to stdout, and the pages and logs that hold them:
// a terminal log, a Markdown write-up pasting several blocks in code
// fences. One block is one run, found at its header's line. A page can
// mix layouts that share vLLM's header: SGLang's bench_serving prints its
// own (ingest/format/sglangconsole) and GPUStack renders guidellm results
// in a look-alike (ingest/format/gpustackconsole); each block is read by
// the interpreter of its layout and keeps its own format id. The lines a
// log prints before a block (the client's Namespace, vLLM's load lines)
// are the block's provenance (preamble.go).
//
// The three format ids share this one walk, so a page re-parses to the
// same runs whichever id it was ingested with.
package vllmconsole

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/gpustackconsole"
	"github.com/benchledger/benchledger/ingest/format/sglangconsole"
	"github.com/benchledger/benchledger/ingest/textread"
)

// Title is the header of the result block vllm bench serve prints (SGLang
// and GPUStack print it too).
const Title = "Serving Benchmark Result"

// ID is vLLM's console format id.
const ID = "vllm-serve-console"

// A layout is one tool's way of filling the block.
type layout struct {
	id        string
	describe  string
	tell      func(lines []textread.Line) int // line of the sign of this layout, 0 when none
	interpret func(name string, start int, lines []textread.Line) (*benchrun.Run, *format.InputError)
}

// layouts are tried in order; vLLM's, which has no sign of its own, last.
var layouts = []layout{
	{gpustackconsole.ID, gpustackconsole.Describe, gpustackconsole.Tell, gpustackconsole.Interpret},
	{sglangconsole.ID, sglangconsole.Describe, sglangconsole.Tell, sglangconsole.Interpret},
	{ID, "vllm bench serve console result block", func([]textread.Line) int { return 1 }, interpretVLLM},
}

func layoutOf(lines []textread.Line) layout {
	for _, l := range layouts {
		if l.tell(lines) > 0 {
			return l
		}
	}
	return layouts[len(layouts)-1]
}

// page is the parser of one layout's format id; every one reads every
// block of the page.
type page struct{ l layout }

// New returns the parser for vLLM's console result blocks.
func New() format.Parser { return page{layouts[2]} }

// NewSGLang returns the parser for SGLang bench_serving's printed summary.
func NewSGLang() format.Parser { return page{layouts[1]} }

// NewGPUStack returns the parser for GPUStack's rendering of guidellm
// results as a vLLM-looking block.
func NewGPUStack() format.Parser { return page{layouts[0]} }

func (p page) ID() string       { return p.l.id }
func (p page) Describe() string { return p.l.describe }

// Sniff looks for a block header anywhere in the head whose block is of
// this parser's layout (vLLM's parser takes any block).
func (p page) Sniff(name string, head []byte) bool {
	if !bytes.Contains(head, []byte(Title)) {
		return false
	}
	var block []textread.Line
	open := false
	n := 0
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		n++
		t := strings.TrimSpace(string(line))
		switch {
		case isConsoleHeader(t):
			if p.l.id == ID {
				return true
			}
			open, block = true, block[:0]
		case !open:
		case isConsoleClosing(t):
			return layoutOf(block).id == p.l.id
		default:
			block = append(block, textread.Line{N: n, Text: t})
		}
	}
	return open && layoutOf(block).id == p.l.id
}

// isConsoleHeader matches "=== Serving Benchmark Result ===" with any number
// of "=" and any surrounding space (Markdown indents pasted blocks).
func isConsoleHeader(line string) bool {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "=") || !strings.HasSuffix(t, "=") {
		return false
	}
	return strings.TrimSpace(strings.Trim(t, "=")) == Title
}

// isConsoleClosing matches the closing rule, 50 "=" in vLLM; ten or more
// are accepted so that a hand-trimmed copy still closes.
func isConsoleClosing(t string) bool {
	return len(t) >= 10 && strings.Trim(t, "=") == ""
}

// Parse reads every block of the file, each with the interpreter of its
// layout. A bad block (a bad line, a contradiction with the lines before
// it, a cut-off copy) is that block's rejection, at the place of the
// problem and with its ordinal; the walk goes on to the next block.
func (page) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		block   []textread.Line
		pre     preamble
		cmds    commands
		start   int // header line of the open block; 0 when none is open
		n       int
		ordinal int
	)
	// done hands on the open block's run, or its rejection, and closes it.
	done := func(run *benchrun.Run, ierr *format.InputError) error {
		cmds.into(&pre)
		if ierr == nil {
			ierr = pre.apply(name, run)
		}
		if ierr != nil {
			ierr.Place = fmt.Sprintf("ordinal %d: %s", ordinal, ierr.Place)
			if at := textread.At(start); !strings.HasSuffix(ierr.Place, at) {
				ierr.Reason += " (in the block at " + at + ")"
			}
			run = format.Reject(ordinal, ierr)
		}
		pre.reset()
		run.Ordinal = ordinal
		ordinal++
		start = 0
		return emit(run)
	}
	truncated := func(msgf string, args ...any) error {
		return done(nil, format.Errorf(name, textread.At(start), msgf, args...))
	}
	for {
		line, err := textread.ReadLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		if line == nil && errors.Is(err, io.EOF) {
			break
		}
		n++
		if n%4096 == 0 {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
		}
		s := string(line)
		if n == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		t := strings.TrimSpace(s)
		switch {
		case isConsoleHeader(t):
			if start > 0 {
				if err := truncated("truncated block: no closing ===== line before the next block at line %d", n); err != nil {
					return err
				}
			}
			start, block = n, block[:0]
		case start == 0:
			// Text around the blocks: prose, commands, logs. What it says of
			// the next runs is kept.
			pre.line(textread.Line{N: n, Text: s})
			cmds.line(textread.Line{N: n, Text: s})
		case isConsoleClosing(t):
			if err := done(layoutOf(block).interpret(name, start, block)); err != nil {
				return err
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			// A Markdown fence closes the pasted copy: the block was cut.
			if err := truncated("truncated block: the code fence at line %d ends it before its closing ===== line", n); err != nil {
				return err
			}
			cmds.line(textread.Line{N: n, Text: s})
		default:
			block = append(block, textread.Line{N: n, Text: s})
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if start > 0 {
		if err := truncated("truncated block: the file ends before its closing ===== line"); err != nil {
			return err
		}
	}
	if ordinal == 0 {
		return format.Errorf(name, "", "no %q block found", Title)
	}
	return nil
}
