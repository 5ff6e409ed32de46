package pyjson

import (
	"bytes"
	"io"
	"strconv"
	"unsafe"
)

// Lists reads the elements of a long array of number lists — the
// per-request lists of a benchmark file, [[0.01, 0.02], [0.03], ...], which
// hold most of its bytes and numbers — on several goroutines.
//
// Python writes such an array with ", " between items and no line breaks,
// so the boundaries between its elements ("], [") are found by a cheap scan.
// Read cuts the input at those boundaries into ranges, tokenises the ranges
// on Workers goroutines at once, and hands the reduced lists back in input
// order. A range is tokenised by a strict subset of the grammar (brackets,
// numbers, ", " or ","), and only ever accepted when the range before it
// ended exactly where it begins, so a cut in the wrong place (inside a
// string, past the end of the array) is never taken for a boundary. At the
// first byte outside that subset, or a list that Reduce refuses, Read stops
// before that list and leaves the decoder there: Next then reads it, and
// reports whatever is wrong with it, exactly as it would have without Read
// (same message, offset and line). The bytes read ahead are given back to
// the decoder, so nothing is read twice from its reader.
type Lists[R any] struct {
	// Workers is how many goroutines tokenise ranges; below 2 Read does
	// nothing.
	Workers int
	// Reduce turns one list's numbers, in order, into its result; false
	// leaves the list to Next (the caller's serial reader then reports why).
	// It runs on the worker goroutines.
	Reduce func(vals []float64) (R, bool)
	// RangeSize is the size of one range's buffer (default 256 KiB); a list
	// longer than that stops Read, and Next reads it. Tests make it small.
	RangeSize int
}

const defaultRangeSize = 256 << 10

type listRange[R any] struct {
	data     []byte // the range: from a list's '[' up to the next range's '['
	base     int64  // input offset of data[0]
	results  []R
	end      int  // data index just past the last accepted list's ']'
	complete bool // every list of the range was accepted, up to its end
	done     chan struct{}
}

// Read consumes as many elements as it can of the array the decoder is
// in, which must be where an element or the array's end may come next
// (just after '[' or after an element), and calls emit with each list's
// result in order. It returns how many lists it consumed; 0 when the
// decoder is not where Read can start (Next is then called as usual). An
// error from emit is returned as it is.
func (l *Lists[R]) Read(d *Decoder, emit func(R) error) (int, error) {
	if l.Workers < 2 || d.err != nil || d.capOn || len(d.stack) == 0 || d.stack[len(d.stack)-1] != '[' ||
		len(d.stack) >= d.maxDepth {
		return 0, nil
	}
	p := d.pos
	switch d.state {
	case stArrayFirst:
	case stArrayNext:
		if p >= d.end || d.buf[p] != ',' {
			return 0, nil
		}
		p++
		if p < d.end && d.buf[p] == ' ' {
			p++
		}
	default:
		return 0, nil
	}
	if p >= d.end || d.buf[p] != '[' {
		return 0, nil
	}

	w := l.Workers
	jobs := make(chan *listRange[R], w)
	for range w {
		go func() {
			var vals []float64
			for r := range jobs {
				vals = l.scan(r, vals)
				close(r.done)
			}
		}()
	}
	// Ranges once collected are reused, buffers and all: at most 2w+1
	// are in flight, so memory is bounded whatever the input's length.
	// Two ranges a worker (not one) keep the workers busy while the
	// oldest range's results are handed on: the large file's ingest took
	// 0.96x the time with them.
	size := l.RangeSize
	if size <= 0 {
		size = defaultRangeSize
	}
	var free []*listRange[R]
	newRange := func(n int) *listRange[R] {
		r := &listRange[R]{}
		if k := len(free); k > 0 {
			r, free = free[k-1], free[:k-1]
		}
		if cap(r.data) < n {
			r.data = make([]byte, 0, max(n, size))
		}
		r.data, r.results, r.end, r.complete = r.data[:0], r.results[:0], 0, false
		r.done = make(chan struct{})
		return r
	}

	// gap holds the bytes from resume (the end of the last accepted list,
	// or where the decoder stood) to the start of the next range.
	resume, resumeState := d.base+int64(d.pos), d.state
	gap := bytes.Clone(d.buf[d.pos:p])
	carry := bytes.Clone(d.buf[p:d.end])
	carryBase := d.base + int64(p)
	eof := d.atEOF
	var readErr error
	var queue []*listRange[R]
	stop := false
	n := 0
	var emitErr error
	var partial *listRange[R] // the range Read stopped in
	for {
		for !stop && len(queue) <= 2*w && !(eof && len(carry) == 0) {
			r := newRange(2 * len(carry))
			buf := append(r.data, carry...)
			for idle := 0; len(buf) < cap(buf) && !eof; {
				k, err := d.r.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+k]
				if err == io.EOF {
					eof = true
				} else if err != nil {
					readErr = err
				} else if k == 0 && idle > 100 {
					readErr = io.ErrNoProgress // as fill reports it
				}
				if readErr != nil {
					break
				}
				if k == 0 {
					idle++
				}
			}
			cut := len(buf)
			if !eof {
				cut = lastListStart(buf)
			}
			if readErr != nil || cut <= 0 {
				// A read error, or a list longer than the buffer: what is
				// read so far goes back to the decoder.
				carry, stop = buf, true
				break
			}
			r.data, r.base = buf[:cut], carryBase
			carry = append(carry[:0], buf[cut:]...)
			carryBase += int64(cut)
			jobs <- r
			queue = append(queue, r)
		}
		if len(queue) == 0 || stop && partial != nil {
			break
		}
		r := queue[0]
		queue = queue[1:]
		<-r.done
		for _, v := range r.results {
			if emitErr = emit(v); emitErr != nil {
				break
			}
			n++
		}
		if emitErr != nil {
			partial, stop = r, true
			break
		}
		if len(r.results) > 0 {
			resume, resumeState = r.base+int64(r.end), stArrayNext
			gap = append(gap[:0], r.data[r.end:]...)
		}
		if !r.complete {
			partial, stop = r, true
			break
		}
		free = append(free, r)
	}
	close(jobs)
	for _, r := range queue {
		<-r.done // the workers are done with its bytes
	}
	if emitErr != nil {
		d.err = emitErr // the decoder is not in step any more
		return n, emitErr
	}

	// Give back to the decoder what lies beyond the last accepted list.
	var segs [][]byte
	if partial != nil && len(partial.results) > 0 {
		segs = append(segs, partial.data[partial.end:])
	} else {
		segs = append(segs, gap)
		if partial != nil {
			segs = append(segs, partial.data)
		}
	}
	for _, r := range queue {
		segs = append(segs, r.data)
	}
	segs = append(segs, carry)
	end := readErr
	if eof {
		end = io.EOF
	}
	if old, ok := d.r.(*replay); ok {
		// Bytes read ahead by an earlier Read that were not reached yet
		// follow the ones read now.
		segs = append(segs, old.segs...)
		d.r = old.r
		if end == nil {
			end = old.end
		}
	}
	d.r = &replay{segs: segs, r: d.r, end: end}
	d.base, d.pos, d.end, d.tokStart = resume, 0, 0, 0
	d.atEOF = false
	d.state = resumeState
	return n, nil
}

