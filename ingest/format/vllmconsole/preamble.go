package vllmconsole

import (
	"fmt"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
	"github.com/benchledger/benchledger/provenance"
)

// A preamble is what a log printed between one result block and the next
// that says how the next run was made: the client's parsed arguments
// (vLLM and SGLang print their argparse Namespace before a run) and the
// load lines vLLM prints just before sending ("Traffic request rate: inf",
// "Burstiness factor: 1.0 (Poisson process)", "Maximum request
// concurrency: None"). Its facts are the next block's, stated by the file.
type preamble struct {
	facts map[string]preFact
	notes []string
	args  string // the Namespace(...) text, kept in Extra
	argsN int
}

type preFact struct {
	value string
	line  int
	label string // "Namespace model", "Traffic request rate"
}

// preambleLoad are the load lines vLLM prints before a run (FORMATS §1.6)
// and the fields they state.
var preambleLoad = map[string]string{
	"traffic request rate":        "workload.request_rate",
	"burstiness factor":           "workload.burstiness",
	"maximum request concurrency": "workload.concurrency",
	"max request concurrency":     "workload.concurrency",
}

// namespaceFacts maps the client arguments (vLLM's and SGLang's argparse
// names, which agree on these) to provenance fields.
var namespaceFacts = map[string]string{
	"model":           "checkpoint.model_id",
	"tokenizer":       "checkpoint.tokenizer",
	"num_prompts":     "workload.request_count",
	"request_rate":    "workload.request_rate",
	"max_concurrency": "workload.concurrency",
	"burstiness":      "workload.burstiness",
	"dataset_name":    "workload.dataset",
	"seed":            "workload.seed",
	"temperature":     "workload.temperature",
	"backend":         "measurement.backend",
	"label":           "measurement.label",
}

func (p *preamble) reset() { *p = preamble{} }

// line looks at one line outside any block.
func (p *preamble) line(ln textread.Line) {
	t := strings.TrimSpace(ln.Text)
	if i := strings.Index(t, "Namespace("); i >= 0 && strings.HasSuffix(t, ")") {
		args, ok := pyNamespace(t[i+len("Namespace(") : len(t)-1])
		if !ok {
			p.notes = append(p.notes, fmt.Sprintf("line %d looks like the client's Namespace(...) but could not be read; no facts taken from it", ln.N))
			return
		}
		p.args, p.argsN = t[i:], ln.N
		p.fromArgs(args, ln.N)
		return
	}
	label, val, ok := strings.Cut(t, ":")
	if !ok {
		return
	}
	key := strings.ToLower(strings.Join(strings.Fields(label), " "))
	field, ok := preambleLoad[key]
	if !ok {
		return
	}
	val = strings.TrimSpace(val)
	if field == "workload.burstiness" {
		val, _, _ = strings.Cut(val, " ") // "1.0 (Poisson process)"
	}
	p.set(field, val, ln.N, strings.TrimSpace(label))
}

// fromArgs takes the facts of a parsed Namespace.
func (p *preamble) fromArgs(args map[string]string, n int) {
	for key, field := range namespaceFacts {
		if v, ok := args[key]; ok {
			p.set(field, v, n, "Namespace "+key)
		}
	}
	// An exact length only: a random dataset with a range ratio draws
	// lengths around the number, which is not a fixed input length.
	if ds := args["dataset_name"]; ds == "random" {
		ratio := args["random_range_ratio"]
		if ratio == "" || ratio == "0" || ratio == "0.0" {
			for key, field := range map[string]string{"random_input_len": "workload.input_len", "random_output_len": "workload.output_len"} {
				if v, ok := args[key]; ok {
					p.set(field, v, n, "Namespace "+key)
				}
			}
		} else {
			p.notes = append(p.notes, fmt.Sprintf("the Namespace at line %d draws random lengths with random_range_ratio=%s: input and output lengths not recorded as fixed", n, ratio))
		}
	}
}

// set records a fact unless the value means "none" or is not a valid value
// of its field (then a note says so).
func (p *preamble) set(field, val string, n int, label string) {
	switch strings.ToLower(val) {
	case "", "none", "not set":
		return
	}
	if field == "workload.request_rate" && strings.EqualFold(val, "inf") {
		val = "inf"
	}
	if err := provenance.Validate(provenance.Entry{Field: field, Value: val}); err != nil {
		p.notes = append(p.notes, fmt.Sprintf("%s %q at line %d is not a valid %s (%v); not recorded", label, val, n, field, err))
		return
	}
	if p.facts == nil {
		p.facts = map[string]preFact{}
	}
	p.facts[field] = preFact{value: val, line: n, label: label}
}

// apply gives the block's run the preamble's facts. A fact the block
// itself states differently is a contradiction inside the file, and the
// block is refused naming both lines.
func (p *preamble) apply(name string, run *benchrun.Run) *format.InputError {
	for field, f := range p.facts {
		if have, ok := run.Facts[field]; ok {
			if !sameFact(have, f.value) {
				return format.Errorf(name, textread.At(f.line), "%s is %q here but the block at %s states %s %q: the file contradicts itself",
					f.label, f.value, run.Location, field, have)
			}
			continue
		}
		run.Facts[field] = f.value
	}
	if p.args != "" {
		if run.Extra == nil {
			run.Extra = map[string]string{}
		}
		run.Extra[fmt.Sprintf("client arguments (line %d)", p.argsN)] = p.args
	}
	if len(p.facts) > 0 {
		run.Notes = append(run.Notes, "facts from the lines the log printed before the block (the client's arguments and load lines) are the file's statement of this run")
	}
	run.Notes = append(run.Notes, p.notes...)
	return nil
}

// sameFact compares two printings of one value: "16", "16.0" and "16.00"
// are one rate.
func sameFact(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	x, okx, _ := textread.Number(a)
	y, oky, _ := textread.Number(b)
	return okx && oky && x == y
}

// pyNamespace reads the inside of Python's repr of an argparse Namespace:
// key=value pairs separated by ", ", values Python literals (quoted
// strings, numbers, None, True, inf, lists, dicts). Strings are unquoted;
// other values are kept as printed. ok is false when the text is not such
// a list.
func pyNamespace(s string) (map[string]string, bool) {
	out := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, false
		}
		key := strings.TrimSpace(s[:eq])
		for _, c := range key {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return nil, false
			}
		}
		s = s[eq+1:]
		end, ok := pyValueEnd(s)
		if !ok {
			return nil, false
		}
		v := strings.TrimSpace(s[:end])
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
			v = strings.ReplaceAll(v[1:len(v)-1], `\'`, `'`)
		}
		out[key] = v
		s = strings.TrimPrefix(s[end:], ",")
		s = strings.TrimLeft(s, " ")
	}
	return out, len(out) > 0
}

// pyValueEnd finds the end of one Python literal: the first comma outside
// quotes and brackets.
func pyValueEnd(s string) (int, bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth < 0 {
				return 0, false
			}
		case c == ',' && depth == 0:
			return i, true
		}
	}
	return len(s), quote == 0 && depth == 0
}
