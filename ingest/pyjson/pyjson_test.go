package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// bufferSizes exercise refills at every position: the smallest buffer
// splits almost every token, the default splits none in these tests.
var bufferSizes = []int{16, 17, 23, 64, DefaultBufferSize}

// render lists the tokens of input compactly ("{ k:a n:1 }"), or the error.
func render(input string, size int) (string, error) {
	d := NewDecoderSize(strings.NewReader(input), size)
	var out []string
	for {
		tok, err := d.Next()
		if err != nil {
			return strings.Join(out, " "), err
		}
		switch tok.Kind {
		case EOF:
			return strings.Join(out, " "), nil
		case ObjectStart:
			out = append(out, "{")
		case ObjectEnd:
			out = append(out, "}")
		case ArrayStart:
			out = append(out, "[")
		case ArrayEnd:
			out = append(out, "]")
		case Key:
			out = append(out, "k:"+string(tok.Bytes))
		case String:
			out = append(out, "s:"+string(tok.Bytes))
		case Number:
			out = append(out, "n:"+string(tok.Bytes))
		case True:
			out = append(out, "true")
		case False:
			out = append(out, "false")
		case Null:
			out = append(out, "null")
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"whitespace only", " \n\t\r\n", ""},
		{"object", `{"a": 1, "b": [true, false, null], "c": {}}`, "{ k:a n:1 k:b [ true false null ] k:c { } }"},
		{"python specials", `[NaN, Infinity, -Infinity, -0.0, 1e-05, 2.5E+16]`, "[ n:NaN n:Infinity n:-Infinity n:-0.0 n:1e-05 n:2.5E+16 ]"},
		{"sequence by newline", "{\"a\": 1}\n{\"a\": 2}", "{ k:a n:1 } { k:a n:2 }"},
		{"sequence adjacent", `{}[]"x"`, `{ } [ ] s:x`},
		{"scalars at top", "1 2.5 \"s\" true", "n:1 n:2.5 s:s true"},
		{"escapes", `["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude00"]`, "[ s:a\"b\\c/d\b\f\n\r\t s:é中 s:😀 ]"},
		{"lone surrogate", `"\udc80x"`, "s:\ufffdx"},
		{"raw utf-8", `"naïve 日本"`, "s:naïve 日本"},
		{"indent 4", "[\n    {\n        \"a\": 1\n    }\n]\n", "[ { k:a n:1 } ]"},
		{"bom", "\ufeff{}", "{ }"},
		{"nested arrays", `[[0.1, 0.2], [], [3]]`, "[ [ n:0.1 n:0.2 ] [ ] [ n:3 ] ]"},
		{"long string", `"` + strings.Repeat("abcdefgh", 40) + `"`, "s:" + strings.Repeat("abcdefgh", 40)},
	}
	for _, tc := range tests {
		for _, size := range bufferSizes {
			t.Run(tc.name+"/buf"+strconv.Itoa(size), func(t *testing.T) {
				got, err := render(tc.in, size)
				if err != nil {
					t.Fatalf("error %v (tokens so far %q)", err, got)
				}
				if got != tc.want {
					t.Fatalf("got  %q\nwant %q", got, tc.want)
				}
			})
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, in string
		offset   int64
		line     int
		msg      string // substring of the message
	}{
		{"truncated array", `[1, 2`, 5, 1, "unexpected end of input inside array"},
		{"truncated object", "{\"a\": 1,\n", 9, 2, "unexpected end of input inside object"},
		{"truncated after key", `{"a"`, 4, 1, "unexpected end of input"},
		{"truncated string", `["abc`, 5, 1, "unexpected end of input inside string"},
		{"truncated escape", `["ab\`, 4, 1, "end of input inside string escape"},
		{"truncated unicode escape", `["\u12`, 2, 1, `end of input inside \u escape`},
		{"bad unicode escape", `"\u12x4"`, 5, 1, `expected a hex digit`},
		{"bad escape", `"\x"`, 1, 1, `invalid escape \x`},
		{"control char", "\"a\tb\"", 2, 1, "control character 0x09 in string"},
		{"invalid utf-8", "\"a\xffb\"", 2, 1, "invalid UTF-8"},
		{"truncated utf-8", "\"a\xe6\x97", 2, 1, "invalid UTF-8"},
		{"missing comma", `[1 2]`, 3, 1, "expected ',' or ']'"},
		{"trailing comma", `[1,]`, 3, 1, "unexpected ']' where a value should start"},
		{"trailing comma object", `{"a":1,}`, 7, 1, "expected a string key after ','"},
		{"missing colon", `{"a" 1}`, 5, 1, "expected ':'"},
		{"unquoted key", `{a: 1}`, 1, 1, "expected a string key or '}'"},
		{"mismatched", `[}`, 1, 1, "where a value should start"},
		{"leading zero in array", `[012]`, 2, 1, "invalid number: unexpected '1'"},
		{"leading zero at top", `012`, 1, 1, "invalid number: unexpected '1'"},
		{"bad fraction", `[1.]`, 3, 1, "expected a digit after '.'"},
		{"bad exponent", `[1e+]`, 4, 1, "expected a digit in the exponent"},
		{"truncated number", `-`, 1, 1, "end of input inside number"},
		{"truncated exponent", `1e`, 2, 1, "end of input inside number"},
		{"bad literal", `[nul]`, 4, 1, `expected "null"`},
		{"nan lowercase", `[nan]`, 2, 1, `expected "null"`},
		{"literal run-on", `truex`, 4, 1, "after true"},
		{"truncated -Infinity", `[-Infin`, 7, 1, "inside \"-Infinity\""},
		{"binary garbage", "\x00\x01\x02", 0, 1, "unexpected byte 0x00"},
		{"garbage after value", "{}\n\x7f", 3, 2, "unexpected byte 0x7f"},
		{"close at top", `]`, 0, 1, "unexpected ']'"},
		{"line counting", "[\n1,\n2,\n,]", 8, 4, "where a value should start"},
	}
	for _, tc := range tests {
		for _, size := range bufferSizes {
			t.Run(tc.name+"/buf"+strconv.Itoa(size), func(t *testing.T) {
				_, err := render(tc.in, size)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("want *Error, got %v", err)
				}
				if e.Offset != tc.offset || e.Line != tc.line || !strings.Contains(e.Msg, tc.msg) {
					t.Fatalf("got %q (offset %d line %d), want offset %d line %d containing %q", err, e.Offset, e.Line, tc.offset, tc.line, tc.msg)
				}
				if want := "byte " + strconv.FormatInt(tc.offset, 10) + " (line " + strconv.Itoa(tc.line) + "): "; !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("message %q does not start with %q", err, want)
				}
			})
		}
	}
}

func TestErrorIsSticky(t *testing.T) {
	d := NewDecoder(strings.NewReader(`[1 x`))
	var first error
	for range 5 {
		_, err := d.Next()
		if err != nil && first == nil {
			first = err
		}
		if first != nil && err != first {
			t.Fatalf("after an error Next returned %v, want the same error", err)
		}
	}
	if first == nil {
		t.Fatal("no error")
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	_, err := render(deep, DefaultBufferSize)
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than 512 levels") {
		t.Fatalf("got %v", err)
	}
	ok := strings.Repeat("[", 512) + strings.Repeat("]", 512)
	if _, err := render(ok, 64); err != nil {
		t.Fatalf("512 levels: %v", err)
	}
	d := NewDecoder(strings.NewReader(`[[[1]]]`))
	d.SetMaxDepth(2)
	var e error
	for e == nil {
		var tok Token
		if tok, e = d.Next(); tok.Kind == EOF && e == nil {
			t.Fatal("depth 3 accepted with limit 2")
		}
	}
}

func TestTokenLimit(t *testing.T) {
	huge := `["` + strings.Repeat("x", 5000) + `"]`
	d := NewDecoderSize(strings.NewReader(huge), 64)
	d.SetMaxToken(1024)
	d.Next()
	_, err := d.Next()
	if err == nil || !strings.Contains(err.Error(), "longer than 1024 bytes") {
		t.Fatalf("got %v", err)
	}
	// Skip streams the same string in a 64-byte buffer.
	d = NewDecoderSize(strings.NewReader(huge), 64)
	d.SetMaxToken(1024)
	first, _ := d.Next()
	if err := d.Skip(first); err != nil {
		t.Fatal(err)
	}
	if len(d.buf) != 64 {
		t.Fatalf("skip grew the buffer to %d", len(d.buf))
	}
}

func TestPositions(t *testing.T) {
	in := "{\"a\": [1, 22],\n \"b\": \"x\"}\n[NaN]"
	d := NewDecoderSize(strings.NewReader(in), 16)
	type pos struct {
		kind   Kind
		offset int64
		line   int
	}
	want := []pos{{ObjectStart, 0, 1}, {Key, 1, 1}, {ArrayStart, 6, 1}, {Number, 7, 1}, {Number, 10, 1},
		{ArrayEnd, 12, 1}, {Key, 16, 2}, {String, 21, 2}, {ObjectEnd, 24, 2}, {ArrayStart, 26, 3},
		{Number, 27, 3}, {ArrayEnd, 30, 3}, {EOF, 31, 3}}
	for i, w := range want {
		tok, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tok.Kind != w.kind || tok.Offset != w.offset || tok.Line != w.line {
			t.Fatalf("token %d: got %v at %d line %d, want %v at %d line %d", i, tok.Kind, tok.Offset, tok.Line, w.kind, w.offset, w.line)
		}
	}
}

func TestNumbers(t *testing.T) {
	d := NewDecoder(strings.NewReader(`[0.1, -2, 1e308, 1e999, NaN, -Infinity, 12, 9223372036854775807, 9223372036854775808, -5, 1.5]`))
	d.Next()
	next := func() Token {
		tok, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if v, err := next().Float(); v != 0.1 || err != nil {
		t.Errorf("0.1: %v %v", v, err)
	}
	if v, err := next().Float(); v != -2 || err != nil {
		t.Errorf("-2: %v %v", v, err)
	}
	if v, err := next().Float(); v != 1e308 || err != nil {
		t.Errorf("1e308: %v %v", v, err)
	}
	if _, err := next().Float(); err == nil {
		t.Errorf("1e999: no range error")
	}
	if tok := next(); !tok.NonFinite() {
		t.Errorf("NaN not non-finite")
	} else if v, _ := tok.Float(); !math.IsNaN(v) {
		t.Errorf("NaN: %v", v)
	}
	if tok := next(); !tok.NonFinite() {
		t.Errorf("-Infinity not non-finite")
	} else if v, _ := tok.Float(); !math.IsInf(v, -1) {
		t.Errorf("-Infinity: %v", v)
	}
	if v, err := next().Int(); v != 12 || err != nil {
		t.Errorf("12: %v %v", v, err)
	}
	if v, err := next().Int(); v != math.MaxInt64 || err != nil {
		t.Errorf("maxint: %v %v", v, err)
	}
	if _, err := next().Int(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("maxint+1: %v", err)
	}
	if v, err := next().Int(); v != -5 || err != nil {
		t.Errorf("-5: %v %v", v, err)
	}
	if _, err := next().Int(); err == nil {
		t.Errorf("1.5 as int: no error")
	}
}

func TestSkipAndCapture(t *testing.T) {
	in := `{"keep": {"x": [1, 2, {"y": "a\"b"}], "z": NaN}, "big": [` + strings.Repeat(`"0123456789", `, 100) + `1], "n": 7, "s": "str"}`
	for _, size := range bufferSizes {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			d := NewDecoderSize(strings.NewReader(in), size)
			d.Next()
			got := map[string]string{}
			sizes := map[string]int64{}
			for {
				k, err := d.Next()
				if err != nil {
					t.Fatal(err)
				}
				if k.Kind == ObjectEnd {
					break
				}
				name := k.Text()
				v, err := d.Next()
				if err != nil {
					t.Fatal(err)
				}
				raw, n, err := d.Capture(v, 40, nil)
				if err != nil {
					t.Fatal(err)
				}
				got[name], sizes[name] = string(raw), n
			}
			if got["keep"] != `{"x": [1, 2, {"y": "a\"b"}], "z": NaN}` || sizes["keep"] != int64(len(got["keep"])) {
				t.Errorf("keep: %q %d", got["keep"], sizes["keep"])
			}
			if sizes["big"] != int64(len(`[`+strings.Repeat(`"0123456789", `, 100)+`1]`)) || got["big"] != `["0123456789", "0123456789", "0123456789`[:40] {
				t.Errorf("big: %q %d", got["big"], sizes["big"])
			}
			if got["n"] != "7" || got["s"] != `"str"` {
				t.Errorf("scalars: %q %q", got["n"], got["s"])
			}
			if tok, err := d.Next(); tok.Kind != EOF || err != nil {
				t.Errorf("after object: %v %v", tok.Kind, err)
			}
		})
	}
}

