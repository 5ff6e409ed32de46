package trace_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/ingest/trace"
)

func traceParse(t testing.TB, name string, data []byte) (*benchrun.Run, error) {
	t.Helper()
	var got *benchrun.Run
	n := 0
	err := trace.NewParser().Parse(context.Background(), name, bytes.NewReader(data), func(r *benchrun.Run) error {
		got = r
		n++
		return nil
	})
	if err == nil && n != 1 {
		t.Fatalf("%s: emitted %d runs, want 1", name, n)
	}
	return got, err
}

func traceFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameFloat is == that treats two NaNs (unknown) as equal.
func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func sameRequest(a, b *benchrun.Request) bool {
	return a.Index == b.Index && sameFloat(a.Start, b.Start) && sameFloat(a.QueueTime, b.QueueTime) &&
		sameFloat(a.TTFT, b.TTFT) && sameFloat(a.Latency, b.Latency) && a.InputTokens == b.InputTokens &&
		a.OutputTokens == b.OutputTokens && a.Error == b.Error && a.Gaps.Count == b.Gaps.Count &&
		sameFloat(a.Gaps.Sum, b.Gaps.Sum) && sameFloat(a.Gaps.Min, b.Gaps.Min) && sameFloat(a.Gaps.Max, b.Gaps.Max)
}

