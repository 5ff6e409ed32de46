package llmperf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	pathpkg "path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// ray-project/llmperf's token_benchmark_ray.py writes two files per run into
// --results-dir (FORMATS.md §6): "<model>_<in>_<out>_summary.json", a flat
// dict of pandas statistics, and "<model>_<in>_<out>_individual_responses.json",
// a list of per-request dicts. They describe one run together: both parsers
// give it the same Run.Companion key, so the batch merges them.

const (
	llmperfSummaryID   = "llmperf-summary"
	llmperfResponsesID = "llmperf-responses"
	llmperfClient      = "llmperf"
	llmperfTool        = "llmperf token_benchmark_ray.py"
	// llmperfErrorMax bounds one error text kept per request: llmperf stores
	// the server's whole response body as error_msg.
	llmperfErrorMax = 512
	// llmperfCtxEvery is how many records pass between cancellation checks.
	llmperfCtxEvery = 1 << 12
)

// NewSummary returns the parser for llmperf's *_summary.json.
func NewSummary() format.Parser { return llmperfSummary{} }

// NewResponses returns the parser for llmperf's
// *_individual_responses.json.
func NewResponses() format.Parser { return llmperfResponses{} }

type llmperfSummary struct{}

type llmperfResponses struct{}

func (llmperfSummary) ID() string { return llmperfSummaryID }
func (llmperfSummary) Describe() string {
	return "llmperf token_benchmark_ray.py *_summary.json"
}
func (llmperfResponses) ID() string { return llmperfResponsesID }
func (llmperfResponses) Describe() string {
	return "llmperf token_benchmark_ray.py *_individual_responses.json (per-request records)"
}

// llmperfMetrics are the per-request series llmperf summarises, in the order
// it writes them, with the canonical metric each maps to ("" when there is
// none: kept in Extra).
var llmperfMetrics = []struct{ key, canonical string }{
	// inter_token_latency_s is the sum of the gaps *including* TTFT divided
	// by the output tokens, ≈ e2e / output tokens: neither TPOT nor ITL.
	{"inter_token_latency_s", ""},
	{"ttft_s", "ttft"},
	{"end_to_end_latency_s", "e2el"},
	{"request_output_throughput_token_per_s", ""},
	{"number_input_tokens", ""},
	{"number_output_tokens", ""},
}

// llmperfSeriesKey splits "results_<metric>_<stat>" and
// "results_<metric>_quantiles_p<N>" into the metric's index in llmperfMetrics
// and the stat ("mean", "min", "max", "stddev", "p25", ...).
func llmperfSeriesKey(key string) (int, string, bool) {
	rest, ok := strings.CutPrefix(key, "results_")
	if !ok {
		return 0, "", false
	}
	for i, m := range llmperfMetrics {
		stat, ok := strings.CutPrefix(rest, m.key+"_")
		if !ok {
			continue
		}
		if q, ok := strings.CutPrefix(stat, "quantiles_"); ok {
			if !format.IsPercentileWord(q) {
				return 0, "", false
			}
			return i, q, true
		}
		switch stat {
		case "mean", "min", "max", "stddev":
			return i, stat, true
		}
		return 0, "", false
	}
	return 0, "", false
}

// Sniff reads the keys of the top-level object in head: llmperf's summary
// has "results_..." statistics beside its own identity keys.
func (llmperfSummary) Sniff(name string, head []byte) bool {
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	var results, identity bool
	jsonread.SniffWhole(d, func(key string, v pyjson.Token) bool {
		switch key {
		case "version", "num_concurrent_requests", "mean_input_tokens", "mean_output_tokens":
			identity = true
		case "results_num_completed_requests", "results_mean_output_throughput_token_per_s", "results_num_requests_started":
			results = true
		default:
			if _, _, ok := llmperfSeriesKey(key); ok {
				results = true
			}
		}
		return !(results && identity)
	})
	return results && identity
}