func TestSkipReportsErrors(t *testing.T) {
	for _, in := range []string{`[1, [2, "a` + "\x01" + `"]]`, `[1, [2, 3]`, `[{"a" 1}]`} {
		d := NewDecoderSize(strings.NewReader(in), 16)
		first, _ := d.Next()
		var e *Error
		if err := d.Skip(first); !errors.As(err, &e) {
			t.Errorf("%q: got %v, want *Error", in, err)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	d := NewDecoderSize(io.MultiReader(strings.NewReader(`[1, 2, `), iotest.ErrReader(boom)), 16)
	var err error
	for err == nil {
		_, err = d.Next()
	}
	var e *Error
	if !errors.Is(err, boom) || !errors.As(err, &e) || e.Offset != 7 {
		t.Fatalf("got %v", err)
	}
	// One byte at a time, with an empty read between.
	got, err := func() (string, error) {
		d := NewDecoderSize(iotest.OneByteReader(iotest.HalfReader(strings.NewReader(`{"a": [1.5, "x\u00e9"]}`))), 16)
		var out []string
		for {
			tok, err := d.Next()
			if err != nil || tok.Kind == EOF {
				return strings.Join(out, ","), err
			}
			out = append(out, string(tok.Bytes))
		}
	}()
	if err != nil || got != ",a,,1.5,xé,," {
		t.Fatalf("got %q %v", got, err)
	}
}

func TestNoAllocPerNumber(t *testing.T) {
	in := numberHeavy(1 << 16)
	d := NewDecoder(bytes.NewReader(in))
	allocs := testing.AllocsPerRun(1, func() {
		d = NewDecoder(bytes.NewReader(in))
		for {
			tok, err := d.Next()
			if err != nil {
				t.Fatal(err)
			}
			if tok.Kind == EOF {
				return
			}
			if tok.Kind == Number {
				if _, err := tok.Float(); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	// The decoder itself allocates its buffer and stack; nothing per token.
	if allocs > 5 {
		t.Fatalf("%v allocations for %d bytes of numbers", allocs, len(in))
	}
}

// numberHeavy builds about n bytes shaped like vLLM's "itls": a list of
// lists of gaps in seconds, written as Python's repr writes floats.
func numberHeavy(n int) []byte {
	b := []byte(`{"itls": [`)
	x := uint64(88172645463325252)
	for len(b) < n {
		b = append(b, '[')
		for k := range 40 {
			if k > 0 {
				b = append(b, ", "...)
			}
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v := 0.005 + float64(x%1_000_000_007)/1e11
			b = strconv.AppendFloat(b, v, 'f', -1, 64)
		}
		b = append(b, "], "...)
	}
	b = append(b, "[]]}"...)
	return b
}

func BenchmarkScanNumbers(b *testing.B) { benchmarkNumbers(b, 32<<20) }

// BenchmarkScanSmallFile: one of the 1,000 ordinary result files of the
// ingest benchmark (about 290 KB), read whole and parsed from memory.
func BenchmarkScanSmallFile(b *testing.B) { benchmarkNumbers(b, 290<<10) }

func benchmarkNumbers(b *testing.B, size int) {
	in := numberHeavy(size)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(in))
		var sum float64
		for {
			tok, err := d.Next()
			if err != nil {
				b.Fatal(err)
			}
			if tok.Kind == EOF {
				break
			}
			if tok.Kind == Number {
				v, _ := tok.Float()
				sum += v
			}
		}
		if sum == 0 {
			b.Fatal("no numbers")
		}
	}
}

func BenchmarkScanSkip(b *testing.B) {
	in := numberHeavy(32 << 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(in))
		first, _ := d.Next()
		if err := d.Skip(first); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScanStrings(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for sb.Len() < 32<<20 {
		sb.WriteString(`"the model latency batch prefill decode kernel cache throughput caf\u00e9 \u4e2d\u6587\nserver", `)
	}
	sb.WriteString(`""]`)
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(in))
		first, _ := d.Next()
		if err := d.Skip(first); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecoder checks that no input panics, that offsets only grow, and that
// every strictly valid single JSON value without Python's extra tokens is
// accepted.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e-3, NaN, -Infinity], "b": "x\u00e9\ud83d\ude00"}`, "{}\n{}", `[[[]]]`, `"\`, "[1,", "\xff", `{"a":tru}`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, sz uint8) {
		for _, size := range []int{16 + int(sz), DefaultBufferSize} {
			d := NewDecoderSize(bytes.NewReader(in), size)
			last := int64(-1)
			var err error
			for {
				var tok Token
				tok, err = d.Next()
				if err != nil {
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("error of type %T: %v", err, err)
					}
					break
				}
				if tok.Offset <= last && tok.Kind != EOF {
					t.Fatalf("offset %d after %d", tok.Offset, last)
				}
				last = tok.Offset
				if tok.Kind == EOF {
					break
				}
				if tok.Kind == Key || tok.Kind == String {
					if !utf8.Valid(tok.Bytes) {
						t.Fatalf("decoded string is not UTF-8: %q", tok.Bytes)
					}
				}
			}
			if err != nil && json.Valid(in) && utf8.Valid(in) && !strings.Contains(err.Error(), "nesting deeper") {
				t.Fatalf("valid JSON %q rejected: %v", in, err)
			}
		}
		// Read in place, the same tokens and error, and the input unchanged.
		kept := bytes.Clone(in)
		if got, want := tokenTrail(NewDecoder(NewInput(in))), tokenTrail(NewDecoder(bytes.NewReader(in))); got != want {
			t.Fatalf("read in place:\n%s\nread through a buffer:\n%s", got, want)
		}
		if !bytes.Equal(in, kept) {
			t.Fatalf("decoding in place changed the input")
		}
	})
}

// tokenTrail renders every token a Decoder gives, then its error.
func tokenTrail(d *Decoder) string {
	var b strings.Builder
	for {
		tok, err := d.Next()
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			return b.String()
		}
		fmt.Fprintf(&b, "%s %d:%d %q\n", tok.Kind, tok.Line, tok.Offset, tok.Bytes)
		if tok.Kind == EOF {
			return b.String()
		}
	}
}