// lastListStart returns the index of the '[' of the last "], [" (or
// "],[") in b, or -1.
func lastListStart(b []byte) int {
	if i := bytes.LastIndex(b, []byte("], [")); i >= 0 {
		return i + 3
	}
	if i := bytes.LastIndex(b, []byte("],[")); i >= 0 {
		return i + 2
	}
	return -1
}

// scan tokenises one range with the strict grammar, from its first '['.
// vals is scratch space, returned for reuse.
func (l *Lists[R]) scan(r *listRange[R], vals []float64) []float64 {
	b := r.data
	i := 0
	for {
		if i >= len(b) || b[i] != '[' {
			return vals
		}
		q := i + 1
		vals = vals[:0]
		if q < len(b) && b[q] == ']' {
			q++
		} else {
			for {
				if q >= len(b) {
					return vals
				}
				c := b[q]
				if !isDigit(c) && !(c == '-' && q+1 < len(b) && isDigit(b[q+1])) {
					return vals
				}
				v, k, ok := number(b[q:])
				if !ok {
					// The range ends at a '[', so a number inside it is
					// never cut off; one at the very end of the input is
					// left to Next.
					var st scanStatus
					if k, st, _ = scanNumber(b[q:], false); st != scanDone {
						return vals
					}
					if v, ok = parseFloat(b[q : q+k]); !ok {
						var err error
						if v, err = strconv.ParseFloat(unsafe.String(&b[q], k), 64); err != nil {
							return vals
						}
					}
				}
				vals = append(vals, v)
				q += k
				if b[q] == ']' {
					q++
					break
				}
				if b[q] != ',' {
					return vals
				}
				q++
				if q < len(b) && b[q] == ' ' {
					q++
				}
			}
		}
		res, ok := l.Reduce(vals)
		if !ok {
			return vals
		}
		r.results = append(r.results, res)
		r.end = q
		if q >= len(b) || b[q] != ',' {
			return vals
		}
		q++
		if q < len(b) && b[q] == ' ' {
			q++
		}
		if q == len(b) {
			r.complete = true
			return vals
		}
		i = q
	}
}

// replay is the decoder's reader after Read: the bytes Read read ahead and
// did not use, then the reader itself (or how it ended, when Read saw the
// end).
type replay struct {
	segs [][]byte
	r    io.Reader
	end  error // io.EOF or a read error already met; nil: read r
}

func (p *replay) Read(b []byte) (int, error) {
	for len(p.segs) > 0 {
		s := p.segs[0]
		if len(s) == 0 {
			p.segs = p.segs[1:]
			continue
		}
		n := copy(b, s)
		p.segs[0] = s[n:]
		return n, nil
	}
	if p.end != nil {
		return 0, p.end
	}
	return p.r.Read(b)
}
