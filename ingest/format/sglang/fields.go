package sglang

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/ingest/textread"
	"github.com/benchledger/benchledger/provenance"
)

// sglangColumns maps the per-request lists of --output-details to what
// they hold.
var sglangColumns = map[string]jsonread.Column{
	"input_lens": jsonread.ColInputTokens, "output_lens": jsonread.ColOutputTokens, "ttfts": jsonread.ColTTFT,
	"itls": jsonread.ColChunkGaps, "errors": jsonread.ColErrorText,
}

// sglangSummary maps SGLang's summary figures to canonical metric names and
// the unit the file states them in. Latency statistics are recognised by
// pattern in sglangStatMetric instead.
var sglangSummary = map[string]struct{ metric, unit string }{
	"duration":                {"duration", "s"},
	"completed":               {"completed", "requests"},
	"total_input_tokens":      {"total_input_tokens", "tokens"},
	"total_input":             {"total_input_tokens", "tokens"}, // the metrics-dump key set
	"total_output_tokens":     {"total_output_tokens", "tokens"},
	"total_output":            {"total_output_tokens", "tokens"}, // the metrics-dump key set
	"request_throughput":      {"request_throughput", "req/s"},
	"input_throughput":        {"input_throughput", "tok/s"},
	"output_throughput":       {"output_throughput", "tok/s"},
	"total_throughput":        {"total_token_throughput", "tok/s"},
	"concurrency":             {"achieved_concurrency", "requests"}, // Σ e2e latency / duration
	"max_output_tokens_per_s": {"max_output_tokens_per_s", "tok/s"},
	"max_concurrent_requests": {"max_concurrent_requests", "requests"},
}

// sglangCountKeys must hold non-negative whole numbers; the ones not in
// sglangSummary are kept in Extra after the check.
var sglangCountKeys = map[string]bool{
	"completed": true, "total_input_tokens": true, "total_input": true, "total_output_tokens": true,
	"total_output": true, "max_concurrent_requests": true, "total_output_tokens_retokenized": true,
	"total_output_retokenized": true, "total_input_text_tokens": true, "total_input_text": true,
	"total_input_vision_tokens": true, "total_input_vision": true,
}

// sglangRateKeys must hold non-negative finite numbers; the ones not in
// sglangSummary are kept in Extra after the check.
var sglangRateKeys = map[string]bool{
	"duration": true, "request_throughput": true, "input_throughput": true, "output_throughput": true,
	"total_throughput": true, "concurrency": true, "max_output_tokens_per_s": true,
	"output_throughput_retokenized": true, "total_throughput_retokenized": true,
}

// sglangFamilies maps SGLang's latency names to canonical metric names.
var sglangFamilies = map[string]string{"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2el"}

// sglangStatMetric recognises "{mean,median,std,max,p<P>}_{ttft,tpot,itl,
// e2e_latency}_ms" and returns the canonical family ("e2el", ...) and
// statistic ("p99", ...).
func sglangStatMetric(key string) (family, stat string, ok bool) {
	rest, ok := strings.CutSuffix(key, "_ms")
	if !ok {
		return "", "", false
	}
	stat, m, ok := strings.Cut(rest, "_")
	if !ok {
		return "", "", false
	}
	switch stat {
	case "mean", "median", "std", "max":
	default:
		if !format.IsPercentileWord(stat) {
			return "", "", false
		}
	}
	family, ok = sglangFamilies[m]
	return family, stat, ok
}

// sglangArgs are the argument keys whose meaning depends on dataset_name,
// judged when the whole line has been read.
var sglangArgs = []string{"sharegpt_output_len", "random_input_len", "random_output_len", "random_range_ratio"}

// sglangStated is a figure read from the line, kept until the end of the
// line decides whether it is a measurement (SGLang writes 0 for statistics
// over no samples).
type sglangStated struct {
	s      benchrun.Stated
	family string // "ttft", "tpot", "itl", "e2el" for latency statistics
	raw    string // the value as written, for Extra
}