// TestInputReadInPlace: a Decoder reads an Input's bytes where they are
// (no copy), leaves the Input read to its end, and gives the tokens and
// errors a buffered read gives; an Input already read from, or empty, is
// read as any reader.
func TestInputReadInPlace(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`{"ttfts": [0.0123, 1e-05, -2.5], "itls": [[0.001, 0.002], []], "name": "caf\u00e9"}`,
		"{\"a\": [1, 2,\n 3]}\n{\"b\": tru}",
		`[1, 2`,
	} {
		in := []byte(text)
		r := NewInput(in)
		d := NewDecoder(r)
		if len(d.buf) == 0 || &d.buf[0] != &in[0] {
			t.Errorf("%q: the decoder copied the input", text)
		}
		if r.Len() != 0 {
			t.Errorf("%q: %d bytes of the Input left unread", text, r.Len())
		}
		if got, want := tokenTrail(d), tokenTrail(NewDecoder(bytes.NewReader(in))); got != want {
			t.Errorf("%q read in place:\n%s\nthrough a buffer:\n%s", text, got, want)
		}
		if string(in) != text {
			t.Errorf("%q: input changed to %q", text, in)
		}
	}
	in := []byte(`[1, 2]`)
	r := NewInput(in)
	r.ReadByte()
	d := NewDecoder(r)
	if &d.buf[0] == &in[0] {
		t.Errorf("an Input read from is read in place")
	}
	if got, want := tokenTrail(d), tokenTrail(NewDecoder(bytes.NewReader(in[1:]))); got != want {
		t.Errorf("an Input read from:\n%s\nwant\n%s", got, want)
	}
	if got, want := tokenTrail(NewDecoder(NewInput(nil))), tokenTrail(NewDecoder(bytes.NewReader(nil))); got != want {
		t.Errorf("an empty Input: %s, want %s", got, want)
	}
}