// Sniff looks at the first record of a top-level list: llmperf writes
// error_code first and the timing keys right after it, before the long
// GEN_TEXT of older versions.
func (llmperfResponses) Sniff(name string, head []byte) bool {
	d := pyjson.NewDecoderSize(pyjson.NewInput(head), len(head)+16)
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ArrayStart {
		return false
	}
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ObjectStart {
		return false
	}
	var code, ttft, e2e bool
	jsonread.SniffObject(d, func(key string, _ pyjson.Token) bool {
		code = code || key == "error_code"
		ttft = ttft || key == "ttft_s"
		e2e = e2e || key == "end_to_end_latency_s"
		return !(code && ttft && e2e)
	})
	return code && ttft && e2e
}

// llmperfNumber reads a number the way Python tools write one: a JSON number
// (NaN and ±Infinity included), or a numeric string (llmperf's
// json.dump(default=str) turns NumPy integers into "550"). finite is false
// for NaN, ±Infinity and null, which are not figures. viaString says the
// number came from a string.
func llmperfNumber(vt pyjson.Token) (v float64, finite, viaString bool, err error) {
	switch vt.Kind {
	case pyjson.Null:
		return 0, false, false, nil
	case pyjson.Number:
		v, err := vt.Float()
		if err != nil {
			return 0, false, false, err
		}
		return v, !vt.NonFinite(), false, nil
	case pyjson.String:
		s := strings.TrimSpace(string(vt.Bytes))
		switch strings.ToLower(s) {
		case "nan", "inf", "-inf", "infinity", "-infinity", "none":
			return 0, false, true, nil
		}
		v, perr := strconv.ParseFloat(s, 64)
		if perr != nil || strings.ContainsAny(s, "xXpP_") {
			return 0, false, true, fmt.Errorf("expected a number, found the string %q", llmperfClip(s, 40))
		}
		return v, !math.IsInf(v, 0), true, nil
	}
	return 0, false, false, fmt.Errorf("expected a number, found %s", vt.Kind)
}

// llmperfClip shortens s to at most n bytes on a rune boundary.
func llmperfClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// llmperfCompanionKey names one llmperf run from what both of its files hold:
// the number of requests started (the summary's results_num_requests_started,
// the length of the responses list) and the extremes of TTFT and E2E latency
// over the successful requests (the summary's results_*_min/max are those
// records' own values, written with the same repr). The responses file names
// no run, and the files are often renamed (the official leaderboard keeps
// them as raw_data/{summary,individual}/<name>.json), so neither a name in
// the content nor the file name can pair them. It is "" when no request
// succeeded: then nothing in common identifies the run.
func llmperfCompanionKey(started int64, ttftMin, ttftMax, e2eMin, e2eMax float64) string {
	for _, v := range []float64{ttftMin, ttftMax, e2eMin, e2eMax} {
		if !benchrun.IsKnown(v) || math.IsInf(v, 0) {
			return ""
		}
	}
	return fmt.Sprintf("llmperf:n=%d,ttft=%s..%s,e2e=%s..%s", started,
		format.FormatFloat(ttftMin), format.FormatFloat(ttftMax), format.FormatFloat(e2eMin), format.FormatFloat(e2eMax))
}

const llmperfCompanionNote = "the companion key pairing this file with the run's other llmperf file is the request count and " +
	"the TTFT and E2E extremes both files hold: the responses file names no run, and llmperf's files are often renamed"

const llmperfNoCompanionNote = "no request succeeded, so nothing both llmperf files hold identifies the run: " +
	"no companion key is set and the summary and the responses are archived as separate runs"

// llmperfSummaryRun collects the summary's keys as they stream past.
type llmperfSummaryRun struct {
	file string
	d    *pyjson.Decoder
	run  *benchrun.Run
	seen map[string]bool

	version, name       string
	started             int64
	hasResults          bool
	inMean, inStd       string // mean/stddev_input_tokens as written
	outMean, outStd     string
	hasInStd, hasOutStd bool
	minmax              [4]float64 // ttft min, max; e2e min, max
	viaString           []string   // keys whose number was a string
	nonFinite           []string   // keys whose value is NaN, ±Infinity or null
	errorFreq           string
	hasErrorFreq        bool
	raw                 string // the JSON text of the value number read last
	noted               map[string]bool
}

