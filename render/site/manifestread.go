package site

import (
	"strconv"

	"github.com/benchledger/benchledger/internal/jsonstr"
)

// decodeManifest reads a build record in the exact form manifestJSON
// writes it, without reflection: a rebuild reads the record of every run
// (6 MB for 10,000 runs), and json.Unmarshal was a fifth of a rebuild's
// time. It reports false on anything else — other spacing, order or
// escapes, a surrogate, invalid UTF-8, a number JSON does not allow —
// and the caller then reads the record with json.Unmarshal, so what is
// read is always what json.Unmarshal reads (TestDecodeManifest).
func decodeManifest(data []byte) (manifest, bool) {
	d := &recordReader{b: data, ok: true}
	var m manifest
	d.lit(`{"format":`)
	m.Format = int(d.int())
	d.lit(`,"runs":`)
	if !d.null() {
		m.Runs = map[string]manifestRun{}
		d.members(func(id string) { m.Runs[id] = d.run() })
	}
	d.lit(`,"files":`)
	m.Files = d.strs()
	if d.maybe(`,"reports":`) {
		m.Reports = d.strMap()
	}
	if d.maybe(`,"pages":`) {
		m.Pages = d.strMap()
	}
	d.lit("}")
	if !d.ok || d.i != len(d.b) {
		return manifest{}, false
	}
	return m, true
}

// recordReader reads manifestJSON's output; ok turns false at the first
// byte it does not expect, and every read after that gives zero values.
type recordReader struct {
	b  []byte
	i  int
	ok bool
}

// maybe reads s when it comes next.
func (d *recordReader) maybe(s string) bool {
	if d.ok && len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// key reads `,"name":` when it comes next.
func (d *recordReader) key(name string) bool {
	if !d.ok {
		return false
	}
	rest := d.b[d.i:]
	if len(rest) < len(name)+4 || rest[0] != ',' || rest[1] != '"' || string(rest[2:2+len(name)]) != name ||
		rest[2+len(name)] != '"' || rest[3+len(name)] != ':' {
		return false
	}
	d.i += len(name) + 4
	return true
}

// lit reads s, which must come next.
func (d *recordReader) lit(s string) {
	if !d.maybe(s) {
		d.ok = false
	}
}

// next reads c when it comes next.
func (d *recordReader) next(c byte) bool {
	if d.ok && d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *recordReader) null() bool { return d.maybe("null") }

// str reads a string as json.Unmarshal does (jsonstr.Read).
func (d *recordReader) str() string {
	if !d.ok {
		return ""
	}
	s, next, ok := jsonstr.Read(d.b, d.i)
	if !ok {
		d.ok = false
		return ""
	}
	d.i = next
	return s
}

// members reads an object, calling value after each key to read its value.
func (d *recordReader) members(value func(key string)) {
	d.lit("{")
	for first := true; d.ok && !d.next('}'); first = false {
		if !first {
			d.lit(",")
		}
		k := d.str()
		d.lit(":")
		value(k)
	}
}

// strs reads a list of strings, or null (nil).
func (d *recordReader) strs() []string {
	if d.null() {
		return nil
	}
	d.lit("[")
	out := []string{}
	for first := true; d.ok && !d.next(']'); first = false {
		if !first {
			d.lit(",")
		}
		out = append(out, d.str())
	}
	return out
}

// strMap reads an object of strings.
func (d *recordReader) strMap() map[string]string {
	out := map[string]string{}
	d.members(func(k string) { out[k] = d.str() })
	return out
}

// number reads a number in JSON's grammar and returns its text.
func (d *recordReader) number() string {
	start := d.i
	digits := func() bool {
		n := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		return d.i > n
	}
	d.next('-')
	switch {
	case d.next('0'):
	case d.i < len(d.b) && d.b[d.i] >= '1' && d.b[d.i] <= '9':
		digits()
	default:
		d.ok = false
		return ""
	}
	if d.next('.') && !digits() {
		d.ok = false
	}
	if d.next('e') || d.next('E') {
		if !d.next('+') {
			d.next('-')
		}
		if !digits() {
			d.ok = false
		}
	}
	return string(d.b[start:d.i])
}

func (d *recordReader) int() int64 {
	v, err := strconv.ParseInt(d.number(), 10, 64)
	if err != nil {
		d.ok = false
	}
	return v
}

func (d *recordReader) float() *float64 {
	v, err := strconv.ParseFloat(d.number(), 64)
	if err != nil {
		d.ok = false
	}
	return &v
}

// run reads one run's record.
func (d *recordReader) run() manifestRun {
	var r manifestRun
	d.lit(`{"key":`)
	r.Key = d.str()
	d.lit(`,"files":`)
	r.Files = d.strs()
	d.lit(`,"row":`)
	r.Row = d.row()
	d.lit(`,"mac":`)
	r.MAC = d.str()
	d.lit("}")
	return r
}

// row reads a runs-table row as rowJSON writes it.
func (d *recordReader) row() runRow {
	var r runRow
	d.lit(`{"id":`)
	r.ID = d.str()
	for _, f := range rowTexts(&r) {
		if d.key(f.name) {
			*f.value = d.str()
		}
	}
	d.lit(`,"requests":`)
	r.Requests = d.int()
	if d.maybe(`,"throughput":`) {
		r.Throughput = d.float()
	}
	if d.maybe(`,"throughput_source":`) {
		r.ThroughputSource = d.str()
	}
	if d.maybe(`,"median_latency":`) {
		r.MedianLatency = d.float()
	}
	if d.maybe(`,"latency_source":`) {
		r.LatencySource = d.str()
	}
	d.lit(`,"publishable":`)
	switch {
	case d.maybe("true"):
		r.Publishable = true
	case d.maybe("false"):
	default:
		d.ok = false
	}
	d.lit(`,"fails":`)
	r.Fails = int(d.int())
	d.lit(`,"warns":`)
	r.Warns = int(d.int())
	d.lit("}")
	return r
}
