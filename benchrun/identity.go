package benchrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
)

// ContentID derives a run's id from what the run says, not from the file it
// came in or the order files arrive: its format, per-request records,
// counts, stated figures, file facts and extra keys (values compared as
// compact JSON, so a sweep's summary.json and its run=N.json, indented
// differently, name one run). Ordinal, location, format variant and notes
// are not content: they say where a run was read, not what it is. Two files
// holding the same run give the same id; two runs that differ in anything
// they state get two. 12 hex digits keep it short enough to type.
func ContentID(r *Run) string {
	h := sha256.New()
	writeFields(h, "run", r.Format, strconv.FormatInt(r.Completed, 10), strconv.FormatInt(r.Failed, 10), strconv.FormatBool(r.HasRequests))
	writeRequests(h, r.Requests)
	stated := make([]string, 0, len(r.Stated))
	for _, s := range r.Stated {
		stated = append(stated, s.Metric+"\x1f"+num(s.Value)+"\x1f"+s.Unit+"\x1f"+strconv.Itoa(s.Printed))
	}
	sort.Strings(stated)
	writeFields(h, append([]string{"stated"}, stated...)...)
	writeMap(h, "facts", r.Facts, false)
	writeMap(h, "extra", r.Extra, true)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// idBlock is how many requests one goroutine of writeRequests formats at a
// time.
const idBlock = 1024

// idBuffers hold the lines of a run's records (*[]byte) for the next run's
// id: the ids of 1,000 ordinary runs, formatted each into a new slice,
// allocated 40 MB.
var idBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledID: a buffer grown beyond it (a long run's records, formatted
// alone when one core is used) is not kept.
const maxPooledID = 1 << 20

// writeRequests hashes the records one line each, as writeFields would
// write their fields. Formatting the numbers is most of the cost of a large
// run's id, so blocks of records are formatted on several goroutines and
// hashed in order, with a bounded number of blocks in flight.
func writeRequests(h hash.Hash, reqs []Request) {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if len(reqs) <= idBlock || workers < 2 {
		bp := idBuffers.Get().(*[]byte)
		*bp = appendRequests((*bp)[:0], reqs)
		h.Write(*bp)
		if cap(*bp) <= maxPooledID {
			idBuffers.Put(bp)
		}
		return
	}
	type block struct {
		reqs []Request
		out  chan []byte
	}
	blocks := make(chan block, workers)
	pending := make(chan block, workers)
	free := make(chan []byte, 2*workers+1)
	for range workers {
		go func() {
			for b := range blocks {
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				b.out <- appendRequests(buf[:0], b.reqs)
			}
		}()
	}
	go func() {
		for start := 0; start < len(reqs); start += idBlock {
			b := block{reqs: reqs[start:min(start+idBlock, len(reqs))], out: make(chan []byte, 1)}
			pending <- b
			blocks <- b
		}
		close(blocks)
		close(pending)
	}()
	for b := range pending {
		buf := <-b.out
		h.Write(buf)
		select {
		case free <- buf:
		default:
		}
	}
}

// appendRequests appends the records' lines: the fields of each, each
// followed by 0x1e, then '\n'.
func appendRequests(b []byte, reqs []Request) []byte {
	field := func(b []byte) []byte { return append(b, 0x1e) }
	for i := range reqs {
		q := &reqs[i]
		b = field(strconv.AppendInt(b, int64(q.Index), 10))
		b = field(appendNum(b, q.Start))
		b = field(appendNum(b, q.QueueTime))
		b = field(appendNum(b, q.TTFT))
		b = field(appendNum(b, q.Latency))
		b = field(strconv.AppendInt(b, int64(q.InputTokens), 10))
		b = field(strconv.AppendInt(b, int64(q.OutputTokens), 10))
		b = field(strconv.AppendQuote(b, q.Error))
		b = field(strconv.AppendInt(b, int64(q.Gaps.Count), 10))
		b = field(appendNum(b, q.Gaps.Sum))
		b = field(appendNum(b, q.Gaps.Min))
		b = field(appendNum(b, q.Gaps.Max))
		b = append(b, '\n')
	}
	return b
}

// Rank orders the files of one run by how much of it they hold, so that the
// run's id is the ContentID of its richest file whichever arrives first:
// per-request records (2), else full-precision stated figures (1), else
// printed, rounded ones (0).
func Rank(r *Run) int {
	if r.HasRequests {
		return 2
	}
	for _, s := range r.Stated {
		if s.Printed == 0 {
			return 1
		}
	}
	return 0
}

func num(v float64) string { return string(appendNum(nil, v)) }

func appendNum(b []byte, v float64) []byte {
	if math.IsNaN(v) {
		return append(b, '?')
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func writeFields(h hash.Hash, fields ...string) {
	for _, f := range fields {
		h.Write([]byte(f))
		h.Write([]byte{0x1e})
	}
	h.Write([]byte{'\n'})
}

func writeMap(h hash.Hash, name string, m map[string]string, compactJSON bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fields := []string{name}
	for _, k := range keys {
		v := m[k]
		if compactJSON {
			var b bytes.Buffer
			if json.Compact(&b, []byte(v)) == nil {
				v = b.String()
			}
		}
		fields = append(fields, k+"\x1f"+v)
	}
	writeFields(h, fields...)
}