func (s *llmperfSummaryRun) note(msgf string, args ...any) {
	s.run.Notes = append(s.run.Notes, fmt.Sprintf(msgf, args...))
}

// noteOnce adds a note the first time its key is met.
func (s *llmperfSummaryRun) noteOnce(key, msgf string, args ...any) {
	if s.noted[key] {
		return
	}
	s.noted[key] = true
	s.note(msgf, args...)
}

func (s *llmperfSummaryRun) errAt(key string, vt pyjson.Token, msgf string, args ...any) error {
	return format.Errorf(s.file, jsonread.Place(jsonread.KeyPlace(key), vt), msgf, args...)
}

// keep stores a value's raw JSON text in Extra.
func (s *llmperfSummaryRun) keep(key string, vt pyjson.Token) error {
	raw, size, err := s.d.Capture(vt, jsonread.ExtraLimit, nil)
	if err != nil {
		return jsonread.Syntax(s.file, jsonread.KeyPlace(key), err)
	}
	if size > jsonread.ExtraLimit {
		s.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	s.run.Extra[key] = string(raw)
	return nil
}

// number reads a numeric value; kept is true when the value was not a
// figure (NaN, ±Infinity, null) and went to Extra.
func (s *llmperfSummaryRun) number(key string, vt pyjson.Token) (v float64, kept bool, err error) {
	raw := ""
	if vt.Kind == pyjson.String || vt.Kind == pyjson.Number || vt.Kind == pyjson.Null {
		r, _, _ := s.d.Capture(vt, jsonread.ExtraLimit, nil)
		raw = string(r)
	}
	s.raw = raw
	v, finite, viaString, err := llmperfNumber(vt)
	if err != nil {
		return 0, false, s.errAt(key, vt, "%v", err)
	}
	if viaString {
		s.viaString = append(s.viaString, key)
	}
	if !finite {
		s.run.Extra[key] = raw
		s.nonFinite = append(s.nonFinite, key)
		return 0, true, nil
	}
	return v, false, nil
}

// count reads a non-negative whole number.
func (s *llmperfSummaryRun) count(key string, vt pyjson.Token) (int64, bool, error) {
	v, kept, err := s.number(key, vt)
	if err != nil || kept {
		return 0, false, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, false, s.errAt(key, vt, "expected a whole number, found %s", format.FormatFloat(v))
	}
	if v < 0 {
		return 0, false, s.errAt(key, vt, "negative count %s", format.FormatFloat(v))
	}
	return int64(v), true, nil
}

func (s *llmperfSummaryRun) stated(metric string, v float64, unit, key, srcUnit string) {
	s.run.Stated = append(s.run.Stated, benchrun.Stated{Metric: metric, Value: v, Unit: unit, SourceKey: key, SourceUnit: srcUnit})
}

// Parse reads the one summary object of the file.
func (llmperfSummary) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	d := pyjson.NewDecoder(r)
	first, err := jsonread.Expect(name, d, pyjson.ObjectStart, "an llmperf summary", "a JSON object")
	if err != nil {
		return err
	}
	s := &llmperfSummaryRun{
		file: name, d: d, seen: map[string]bool{}, noted: map[string]bool{}, started: -1,
		minmax: [4]float64{benchrun.Unknown, benchrun.Unknown, benchrun.Unknown, benchrun.Unknown},
		run: &benchrun.Run{
			Location:         fmt.Sprintf("object at byte %d (line %d)", first.Offset, first.Line),
			Format:           llmperfSummaryID,
			SourceTool:       llmperfTool,
			PercentileMethod: "linear",
			Facts:            map[string]string{"measurement.client": llmperfClient},
			Extra:            map[string]string{},
			Completed:        -1,
			Failed:           -1,
		},
	}
	c := jsonread.Cursor{Dec: d, File: name, Ctx: ctx}
	if _, err := c.Object(s.seen, func(m jsonread.Member) error { return s.field(m.Key, m.Value) }); err != nil {
		return err
	}
	if err := jsonread.End(name, d, "an llmperf summary"); err != nil {
		return err
	}
	if err := s.finish(); err != nil {
		return err
	}
	return emit(s.run)
}

