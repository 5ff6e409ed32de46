package locales

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/memo"
)

// paramKind says how a caveat parameter (machine text, docs/metrics.md) is
// shown. Every name in caveat.Params must be here: a test checks it, so a
// new parameter cannot slip through as raw text unnoticed.
type paramKind int

const (
	kindText       paramKind = iota // ids and method names, as they are
	kindInteger                     // counts
	kindDecimal                     // p-values, sweep parameter values
	kindSeconds                     // a duration in s
	kindDate                        // YYYY-MM-DD
	kindField                       // a provenance field name
	kindValue                       // a field's value: depends on the field
	kindRunList                     // comma-separated run ids
	kindFieldList                   // comma-separated fields, "a|b" = either
	kindPurpose                     // too_few_samples purpose
	kindFigure                      // a figure name
	kindSource                      // a value source: recomputed or stated
	kindPrecision                   // a printed precision: "full" or "2 ms"
	kindFigureList                  // comma-separated figure names
)

var paramKinds = map[string]paramKind{
	"figure": kindFigure, "run": kindText, "id": kindText,
	"n": kindInteger, "need": kindInteger, "failed": kindInteger, "sent": kindInteger,
	"short": kindInteger, "completed": kindInteger, "output_len": kindInteger,
	"age_days": kindInteger, "max_days": kindInteger,
	"p": kindDecimal, "alpha": kindDecimal, "param": kindDecimal,
	"median_s": kindSeconds, "threshold_s": kindSeconds,
	"checked": kindDate,
	"field":   kindField, "baseline": kindValue, "candidate": kindValue,
	"baseline_method": kindText, "candidate_method": kindText,
	"baseline_tool": kindText, "candidate_tool": kindText, "baseline_key": kindText, "candidate_key": kindText,
	"runs": kindRunList, "missing": kindFieldList, "purpose": kindPurpose,
	"tool": kindText, "key": kindText, "precision": kindPrecision, "metrics": kindFigureList,
	"baseline_source": kindSource, "candidate_source": kindSource,
}

// numericFields are provenance fields whose values are numbers and so are
// shown in the locale's number style; every other value (versions such as
// "0.10", revisions, names) is shown exactly as recorded.
var numericFields = map[string]bool{
	"hardware.gpu_count": true, "hardware.gpu_memory_gb": true,
	"workload.input_len": true, "workload.output_len": true,
	"workload.request_count": true, "workload.concurrency": true,
	"workload.request_rate": true, "workload.temperature": true,
	"workload.burstiness": true,
}

// NumericField reports whether a provenance field's values are numbers,
// shown in the locale's number style.
func NumericField(field string) bool { return numericFields[field] }

// Fields lists the provenance fields that have a label in the catalogues
// (field.<name>): the compared fields of docs/metrics.md and the ones the
// confounder codes name.
var Fields = []string{
	"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.node",
	"hardware.driver", "runtime.engine", "runtime.version", "runtime.image",
	"runtime.image_digest", "runtime.server_args", "checkpoint.repository",
	"checkpoint.revision", "checkpoint.precision", "checkpoint.kv_cache_dtype",
	"workload.input_len", "workload.output_len", "workload.dataset", "workload.temperature",
	"workload.thinking", "workload.fixed_output", "workload.request_count",
	"workload.concurrency", "workload.request_rate", "workload.burstiness",
	"workload.load_mode", "measurement.client", "measurement.client_version",
}

// FieldLabel names a provenance field in the locale ("runtime.version" →
// "runtime version"); an unknown field is returned as it is.
func (l Locale) FieldLabel(field string) string {
	if s, err := l.Message("field." + field); err == nil {
		return s
	}
	return field
}

// Caveat renders a caveat as one or two sentences (catalogue key
// caveat.<code>), with its parameters formatted by the locale. An unknown
// code, a parameter the sentence needs but the caveat lacks, or a numeric
// parameter that does not parse is an error: a caveat is never dropped or
// half-rendered silently.
func (l Locale) Caveat(c caveat.Caveat) (string, error) {
	key := "caveat." + c.Code
	if _, ok := l.l.msgs[key]; !ok {
		return "", fmt.Errorf("locales: %s: no sentence for caveat %q", l.l.tag, c.Code)
	}
	args := Args{}
	for name, raw := range c.Params {
		v, err := l.caveatParam(name, raw, c.Params["field"])
		if err != nil {
			return "", fmt.Errorf("locales: %s: caveat %s: %w", l.l.tag, c.Code, err)
		}
		args[name] = v
	}
	m := l.l.msgs[key]
	// Parameters the sentence leaves out (the field of a hardware_differs
	// sentence that names the values only) are allowed; missing ones are not.
	return l.render(key, m, []any{args}, false)
}

