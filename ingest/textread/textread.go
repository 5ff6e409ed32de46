// Package textread holds what the parsers of console reports (vllm bench
// serve blocks, trtllm-bench reports, GPUStack pages) share: bounded line
// reading and the "line N" place of an InputError.
package textread

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// MaxLine bounds how much of one line is kept: report lines are short, and
// a log may hold huge lines (progress bars redrawn with \r).
const MaxLine = 64 << 10

// Line is one line of a report with its place.
type Line struct {
	N    int // 1-based line number in the file
	Text string
}

// ReadLine returns the next line without its newline, at most MaxLine bytes
// of it; nil and io.EOF at the end.
func ReadLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(out) < MaxLine {
			room := MaxLine - len(out)
			out = append(out, frag[:min(len(frag), room)]...)
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(out, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(out) == 0 {
				return nil, io.EOF
			}
			return out, io.EOF
		default:
			return nil, err
		}
	}
}

// At is the place "line n".
func At(n int) string { return "line " + strconv.Itoa(n) }