// field interprets one top-level key of the summary.
func (s *llmperfSummaryRun) field(key string, vt pyjson.Token) error {
	run := s.run
	if i, stat, ok := llmperfSeriesKey(key); ok {
		s.hasResults = true
		return s.series(key, i, stat, vt)
	}
	switch key {
	case "version", "name", "model":
		if vt.Kind != pyjson.String {
			return s.errAt(key, vt, "expected a string, found %s", vt.Kind)
		}
		switch key {
		case "version":
			s.version = string(vt.Bytes)
		case "name":
			s.name = string(vt.Bytes)
			run.Extra[key] = strconv.Quote(s.name)
		case "model":
			run.Facts["checkpoint.model_id"] = string(vt.Bytes)
		}
		return nil
	case "mean_input_tokens", "stddev_input_tokens", "mean_output_tokens", "stddev_output_tokens":
		n, ok, err := s.count(key, vt)
		if err != nil || !ok {
			return err
		}
		text := strconv.FormatInt(n, 10)
		run.Extra[key] = s.raw
		switch key {
		case "mean_input_tokens":
			s.inMean = text
		case "stddev_input_tokens":
			s.inStd, s.hasInStd = text, true
		case "mean_output_tokens":
			s.outMean = text
		case "stddev_output_tokens":
			s.outStd, s.hasOutStd = text, true
		}
		return nil
	case "num_concurrent_requests":
		n, ok, err := s.count(key, vt)
		if err != nil || !ok {
			return err
		}
		if n == 0 {
			return s.errAt(key, vt, "num_concurrent_requests is 0: llmperf runs at least one client")
		}
		run.Facts["workload.concurrency"] = strconv.FormatInt(n, 10)
		return nil
	case "timestamp":
		v, kept, err := s.number(key, vt)
		if err != nil || kept {
			return err
		}
		// LLMPerfResults sets timestamp = int(time.time()) when it writes
		// the results, after the run ended.
		if v < 946684800 || v >= 4102444800 {
			return s.errAt(key, vt, "timestamp %s is not epoch seconds between 2000 and 2100", format.FormatFloat(v))
		}
		run.Facts["measurement.date"] = time.Unix(int64(v), 0).UTC().Format(time.RFC3339)
		run.Extra[key] = s.raw
		s.note("measurement.date is the summary's timestamp (epoch seconds, UTC), taken when llmperf wrote its results after the run")
		return nil
	case "results_num_requests_started":
		s.hasResults = true
		n, ok, err := s.count(key, vt)
		if err != nil || !ok {
			return err
		}
		s.started = n
		run.Facts["workload.request_count"] = strconv.FormatInt(n, 10)
		return nil
	case "results_num_completed_requests", "results_number_errors":
		s.hasResults = true
		n, ok, err := s.count(key, vt)
		if err != nil || !ok {
			return err
		}
		metric := "completed"
		if key == "results_number_errors" {
			metric = "failed"
			run.Failed = n
		} else {
			run.Completed = n
		}
		s.stated(metric, float64(n), "requests", key, "requests")
		return nil
	case "results_mean_output_throughput_token_per_s":
		s.hasResults = true
		v, kept, err := s.number(key, vt)
		if err != nil || kept {
			return err
		}
		if v < 0 {
			return s.errAt(key, vt, "negative throughput %s", format.FormatFloat(v))
		}
		// Σ output tokens of the successful requests / (end − start of the
		// whole test, time.monotonic): the canonical output throughput.
		s.stated("output_throughput", v, "tok/s", key, "tok/s")
		return nil
	case "results_num_completed_requests_per_min":
		s.hasResults = true
		v, kept, err := s.number(key, vt)
		if err != nil || kept {
			return err
		}
		if v < 0 {
			return s.errAt(key, vt, "negative rate %s", format.FormatFloat(v))
		}
		s.stated("request_throughput", v/60, "req/s", key, "req/min")
		s.note("request_throughput is results_num_completed_requests_per_min / 60")
		return nil
	case "results_error_rate":
		s.hasResults = true
		v, kept, err := s.number(key, vt)
		if err != nil || kept {
			return err
		}
		if v < 0 || v > 1 {
			return s.errAt(key, vt, "error rate %s is outside [0, 1]", format.FormatFloat(v))
		}
		run.Extra[key] = s.raw
		return nil
	case "results_error_code_frequency":
		s.hasResults = true
		if vt.Kind != pyjson.String {
			return s.keep(key, vt)
		}
		s.errorFreq, s.hasErrorFreq = string(vt.Bytes), true
		run.Extra[key] = strconv.Quote(s.errorFreq)
		return nil
	}
	if p, ok := strings.CutPrefix(key, "additional_sampling_params_"); ok && p == "temperature" {
		v, kept, err := s.number(key, vt)
		if err != nil || kept {
			return err
		}
		run.Facts["workload.temperature"] = format.FormatFloat(v)
		run.Extra[key] = s.raw
		return nil
	}
	if strings.HasPrefix(key, "results_") || strings.HasPrefix(key, "additional_sampling_params") {
		return s.keep(key, vt)
	}
	// Anything else is a --metadata pair (llmperf merges them into the
	// summary as strings) or a key of a newer llmperf: keep it, and record
	// strings as metadata facts.
	if vt.Kind == pyjson.String {
		run.Facts["metadata."+key] = string(vt.Bytes)
	}
	return s.keep(key, vt)
}

