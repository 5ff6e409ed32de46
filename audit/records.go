package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"strconv"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/store"
)

// rawRequests is what compareRecords needs of the re-parsed run's
// records: their count and digest (requestsDigest), and a way to have them
// again when the digests differ.
type rawRequests struct {
	n      int
	digest [sha256.Size]byte
	again  func() ([]benchrun.Request, error)
}

// requestsDigest hashes, for each record, every field compareRecords
// compares, bit for bit: equal digests mean compareRecords finds no
// difference among the records.
func requestsDigest(reqs []benchrun.Request) [sha256.Size]byte {
	d := newDigester()
	for i := range reqs {
		d.add(&reqs[i])
	}
	return d.sum()
}

// rowsDigest is requestsDigest of records read one at a time.
func rowsDigest(rows format.Rows) [sha256.Size]byte {
	d := newDigester()
	for i := range rows.Len() {
		q := rows.Row(i)
		d.add(&q)
	}
	return d.sum()
}

// rawRequestsOf is what compareRecords needs of run r's records parsed
// again: rows when the parser kept them column by column (r.Requests is
// then nil), else r.Requests.
func rawRequestsOf(r *benchrun.Run, rows format.Rows, again func() ([]benchrun.Request, error)) rawRequests {
	if rows != nil {
		return rawRequests{n: rows.Len(), digest: rowsDigest(rows), again: again}
	}
	return rawRequests{n: len(r.Requests), digest: requestsDigest(r.Requests), again: again}
}

// digester is requestsDigest over records handed to it one at a time.
type digester struct {
	h   hash.Hash
	buf []byte
}

func newDigester() *digester {
	return &digester{h: sha256.New(), buf: make([]byte, 0, 64<<10)}
}

func (d *digester) add(q *benchrun.Request) {
	buf := d.buf
	f := func(v float64) { buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v)) }
	f(q.Start)
	f(q.QueueTime)
	f(q.TTFT)
	f(q.Latency)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(q.InputTokens))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(q.OutputTokens))
	failed := byte(0)
	if q.Failed() {
		failed = 1
	}
	buf = append(buf, failed)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(q.Gaps.Count))
	f(q.Gaps.Sum)
	if len(buf) > cap(buf)-64 {
		d.h.Write(buf)
		buf = buf[:0]
	}
	d.buf = buf
}

func (d *digester) sum() [sha256.Size]byte {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
	var out [sha256.Size]byte
	d.h.Sum(out[:0])
	return out
}

