package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/locales"
)

// auditParamText shows a finding's parameter in the page's language: field
// lists by their labels, metrics by their terms, a comparison by its label,
// days as dates, counts as numbers; anything else (a token, a URL, a
// binding name the writer types) as it is.
func auditParamText(l locales.Locale, key, v string, label func(string) string) string {
	switch key {
	case "confounders", "intended_unchanged", "missing", "field":
		var out []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, l.FieldLabel(f))
			}
		}
		return l.List(out)
	case "metric":
		return l.Figure(v)
	case "series":
		// The per-request series plausibility.zero_series names in English.
		if m, ok := seriesTerms[v]; ok {
			return l.Figure(m)
		}
	case "comparison":
		if label != nil {
			return label(v)
		}
	case "captured", "checked":
		if d, err := l.DateString(v); err == nil {
			return d
		}
	case "rate":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return l.Percent(f*100, 2, false)
		}
	case "line", "age_days", "max_age_days", "short", "completed", "requested", "equal", "requests", "failed",
		"ordinal", "event", "correction":
		if n, err := strconv.Atoi(v); err == nil {
			return l.Integer(n)
		}
	case "kind":
		// What the hash chain links: a run, an event, a correction, …
		if s, err := l.Message("audit.msg.kind." + v); err == nil {
			return s
		}
	case "stated", "recomputed", "tolerance", "window", "window_start", "window_end", "max_latency", "tool_value", "difference",
		"peak", "mean", "floor", "total_output_tokens", "achieved", "offered", "achieved_min", "computed", "raw":
		// Measured values in the page's digits, as many as the CLI shows;
		// a value that is no finite number (a quoted string, NaN) as it is.
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return l.Number(f, -1)
		}
	case "equals", "nearest", "figure":
		return "{{" + v + "}}"
	}
	return v
}

// seriesTerms are the glossary terms of the series names a finding's
// "series" parameter carries.
var seriesTerms = map[string]string{"TTFT": "ttft", "latency": "e2el", "output tokens": "total_output_tokens"}

// auditMessage is a finding's message in the page's language: the CLI's
// English text on an English page; else the catalogue sentence of its
// message key, or, for a finding without one, a sentence naming its check
// (the English text is then shown beside it). The second result says
// whether the message is the finding's own sentence.
func auditMessage(l locales.Locale, f audit.Finding, label func(string) string) (string, bool) {
	if l.Tag() == "en" {
		return f.Message, true
	}
	if f.MessageKey != "" {
		args := locales.Args{}
		for k, v := range f.Params {
			args[k] = auditParamText(l, k, v, label)
		}
		// The raw file a sentence names is the finding's own.
		if _, ok := args["file"]; !ok && f.File != "" {
			args["file"] = f.File
		}
		if s, err := l.MessageSubset("audit.msg."+f.MessageKey, args); err == nil {
			return s, true
		}
	}
	return l.T("audit.msg.generic", "check", checkTitle(l, f.Check)), false
}