// series handles one statistic of a per-request series.
func (s *llmperfSummaryRun) series(key string, i int, stat string, vt pyjson.Token) error {
	v, kept, err := s.number(key, vt)
	if err != nil || kept {
		return err
	}
	m := llmperfMetrics[i]
	if v < 0 {
		return s.errAt(key, vt, "negative %s %s", m.key, format.FormatFloat(v))
	}
	raw := s.raw
	switch {
	case m.canonical == "":
		s.run.Extra[key] = raw
		switch m.key {
		case "inter_token_latency_s":
			s.noteOnce(m.key, "llmperf's inter_token_latency_s is the end-to-end time including TTFT divided by the output tokens: kept in Extra, not stated as tpot or itl")
		case "request_output_throughput_token_per_s":
			s.noteOnce(m.key, "llmperf's per-request output throughput statistics (request_output_throughput_token_per_s) have no canonical metric: kept in Extra")
		default:
			s.noteOnce("tokens", "token counts are from llmperf's client-side tokenizer, not the server's usage; their statistics are kept in Extra")
		}
		return nil
	case stat == "stddev":
		s.run.Extra[key] = raw
		s.noteOnce("stddev", "llmperf states sample standard deviations (pandas, ddof=1): the *_stddev keys are kept in Extra, not stated as the population std")
		return nil
	}
	canon := m.canonical + "."
	switch stat {
	case "p50":
		canon += "median"
	default:
		canon += stat
	}
	if stat == "min" || stat == "max" {
		j := 0
		if m.canonical == "e2el" {
			j = 2
		}
		if stat == "max" {
			j++
		}
		s.minmax[j] = v
	}
	s.stated(canon, v, "s", key, "s")
	return nil
}

