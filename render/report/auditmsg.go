package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/locales"
)

// auditParamText shows a finding's parameter in the page's language: field
// lists by their labels, metrics by their terms, a comparison by its label,
// days as dates, counts as numbers; anything else (a token, a URL, a
// binding name the writer types) as it is.
func auditParamText(l locales.Locale, key, v string, label func(string) string, digits int) string {
	// Measured values in the page's digits, to the significant digits the
	// finding needs (measuredDigits); a value that is no finite number (a
	// quoted string, NaN) as it is.
	if f, ok := measured(key, v); ok {
		f = significant(f, digits)
		if rateParams[key] { // a request rate with its unit, in the number's plural form
			return l.Quantity(f, -1, "req/s")
		}
		return l.Number(f, -1)
	}
	switch key {
	case "confounders", "intended_unchanged", "missing", "field":
		var out []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, auditFieldText(l, f))
			}
		}
		return l.List(out)
	case "unit", "figure_unit":
		return l.Cells().UnitLabel(v) // "s" beside a number in es, as the other findings write it
	case "engine", "named", "used":
		t, _ := l.FieldText("runtime.engine", v)
		return t
	case "versions":
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
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
		"ordinal", "event", "correction", "packed", "archived":
		if n, err := strconv.Atoi(v); err == nil {
			return l.Integer(n)
		}
	case "kind":
		// What the hash chain links: a run, an event, a correction, …
		if s, err := l.Message("audit.msg.kind." + v); err == nil {
			return s
		}
	case "equals", "nearest", "figure":
		return "{{" + v + "}}"
	}
	return v
}

// rateParams are the request rates findings carry (req/s), shown with
// their unit.
var rateParams = map[string]bool{"achieved": true, "offered": true, "achieved_min": true}

// measured reads a parameter auditParamText shows as a measured value.
func measured(key, v string) (float64, bool) {
	switch key {
	case "stated", "recomputed", "tolerance", "window", "window_start", "window_end", "max_latency", "tool_value", "difference",
		"peak", "mean", "floor", "total_output_tokens", "achieved", "offered", "achieved_min", "computed", "raw":
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// measuredDigits is how many significant digits a finding's measured
// values are shown with: 6, or as many more as keep two values that differ
// (a stated value and its recomputation just beyond a 1e-6 tolerance)
// apart on the page.
func measuredDigits(params map[string]string) int {
	var vs []float64
	for k, v := range params {
		if f, ok := measured(k, v); ok {
			vs = append(vs, f)
		}
	}
	n := 6
	for ; n < 17; n++ {
		apart := true
		for i := range vs {
			for j := range i {
				if vs[i] != vs[j] && significant(vs[i], n) == significant(vs[j], n) {
					apart = false
				}
			}
		}
		if apart {
			break
		}
	}
	return n
}

// significant rounds a measured value to n significant digits, never
// into its integer part (20,132,659 stays whole): a reader's sentence says
// 2,800.18, not 2,800.176760628896; the finding's parameters and its
// English message keep every digit.
func significant(f float64, n int) float64 {
	if f == 0 {
		return 0
	}
	d := n - 1 - int(math.Floor(math.Log10(math.Abs(f))))
	if d <= 0 {
		return math.Round(f)
	}
	p := math.Pow(10, float64(d))
	return math.Round(f*p) / p
}

// auditFieldText names a field a finding names: a provenance field by its
// label, a text of the spec ("narrative.en") by what it is, in the
// language ("叙述正文（en）"); anything else as it is.
func auditFieldText(l locales.Locale, f string) string {
	if t := l.FieldLabel(f); t != f {
		return t
	}
	if kind, lang, ok := strings.Cut(f, "."); ok {
		if t, err := l.Message("audit.text."+kind, "lang", lang); err == nil {
			return t
		}
	}
	return f
}

// seriesTerms are the glossary terms of the series names a finding's
// "series" parameter carries.
var seriesTerms = map[string]string{"TTFT": "ttft", "latency": "e2el", "output tokens": "total_output_tokens"}

// AuditMessage is a finding's message in l's language, as the report's
// audit page writes it, for pages outside a case study (the site's run
// pages): spec names are shown as they are.
func AuditMessage(l locales.Locale, f audit.Finding) (string, bool) {
	return auditMessage(l, f, func(s string) string { return s })
}

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
		digits := measuredDigits(f.Params)
		for k, v := range f.Params {
			args[k] = auditParamText(l, k, v, label, digits)
		}
		// The raw file a sentence names is the finding's own.
		if _, ok := args["file"]; !ok && f.File != "" {
			args["file"] = f.File
		}
		if s, err := l.MessageSubset("audit.msg."+f.MessageKey, args); err == nil {
			// A sentence that opens with a label written for the middle of
			// one ("referencia externa frente a …") starts with a capital.
			return capFirst(s), true
		}
	}
	return l.T("audit.msg.generic", "check", checkTitle(l, f.Check)), false
}