// sglangRun collects one line's run as its keys stream past.
type sglangRun struct {
	p   *sglangParser
	d   *pyjson.Decoder
	run *benchrun.Run

	seen    map[string]bool
	stated  []sglangStated
	nanKeys []string
	args    map[string]pyjson.Kind // argument keys present, with their kind
	argNum  map[string]float64     // their numeric values
	argRaw  map[string]string      // their JSON text

	backend, dataset string
	completed        int64 // -1 when absent
	duration         bool
	acceptLength     float64 // NaN when absent or null
	serverInfo       string  // "object", "null" or "" (absent)
	nested           bool    // per-request lists under "details"

	recs  jsonread.Records // the per-request lists
	texts bool
	errs  jsonread.ErrorTexts // a run where every request failed with the same traceback costs one string
}

func newSGLangRun(p *sglangParser, d *pyjson.Decoder, lineNo, ordinal int) *sglangRun {
	b := &sglangRun{
		p: p, d: d,
		seen: make(map[string]bool, 64), args: map[string]pyjson.Kind{}, argNum: map[string]float64{},
		argRaw: map[string]string{}, completed: -1, acceptLength: math.NaN(),
		run: &benchrun.Run{
			Ordinal:          ordinal,
			Location:         textread.At(lineNo),
			Format:           sglangID,
			SourceTool:       sglangTool,
			PercentileMethod: "linear", // numpy's default, in every version
			Facts:            map[string]string{"measurement.client": sglangTool},
			Extra:            map[string]string{},
			Completed:        -1,
			Failed:           -1,
		},
	}
	b.newRecords()
	return b
}

func (b *sglangRun) note(msgf string, args ...any) {
	b.run.Notes = append(b.run.Notes, fmt.Sprintf(msgf, args...))
}

func (b *sglangRun) bad(where string, tok pyjson.Token, msgf string, args ...any) *sglangBad {
	return &sglangBad{where: where, col: tok.Offset + 1, reason: fmt.Sprintf(msgf, args...)}
}

func sglangKeyPlace(key string) string { return strings.TrimSuffix(jsonread.KeyPlace(key), ", ") }

// object reads the run object whose '{' was just read.
func (b *sglangRun) object() *sglangBad {
	return b.keys(false)
}

// keys reads keys up to the end of the current object; nested is true for
// the "details" object, which holds only per-request lists.
func (b *sglangRun) keys(nested bool) *sglangBad {
	field := b.field
	if nested {
		field = b.detail
	}
	// The cursor passes a decoder error at a key on as it is.
	c := jsonread.Cursor{Dec: b.d, Wrap: jsonread.Raw}
	_, err := c.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes)
		seenKey := key
		if nested {
			seenKey = "details." + key
		}
		if b.seen[seenKey] {
			return b.bad("", kt, "key %q appears twice in one run", key)
		}
		b.seen[seenKey] = true
		vt, err := b.d.Next()
		if err != nil {
			return b.p.syntax(err, sglangKeyPlace(key))
		}
		if bad := field(key, vt); bad != nil {
			return bad
		}
		return nil
	})
	switch e := err.(type) {
	case nil:
		return nil
	case *sglangBad:
		return e
	}
	return b.p.syntax(err, "")
}

