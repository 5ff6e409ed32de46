package pyjson

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// sumOf is the test's reduction: the sum of a list, refusing negatives.
func sumOf(vals []float64) (float64, bool) {
	s := 0.0
	for _, v := range vals {
		if v < 0 {
			return 0, false
		}
		s += v
	}
	return s, true
}

// readLists reads the value of key "l" (an array of number lists) and
// describes it: each list's sum, or "bad" for one sumOf refuses, then the
// tokens after the array, or the error. With parallel, Lists reads from
// item `from` on, and again after each item read one by one.
func readLists(r io.Reader, parallel bool, from, size int) string {
	d := NewDecoderSize(r, 64)
	var out []string
	fail := func(err error) string { return strings.Join(out, " ") + " | error: " + err.Error() }
	for {
		tok, err := d.Next()
		if err != nil {
			return fail(err)
		}
		if tok.Kind == Key && string(tok.Bytes) == "l" {
			break
		}
		if tok.Kind == EOF {
			return "no key"
		}
	}
	if tok, err := d.Next(); err != nil || tok.Kind != ArrayStart {
		return fmt.Sprint("not a list ", tok.Kind, err)
	}
	l := Lists[float64]{Workers: 2, Reduce: sumOf, RangeSize: size}
	for i := 0; ; i++ {
		if parallel && i >= from {
			n, err := l.Read(d, func(s float64) error { out = append(out, fmt.Sprint(s)); return nil })
			if err != nil {
				return fail(err)
			}
			i += n
		}
		tok, err := d.Next()
		if err != nil {
			return fail(err)
		}
		if tok.Kind == ArrayEnd {
			break
		}
		if tok.Kind != ArrayStart {
			out = append(out, tok.Kind.String())
			if err := d.Skip(tok); err != nil {
				return fail(err)
			}
			continue
		}
		var vals []float64
		bad := false
		for {
			e, err := d.Next()
			if err != nil {
				return fail(err)
			}
			if e.Kind == ArrayEnd {
				break
			}
			v, err := e.Float()
			if err != nil {
				bad = true
				if err := d.Skip(e); err != nil {
					return fail(err)
				}
				continue
			}
			vals = append(vals, v)
		}
		if s, ok := sumOf(vals); ok && !bad {
			out = append(out, fmt.Sprint(s))
		} else {
			out = append(out, "bad")
		}
	}
	for {
		tok, err := d.Next()
		if err != nil {
			return fail(err)
		}
		out = append(out, fmt.Sprintf("%s@%d:%d", tok.Kind, tok.Offset, tok.Line))
		if tok.Kind == EOF {
			return strings.Join(out, " ")
		}
	}
}

// TestListsSameAsNext: whatever the layout, damage or reader, Lists gives
// the same lists, and leaves the decoder where Next then reads the same
// tokens and errors (offset and line), as Next alone.
func TestListsSameAsNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString(`{"a": 1, "l": [`)
	for i := range 300 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		for k := range rng.IntN(12) {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%g", rng.Float64()/float64(1+rng.IntN(1000)))
		}
		b.WriteString("]")
	}
	b.WriteString(`], "z": [[1], [2]], "s": "], ["}` + "\n")
	good := b.String()
	start := strings.Index(good, `"l": [`) + 7
	end := strings.Index(good, `]], "z"`)
	inputs := []string{good, strings.ReplaceAll(good, ", ", ","), strings.Replace(good, "], [", "],\n [", 5),
		`{"l": []}`, `{"l": [[]]}`, `{"l": [[], [1e999], [-0.5], [NaN], ["x"], [[1]], {}, [1,2]`}
	damages := []string{"x", "\n", "-", "NaN, ", "]", "[", `"`, "", "  ", "1e5", "{", "\\"}
	for k := range 50 {
		at := start + rng.IntN(end-start)
		d := damages[k%len(damages)]
		inputs = append(inputs, good[:at]+d+good[at+1:])
		if k%10 == 0 {
			inputs = append(inputs, good[:at])
		}
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"bytes":    func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
		"fails": func(s string) io.Reader {
			return io.MultiReader(strings.NewReader(s[:len(s)*2/3]), iotest.ErrReader(errors.New("disk gone")))
		},
		"timeout":   func(s string) io.Reader { return iotest.TimeoutReader(strings.NewReader(s)) },
		"zero-read": func(s string) io.Reader { return io.MultiReader(strings.NewReader(s[:len(s)/2]), zeroReader{}) },
		"in place":  func(s string) io.Reader { return NewInput([]byte(s)) },
	}
	for i, in := range inputs {
		for name, rd := range readers {
			want := readLists(rd(in), false, 0, 0)
			for _, from := range []int{0, 7} {
				for _, size := range []int{8, 333, 0} {
					if got := readLists(rd(in), true, from, size); got != want {
						t.Fatalf("input %d (%q...), reader %s, from %d, ranges of %d:\n got %s\nwant %s", i, in[:min(len(in), 60)], name, from, size, got, want)
					}
					// An Input is read, never written: Lists gives back
					// what it read ahead to the decoder's own buffer.
					if b := []byte(in); readLists(NewInput(b), true, from, size) != "" && string(b) != in {
						t.Fatalf("input %d (%q...), from %d, ranges of %d: reading it in place changed it to %q...", i, in[:min(len(in), 60)], from, size, b[:min(len(b), 60)])
					}
				}
			}
		}
	}
}

// zeroReader reads nothing, forever.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// TestListsTakesTheLists: on json.dump's layout Lists consumes the lists
// itself (the comparison above would pass if it never did).
func TestListsTakesTheLists(t *testing.T) {
	in := `{"l": [` + strings.Repeat("[0.5, 1.25], ", 999) + `[2]], "k": 1}`
	d := NewDecoder(strings.NewReader(in))
	for range 3 {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	l := Lists[float64]{Workers: 2, Reduce: sumOf, RangeSize: 100}
	sum := 0.0
	n, err := l.Read(d, func(s float64) error { sum += s; return nil })
	if err != nil || n != 1000 || sum != 999*1.75+2 {
		t.Fatalf("read %d lists summing to %v, err %v", n, sum, err)
	}
	if tok, err := d.Next(); err != nil || tok.Kind != ArrayEnd || tok.Offset != int64(len(in)-10) {
		t.Fatalf("after the lists: %+v %v", tok, err)
	}
}