func TestParseFloatMatchesStrconv(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, werr := strconv.ParseFloat(s, 64)
		got, err := Token{Kind: Number, Bytes: []byte(s)}.Float()
		if (err != nil) != (werr != nil) || (got != want && !(math.IsNaN(got) && math.IsNaN(want))) || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("%s: got %v (%x) err %v, want %v (%x) err %v", s, got, math.Float64bits(got), err, want, math.Float64bits(want), werr)
		}
	}
	for _, s := range []string{"0", "-0", "0.0", "-0.0", "1", "9007199254740993", "9007199254740992", "18446744073709551615",
		"1844674407370955161", "0.1", "0.3", "123456789012345678", "1234567890123456789", "12345678901234567890",
		"4.9406564584124654e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "1e23", "8.98846567431158e307",
		"0.0063198640127666295", "0.006320840009720996", "1e-05", "2.5e-06", "1E+22", "1e22", "1e-22", "1e-19", "1e19",
		"9.999999999999999e22", "1.00000000000000011102230246251565404236316680908203125", "0.000000000000000000001",
		"5e-324", "1e-400", "1e400", "NaN", "Infinity", "-Infinity", "100000000000000000000", "3.0000000000000004",
		"708.540765067999", "0.9999999999999999", "0.99999999999999999", "1.0000000000000002"} {
		check(s)
	}
	x := uint64(0x9E3779B97F4A7C15)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	n := 1_000_000
	if testing.Short() {
		n = 50_000
	}
	for range n {
		r := rnd()
		f := math.Float64frombits(r)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		// Shortest repr across the whole range, and values like the
		// time measurements the files hold.
		check(strconv.FormatFloat(f, 'g', -1, 64))
		v := float64(r%1_000_000_007) / math.Pow(10, float64(r>>40%16))
		check(strconv.FormatFloat(v, 'f', -1, 64))
		check(strconv.FormatFloat(v, 'e', int(r>>50%20), 64))
		// Random digit strings, including ties and long mantissas.
		check(strconv.FormatUint(r>>(r%40), 10) + "e-" + strconv.Itoa(int(r>>56%25)))
		check(strconv.FormatUint(r>>(r%40), 10) + "e" + strconv.Itoa(int(r>>56%25)))
	}
}