// compareRecords compares a stored run with the run re-parsed from its raw
// bytes (whose records reqs describes; stored describes the archive's) and
// describes the first difference.
func compareRecords(rec *store.RunRecord, raw *benchrun.Run, reqs, stored rawRequests) (*Finding, error) {
	s := rec.Run
	diff := func(what, stored, fromRaw string, params map[string]string) (*Finding, error) {
		if params == nil {
			params = map[string]string{}
		}
		params["field"], params["stored"], params["raw"] = what, stored, fromRaw
		return &Finding{Message: fmt.Sprintf("the archive's normalised records differ from its raw file %s: %s is %s in the archive but %s when the raw bytes are parsed again",
			rec.FileName, what, stored, fromRaw), Params: params}, nil
	}
	if s.HasRequests != raw.HasRequests {
		return diff("has per-request records", strconv.FormatBool(s.HasRequests), strconv.FormatBool(raw.HasRequests), nil)
	}
	if stored.n != reqs.n {
		return diff("the request count", strconv.Itoa(stored.n), strconv.Itoa(reqs.n), nil)
	}
	if reqs.n > 0 && stored.digest != reqs.digest {
		// Rare (a damaged or altered archive): both sides are read whole
		// for the first difference.
		list, err := reqs.again()
		if err != nil {
			return nil, err
		}
		if len(list) != reqs.n {
			return nil, fmt.Errorf("the raw file %s gave %d records, then %d when parsed again", rec.FileName, reqs.n, len(list))
		}
		sreqs, err := stored.again()
		if err != nil {
			return nil, err
		}
		if len(sreqs) != stored.n {
			return nil, fmt.Errorf("archive: run %s gave %d records, then %d when read again", rec.ID, stored.n, len(sreqs))
		}
		for i := range sreqs {
			a, b := &sreqs[i], &list[i]
			var what, stored, fromRaw string
			switch {
			case !close9(a.Start, b.Start):
				what, stored, fromRaw = "start", num(a.Start), num(b.Start)
			case !close9(a.QueueTime, b.QueueTime):
				what, stored, fromRaw = "queue time", num(a.QueueTime), num(b.QueueTime)
			case !close9(a.TTFT, b.TTFT):
				what, stored, fromRaw = "TTFT", num(a.TTFT), num(b.TTFT)
			case !close9(a.Latency, b.Latency):
				what, stored, fromRaw = "latency", num(a.Latency), num(b.Latency)
			case a.InputTokens != b.InputTokens:
				what, stored, fromRaw = "input tokens", strconv.Itoa(int(a.InputTokens)), strconv.Itoa(int(b.InputTokens))
			case a.OutputTokens != b.OutputTokens:
				what, stored, fromRaw = "output tokens", strconv.Itoa(int(a.OutputTokens)), strconv.Itoa(int(b.OutputTokens))
			case a.Failed() != b.Failed():
				what, stored, fromRaw = "failed", strconv.FormatBool(a.Failed()), strconv.FormatBool(b.Failed())
			case a.Gaps.Count != b.Gaps.Count:
				what, stored, fromRaw = "chunk gap count", strconv.Itoa(int(a.Gaps.Count)), strconv.Itoa(int(b.Gaps.Count))
			case a.Gaps.Count > 0 && !close9(a.Gaps.Sum, b.Gaps.Sum):
				what, stored, fromRaw = "chunk gap sum", num(a.Gaps.Sum), num(b.Gaps.Sum)
			default:
				continue
			}
			return diff(fmt.Sprintf("request %d %s", i, what), stored, fromRaw, map[string]string{"request": strconv.Itoa(i)})
		}
	}
	if s.Completed != raw.Completed {
		return diff("completed", strconv.FormatInt(s.Completed, 10), strconv.FormatInt(raw.Completed, 10), nil)
	}
	if s.Failed != raw.Failed {
		return diff("failed", strconv.FormatInt(s.Failed, 10), strconv.FormatInt(raw.Failed, 10), nil)
	}
	if len(s.Stated) != len(raw.Stated) {
		return diff("the number of stated figures", strconv.Itoa(len(s.Stated)), strconv.Itoa(len(raw.Stated)), nil)
	}
	for i := range s.Stated {
		a, b := s.Stated[i], raw.Stated[i]
		p := map[string]string{"metric": a.Metric}
		if a.Metric != b.Metric || a.Unit != b.Unit {
			return diff(fmt.Sprintf("stated figure %d", i), a.Metric+" ("+a.Unit+")", b.Metric+" ("+b.Unit+")", p)
		}
		if !close9(a.Value, b.Value) && !(math.IsInf(b.Value, 0) && math.IsNaN(a.Value)) {
			return diff("the stated "+a.Metric, num(a.Value)+" "+a.Unit, num(b.Value)+" "+b.Unit, p)
		}
	}
	return nil, nil
}

// reparseRequests parses the raw file of the run meta describes again and
// completes it with its companion files as auditBlob did, for its records.
func reparseRequests(ctx context.Context, a *store.Archive, sha string, meta *store.RunRecord, files []store.RunFile) ([]benchrun.Request, error) {
	runs, parseErr, blobErr, err := reparseBlob(ctx, a, sha, meta.Run.Format, meta.FileName, map[int]bool{meta.Run.Ordinal: true}, nil)
	if err == nil {
		err = errors.Join(parseErr, blobErr)
	}
	r := runs[meta.Run.Ordinal]
	if err == nil && r == nil {
		err = fmt.Errorf("no run %d", meta.Run.Ordinal)
	}
	if err == nil {
		var ok bool
		ok, err = mergeCompanions(ctx, a, r, files, map[string]*benchrun.Run{}, func(string, string, string, map[string]string) {})
		if err == nil && !ok {
			err = errors.New("its companion files no longer merge")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("archive %s: the raw file %s (blob %s) parsed again: %w", a.Path(), meta.FileName, sha, err)
	}
	return r.Requests, nil
}

// rawTool is what auditRun needs of a run parsed again from its raw file:
// the tool's own times (the archive keeps only the records) and the tool's
// E2E latencies of the completed requests.
type rawTool struct {
	times *benchrun.ToolTimes
	e2e   []float64
}

func rawToolOf(r *benchrun.Run) *rawTool {
	if r.ToolTimes == nil {
		return &rawTool{}
	}
	return &rawTool{times: r.ToolTimes, e2e: figures.StatedOptionsOf(r).ToolE2E}
}

func close9(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if a == b {
		return true
	}
	return math.Abs(a-b) <= RecordsRelTol*math.Max(math.Abs(a), math.Abs(b))
}