func TestTraceGood(t *testing.T) {
	// d subtracts in float64, as the parser does (constants would be exact).
	d := func(a, b float64) float64 { return a - b }
	unknownGaps := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
	tests := []struct {
		file              string
		clock             benchrun.Clock
		tool              string
		completed, failed int64
		facts             map[string]string
		noFacts           []string
		extra             map[string]string
		notes             []string
		reqs              []benchrun.Request
	}{
		{
			file: "epoch_basic.jsonl", clock: benchrun.ClockEpoch, tool: "openai-batch-client", completed: 3, failed: 1,
			facts: map[string]string{
				"measurement.client": "openai-batch-client", "measurement.client_version": "1.4.0",
				"measurement.client_host": "node-a", "checkpoint.model_id": "nvidia/Qwen3-30B-A3B-FP4",
				"measurement.label": "smoke", "workload.request_count": "4", "workload.concurrency": "4",
				"workload.request_rate": "inf", "workload.output_len": "256", "workload.temperature": "0",
				"measurement.clock": "epoch", "measurement.date": "2025-08-18T06:53:20Z",
			},
			extra: map[string]string{},
			notes: []string{"earliest request start"},
			reqs: []benchrun.Request{
				{Index: 0, Start: 1755500000.123456, QueueTime: benchrun.Unknown, TTFT: d(1755500000.2, 1755500000.123456),
					Latency: d(1755500003.4, 1755500000.123456), InputTokens: 64, OutputTokens: 256,
					Gaps: benchrun.GapStats{Count: 255, Sum: 3.2, Min: 0.01, Max: 0.04}},
				{Index: 1, Start: 1755500000.125, QueueTime: 0.001, TTFT: d(1755500000.25, 1755500000.125),
					Latency: d(1755500003.5, 1755500000.125), InputTokens: 65, OutputTokens: 256,
					Gaps: benchrun.GapStats{Count: 255, Sum: 3.25, Min: 0.011, Max: 0.039}},
				{Index: 2, Start: 1755500000.126, QueueTime: benchrun.Unknown, TTFT: benchrun.Unknown, Latency: benchrun.Unknown,
					InputTokens: 64, OutputTokens: 0, Error: "HTTP 503: Service Unavailable", Gaps: unknownGaps},
				{Index: 3, Start: 1755500000.13, QueueTime: benchrun.Unknown, TTFT: d(1755500000.3, 1755500000.13),
					Latency: d(1755500003.1, 1755500000.13), InputTokens: 66, OutputTokens: 200, Gaps: unknownGaps},
			},
		},
		{
			file: "monotonic_itl_crlf.jsonl", clock: benchrun.ClockMonotonic, tool: "my-client", completed: 2,
			facts: map[string]string{
				"measurement.clock": "monotonic", "workload.dataset": "sharegpt", "workload.input_len": "1000",
				"workload.fixed_output": "true", "workload.seed": "42", "metadata.gpu": "H100", "metadata.run": "3",
				"metadata.tp": "2", "workload.request_count": "2",
			},
			noFacts: []string{"measurement.date"},
			extra:   map[string]string{"server": `{"url":"http://127.0.0.1:8000/v1","engine":"vllm"}`, "note": `"first try"`},
			notes:   []string{"does not read, kept in the raw bytes only: ttft_server, x_trace_id"},
			reqs: []benchrun.Request{
				{Index: 0, Start: 18042.5, QueueTime: benchrun.Unknown, TTFT: 0.25, Latency: 1, InputTokens: 1000, OutputTokens: 4,
					Gaps: benchrun.GapStats{Count: 3, Sum: 0.75, Min: 0.25, Max: 0.25}},
				{Index: 1, Start: 18042.6, QueueTime: benchrun.Unknown, TTFT: d(18042.8, 18042.6), Latency: d(18043.2, 18042.6),
					InputTokens: 1000, OutputTokens: 3, Gaps: benchrun.GapStats{Count: 2, Sum: 0.4, Min: 0.2, Max: 0.2}},
			},
		},
		{
			file: "bom_date_minimal.jsonl", clock: benchrun.ClockEpoch, tool: "c", completed: 1,
			facts: map[string]string{"measurement.date": "2026-08-18", "measurement.client": "c"},
			extra: map[string]string{},
			notes: []string{"1 completed requests have no first_token"},
			reqs: []benchrun.Request{{Index: 0, Start: 1787050000, QueueTime: benchrun.Unknown, TTFT: benchrun.Unknown,
				Latency: 1.5, InputTokens: -1, OutputTokens: 10, Gaps: unknownGaps}},
		},
		{
			file: "all_failed.jsonl", clock: benchrun.ClockEpoch, tool: "c", failed: 2,
			facts: map[string]string{"measurement.date": "2026-08-18T10:46:40Z"},
			extra: map[string]string{},
			reqs: []benchrun.Request{
				{Index: 0, Start: 1787050000, QueueTime: benchrun.Unknown, TTFT: benchrun.Unknown, Latency: benchrun.Unknown,
					InputTokens: -1, OutputTokens: -1, Error: "connection refused", Gaps: unknownGaps},
				{Index: 1, Start: 1787050000.1, QueueTime: benchrun.Unknown, TTFT: benchrun.Unknown,
					Latency: d(1787050000.2, 1787050000.1), InputTokens: -1, OutputTokens: -1, Error: "connection refused", Gaps: unknownGaps},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data := traceFixture(t, tc.file)
			if !trace.NewParser().Sniff(tc.file, data) {
				t.Error("Sniff does not recognise the file")
			}
			if d := registry.Detect(tc.file, data); d.Parser == nil || d.Parser.ID() != "benchledger-trace" {
				t.Errorf("Detect: %+v", d)
			}
			r, err := traceParse(t, tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Ordinal != 0 || r.Format != "benchledger-trace" || r.FormatVariant != "version 1" || r.Location != "line 1" ||
				r.PercentileMethod != "linear" || !r.HasRequests || r.Clock != tc.clock || r.SourceTool != tc.tool {
				t.Errorf("run: ordinal %d format %q/%q at %q, method %q, has %v, clock %q, tool %q",
					r.Ordinal, r.Format, r.FormatVariant, r.Location, r.PercentileMethod, r.HasRequests, r.Clock, r.SourceTool)
			}
			if r.Completed != tc.completed || r.Failed != tc.failed {
				t.Errorf("completed %d failed %d, want %d %d", r.Completed, r.Failed, tc.completed, tc.failed)
			}
			for k, v := range tc.facts {
				if r.Facts[k] != v {
					t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
				}
			}
			for _, k := range tc.noFacts {
				if v, ok := r.Facts[k]; ok {
					t.Errorf("unexpected fact %s = %q", k, v)
				}
			}
			if len(r.Extra) != len(tc.extra) {
				t.Errorf("extra %v, want %v", r.Extra, tc.extra)
			}
			for k, v := range tc.extra {
				if r.Extra[k] != v {
					t.Errorf("extra %s = %q, want %q", k, r.Extra[k], v)
				}
			}
			for _, n := range tc.notes {
				if !slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("no note containing %q in %q", n, r.Notes)
				}
			}
			if len(r.Requests) != len(tc.reqs) {
				t.Fatalf("%d requests, want %d", len(r.Requests), len(tc.reqs))
			}
			for i := range tc.reqs {
				if !sameRequest(&r.Requests[i], &tc.reqs[i]) {
					t.Errorf("request %d:\n got %+v\nwant %+v", i, r.Requests[i], tc.reqs[i])
				}
			}
		})
	}
}