// keepExtra stores a value's raw JSON text in Extra, or a short note for a
// value larger than vllmExtraLimit.
func (b *sglangRun) keepExtra(key string, vt pyjson.Token) *sglangBad {
	raw, size, err := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	if err != nil {
		return b.p.syntax(err, sglangKeyPlace(key))
	}
	if size > jsonread.ExtraLimit {
		b.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	b.run.Extra[key] = string(raw)
	return nil
}

// fact records a provenance fact the file states, if it is a valid value
// of its field. An invalid one is noted; when it comes from a top-level key
// (not from inside server_info, which Extra keeps whole) the value goes to
// Extra.
func (b *sglangRun) fact(field, value, key string) {
	if err := provenance.Validate(provenance.Entry{Field: field, Value: value}); err != nil {
		if _, ok := sglangFactKeys[key]; ok {
			b.run.Extra[key] = strconv.Quote(value)
		}
		b.note("%s %q is not a valid %s (%v); not recorded as a fact", key, value, field, err)
		return
	}
	b.run.Facts[field] = value
}

// sglangFactKeys are the top-level string keys read as facts.
var sglangFactKeys = map[string]bool{"backend": true, "dataset_name": true, "tag": true}

// field handles one top-level key of a run.
func (b *sglangRun) field(key string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	switch key {
	case "backend", "dataset_name", "tag":
		switch vt.Kind {
		case pyjson.String:
			s := string(vt.Bytes)
			switch key {
			case "backend":
				b.backend = s
				b.fact("measurement.backend", s, key)
			case "dataset_name":
				b.dataset = s
				b.fact("workload.dataset", s, key)
			case "tag":
				b.fact("measurement.label", s, key)
			}
			return nil
		case pyjson.Null:
			b.run.Extra[key] = "null"
			return nil
		}
		return b.bad(where, vt, "expected a string, found %s", vt.Kind)
	case "request_rate":
		return b.requestRate(vt)
	case "max_concurrency":
		if vt.Kind == pyjson.Null {
			b.run.Extra[key] = "null"
			return nil
		}
		n, bad := b.count(key, vt)
		if bad != nil {
			return bad
		}
		if n == 0 {
			// SGLang sets no limit for 0 ("if max_concurrency").
			b.run.Extra[key] = "0"
			b.note("max_concurrency is 0, which SGLang treats as no limit; workload.concurrency not recorded")
			return nil
		}
		b.fact("workload.concurrency", strconv.FormatInt(n, 10), key)
		return nil
	case "sharegpt_output_len", "random_input_len", "random_output_len", "random_range_ratio":
		return b.arg(key, vt)
	case "server_info":
		return b.serverInfoValue(vt)
	case "accept_length":
		switch vt.Kind {
		case pyjson.Null:
		case pyjson.Number:
			v, err := vt.Float()
			if err != nil {
				return b.bad(where, vt, "%v", err)
			}
			if vt.NonFinite() || v < 0 {
				return b.bad(where, vt, "%s is not a valid speculative accept length", vt.Bytes)
			}
			b.acceptLength = v
		default:
			return b.bad(where, vt, "expected a number or null, found %s", vt.Kind)
		}
		return b.keepExtra(key, vt)
	case "details":
		if vt.Kind != pyjson.ObjectStart {
			return b.keepExtra(key, vt)
		}
		b.nested = true
		return b.keys(true)
	}
	if _, ok := sglangColumns[key]; ok || key == "generated_texts" {
		return b.detail(key, vt)
	}
	if sglangCountKeys[key] || sglangRateKeys[key] {
		return b.summary(key, vt)
	}
	if family, stat, ok := sglangStatMetric(key); ok {
		return b.latencyStat(key, family, stat, vt)
	}
	// Anything else (cache_report, a newer key) is kept as written.
	return b.keepExtra(key, vt)
}

// detail handles a per-request list, at top level or under "details".
func (b *sglangRun) detail(key string, vt pyjson.Token) *sglangBad {
	if col, ok := sglangColumns[key]; ok {
		return b.column(key, col, vt)
	}
	if key == "generated_texts" {
		// Output texts can be most of a file; they stay in the raw bytes.
		b.texts = true
		_, size, err := b.d.Capture(vt, 0, nil)
		if err != nil {
			return b.p.syntax(err, sglangKeyPlace(key))
		}
		b.run.Extra[key] = jsonread.OversizeNote(size)
		return nil
	}
	// cached_tokens, cached_tokens_details (--cache-report) and the like.
	return b.keepExtra(key, vt)
}

// requestRate reads the offered rate: a float, Infinity (the default: all
// requests at once), or "trace" (mooncake trace timestamps).
func (b *sglangRun) requestRate(vt pyjson.Token) *sglangBad {
	const key = "request_rate"
	where := sglangKeyPlace(key)
	switch vt.Kind {
	case pyjson.Null:
		b.run.Extra[key] = "null"
		return nil
	case pyjson.String:
		s := string(vt.Bytes)
		b.run.Extra[key] = strconv.Quote(s)
		switch strings.ToLower(s) {
		case "trace":
			b.note("request_rate is \"trace\": requests followed the trace's own timestamps; no request rate recorded")
		case "inf", "infinity":
			b.fact("workload.request_rate", "inf", key)
			delete(b.run.Extra, key)
		default:
			b.note("request_rate holds the string %q; no request rate recorded", s)
		}
		return nil
	case pyjson.Number:
	default:
		return b.bad(where, vt, "expected a number, Infinity or \"trace\", found %s", vt.Kind)
	}
	v, err := vt.Float()
	if err != nil {
		return b.bad(where, vt, "%v", err)
	}
	switch {
	case math.IsInf(v, 1):
		b.fact("workload.request_rate", "inf", key)
	case math.IsNaN(v) || math.IsInf(v, -1):
		return b.bad(where, vt, "%s is not a request rate", vt.Bytes)
	case v <= 0:
		return b.bad(where, vt, "request rate %s is not positive", vt.Bytes)
	default:
		b.fact("workload.request_rate", strconv.FormatFloat(v, 'g', -1, 64), key)
	}
	return nil
}

// arg keeps a length argument for finish, which knows the dataset.
func (b *sglangRun) arg(key string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	switch vt.Kind {
	case pyjson.Null:
	case pyjson.Number:
		if key == "random_range_ratio" {
			v, err := vt.Float()
			if err != nil {
				return b.bad(where, vt, "%v", err)
			}
			if vt.NonFinite() || v < 0 {
				return b.bad(where, vt, "%s is not a valid range ratio", vt.Bytes)
			}
			b.argNum[key] = v
		} else {
			n, bad := b.count(key, vt)
			if bad != nil {
				return bad
			}
			b.argNum[key] = float64(n)
		}
	default:
		return b.bad(where, vt, "expected a number or null, found %s", vt.Kind)
	}
	b.args[key] = vt.Kind
	raw, _, _ := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	b.argRaw[key] = string(raw)
	return nil
}

// count reads a non-negative whole number (200.0 is taken as 200).
func (b *sglangRun) count(key string, vt pyjson.Token) (int64, *sglangBad) {
	where := sglangKeyPlace(key)
	if vt.Kind != pyjson.Number {
		return 0, b.bad(where, vt, "expected a whole number, found %s", vt.Kind)
	}
	n, err := vt.Int()
	if err != nil {
		f, ferr := vt.Float()
		if ferr != nil || vt.NonFinite() || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, b.bad(where, vt, "expected a whole number, found %s", vt.Bytes)
		}
		n = int64(f)
	}
	if n < 0 {
		return 0, b.bad(where, vt, "negative count %d", n)
	}
	return n, nil
}