// A file read whole is parsed from a buffer of its own length, allocated
// once, with the same tokens as from a reader of unknown length.
func TestBufferSizedToKnownInput(t *testing.T) {
	in := numberHeavy(300 << 10)
	d := NewDecoder(bytes.NewReader(in))
	if len(d.buf) != len(in)+1 {
		t.Errorf("buffer of %d bytes for an input of %d, want %d", len(d.buf), len(in), len(in)+1)
	}
	if big := NewDecoder(bytes.NewReader(make([]byte, 2*DefaultBufferSize))); len(big.buf) > DefaultBufferSize {
		t.Errorf("buffer of %d bytes for a long input, want at most %d", len(big.buf), DefaultBufferSize)
	}
	plain := NewDecoder(struct{ io.Reader }{bytes.NewReader(in)})
	for n := 0; ; n++ {
		a, errA := d.Next()
		b, errB := plain.Next()
		if errA != nil || errB != nil {
			t.Fatalf("token %d: %v / %v", n, errA, errB)
		}
		if a.Kind != b.Kind || !bytes.Equal(a.Bytes, b.Bytes) || d.InputOffset() != plain.InputOffset() {
			t.Fatalf("token %d: %v %q at %d, from a reader of unknown length %v %q at %d", n, a.Kind, a.Bytes, d.InputOffset(), b.Kind, b.Bytes, plain.InputOffset())
		}
		if a.Kind == EOF {
			break
		}
	}
	if len(d.buf) != len(in)+1 {
		t.Errorf("buffer grew to %d bytes while parsing", len(d.buf))
	}
}

