package audit

import (
	"errors"
	"strconv"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/store"
)

// packCheck holds a run's packed records (store.RequestPack), which the site
// reads in place of the rows, to the rows as the request pass reads them:
// the site must show what the audit vouches for.
type packCheck struct {
	packed []benchrun.Request
	n      int // rows seen
	// the first difference: the stored request's idx and the column.
	at    int
	field string
	// unreadable is why the pack cannot be read ("": it can).
	unreadable string
}

// newPackCheck reads run id's pack; nil when it has none.
func newPackCheck(a *store.Archive, id string) (*packCheck, error) {
	packed, ok, err := a.RequestPack(id)
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return &packCheck{unreadable: err.Error()}, nil
	case err != nil:
		return nil, err
	case !ok:
		return nil, nil
	}
	return &packCheck{packed: packed}, nil
}

func (c *packCheck) add(q *benchrun.Request) {
	i := c.n
	c.n++
	if c.field != "" || c.unreadable != "" || i >= len(c.packed) {
		return
	}
	if f := packDifference(q, &c.packed[i]); f != "" {
		c.at, c.field = q.Index, f
	}
}

// packDifference names the first column (of the requests table) in which
// a packed record differs from the stored one; "" when none does. Figures
// compare as numbers, an unknown equal to an unknown (a pack keeps zero
// without its sign, as SQLite does).
func packDifference(stored, packed *benchrun.Request) string {
	same := func(a, b float64) bool { return a == b || (a != a && b != b) }
	switch {
	case stored.Index != packed.Index:
		return "idx"
	case !same(stored.Start, packed.Start):
		return "start"
	case !same(stored.QueueTime, packed.QueueTime):
		return "queue_time"
	case !same(stored.TTFT, packed.TTFT):
		return "ttft"
	case !same(stored.Latency, packed.Latency):
		return "latency"
	case stored.InputTokens != packed.InputTokens:
		return "input_tokens"
	case stored.OutputTokens != packed.OutputTokens:
		return "output_tokens"
	case stored.Error != packed.Error:
		return "error"
	case stored.Gaps.Count != packed.Gaps.Count:
		return "gap_count"
	case !same(stored.Gaps.Sum, packed.Gaps.Sum):
		return "gap_sum"
	case !same(stored.Gaps.Min, packed.Gaps.Min):
		return "gap_min"
	case !same(stored.Gaps.Max, packed.Gaps.Max):
		return "gap_max"
	}
	return ""
}

// finding describes what the check found, if anything: the message key,
// the English message and its parameters.
func (c *packCheck) finding() (key, msg string, params map[string]string, ok bool) {
	switch {
	case c == nil:
		return "", "", nil, false
	case c.unreadable != "":
		return MsgRecordsPackUnreadable, "the packed copy of the run's records, which the site reads, cannot be read: " + c.unreadable,
			map[string]string{"error": c.unreadable}, true
	case c.n != len(c.packed):
		return MsgRecordsPackCount, "the packed copy of the run's records, which the site reads, holds " + strconv.Itoa(len(c.packed)) +
				" requests; the archive holds " + strconv.Itoa(c.n),
			map[string]string{"packed": strconv.Itoa(len(c.packed)), "archived": strconv.Itoa(c.n)}, true
	case c.field != "":
		return MsgRecordsPackDiffer, "the packed copy of the run's records, which the site reads, differs from the archived records at the request of idx " +
				strconv.Itoa(c.at) + ", column " + c.field,
			map[string]string{"idx": strconv.Itoa(c.at), "field": c.field}, true
	}
	return "", "", nil, false
}