// summary reads a count or a rate; the ones with a canonical name become
// stated figures, the others go to Extra.
func (b *sglangRun) summary(key string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	if vt.Kind == pyjson.Null {
		if key == "completed" || key == "duration" {
			return b.bad(where, vt, "%s is null", key)
		}
		b.run.Extra[key] = "null"
		return nil
	}
	var v float64
	if sglangCountKeys[key] {
		n, bad := b.count(key, vt)
		if bad != nil {
			return bad
		}
		v = float64(n)
		if key == "completed" {
			b.completed = n
			b.run.Completed = n
		}
	} else {
		f, err := vt.Float() // "expected a number, found …" for any other kind
		if err != nil {
			return b.bad(where, vt, "%v", err)
		}
		if vt.NonFinite() {
			return b.bad(where, vt, "%s is not a valid %s", vt.Bytes, key)
		}
		if f < 0 {
			return b.bad(where, vt, "negative %s %s", key, vt.Bytes)
		}
		if key == "duration" {
			if f == 0 {
				return b.bad(where, vt, "duration is 0")
			}
			b.duration = true
		}
		v = f
	}
	raw, _, _ := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	m, ok := sglangSummary[key]
	if !ok {
		b.run.Extra[key] = string(raw)
		return nil
	}
	cv, cu := format.ToCanonicalUnit(v, m.unit)
	b.stated = append(b.stated, sglangStated{s: benchrun.Stated{Metric: m.metric, Value: cv, Unit: cu, SourceKey: key, SourceUnit: m.unit}, raw: string(raw)})
	return nil
}