// TestDivPow10MatchesDivRound: the multiplication by a reciprocal gives
// the exact division's float for random mantissas and exponents, and for
// quotients that lie exactly half way between two floats or next to it.
func TestDivPow10MatchesDivRound(t *testing.T) {
	check := func(m uint64, k int) {
		t.Helper()
		want, wok := divRound(m, pow10u[k])
		got, ok := divPow10(m, k)
		if ok != wok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%d/1e%d: got %v %x %v, want %v %x %v", m, k, got, math.Float64bits(got), ok, want, math.Float64bits(want), wok)
		}
	}
	const limit = 10_000_000_000_000_000_000
	ties := 0
	for k := 1; k <= 19; k++ {
		for j := 0; j <= k; j++ {
			// (2^53 + odd) / 2^j lies half way between two floats;
			// times 10^k it is an integer when j <= k.
			scale := pow10u[k] >> j
			for i := uint64(0); i < 50; i++ {
				for _, d := range []uint64{0, 1, ^uint64(0)} { // the tie, and each side of it
					hi, m := bits.Mul64(1<<53+2*i+1, scale)
					if hi != 0 || m >= limit || m+d == 0 {
						continue
					}
					check(m+d, k)
					ties++
				}
			}
		}
	}
	if ties < 1000 {
		t.Fatalf("only %d ties checked", ties)
	}
	x := uint64(0x2545F4914F6CDD1D)
	for range 2_000_000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		m := x % limit >> (x >> 58) // all lengths of mantissa
		if m == 0 {
			continue
		}
		check(m, int(x>>40%19)+1)
	}
}

