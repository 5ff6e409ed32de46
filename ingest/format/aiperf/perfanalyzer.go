package aiperf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// NewPerfAnalyzerJSON returns the parser for perf_analyzer's
// profile_export.json: {"experiments": [{"experiment": {"mode", "value"},
// "requests": [{"timestamp", "request_inputs", "response_timestamps",
// "response_outputs"}], "window_boundaries": [...]}], "version",
// "service_kind", "endpoint"}. Each experiment (one load level) is a run.
func NewPerfAnalyzerJSON() format.Parser { return perfAnalyzerJSON{} }

type perfAnalyzerJSON struct{}

func (perfAnalyzerJSON) ID() string { return perfAnalyzerJSONID }
func (perfAnalyzerJSON) Describe() string {
	return "perf_analyzer profile_export.json per-request timestamps (GenAI-Perf)"
}

// Sniff: the first key is "experiments", a list whose first item starts
// with an "experiment" object (rapidjson writes members in insertion order).
func (perfAnalyzerJSON) Sniff(name string, head []byte) bool {
	d := pyjson.NewDecoderSize(pyjson.NewInput(head), len(head)+16)
	want := []struct {
		kind pyjson.Kind
		key  string
	}{{pyjson.ObjectStart, ""}, {pyjson.Key, "experiments"}, {pyjson.ArrayStart, ""}, {pyjson.ObjectStart, ""},
		{pyjson.Key, "experiment"}, {pyjson.ObjectStart, ""}, {pyjson.Key, "mode"}}
	for _, w := range want {
		tok, err := d.Next()
		if err != nil || tok.Kind != w.kind || w.key != "" && string(tok.Bytes) != w.key {
			return false
		}
	}
	return true
}

// perfAnalyzerExperiment is one experiment as read.
type perfAnalyzerExperiment struct {
	ordinal   int
	location  string
	mode      string
	value     string
	reqs      []benchrun.Request
	windows   string // window_boundaries, as JSON
	rejection string
	undecoded int // responses not readable as OpenAI SSE, counted as content
	empty     int // requests whose responses carried no content
}

type perfAnalyzerParser struct {
	ctx  context.Context
	file string
	d    *pyjson.Decoder
	c    jsonread.Cursor
	errs map[string]string
}

func (p *perfAnalyzerParser) syntax(err error) error {
	return jsonread.Syntax(p.file, "", err)
}

func (p *perfAnalyzerParser) next() (pyjson.Token, error) {
	tok, err := p.d.Next()
	if err != nil {
		return tok, p.syntax(err)
	}
	return tok, nil
}

func (p *perfAnalyzerParser) skip(v pyjson.Token) error {
	if err := p.d.Skip(v); err != nil {
		return p.syntax(err)
	}
	return nil
}

// Parse reads the whole file (the version and service kind come after the
// experiments) and emits one run per experiment.
func (perfAnalyzerJSON) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	p := &perfAnalyzerParser{ctx: ctx, file: name, d: pyjson.NewDecoder(r), errs: map[string]string{}}
	// The cursor passes its decoder errors on as they are; they are placed
	// (by their byte alone) where the export's loop returns.
	p.c = jsonread.Cursor{Dec: p.d, File: name, Wrap: jsonread.Raw}
	first, err := p.next()
	if err != nil {
		return err
	}
	switch {
	case first.Kind == pyjson.EOF && first.Offset == 0:
		return format.Errorf(name, "", "the file is empty")
	case first.Kind == pyjson.EOF:
		return format.Errorf(name, "", "the file holds only whitespace, no JSON value")
	case first.Kind != pyjson.ObjectStart:
		return format.Errorf(name, jsonread.Place("", first), "not a perf_analyzer profile export: the file holds a %s, not a JSON object", first.Kind)
	}
	var exps []*perfAnalyzerExperiment
	haveExps := false
	top := map[string]string{}
	_, err = p.c.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		if key == "experiments" {
			if haveExps {
				return format.Errorf(name, jsonread.Place("", m.At), "key \"experiments\" appears twice")
			}
			haveExps = true
			if v.Kind != pyjson.ArrayStart {
				return format.Errorf(name, jsonread.Place("", v), "\"experiments\" must be a list, found %s", v.Kind)
			}
			var err error
			exps, err = p.experiments()
			return err
		}
		var err error
		top[key], err = p.c.Keep("", v)
		return err
	})
	if err != nil {
		return jsonread.Placed(err, p.syntax)
	}
	if end, err := p.next(); err != nil {
		return err
	} else if end.Kind != pyjson.EOF {
		return format.Errorf(name, jsonread.Place("", end), "a second JSON value after the first: a profile export holds one object")
	}
	if !haveExps {
		return format.Errorf(name, "", "not a perf_analyzer profile export: no \"experiments\"")
	}
	if len(exps) == 0 {
		return format.Errorf(name, "", "run has no requests: \"experiments\" is empty")
	}
	for _, x := range exps {
		run := p.run(x, top)
		if err := emit(run); err != nil {
			return err
		}
	}
	return nil
}

