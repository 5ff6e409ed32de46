// Package format holds what every input format shares: the Parser
// interface, the InputError a parser rejects bad input with, what detection
// decides about a file, and the few value conventions (unknown request
// fields, canonical units) every parser follows. Each format is a package
// below this one; ingest/registry lists them in detection order.
package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// HeadSize is how much of a file detection looks at.
const HeadSize = 64 << 10

// Parser reads one raw format.
type Parser interface {
	// ID is the stable format id shown to users and stored with each run
	// ("vllm-serve-json").
	ID() string
	// Describe is a short human description ("vllm bench serve JSON result").
	Describe() string
	// Sniff reports whether a file with this base name and these first bytes
	// (at most HeadSize; less for a short file) looks like this format.
	Sniff(name string, head []byte) bool
	// Parse reads the whole file and calls emit once per run, in file order.
	// A bad run of a file that holds several (a block of a page, an object
	// of a list, a line of JSON Lines) is emitted as Reject(ordinal, err) and
	// the parse goes on: the batch rejects that run alone and decides, once
	// for every format (Settle), when the file as a whole is rejected. Parse
	// returns an *InputError naming the place when the file cannot be read
	// on (it is no such result, or its syntax breaks), or emit's error
	// unchanged. It must never panic, whatever the bytes.
	Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error
}

// Rows are a run's per-request records, read one at a time.
type Rows interface {
	Len() int
	Row(i int) benchrun.Request
}

// CompactRecordBytes is what a request's record costs at most when kept
// column by column, with every list a vLLM file can hold (the error texts
// of failed requests aside): two token counts, four times, and the chunk
// gaps' count, sum, minimum and maximum.
const CompactRecordBytes = 2*4 + 4*8 + 4 + 3*8

// CompactParser is a Parser that can also hand over each run's per-request
// records as Rows kept column by column, leaving Run.Requests nil: a file
// of a million requests then holds CompactRecordBytes a request instead of
// benchrun.Request's 96. The audit parses raw files again this way. rows
// is nil for a rejected run or one without records.
type CompactParser interface {
	Parser
	ParseCompact(ctx context.Context, name string, r io.Reader, emit func(run *benchrun.Run, rows Rows) error) error
}

// InputError is bad input: which file, where in it, and why. Every parser
// rejection is one of these, so the command can print one clear line.
type InputError struct {
	File   string // path as the user named it
	Place  string // "byte 1234 (line 1)", "key \"ttfts\" item 17", "line 9"
	Reason string
	Err    error // underlying cause, if any
}

func (e *InputError) Error() string {
	s := e.File
	if e.Place != "" {
		s += ": " + e.Place
	}
	return s + ": " + e.Reason
}

func (e *InputError) Unwrap() error { return e.Err }

// Errorf builds an InputError for file at place.
func Errorf(file, place, format string, args ...any) *InputError {
	return &InputError{File: file, Place: place, Reason: fmt.Sprintf(format, args...)}
}

// Detection is what a file looks like before it is parsed.
type Detection struct {
	Parser Parser // the format to parse it with; nil when none fits
	// NotResult says why the file is not a benchmark result at all (a
	// manifest, a derived table, source code); such files are skipped when
	// walking a folder.
	NotResult string
	// Unsupported names a recognised result of a tool this version cannot
	// read yet; it is a rejection, not a skip.
	Unsupported string
	// NamedOnly, with Parser and NotResult both set, says the file is read
	// with Parser when it is named on the command line and skipped as
	// NotResult when a folder walk meets it: a Markdown page pasting result
	// blocks is a result when the user says so, but a walk must not start
	// reading every notes file as one.
	NamedOnly bool
}

// NewRequest is request i's record with nothing known yet.
func NewRequest(i int) benchrun.Request {
	return benchrun.Request{
		Index: i, Start: benchrun.Unknown, QueueTime: benchrun.Unknown, TTFT: benchrun.Unknown,
		Latency: benchrun.Unknown, InputTokens: -1, OutputTokens: -1,
		Gaps: benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown},
	}
}