// latencyNumbers are numbers as the detailed files' latency lists hold
// them, Python's shortest repr of times around 10 ms (16 or 17 digits),
// each followed by tail.
func latencyNumbers(tail string) [][]byte {
	var nums [][]byte
	x := uint64(88172645463325252)
	for range 4096 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v := 0.005 + float64(x>>11)/(1<<53)*0.02
		nums = append(nums, append(strconv.AppendFloat(nil, v, 'f', -1, 64), tail...))
	}
	return nums
}

// BenchmarkParseFloat: parseFloat on latencyNumbers.
func BenchmarkParseFloat(b *testing.B) {
	nums := latencyNumbers("")
	var sum float64
	for b.Loop() {
		for _, n := range nums {
			v, _ := parseFloat(n)
			sum += v
		}
	}
	if sum == 0 {
		b.Fatal("no numbers")
	}
}

// checkNumber: when number takes the start of in, scanNumber and the
// float conversion the tokens use (parseFloat, else strconv) give the same
// length and the same bits.
func checkNumber(t *testing.T, in []byte) bool {
	t.Helper()
	f, n, ok := number(in)
	if !ok {
		return false
	}
	k, st, _ := scanNumber(in, false)
	if st != scanDone || k != n {
		t.Fatalf("%q: number took %d bytes, scanNumber %d (%v)", in, n, k, st)
	}
	want, err := Token{Kind: Number, Bytes: in[:k]}.Float()
	if err != nil || math.Float64bits(f) != math.Float64bits(want) {
		t.Fatalf("%q: number gave %v (%x), the token %v (%x) %v", in, f, math.Float64bits(f), want, math.Float64bits(want), err)
	}
	return true
}