// finish checks the summary as a whole.
func (s *llmperfSummaryRun) finish() error {
	run := s.run
	if !s.hasResults {
		return format.Errorf(s.file, run.Location, "not an llmperf summary: no results_* keys")
	}
	run.FormatVariant = "summary"
	if s.version != "" {
		run.FormatVariant = "summary, results version " + s.version
	}
	if s.started == 0 || (s.started < 0 && run.Completed <= 0 && run.Failed <= 0) {
		return format.Errorf(s.file, run.Location, "run has no requests: no request was started, completed or failed")
	}
	if s.started >= 0 && run.Completed >= 0 && run.Failed >= 0 && run.Completed+run.Failed != s.started {
		s.note("completed + failed = %d but results_num_requests_started is %d", run.Completed+run.Failed, s.started)
	}
	// The requested lengths: fixed when llmperf drew them with stddev 0.
	for _, l := range []struct {
		mean, std   string
		hasStd      bool
		field, what string
	}{
		{s.inMean, s.inStd, s.hasInStd, "workload.input_len", "input"},
		{s.outMean, s.outStd, s.hasOutStd, "workload.output_len", "output"},
	} {
		switch {
		case l.mean == "":
		case l.hasStd && l.std == "0":
			run.Facts[l.field] = l.mean
		case l.hasStd:
			s.note("the %s length was drawn from a normal distribution (mean %s, stddev %s tokens): no fixed %s recorded", l.what, l.mean, l.std, l.field)
		default:
			s.note("mean_%s_tokens is %s but the file has no stddev: no %s recorded", l.what, l.mean, l.field)
		}
	}
	if s.hasErrorFreq {
		s.errorCodes()
	}
	if len(s.viaString) > 0 {
		s.note("%d values were written as strings (llmperf's json.dump(default=str) for NumPy numbers) and read as numbers: %s",
			len(s.viaString), strings.Join(s.viaString, ", "))
	}
	if len(s.nonFinite) > 0 {
		s.note("%d values are NaN, infinite or null (an empty series): not stated as figures, kept in Extra: %s",
			len(s.nonFinite), strings.Join(s.nonFinite, ", "))
	}
	s.note("summary only: the per-request records are in the run's *_individual_responses.json file")
	s.note("llmperf's percentiles are pandas quantiles (linear interpolation) over the successful requests")
	if run.Completed < 0 {
		s.note("the summary has no results_num_completed_requests: the completed count is unknown")
	}
	if run.Failed < 0 {
		s.note("the summary has no results_number_errors: the failed count is unknown")
	}
	if key := llmperfCompanionKey(s.started, s.minmax[0], s.minmax[1], s.minmax[2], s.minmax[3]); key != "" && s.started > 0 {
		run.Companion = key
		s.note(llmperfCompanionNote)
	} else {
		s.note(llmperfNoCompanionNote)
	}
	return nil
}

// errorCodes reads results_error_code_frequency, the str() of a Python dict
// {code: count} ("{-100.0: 49}", "{429.0: np.int64(3)}" under NumPy 2),
// into a note, and checks it against results_number_errors.
func (s *llmperfSummaryRun) errorCodes() {
	codes, err := llmperfPyCounts(s.errorFreq)
	if err != nil {
		s.note("results_error_code_frequency %q is not a Python dict of counts (%v): kept as text in Extra", llmperfClip(s.errorFreq, 80), err)
		return
	}
	var total int64
	parts := make([]string, 0, len(codes))
	for _, c := range codes {
		total += c.n
		parts = append(parts, fmt.Sprintf("%s ×%d", c.code, c.n))
	}
	if len(parts) > 0 {
		s.note("error codes: %s", strings.Join(parts, ", "))
	}
	if s.run.Failed >= 0 && total != s.run.Failed {
		s.note("results_error_code_frequency counts %d errors but results_number_errors is %d", total, s.run.Failed)
	}
}

type llmperfPyCount struct {
	code string
	n    int64
}