// latencyStat reads "{stat}_{family}_ms". NaN is SGLang's mean over no
// completed request (np.mean([])): not a figure, kept in Extra.
func (b *sglangRun) latencyStat(key, family, stat string, vt pyjson.Token) *sglangBad {
	where := sglangKeyPlace(key)
	if vt.Kind == pyjson.Null {
		b.run.Extra[key] = "null"
		return nil
	}
	v, err := vt.Float() // "expected a number, found …" for any other kind
	if err != nil {
		return b.bad(where, vt, "%v", err)
	}
	switch {
	case math.IsNaN(v):
		b.run.Extra[key] = "NaN"
		b.nanKeys = append(b.nanKeys, key)
		return nil
	case math.IsInf(v, 0):
		return b.bad(where, vt, "%s is not a valid time", vt.Bytes)
	case v < 0:
		return b.bad(where, vt, "negative time %s ms", vt.Bytes)
	}
	raw, _, _ := b.d.Capture(vt, jsonread.ExtraLimit, nil)
	cv, cu := format.ToCanonicalUnit(v, "ms")
	b.stated = append(b.stated, sglangStated{s: benchrun.Stated{Metric: family + "." + stat, Value: cv, Unit: cu, SourceKey: key, SourceUnit: "ms"},
		family: family, raw: string(raw)})
	return nil
}

// serverInfoValue reads server_info: the raw JSON of SGLang's /server_info
// (every server argument, the scheduler's limits, internal states and the
// engine version) or null.
func (b *sglangRun) serverInfoValue(vt pyjson.Token) *sglangBad {
	const key = "server_info"
	switch vt.Kind {
	case pyjson.Null:
		b.serverInfo = "null"
		b.run.Extra[key] = "null"
		return nil
	case pyjson.ObjectStart:
	default:
		return b.bad(sglangKeyPlace(key), vt, "expected an object or null, found %s", vt.Kind)
	}
	b.serverInfo = "object"
	raw, size, err := b.d.Capture(vt, sglangServerInfoLimit, nil)
	if err != nil {
		return b.p.syntax(err, sglangKeyPlace(key))
	}
	if size > jsonread.ExtraLimit {
		b.run.Extra[key] = jsonread.OversizeNote(size)
	} else {
		b.run.Extra[key] = string(raw)
	}
	if size > sglangServerInfoLimit {
		b.note("server_info is %d bytes, more than this parser reads for facts; it stays in the raw bytes", size)
		return nil
	}
	b.serverFacts(raw)
	return nil
}