func TestTraceBad(t *testing.T) {
	tests := []struct {
		file, place, reason string
	}{
		{"bad_empty.jsonl", "", "the file is empty"},
		{"bad_no_version.jsonl", "line 1", `no "benchledger_trace" version`},
		{"bad_first_line_request.jsonl", "line 1", `no "benchledger_trace" version`},
		{"bad_version_2.jsonl", "line 1", "unsupported benchledger_trace version 2"},
		{"bad_no_clock.jsonl", "line 1", `no "clock"`},
		{"bad_clock_word.jsonl", "line 1", `"clock" must be "epoch" or "monotonic", found "wall"`},
		{"bad_no_client.jsonl", "line 1", `no "client"`},
		{"bad_header_requests_zero.jsonl", "line 1", `"requests" must be a positive integer`},
		{"bad_header_date.jsonl", "line 1", "is not a date"},
		{"bad_multiline_header.jsonl", "line 1", "continues on line 2"},
		{"bad_json_line.jsonl", "line 3", "malformed JSON"},
		{"bad_truncated.jsonl", "line 3", "truncated"},
		{"bad_two_objects_one_line.jsonl", "line 2", "second JSON value"},
		{"bad_not_object.jsonl", "line 2", "expected a JSON object, found array"},
		{"bad_missing_i.jsonl", "line 3", `no "i"`},
		{"bad_duplicate_i.jsonl", "line 3", "duplicate request index i=0 (line 2 has it too)"},
		{"bad_out_of_order_i.jsonl", "line 3", "i=2 out of order: expected i=1"},
		{"bad_missing_start.jsonl", "line 3", `has no "start"`},
		{"bad_end_before_start.jsonl", "line 3", "end 1787050002 is before start 1787050003"},
		{"bad_first_token_after_end.jsonl", "line 3", "first_token 1787050002.5 is outside [start, end]"},
		{"bad_first_token_before_start.jsonl", "line 3", "first_token 1787049999.5 is outside [start, end]"},
		{"bad_negative_tokens.jsonl", "line 3", `"output_tokens" is negative (-3)`},
		{"bad_nan.jsonl", "line 3", `"end" is NaN: not a time`},
		{"bad_infinity.jsonl", "line 3", `"start" is Infinity: not a time`},
		{"bad_completed_no_end.jsonl", "line 2", `needs "end"`},
		{"bad_epoch_millis.jsonl", "line 2", "not epoch seconds"},
		{"bad_monotonic_as_epoch.jsonl", "line 2", "not epoch seconds"},
		{"bad_gaps_and_itl.jsonl", "line 2", `both "gaps" and "itl"`},
		{"bad_gaps_minmax.jsonl", "line 2", "min 0.8 s is above max 0.2 s"},
		{"bad_gaps_exceed.jsonl", "line 2", "add up to 3 s, more than end − first_token"},
		{"bad_error_type.jsonl", "line 2", `"error" must be null or a string, found 500`},
		{"bad_no_requests.jsonl", "line 1", "run has no requests"},
		{"bad_count_mismatch.jsonl", "line 1", "announces 3 requests but the file holds 1"},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "bad_*.jsonl"))
	if len(files) != len(tests) {
		t.Errorf("%d bad fixtures, %d cases: every fixture needs a case", len(files), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := traceParse(t, tc.file, traceFixture(t, tc.file))
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an *InputError, got %v", err)
			}
			if ie.File != tc.file || ie.Place != tc.place || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got %q at %q: %q\nwant place %q, reason containing %q", ie.File, ie.Place, ie.Reason, tc.place, tc.reason)
			}
		})
	}
}

