package locales

import (
	"strconv"
	"strings"
)

// engineNames are the names engines are written with in prose; an engine
// not listed is shown as recorded.
var engineNames = map[string]string{
	"vllm": "vLLM", "sglang": "SGLang", "tensorrt-llm": "TensorRT-LLM", "trtllm": "TensorRT-LLM",
	"tgi": "TGI", "lmdeploy": "LMDeploy", "llama.cpp": "llama.cpp", "ollama": "Ollama",
}

// freeText are provenance fields whose values are prose as the manifest's
// author wrote it (in English).
var freeText = map[string]bool{
	"workload.dataset": true, "hardware.node": true, "measurement.notes": true,
}

// FreeTextField reports whether a provenance field's values are prose as
// the manifest's author wrote it (in English): shown as recorded, or in a
// reader's language where the case study's spec labels the text.
func FreeTextField(field string) bool { return freeText[field] }

// FieldText shows a recorded value of a field in the locale's language:
// numbers and number ranges ("63-66" → "63–66") in the locale's style,
// booleans and an unlimited request rate in words, engines by name;
// anything else as recorded. The second result says the value is free
// text recorded in English (and the locale is not English). The report,
// the site and the export show values through it.
func (l Locale) FieldText(field, v string) (string, bool) {
	switch field {
	case "workload.fixed_output", "synthetic":
		if b, err := strconv.ParseBool(v); err == nil {
			return l.T("value.yes_no." + strconv.FormatBool(b)), false
		}
	case "workload.thinking":
		if b, err := strconv.ParseBool(v); err == nil {
			return l.T("value.on_off." + strconv.FormatBool(b)), false
		}
	case "workload.request_rate":
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 1e300 {
			return l.T("value.unlimited_rate"), false
		}
	case "runtime.engine":
		if n, ok := engineNames[strings.ToLower(v)]; ok {
			return n, false
		}
	}
	if NumericField(field) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return l.Number(f, -1), false
		}
		if lo, hi, ok := strings.Cut(v, "-"); ok {
			a, e1 := strconv.ParseFloat(lo, 64)
			z, e2 := strconv.ParseFloat(hi, 64)
			if e1 == nil && e2 == nil {
				return l.Number(a, -1) + "–" + l.Number(z, -1), false
			}
		}
	}
	return v, freeText[field] && l.Tag() != "en"
}

// Word is a recorded word of a known kind in the locale's language: the
// catalogue's kind.word, spaces in the word written as underscores
// ("percentile_method.linear": "线性插值", "window_basis.per-request_records");
// a word the catalogue does not know as recorded.
func (l Locale) Word(kind, w string) string {
	if t, err := l.Message(kind + "." + strings.ReplaceAll(w, " ", "_")); err == nil {
		return t
	}
	return w
}