// TestNumberMatchesScanAndParse: the one-pass reader of list numbers
// agrees with the two-pass one on the numbers Python writes (repr of
// random doubles, of times like the files', integers, negative zero,
// 17-digit mantissas, leading zeros) followed by what follows them in a
// list, and leaves to the two-pass reader what it does not take.
func TestNumberMatchesScanAndParse(t *testing.T) {
	taken := 0
	for _, s := range []string{"0", "-0", "0.0", "-0.0", "1", "-1", "10", "0.5", "9007199254740993", "9007199254740992.0",
		"18446744073709551615", "18446744073709551616", "0.1", "0.3", "123456789012345678", "1234567890123456789",
		"12345678901234567890", "0.010157358017750084", "0.00000000000000000000123", "0.0000000000000000001",
		"0.9999999999999999", "0.99999999999999999", "1.0000000000000002", "708.540765067999", "3.0000000000000004",
		"1234567890123456789012345.5", "0.1234567890123456789012345", "99999999999999999999", "0.000000000000000000000000000000000001",
		"1e5", "1.5e-05", "01", "-01.5", "1.", "1.e5", "-", "--1", "0x1", "1.5.5", "00.5"} {
		for _, tail := range []string{", 1]", "]", ",", " ", "x", "e", "", "0"} {
			if checkNumber(t, []byte(s+tail)) {
				taken++
			}
		}
	}
	x := uint64(0x9E3779B97F4A7C15)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for range 500_000 {
		r := rnd()
		f := math.Float64frombits(r)
		v := 0.005 + float64(r>>11)/(1<<53)*0.02
		for _, s := range []string{
			strconv.FormatFloat(v, 'f', -1, 64),
			strconv.FormatFloat(-v*math.Pow(10, float64(r>>58%8)), 'f', -1, 64),
			strconv.FormatFloat(f, 'g', -1, 64),
			strconv.FormatFloat(float64(r%1_000_000_007)/math.Pow(10, float64(r>>40%16)), 'f', -1, 64),
			strconv.FormatFloat(v, 'f', int(r>>50%20), 64),
			strconv.FormatUint(r>>(r%40), 10),
			"0." + strings.Repeat("0", int(r>>59)) + strconv.FormatUint(r>>(r%40), 10),
		} {
			if !math.IsNaN(f) && checkNumber(t, []byte(s+", ")) {
				taken++
			}
		}
	}
	if taken < 2_500_000 {
		t.Errorf("number took only %d of the numbers", taken)
	}
}

func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0.010157358017750084, ", "-0.0]", "12345678901234567890,", "1e5,", "01,", "0.", "1.5"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkNumber(t, in) })
}

// BenchmarkNumber: number on latencyNumbers, each followed by ", " as in
// a list.
func BenchmarkNumber(b *testing.B) {
	nums := latencyNumbers(", ")
	var sum float64
	for b.Loop() {
		for _, n := range nums {
			v, _, _ := number(n)
			sum += v
		}
	}
	if sum == 0 {
		b.Fatal("no numbers")
	}
}