// Inline cases that need generated input or that no fixture shows.
func TestTraceBadInline(t *testing.T) {
	h := `{"benchledger_trace":1,"clock":"epoch","client":"c"}` + "\n"
	long := `{"benchledger_trace":1,"clock":"epoch","client":"c","x":"` + strings.Repeat("a", jsonread.MaxLine) + `"}` + "\n"
	tests := []struct {
		name, data, place, reason string
	}{
		{"line too long", long, "line 1", "longer than 16 MiB"},
		{"whitespace only", "\n \n", "", "only whitespace"},
		{"version as string", `{"benchledger_trace":"1","clock":"epoch","client":"c"}`, "line 1", "must be the format version"},
		{"version null", `{"benchledger_trace":null,"clock":"epoch","client":"c"}`, "line 1", "version is null"},
		{"header key twice", `{"benchledger_trace":1,"clock":"epoch","clock":"epoch","client":"c"}`, "line 1", `"clock" appears twice`},
		{"empty client", `{"benchledger_trace":1,"clock":"epoch","client":" "}`, "line 1", `"client" is empty`},
		{"metadata list", `{"benchledger_trace":1,"clock":"epoch","client":"c","metadata":{"a":[1]}}`, "line 1", `"a" must be a string`},
		{"rate zero", `{"benchledger_trace":1,"clock":"epoch","client":"c","request_rate":0}`, "line 1", `positive number or "inf"`},
		{"request key twice", h + `{"i":0,"i":0,"start":1787050000,"end":1787050001}`, "line 2", `"i" appears twice`},
		{"fractional tokens", h + `{"i":0,"start":1787050000,"end":1787050001,"input_tokens":2.5}`, "line 2", "whole token count"},
		{"start string", h + `{"i":0,"start":"1787050000","end":1787050001}`, "line 2", `"start" must be a number of seconds`},
		{"negative queue", h + `{"i":0,"start":1787050000,"end":1787050001,"queue_time":-0.1}`, "line 2", `"queue_time" is negative`},
		{"itl negative", h + `{"i":0,"start":1787050000,"end":1787050001,"itl":[0.1,-0.1]}`, "line 2", `"itl item 1" is negative`},
		{"gaps without n", h + `{"i":0,"start":1787050000,"end":1787050001,"gaps":{"sum":1}}`, "line 2", `"gaps" has no "n"`},
		{"gaps without min", h + `{"i":0,"start":1787050000,"end":1787050001,"gaps":{"n":2,"sum":1,"max":1}}`, "line 2", `needs "sum", "min" and "max"`},
		{"gaps mean outside", h + `{"i":0,"start":1787050000,"end":1787050009,"gaps":{"n":2,"sum":4,"min":0.1,"max":0.2}}`, "line 2", "outside [min, max]"},
		{"implausible time", `{"benchledger_trace":1,"clock":"monotonic","client":"c"}` + "\n" + `{"i":0,"start":1e14,"end":1e14}`, "line 2", "not a plausible time"},
		{"first i not 0", h + `{"i":1,"start":1787050000,"end":1787050001}`, "line 2", "expected i=0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := traceParse(t, "x.jsonl", []byte(tc.data))
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an *InputError, got %v", err)
			}
			if ie.Place != tc.place || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got %q: %q\nwant place %q, reason containing %q", ie.Place, ie.Reason, tc.place, tc.reason)
			}
		})
	}
}

