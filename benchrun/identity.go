package benchrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"math"
	"sort"
	"strconv"
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
	for i := range r.Requests {
		q := &r.Requests[i]
		writeFields(h, strconv.Itoa(q.Index), num(q.Start), num(q.QueueTime), num(q.TTFT), num(q.Latency),
			strconv.Itoa(int(q.InputTokens)), strconv.Itoa(int(q.OutputTokens)), strconv.Quote(q.Error),
			strconv.Itoa(int(q.Gaps.Count)), num(q.Gaps.Sum), num(q.Gaps.Min), num(q.Gaps.Max))
	}
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

func num(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
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
