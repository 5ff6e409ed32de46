// Package lmbench reads the per-request CSV that LMCache's LMBench
// workloads write (LMCache/LMBench 3-workloads/synthetic/multi-round-qa.py,
// UserSession.summary and main, read at
// 169aaed0312e7a4d6ac5469c2000935abf9a2abf; the sharegpt, random, agentic
// and mooncake workloads share it): pandas to_csv(index=False) of
//
//	prompt_tokens,generation_tokens,ttft,generation_time,user_id,question_id,launch_time,finish_time
//
// one row per finished request, grouped by user session. launch_time and
// finish_time are time.time() epoch seconds; ttft = first non-empty content
// chunk − launch; generation_time = the time after the stream (and after a
// second, non-streamed request when the stream gave no usage) − first
// chunk. Token counts are the server's usage. A request that raised is not
// written: failures are invisible. It is a full per-request run.
package lmbench

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
)

// ID is the format id.
const ID = "lmbench-csv"

const tool = "LMBench"

// maxRows bounds the requests of one file.
const maxRows = 10_000_000

// New returns the parser for LMBench's per-request CSV.
func New() format.Parser { return parser{} }

type parser struct{}

func (parser) ID() string       { return ID }
func (parser) Describe() string { return "LMCache LMBench per-request CSV (summary.csv)" }

// required are the columns the parser reads; user_id and question_id are
// optional (every workload writes them, a hand-trimmed file may not).
var required = []string{"prompt_tokens", "generation_tokens", "ttft", "generation_time", "launch_time", "finish_time"}

// Sniff reads the header line.
func (parser) Sniff(name string, head []byte) bool {
	line, _, _ := bytes.Cut(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), []byte("\n"))
	cols := map[string]bool{}
	for c := range strings.SplitSeq(strings.TrimSpace(string(line)), ",") {
		cols[c] = true
	}
	for _, c := range required {
		if !cols[c] {
			return false
		}
	}
	return true
}

type row struct {
	req    benchrun.Request
	finish float64
	line   int
}

func (parser) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return format.Errorf(name, "", "the file is empty")
	}
	if err != nil {
		return csvError(name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup {
			return format.Errorf(name, textread.At(1), "column %q appears twice", h)
		}
		col[h] = i
	}
	for _, c := range required {
		if _, ok := col[c]; !ok {
			return format.Errorf(name, textread.At(1), "not an LMBench summary: no %q column", c)
		}
	}
	var rows []row
	noFirst := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rows)%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if len(rows) >= maxRows {
			return format.Errorf(name, textread.At(line), "more than %d requests in one file", maxRows)
		}
		get := func(c string) (float64, error) {
			s := strings.TrimSpace(rec[col[c]])
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, format.Errorf(name, textread.At(line), "%s: %q is not a finite number", c, s)
			}
			if v < 0 {
				return 0, format.Errorf(name, textread.At(line), "%s: %q is negative", c, s)
			}
			return v, nil
		}
		var vals [6]float64
		for i, c := range required {
			if vals[i], err = get(c); err != nil {
				return err
			}
		}
		in, out, ttft, gen, launch, finish := vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]
		for i, v := range []float64{in, out} {
			if v != math.Trunc(v) || v > math.MaxInt32 {
				return format.Errorf(name, textread.At(line), "%s: %s is not a whole token count", required[i], format.FormatFloat(v))
			}
		}
		if finish < launch {
			return format.Errorf(name, textread.At(line), "finish_time %s is before launch_time %s", strconv.FormatFloat(finish, 'f', -1, 64), strconv.FormatFloat(launch, 'f', -1, 64))
		}
		req := format.NewRequest(0)
		req.Start = launch
		req.InputTokens, req.OutputTokens = int32(in), int32(out)
		if ttft == 0 && gen == 0 {
			// No content chunk arrived: LMBench writes 0 for both.
			noFirst++
			req.Latency = finish - launch
		} else {
			req.TTFT = ttft
			req.Latency = ttft + gen
			if req.Latency > finish-launch+1e-3 {
				return format.Errorf(name, textread.At(line), "ttft + generation_time = %s s is longer than finish_time − launch_time = %s s", format.FormatFloat(req.Latency), format.FormatFloat(finish-launch))
			}
		}
		rows = append(rows, row{req: req, finish: finish, line: line})
	}
	if len(rows) == 0 {
		return format.Errorf(name, "", "run has no requests: the file has a header and no rows")
	}
	// Rows come grouped by user session; the run's order is dispatch order.
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].req.Start < rows[j].req.Start })
	run := &benchrun.Run{
		Location:         "rows from line 2",
		Format:           ID,
		FormatVariant:    "summary.csv (UserSession.summary)",
		SourceTool:       tool,
		PercentileMethod: "",
		Clock:            benchrun.ClockEpoch,
		Facts:            map[string]string{"measurement.client": tool},
		HasRequests:      true,
		Completed:        int64(len(rows)),
		Failed:           -1,
		Requests:         make([]benchrun.Request, len(rows)),
	}
	for i, rw := range rows {
		rw.req.Index = i
		run.Requests[i] = rw.req
	}
	if noFirst > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d requests have ttft and generation_time 0 (no content chunk arrived): their TTFT is unknown and their latency is finish_time − launch_time", noFirst))
	}
	run.Notes = append(run.Notes,
		"latency is ttft + generation_time, which ends when the stream ended (after a second, non-streamed request when the stream gave no token usage); finish_time is read a moment later",
		"LMBench writes only finished requests: failed requests are not in the file, so the failed count is unknown",
		"no chunk gaps: ITL cannot be computed; TPOT is (latency − ttft) / (output tokens − 1)",
		"the file names no model, engine, QPS or date: they must come from the manifest (the workload's arguments are on its command line)")
	return emit(run)
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &format.InputError{File: name, Place: textread.At(pe.Line), Reason: pe.Err.Error(), Err: err}
	}
	return fmt.Errorf("reading %s: %w", name, err)
}