func TestTraceSniff(t *testing.T) {
	p := trace.NewParser()
	for _, s := range []string{
		`{"benchledger_trace": 1}`,
		"\ufeff\n  {\"clock\": \"epoch\", \"benchledger_trace\": 1, \"client\": \"c\"}\n{\"i\": 0}",
		`{"benchledger_trace": 2, "clock": "epoch"}`, // recognised; Parse says the version is unsupported
		`{"client": "c", "benchledger_trace": 1, "x": "` + strings.Repeat("y", format.HeadSize) + `"}`,
	} {
		if !p.Sniff("a.jsonl", []byte(s)[:min(len(s), format.HeadSize)]) {
			t.Errorf("Sniff(%.60q) = false", s)
		}
	}
	for _, s := range []string{
		``, `[]`, `{}`, `{"i": 0, "start": 1}`, "{\"a\": 1}\n{\"benchledger_trace\": 1}",
		`{"x": {"benchledger_trace": 1}}`, `"benchledger_trace"`, `{"benchledger"`,
	} {
		if p.Sniff("a.jsonl", []byte(s)) {
			t.Errorf("Sniff(%q) = true", s)
		}
	}
	// The other formats' files are not taken for traces, nor the reverse.
	others, _ := filepath.Glob(filepath.Join("..", "format", "vllmjson", "testdata", "*.json"))
	consoles, _ := filepath.Glob(filepath.Join("..", "format", "vllmconsole", "testdata", "*.txt"))
	for _, f := range append(others, consoles...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if p.Sniff(f, b[:min(len(b), format.HeadSize)]) {
			t.Errorf("%s taken for a trace", f)
		}
	}
	traces, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, f := range traces {
		b, _ := os.ReadFile(f)
		if d := registry.Detect(f, b[:min(len(b), format.HeadSize)]); d.Parser != nil && d.Parser.ID() != "benchledger-trace" {
			t.Errorf("%s detected as %s", f, d.Parser.ID())
		}
	}
}

// traceRecords builds records the way a client measures them: absolute
// instants in whole microseconds, TTFT and latency as their differences.
func traceRecords(clock benchrun.Clock, n int) []benchrun.Request {
	base := int64(1787065327_000000)
	if clock == benchrun.ClockMonotonic {
		base = 23022_108419
	}
	sec := func(us int64) float64 { return float64(us) / 1e6 }
	reqs := make([]benchrun.Request, n)
	for i := range reqs {
		s := base + int64(i)*1237 + int64(i*i%7)*3
		f := s + 150_000 + int64(i%13)*10_007
		e := f + 20_000_000 + int64(i%29)*31_013
		r := benchrun.Request{
			Index: i, Start: sec(s), QueueTime: sec(int64(i%5) * 211), TTFT: sec(f) - sec(s), Latency: sec(e) - sec(s),
			InputTokens: int32(63 + i%4), OutputTokens: 256,
			Gaps: benchrun.GapStats{Count: 255, Sum: sec(e - f), Min: sec((e - f) / 255 / 2), Max: sec((e - f) / 255 * 3)},
		}
		switch i % 11 {
		case 3:
			r.Error, r.TTFT, r.Latency, r.OutputTokens = "HTTP 500: \"engine dead\"\n\ttraceback…", benchrun.Unknown, benchrun.Unknown, 0
			r.Gaps = benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
		case 5:
			r.InputTokens, r.QueueTime = -1, benchrun.Unknown
		case 7:
			r.TTFT, r.Gaps = benchrun.Unknown, benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
		}
		reqs[i] = r
	}
	return reqs
}