// Slot returns request i's record in reqs, which a column-wise file fills
// list by list: the first list appends the records and so sets the count;
// once fixed, an item past the count gets nil (the caller reports the
// longer list). hint, a count the file states before its lists, sizes the
// records on first use, trusted up to limit (a hostile file can claim
// billions).
func Slot(reqs *[]benchrun.Request, fixed bool, i int, hint, limit int64) *benchrun.Request {
	if i < len(*reqs) {
		return &(*reqs)[i]
	}
	if fixed {
		return nil
	}
	if *reqs == nil {
		*reqs = make([]benchrun.Request, 0, min(max(hint, 16), limit))
	}
	*reqs = append(*reqs, NewRequest(i))
	return &(*reqs)[i]
}

// ToCanonicalUnit converts a value from the unit the file states it in to the
// project's canonical unit. Every stated figure and per-request value
// passes through here, so the conversion exists once.
func ToCanonicalUnit(v float64, sourceUnit string) (float64, string) {
	if sourceUnit == "ms" {
		return v / 1000, "s"
	}
	return v, sourceUnit
}

// IsPercentileWord matches "p" followed by digits and an optional fraction
// ("p99", "p99.9"), the way every client names a percentile key.
func IsPercentileWord(s string) bool {
	if len(s) < 2 || s[0] != 'p' {
		return false
	}
	digits, frac, hasDot := strings.Cut(s[1:], ".")
	allDigits := func(t string) bool {
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return t != ""
	}
	return allDigits(digits) && (!hasDot || allDigits(frac))
}

// FormatFloat is the shortest text that reads back as v.
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// HasPrefixIn reports whether s starts with any of prefixes.
func HasPrefixIn(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Invoker is implemented by formats whose tool writes one run as several
// files, all named from one stem in one folder (AIPerf's
// profile_export.jsonl, profile_export_aiperf.json and _aiperf.csv;
// llmperf's <name>_summary.json and <name>_individual_responses.json). The
// folder and the stem are what the files say about each other: the batch
// joins companion files only when both match, never on the companion key
// alone, which different runs of one fixed workload share.
type Invoker interface {
	// Invocation returns what names the invocation that wrote the file at
	// path (slash-separated, absolute): its folder and the stem the tool
	// derives every name from; ok false for a name the tool does not write.
	Invocation(path string) (key string, ok bool)
}

// StemInvocation is the invocation key dir/stem of a file named
// <stem><suffix>; ok false for another name or an empty stem.
func StemInvocation(path, suffix string) (string, bool) {
	stem, ok := strings.CutSuffix(path, suffix)
	if !ok || strings.HasSuffix(stem, "/") || stem == "" {
		return "", false
	}
	return stem, true
}

// Reject is the run of a multi-run file that is bad: which run (ordinal)
// and where and why it is bad (ie's place and reason). The batch reports it
// at that place and archives the file's other runs.
func Reject(ordinal int, ie *InputError) *benchrun.Run {
	return &benchrun.Run{Ordinal: ordinal, Location: ie.Place, Rejection: ie.Reason,
		Facts: map[string]string{}, Extra: map[string]string{}, Completed: -1, Failed: -1}
}

// Settle is the one rule, for every format, that turns what a parse gave
// into runs to archive and problems to report. A parse error after runs
// were emitted rejects the rest of the file at its place, as one more bad
// run, and leaves the runs before it good. file is nil when at least one
// run is good; otherwise it is the file's rejection: its first problem, or
// "no run" for a parse that found none. An error that is not about the
// input (cancellation, the archive) comes back as err.
func Settle(name string, runs []*benchrun.Run, parseErr error) (out []*benchrun.Run, file *InputError, err error) {
	if parseErr != nil {
		var ie *InputError
		if !errors.As(parseErr, &ie) {
			return nil, nil, parseErr
		}
		if len(runs) == 0 {
			return nil, ie, nil
		}
		r := Reject(len(runs), ie)
		r.Rejection += " (the file cannot be read past this point; the runs before it are read)"
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, Errorf(name, "", "no benchmark run found in the file"), nil
	}
	for _, r := range runs {
		if r.Rejection == "" {
			return runs, nil, nil
		}
	}
	return runs, &InputError{File: name, Place: runs[0].Location, Reason: runs[0].Rejection}, nil
}
