package jsonread

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// MaxLine bounds one line of a JSON Lines file. A request with a full list
// of 100,000 gaps fits with room to spare; a file without newlines cannot
// make the decoder hold an unbounded token.
const MaxLine = 16 << 20

// LineLimit passes the input through and fails once a line grows past
// MaxLine bytes.
type LineLimit struct {
	R    io.Reader
	line int // line of the next byte, less one
	col  int // bytes of that line passed so far
	err  error
}

// LineTooLong is the error of a line past MaxLine.
type LineTooLong struct{ Line int }

func (e *LineTooLong) Error() string {
	return fmt.Sprintf("line %d is longer than %d MiB", e.Line, MaxLine>>20)
}

func (l *LineLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.R.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			l.col += len(rest)
			break
		}
		if l.col+j > MaxLine {
			l.col += j
			break
		}
		l.line++
		l.col = 0
		rest = rest[j+1:]
	}
	if l.col > MaxLine {
		l.err = &LineTooLong{Line: l.line + 1}
		return n, l.err
	}
	return n, err
}

// LinesSyntax turns a JSON Lines decoder error into an InputError at its
// line: cur is the line of the object being read (0 between objects), so a
// truncated last object is reported on its own line; tooLong says what a
// line over the limit cannot be.
func LinesSyntax(file string, cur int, tooLong string, err error) error {
	var long *LineTooLong
	if errors.As(err, &long) {
		return &format.InputError{File: file, Place: fmt.Sprintf("line %d", long.Line),
			Reason: fmt.Sprintf("the line is longer than %d MiB: %s", MaxLine>>20, tooLong), Err: err}
	}
	var e *pyjson.Error
	if !errors.As(err, &e) {
		return &format.InputError{File: file, Reason: err.Error(), Err: err}
	}
	reason := "malformed JSON: " + e.Msg + fmt.Sprintf(" (byte %d)", e.Offset)
	switch {
	case e.Err != nil:
		reason = e.Msg
	case strings.Contains(e.Msg, "unexpected end of input"):
		reason += " (is the file truncated?)"
	}
	line := e.Line
	if cur > 0 {
		line = cur
	}
	return &format.InputError{File: file, Place: fmt.Sprintf("line %d", line), Reason: reason, Err: err}
}