func TestTraceRoundTrip(t *testing.T) {
	yes, temp, seed := true, 0.0, int64(7)
	for _, clock := range []benchrun.Clock{benchrun.ClockEpoch, benchrun.ClockMonotonic} {
		t.Run(string(clock), func(t *testing.T) {
			h := trace.Header{
				Clock: clock, Client: "openai-batch-client", ClientVersion: "1.4.0", Host: "node-a",
				ModelID: "nvidia/Qwen3-30B-A3B-FP4", Tokenizer: "Qwen/Qwen3-30B-A3B", Label: "rt \"quoted\" ✓",
				Dataset: "one prompt", MaxConcurrency: 64, RequestRate: math.Inf(1), RequestedInputTokens: 64,
				RequestedOutputTokens: 256, FixedOutput: &yes, Temperature: &temp, Seed: &seed,
				Metadata: map[string]string{"gpu": "0", "note": "a\x01b"},
				Extra:    map[string]string{"server": `{"url": "http://127.0.0.1:8000/v1"}`, "zz": "[1, 2]"},
			}
			if clock == benchrun.ClockMonotonic {
				h.Date = "2026-08-18"
			}
			reqs := traceRecords(clock, 500)
			var buf bytes.Buffer
			if err := trace.Write(&buf, h, reqs); err != nil {
				t.Fatal(err)
			}
			first := bytes.Clone(buf.Bytes())
			if lines := bytes.Count(first, []byte("\n")); lines != 501 {
				t.Fatalf("%d lines, want 501", lines)
			}
			r, err := traceParse(t, "rt.jsonl", first)
			if err != nil {
				t.Fatal(err)
			}
			for i := range reqs {
				if !sameRequest(&r.Requests[i], &reqs[i]) {
					t.Fatalf("request %d:\n got %+v\nwant %+v", i, r.Requests[i], reqs[i])
				}
			}
			want := map[string]string{
				"measurement.client": h.Client, "measurement.client_version": "1.4.0", "measurement.client_host": "node-a",
				"checkpoint.model_id": h.ModelID, "checkpoint.tokenizer": h.Tokenizer, "measurement.label": h.Label,
				"workload.dataset": h.Dataset, "workload.request_count": "500", "workload.concurrency": "64",
				"workload.request_rate": "inf", "workload.input_len": "64", "workload.output_len": "256",
				"workload.fixed_output": "true", "workload.temperature": "0", "workload.seed": "7",
				"metadata.gpu": "0", "metadata.note": "a\x01b", "measurement.clock": string(clock),
			}
			if clock == benchrun.ClockEpoch {
				want["measurement.date"] = "2026-08-18T15:02:07Z"
			} else {
				want["measurement.date"] = "2026-08-18"
			}
			for k, v := range want {
				if r.Facts[k] != v {
					t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
				}
			}
			if r.Extra["server"] != `{"url": "http://127.0.0.1:8000/v1"}` || r.Extra["zz"] != "[1, 2]" {
				t.Errorf("extra %v", r.Extra)
			}
			// Records read from a trace write back to the same bytes.
			h2 := h
			buf.Reset()
			if err := trace.Write(&buf, h2, r.Requests); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), first) {
				t.Error("parse → write does not give the same bytes")
			}
		})
	}
}