func (l Locale) caveatParam(name, raw, field string) (string, error) {
	raw = strings.TrimSpace(raw)
	kind, ok := paramKinds[name]
	if !ok {
		return raw, nil
	}
	num := func() (float64, error) {
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return 0, fmt.Errorf("parameter %s=%q is not a number", name, raw)
		}
		return v, nil
	}
	switch kind {
	case kindInteger, kindDecimal:
		v, err := num()
		if err != nil {
			return "", err
		}
		return l.Number(v, -1), nil
	case kindSeconds:
		v, err := num()
		if err != nil {
			return "", err
		}
		return l.Quantity(v, -1, "s"), nil
	case kindDate:
		return l.DateString(raw)
	case kindField:
		return l.FieldLabel(raw), nil
	case kindValue:
		return l.fieldValue(field, raw), nil
	case kindRunList:
		return l.List(splitList(raw)), nil
	case kindFieldList:
		return fieldLists.Get(fieldListKey{l.l, raw}, func() string { return l.fieldList(raw) }), nil
	case kindPurpose:
		if s, err := l.Message("purpose." + raw); err == nil {
			return s, nil
		}
		return raw, nil
	case kindFigure:
		return l.Figure(raw), nil
	case kindSource:
		if s, err := l.Message("value_source.kind." + raw); err == nil {
			return s, nil
		}
		return raw, nil
	case kindPrecision:
		return l.precision(raw), nil
	case kindFigureList:
		var out []string
		for _, f := range splitList(raw) {
			out = append(out, l.Figure(f))
		}
		return l.List(out), nil
	}
	return raw, nil
}

// fieldLists keeps each locale's fieldList of a caveat's parameter (the
// same few lists, such as a run's missing fields, are in every run's
// caveats).
var fieldLists memo.Map[fieldListKey, string]

// fieldListKey is what a fieldList is made of.
type fieldListKey struct {
	l   *locale
	raw string
}

// fieldList shows a list of fields, each one or two alternatives
// ("a|b"), by their labels.
func (l Locale) fieldList(raw string) string {
	var out []string
	for _, f := range splitList(raw) {
		alts := strings.Split(f, "|")
		for i, a := range alts {
			alts[i] = l.FieldLabel(a)
		}
		if len(alts) == 2 {
			out = append(out, l.T("format.either", "a", alts[0], "b", alts[1]))
		} else {
			out = append(out, strings.Join(alts, " | "))
		}
	}
	return l.List(out)
}

// precision shows a printed precision: "full", or "<decimals> <unit>".
func (l Locale) precision(raw string) string {
	n, unit, ok := strings.Cut(raw, " ")
	d, err := strconv.Atoi(n)
	if !ok || err != nil || d <= 0 {
		return l.T("precision.full")
	}
	return l.T("precision.decimals", "n", l.Integer(d), "unit", unit)
}

// Origin says where a value comes from, in the locale: "recomputed from
// 200 records" or "stated by vllm bench serve (mean_ttft_ms, full
// precision), not recomputable".
func (l Locale) Origin(o figures.Origin) string {
	if !o.Stated() {
		return l.T("value_source.recomputed", "n", l.Integer(o.Records))
	}
	prec := "full"
	if o.Printed > 0 {
		prec = strconv.Itoa(o.Printed) + " " + o.SourceUnit
	}
	key := o.Key
	if key == "" {
		key = "—"
	}
	return l.T("value_source.stated", "tool", o.Tool, "key", key, "precision", l.precision(prec))
}

// fieldValue shows one side's value of a field: "not recorded" when empty,
// the load mode in words, numbers in the locale's style, anything else as
// recorded.
func (l Locale) fieldValue(field, v string) string {
	if v == "" {
		return l.T("value.not_recorded")
	}
	if field == "workload.load_mode" {
		if s, err := l.Message("load_mode." + v); err == nil {
			return s
		}
	}
	if numericFields[field] {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return l.Number(f, -1)
		}
	}
	return v
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