// experiments reads the list of experiments (its '[' was just read). A bad
// experiment becomes a rejection; the others are kept.
func (p *perfAnalyzerParser) experiments() ([]*perfAnalyzerExperiment, error) {
	var out []*perfAnalyzerExperiment
	for i := 0; ; i++ {
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if tok.Kind == pyjson.ArrayEnd {
			return out, nil
		}
		x := &perfAnalyzerExperiment{ordinal: i, location: fmt.Sprintf("experiment %d at %s", i, jsonread.Place("", tok))}
		if tok.Kind != pyjson.ObjectStart {
			if err := p.skip(tok); err != nil {
				return nil, err
			}
			x.rejection = fmt.Sprintf("an experiment must be an object, found %s", tok.Kind)
		} else if err := p.experiment(x); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
}

// perfAnalyzerBad is a problem confined to one experiment.
type perfAnalyzerBad struct{ msg string }

func (e *perfAnalyzerBad) Error() string { return e.msg }

func perfAnalyzerBadf(msgf string, args ...any) error {
	return &perfAnalyzerBad{fmt.Sprintf(msgf, args...)}
}

// experiment reads one experiment object. Syntax errors end the file;
// a wrong value rejects the experiment, whose rest is skipped.
func (p *perfAnalyzerParser) experiment(x *perfAnalyzerExperiment) error {
	seen := map[string]bool{}
	_, err := p.c.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		if x.rejection != "" {
			return p.skip(v)
		}
		if seen[key] {
			x.rejection = fmt.Sprintf("key %q appears twice in the experiment", key)
			return p.skip(v)
		}
		seen[key] = true
		var err error
		switch key {
		case "experiment":
			err = p.mode(x, v)
		case "requests":
			err = p.requests(x, v)
		case "window_boundaries":
			x.windows, err = p.c.Keep("", v)
		default:
			err = p.skip(v)
		}
		var bad *perfAnalyzerBad
		if errors.As(err, &bad) {
			x.rejection = bad.msg
			// The value that went wrong is consumed up to where it failed;
			// finish it at its own depth.
			return p.finishValue()
		}
		return err
	})
	if err != nil {
		return err
	}
	if x.rejection == "" {
		switch {
		case !seen["requests"]:
			x.rejection = "the experiment has no \"requests\""
		case len(x.reqs) == 0:
			x.rejection = "run has no requests: the experiment's \"requests\" is empty"
		case x.mode == "":
			x.rejection = "the experiment has no \"experiment\" {mode, value}"
		}
	}
	return nil
}

// finishValue skips to the end of the experiment member being read after a
// value inside it was found wrong: up to depth 3 (file, experiments list,
// experiment object).
func (p *perfAnalyzerParser) finishValue() error {
	for p.d.Depth() > 3 {
		if _, err := p.next(); err != nil {
			return err
		}
	}
	return nil
}