func TestWriteTraceRefuses(t *testing.T) {
	ok := trace.Header{Clock: benchrun.ClockEpoch, Client: "c"}
	good := traceRecords(benchrun.ClockEpoch, 3)
	mod := func(f func([]benchrun.Request)) []benchrun.Request {
		r := slices.Clone(good)
		f(r)
		return r
	}
	tests := []struct {
		name   string
		h      trace.Header
		reqs   []benchrun.Request
		reason string
	}{
		{"no requests", ok, nil, "no requests"},
		{"no clock", trace.Header{Client: "c"}, good, "clock"},
		{"no client", trace.Header{Clock: benchrun.ClockEpoch}, good, "no client"},
		{"extra collides", trace.Header{Clock: benchrun.ClockEpoch, Client: "c", Extra: map[string]string{"clock": `"x"`}}, good, "header key of its own"},
		{"extra not json", trace.Header{Clock: benchrun.ClockEpoch, Client: "c", Extra: map[string]string{"x": `{`}}, good, "not one-line JSON"},
		{"bad date", trace.Header{Clock: benchrun.ClockEpoch, Client: "c", Date: "yesterday"}, good, "date"},
		{"negative rate", trace.Header{Clock: benchrun.ClockEpoch, Client: "c", RequestRate: -1}, good, "request rate"},
		{"index", ok, mod(func(r []benchrun.Request) { r[1].Index = 5 }), "has index 5"},
		{"no latency", ok, mod(func(r []benchrun.Request) { r[0].Latency = benchrun.Unknown }), `needs "end"`},
		{"ttft past end", ok, mod(func(r []benchrun.Request) { r[0].TTFT = r[0].Latency + 1 }), "outside"},
		{"monotonic on epoch", ok, mod(func(r []benchrun.Request) { r[0].Start = 1000 }), "not epoch seconds"},
		{"gaps", ok, mod(func(r []benchrun.Request) { r[0].Gaps.Min = 100 }), "gap summary"},
		{"tokens", ok, mod(func(r []benchrun.Request) { r[0].OutputTokens = -2 }), "negative token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := trace.Write(&bytes.Buffer{}, tc.h, tc.reqs)
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("got %v, want an error containing %q", err, tc.reason)
			}
		})
	}
}

func TestTraceCancelAndEmit(t *testing.T) {
	data := traceFixture(t, "epoch_basic.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := trace.NewParser().Parse(ctx, "x.jsonl", bytes.NewReader(data), func(*benchrun.Run) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	stop := errors.New("stop")
	err = trace.NewParser().Parse(context.Background(), "x.jsonl", bytes.NewReader(data), func(*benchrun.Run) error { return stop })
	if err != stop {
		t.Errorf("emit's error: got %v", err)
	}
}

// FuzzTrace: whatever the bytes, Sniff and Parse must not panic, Parse must
// reject with an *InputError only, an accepted run must be consistent, and
// Write must write it back to a file that parses to the same records.
func FuzzTrace(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	var buf bytes.Buffer
	if err := trace.Write(&buf, trace.Header{Clock: benchrun.ClockEpoch, Client: "c"}, traceRecords(benchrun.ClockEpoch, 12)); err == nil {
		f.Add(buf.Bytes())
	}
	for _, s := range []string{
		``, "\n", `{}`, `{"benchledger_trace":1}`, `{"benchledger_trace":1,"clock":"monotonic","client":"c"}` + "\n" + `{"i":0,"start":0,"end":0}`,
		`{"benchledger_trace":1,"clock":"monotonic","client":"c"}` + "\n" + `{"i":0,"start":0.5,"first_token":3.2,"end":3.2,"itl":[]}`,
		`{"benchledger_trace":1,"clock":"monotonic","client":"c"}` + "\n" + `{"i":0,"start":1e-300,"first_token":1e-7,"end":999999999999,"gaps":{"n":1,"sum":5,"min":5,"max":5}}`,
	} {
		f.Add([]byte(s))
	}
	p := trace.NewParser()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.jsonl", data[:min(len(data), format.HeadSize)])
		r, err := traceParse(t, "fuzz.jsonl", data)
		if err != nil {
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an *InputError: %T %v", err, err)
			}
			return
		}
		if r.Ordinal != 0 || r.Format != "benchledger-trace" || r.Facts == nil || r.Extra == nil || !r.HasRequests ||
			len(r.Requests) == 0 || r.Completed+r.Failed != int64(len(r.Requests)) {
			t.Fatalf("run %+v", r)
		}
		for i, q := range r.Requests {
			if q.Index != i || q.InputTokens < -1 || q.OutputTokens < -1 || q.Gaps.Count < 0 ||
				!(q.TTFT >= 0 || math.IsNaN(q.TTFT)) || !(q.Latency >= 0 || math.IsNaN(q.Latency)) ||
				!q.Failed() && math.IsNaN(q.Latency) || q.TTFT > q.Latency {
				t.Fatalf("request %d: %+v", i, q)
			}
		}
		var out bytes.Buffer
		if err := trace.Write(&out, trace.Header{Clock: r.Clock, Client: r.SourceTool}, r.Requests); err != nil {
			t.Fatalf("a parsed run does not write back: %v", err)
		}
		r2, err := traceParse(t, "back.jsonl", out.Bytes())
		if err != nil {
			t.Fatalf("written back, it does not parse: %v\n%s", err, out.Bytes())
		}
		near := func(a, b float64) bool {
			return sameFloat(a, b) || math.Abs(a-b) <= 4*(math.Nextafter(math.Abs(a), math.Inf(1))-math.Abs(a))+1e-300
		}
		for i := range r.Requests {
			a, b := &r.Requests[i], &r2.Requests[i]
			if !near(a.TTFT, b.TTFT) || !near(a.Latency, b.Latency) || a.Start != b.Start || a.Error != b.Error ||
				a.Gaps != b.Gaps && !(a.Gaps.Count == 0 && b.Gaps.Count == 0) || a.InputTokens != b.InputTokens ||
				a.OutputTokens != b.OutputTokens || !sameFloat(a.QueueTime, b.QueueTime) {
				t.Fatalf("request %d changed on the way back:\n%+v\n%+v", i, *a, *b)
			}
		}
	})
}