// sglangCommit matches a full git commit hash: the only kind of revision
// that pins a checkpoint (a branch or tag moves).
var sglangCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// serverFacts takes the provenance facts SGLang's /server_info states. A
// prefill/decode-disaggregated router answers with per-role lists; the
// first decode server's info gives the facts then, as bench_serving itself
// does, and every server's version is kept in Extra
// ("server_info.engine_versions"), so servers of different versions are
// seen (the audit's provenance.server_versions).
func (b *sglangRun) serverFacts(raw []byte) {
	info := sglangServerInfoOf(raw)
	if len(info.servers) > 0 {
		b.note("server_info is a prefill/decode pair: facts taken from the first decode server's info")
		enc := []byte{'{'}
		for i, sv := range info.servers {
			if i > 0 {
				enc = append(enc, ',')
			}
			enc = jsonread.AppendExtraString(enc, sv.name)
			enc = append(enc, ':')
			enc = jsonread.AppendExtraString(enc, sv.version)
		}
		b.run.Extra[ServerVersionsKey] = string(append(enc, '}'))
		if v := info.versions(); len(v) > 1 {
			b.note("the prefill/decode servers run different engine versions: %s", strings.Join(v, ", "))
		}
	}
	top := info.top
	if top["version"] == "" || top["model_path"] == "" {
		b.note("server_info has no version and model_path, as SGLang's /server_info has; no runtime facts taken from it")
		return
	}
	b.fact("runtime.engine", "sglang", "server_info")
	b.fact("runtime.version", top["version"], "server_info.version")
	b.fact("checkpoint.model_id", top["model_path"], "server_info.model_path")
	if t := top["tokenizer_path"]; t != "" {
		b.fact("checkpoint.tokenizer", t, "server_info.tokenizer_path")
	}
	switch rev := top["revision"]; {
	case rev == "":
	case sglangCommit.MatchString(rev):
		b.fact("checkpoint.revision", rev, "server_info.revision")
	default:
		b.note("server_info names revision %q, a branch or tag rather than a commit: checkpoint.revision not recorded", rev)
	}
	if kv := top["kv_cache_dtype"]; kv != "" && kv != "auto" {
		b.fact("checkpoint.kv_cache_dtype", kv, "server_info.kv_cache_dtype")
	}
	if q := top["quantization"]; q != "" {
		b.fact("checkpoint.precision", q, "server_info.quantization")
	}
}

// ServerVersionsKey is the Extra key holding every server's engine
// version of a disaggregated server_info, as a JSON object
// {"prefill[0]": "0.5.1", "decode[0]": "0.5.2", ...} ("" when a server
// states none).
const ServerVersionsKey = "server_info.engine_versions"

// sglangServerInfo is what a server_info says: the strings the facts come
// from and, for a disaggregated router, each server by role.
type sglangServerInfo struct {
	top     map[string]string // the info's top-level strings, or the first decode server's
	servers []sglangServer    // every prefill and decode server, in file order
}

type sglangServer struct{ name, version string }

// versions lists the distinct versions the servers state.
func (s sglangServerInfo) versions() []string {
	var out []string
	for _, sv := range s.servers {
		if sv.version != "" && !slices.Contains(out, sv.version) {
			out = append(out, sv.version)
		}
	}
	return out
}

// sglangServerInfoOf reads a server_info object whole (it is bounded by
// sglangServerInfoLimit). For a disaggregated router's answer
// ({"prefill": [{...}], "decode": [{...}], ...}) the facts are the first
// decode server's when the top level has no version. A value that is not
// an object gives nothing: server_info is kept in Extra either way.
func sglangServerInfoOf(raw []byte) sglangServerInfo {
	out := sglangServerInfo{top: map[string]string{}}
	d := pyjson.NewDecoderSize(bytes.NewReader(raw), len(raw)+16)
	tree := &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d, Wrap: jsonread.Raw}, MaxNodes: 1 << 16, TooMany: "server_info"}
	first, err := tree.Next("")
	if err != nil || first.Kind != pyjson.ObjectStart {
		return out
	}
	root, err := tree.Value(first)
	if err != nil {
		return out
	}
	strs := func(n *jsonread.Node) map[string]string {
		m := map[string]string{}
		for i, k := range n.Keys {
			if v, ok := n.Vals[i].Str(); ok {
				m[k] = v
			}
		}
		return m
	}
	out.top = strs(root)
	var decode map[string]string
	for _, role := range []string{"prefill", "decode"} {
		list := root.Get(role)
		if list == nil || list.Kind != pyjson.ArrayStart {
			continue
		}
		for i, sv := range list.Vals {
			if sv.Kind != pyjson.ObjectStart {
				continue
			}
			m := strs(sv)
			out.servers = append(out.servers, sglangServer{fmt.Sprintf("%s[%d]", role, i), m["version"]})
			if role == "decode" && decode == nil {
				decode = m
			}
		}
	}
	if decode != nil && out.top["version"] == "" {
		out.top = decode
	}
	return out
}