func (p *perfAnalyzerParser) mode(x *perfAnalyzerExperiment, v pyjson.Token) error {
	if v.Kind != pyjson.ObjectStart {
		return perfAnalyzerBadf("\"experiment\" must be an object {mode, value}, found %s", v.Kind)
	}
	_, err := p.c.Keys(func(k pyjson.Token) error {
		key := string(k.Bytes) // on the stack: it does not escape
		mv, err := p.next()
		if err != nil {
			return err
		}
		switch key {
		case "mode":
			if mv.Kind != pyjson.String || (string(mv.Bytes) != "concurrency" && string(mv.Bytes) != "request_rate") {
				return perfAnalyzerBadf("experiment mode must be \"concurrency\" or \"request_rate\", found %s", jsonread.Show(mv))
			}
			x.mode = string(mv.Bytes)
		case "value":
			f, err := mv.Float()
			if mv.Kind != pyjson.Number || err != nil || mv.NonFinite() || f < 0 {
				return perfAnalyzerBadf("experiment value must be a non-negative number, found %s", jsonread.Show(mv))
			}
			x.value = strconv.FormatFloat(f, 'g', -1, 64)
		default:
			return p.skip(mv)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if x.mode == "" || x.value == "" {
		return perfAnalyzerBadf("\"experiment\" needs both mode and value")
	}
	return nil
}

// requests reads the experiment's requests (v is the list's '[').
func (p *perfAnalyzerParser) requests(x *perfAnalyzerExperiment, v pyjson.Token) error {
	if v.Kind != pyjson.ArrayStart {
		return perfAnalyzerBadf("\"requests\" must be a list, found %s", v.Kind)
	}
	for i := 0; ; i++ {
		if i%aiperfCtxEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := p.next()
		if err != nil {
			return err
		}
		if tok.Kind == pyjson.ArrayEnd {
			return nil
		}
		if tok.Kind != pyjson.ObjectStart {
			return perfAnalyzerBadf("request %d must be an object, found %s", i, tok.Kind)
		}
		r, err := p.request(x, i)
		if err != nil {
			return err
		}
		x.reqs = append(x.reqs, r)
	}
}

// request reads one request object (its '{' was just read).
func (p *perfAnalyzerParser) request(x *perfAnalyzerExperiment, i int) (benchrun.Request, error) {
	r := format.NewRequest(i)
	var start int64
	var hasStart bool
	var stamps []int64
	var content []bool // per response: it carried text (or could not be read)
	hasOutputs := false
	_, err := p.c.Keys(func(k pyjson.Token) error {
		key := string(k.Bytes) // on the stack: it does not escape
		v, err := p.next()
		if err != nil {
			return err
		}
		switch key {
		case "timestamp":
			n, err := v.Int()
			if v.Kind != pyjson.Number || err != nil || n < aiperfEpochMinNs || n >= aiperfEpochMaxNs {
				return perfAnalyzerBadf("request %d: timestamp %s is not an epoch time in nanoseconds", i, jsonread.Show(v))
			}
			start, hasStart = n, true
		case "response_timestamps":
			if v.Kind != pyjson.ArrayStart {
				return perfAnalyzerBadf("request %d: response_timestamps must be a list, found %s", i, v.Kind)
			}
			for j := 0; ; j++ {
				t, err := p.next()
				if err != nil {
					return err
				}
				if t.Kind == pyjson.ArrayEnd {
					break
				}
				n, err := t.Int()
				if t.Kind != pyjson.Number || err != nil || n < aiperfEpochMinNs || n >= aiperfEpochMaxNs {
					return perfAnalyzerBadf("request %d: response timestamp %d (%s) is not an epoch time in nanoseconds", i, j, jsonread.Show(t))
				}
				stamps = append(stamps, n)
			}
		case "response_outputs":
			if v.Kind != pyjson.ArrayStart {
				return perfAnalyzerBadf("request %d: response_outputs must be a list, found %s", i, v.Kind)
			}
			hasOutputs = true
			for j := 0; ; j++ {
				o, err := p.next()
				if err != nil {
					return err
				}
				if o.Kind == pyjson.ArrayEnd {
					break
				}
				has, undecoded, err := p.responseOutput(i, j, o)
				if err != nil {
					return err
				}
				if undecoded {
					x.undecoded++
				}
				content = append(content, has)
			}
		default:
			return p.skip(v)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	if !hasStart {
		return r, perfAnalyzerBadf("request %d has no timestamp", i)
	}
	if hasOutputs && len(content) != len(stamps) {
		return r, perfAnalyzerBadf("request %d: %d response timestamps but %d response outputs", i, len(stamps), len(content))
	}
	r.Start = float64(start) / 1e9
	// GenAI-Perf drops responses without content (an SSE role chunk,
	// "[DONE]") before it times a request.
	var kept []int64
	for j, t := range stamps {
		if !hasOutputs || content[j] {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		x.empty++
		r.Error = "no response with content (GenAI-Perf leaves such requests out)"
		return r, nil
	}
	for j, t := range kept {
		if t < start || j > 0 && t < kept[j-1] {
			return r, perfAnalyzerBadf("request %d: response timestamps are not in order after the request's timestamp", i)
		}
		if j > 0 {
			r.Gaps.Add(float64(t-kept[j-1]) / 1e9)
		}
	}
	r.TTFT = float64(kept[0]-start) / 1e9
	r.Latency = float64(kept[len(kept)-1]-start) / 1e9
	return r, nil
}

// responseOutput reads one response object and says whether it carried
// text. An OpenAI response ("response": an SSE "data: {...}" event or a JSON
// body) without text is not counted, as GenAI-Perf's parser does; a response
// of another service kind, or one that does not decode, counts as content.
func (p *perfAnalyzerParser) responseOutput(i, j int, o pyjson.Token) (has, undecoded bool, err error) {
	if o.Kind != pyjson.ObjectStart {
		return false, false, perfAnalyzerBadf("request %d: response output %d must be an object, found %s", i, j, o.Kind)
	}
	has = true
	_, err = p.c.Keys(func(k pyjson.Token) error {
		response := string(k.Bytes) == "response"
		v, err := p.next()
		if err != nil {
			return err
		}
		if response && v.Kind == pyjson.String {
			var ok bool
			has, ok = genaiPerfSSEContent(v.Bytes)
			undecoded = !ok
			return nil
		}
		return p.skip(v)
	})
	if err != nil {
		return false, false, err
	}
	return has, undecoded, nil
}

// genaiPerfSSEContent reports whether an OpenAI response text carries
// generated text: one or several SSE events ("data: {...}" separated by
// blank lines), "[DONE]", or a plain JSON body. ok is false when the text
// does not decode (it then counts as content).
func genaiPerfSSEContent(b []byte) (has, ok bool) {
	text := strings.TrimSpace(string(b))
	if text == "" {
		return false, true
	}
	for _, ev := range strings.Split(text, "\n\n") {
		ev = strings.TrimSpace(ev)
		if ev == "" || strings.HasPrefix(ev, ":") || strings.HasPrefix(ev, "event:") {
			continue
		}
		data, isData := strings.CutPrefix(ev, "data:")
		data = strings.TrimSpace(data)
		if !isData && !strings.HasPrefix(ev, "{") {
			return true, false
		}
		if data == "[DONE]" {
			continue
		}
		var chunk genaiPerfChunk
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return true, false
		}
		if len(chunk.Choices) == 0 {
			continue // a usage-only chunk
		}
		c := chunk.Choices[0]
		for _, s := range []*string{c.Text, c.Message.Content, c.Delta.Content} {
			if s != nil && *s != "" {
				return true, true
			}
		}
	}
	return false, true
}

// genaiPerfChunk is what GenAI-Perf reads of an OpenAI response body or
// stream chunk: the text of the first choice (completions: text; chat:
// message.content; streamed chat: delta.content).
type genaiPerfChunk struct {
	Choices []struct {
		Text    *string               `json:"text"`
		Message genaiPerfChunkContent `json:"message"`
		Delta   genaiPerfChunkContent `json:"delta"`
	} `json:"choices"`
}

type genaiPerfChunkContent struct {
	Content *string `json:"content"`
}

// run builds the run of one experiment.
func (p *perfAnalyzerParser) run(x *perfAnalyzerExperiment, top map[string]string) *benchrun.Run {
	if x.rejection != "" {
		return &benchrun.Run{Ordinal: x.ordinal, Location: x.location, Rejection: x.rejection}
	}
	run := &benchrun.Run{
		Ordinal:          x.ordinal,
		Location:         x.location,
		Format:           perfAnalyzerJSONID,
		FormatVariant:    "experiments",
		SourceTool:       perfAnalyzerClient,
		PercentileMethod: "linear",
		Clock:            benchrun.ClockEpoch,
		Facts:            map[string]string{"measurement.client": perfAnalyzerClient, "measurement.clock": string(benchrun.ClockEpoch)},
		Extra:            map[string]string{},
		Requests:         x.reqs,
		HasRequests:      true,
	}
	note := func(msgf string, args ...any) { run.Notes = append(run.Notes, fmt.Sprintf(msgf, args...)) }
	for k, v := range top {
		run.Extra[k] = v
	}
	if v, err := strconv.Unquote(top["version"]); err == nil && v != "" {
		run.Facts["measurement.client_version"] = v
	}
	if kind, err := strconv.Unquote(top["service_kind"]); err == nil && kind != "" {
		run.FormatVariant = "experiments, service kind " + kind
	}
	if x.mode == "concurrency" {
		run.Facts["workload.concurrency"] = x.value
	} else {
		run.Facts["workload.request_rate"] = x.value
	}
	if x.windows != "" {
		run.Extra["window_boundaries"] = x.windows
	}
	first := math.Inf(1)
	for i := range x.reqs {
		first = min(first, x.reqs[i].Start)
		if x.reqs[i].Failed() {
			run.Failed++
		} else {
			run.Completed++
		}
	}
	if date, ok := aiperfEpochDate(first * 1e9); ok {
		run.Facts["measurement.date"] = date
		note("measurement.date is the first request's send time in UTC")
	}
	note("token counts are unknown: GenAI-Perf counts them by tokenizing the response texts with the model's tokenizer, which the file does not include; output throughput and TPOT cannot be recomputed from this file alone")
	note("failed requests are not recorded by perf_analyzer; a request whose responses carried no text is kept as failed")
	if x.empty > 0 {
		note("%d requests had no response with content", x.empty)
	}
	if x.undecoded > 0 {
		note("%d responses could not be read as OpenAI responses and were counted as content", x.undecoded)
	}
	return run
}