// llmperfPyCounts reads the str() of a dict mapping error codes (numbers,
// or quoted strings) to counts, with NumPy 2's np.float64(...) / np.int64(...)
// wrappers allowed around either.
func llmperfPyCounts(s string) ([]llmperfPyCount, error) {
	t := strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(t, "{")
	if !ok {
		return nil, errors.New("no opening brace")
	}
	inner, ok = strings.CutSuffix(inner, "}")
	if !ok {
		return nil, errors.New("no closing brace")
	}
	var out []llmperfPyCount
	rest := strings.TrimSpace(inner)
	for rest != "" {
		key, after, err := llmperfPyScalar(rest)
		if err != nil {
			return nil, err
		}
		after = strings.TrimSpace(after)
		after, ok = strings.CutPrefix(after, ":")
		if !ok {
			return nil, fmt.Errorf("no colon after %q", key)
		}
		val, after, err := llmperfPyScalar(strings.TrimSpace(after))
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseFloat(val, 64)
		if err != nil || n < 0 || n != math.Trunc(n) || n > 1<<53 {
			return nil, fmt.Errorf("count %q is not a whole number", val)
		}
		if c, err := strconv.ParseFloat(key, 64); err == nil && c == math.Trunc(c) && math.Abs(c) < 1<<53 {
			key = strconv.FormatInt(int64(c), 10) // -100.0 → -100: codes are whole numbers
		}
		out = append(out, llmperfPyCount{key, int64(n)})
		rest = strings.TrimSpace(after)
		if rest == "" {
			break
		}
		if rest, ok = strings.CutPrefix(rest, ","); !ok {
			return nil, fmt.Errorf("expected a comma at %q", llmperfClip(rest, 20))
		}
		rest = strings.TrimSpace(rest)
	}
	return out, nil
}

// llmperfPyScalar reads one repr'd scalar at the start of s: a number, a quoted
// string, or np.<type>(<scalar>). It returns the scalar's text (a string
// without its quotes) and what follows.
func llmperfPyScalar(s string) (string, string, error) {
	if strings.HasPrefix(s, "np.") || strings.HasPrefix(s, "numpy.") {
		open := strings.IndexByte(s, '(')
		if open < 0 {
			return "", "", fmt.Errorf("unterminated %q", llmperfClip(s, 20))
		}
		v, rest, err := llmperfPyScalar(strings.TrimSpace(s[open+1:]))
		if err != nil {
			return "", "", err
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(rest), ")")
		if !ok {
			return "", "", fmt.Errorf("unterminated %q", llmperfClip(s, 20))
		}
		return v, rest, nil
	}
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return "", "", errors.New("unterminated string")
		}
		return s[1 : 1+end], s[end+2:], nil
	}
	i := 0
	for i < len(s) && strings.IndexByte("+-.0123456789eEinfaINFA", s[i]) >= 0 {
		i++
	}
	if i == 0 {
		return "", "", fmt.Errorf("unexpected %q", llmperfClip(s, 20))
	}
	return s[:i], s[i:], nil
}

// Invocation: token_benchmark_ray.py names both files from one test name,
// <name>_summary.json and <name>_individual_responses.json; the official
// leaderboard keeps them as raw_data/summary/<name>.json and
// raw_data/individual/<name>.json, one name in two sibling folders.
func (llmperfSummary) Invocation(path string) (string, bool) {
	return llmperfInvocation(path, "_summary.json", "summary")
}

// Invocation: see llmperfSummary.Invocation.
func (llmperfResponses) Invocation(path string) (string, bool) {
	return llmperfInvocation(path, "_individual_responses.json", "individual")
}

func llmperfInvocation(path, suffix, folder string) (string, bool) {
	if key, ok := format.StemInvocation(path, suffix); ok {
		return key, true
	}
	dir, base := pathpkg.Split(path)
	parent, name := pathpkg.Split(strings.TrimSuffix(dir, "/"))
	if stem, ok := strings.CutSuffix(base, ".json"); ok && stem != "" && name == folder {
		return parent + "raw_data:" + stem, true
	}
	return "", false
}