// BenchmarkTrace parses a 100,000-request trace; the records should cost
// about their own size (~100 bytes each), not a multiple of it.
func BenchmarkTrace(b *testing.B) {
	var buf bytes.Buffer
	if err := trace.Write(&buf, trace.Header{Clock: benchrun.ClockEpoch, Client: "c"}, traceRecords(benchrun.ClockEpoch, 100_000)); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := traceParse(b, "bench.jsonl", data); err != nil {
			b.Fatal(err)
		}
	}
}

// The example in docs/trace-format.md parses to what the text says.
func TestTraceDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "trace-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```jsonl\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no ```jsonl block in docs/trace-format.md")
	}
	r, err := traceParse(t, "example.jsonl", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Requests) != 4 || r.Completed != 3 || r.Failed != 1 {
		t.Errorf("%d requests, %d completed, %d failed", len(r.Requests), r.Completed, r.Failed)
	}
	for k, v := range map[string]string{
		"measurement.client": "openai-batch-client", "measurement.client_version": "1.4.0",
		"measurement.client_host": "rtxpro6000-node01", "checkpoint.model_id": "nvidia/Qwen3-30B-A3B-FP4",
		"measurement.label": "node-run-1 replica 1/8 (GPU 0)", "workload.request_count": "4",
		"workload.concurrency": "4096", "workload.request_rate": "inf", "workload.output_len": "256",
		"workload.temperature": "0", "metadata.cuda_visible_devices": "0", "measurement.clock": "epoch",
		"measurement.date": "2026-08-18T14:02:07Z",
	} {
		if r.Facts[k] != v {
			t.Errorf("fact %s = %q, want %q", k, r.Facts[k], v)
		}
	}
	if len(r.Facts) != 13 || r.Extra["base_url"] != `"http://127.0.0.1:8000/v1"` {
		t.Errorf("facts %v, extra %v", r.Facts, r.Extra)
	}
	q0, q3 := r.Requests[0], r.Requests[3]
	if math.Abs(q0.TTFT-0.011209) > 1e-6 || math.Abs(q0.Latency-20.363118) > 1e-6 {
		t.Errorf("request 0: ttft %v latency %v", q0.TTFT, q0.Latency)
	}
	if q3.Gaps.Count != 3 || math.Abs(q3.Gaps.Sum-0.08001) > 1e-12 || q3.Gaps.Min != 0.025 || q3.Gaps.Max != 0.03 {
		t.Errorf("request 3 gaps %+v", q3.Gaps)
	}
}
