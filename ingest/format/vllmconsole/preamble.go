package vllmconsole

import (
	"fmt"
	"sort"
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
	lens  *randomLens
	// commands are the server and client commands read as this block's
	// (commands.go), kept in Extra with their lines.
	commands []cmdAt
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
	if args["dataset_name"] == "random" {
		p.lens = &randomLens{args: args, line: n, label: "the Namespace"}
	}
}

// randomLens are a random dataset's length arguments, read once the block
// shows which client printed them: random_range_ratio means a fixed length
// at 0.0 in the vllm bench CLI (a spread of ±ratio around the length) but at
// 1.0 in SGLang's bench_serving and vLLM's old benchmark_serving.py (the
// length drawn from [ratio × length, length]).
type randomLens struct {
	args  map[string]string
	line  int
	label string // what printed them: "the Namespace", a client command
}

// fixed reports whether the lengths were exact for the client whose block
// follows, and why not.
func (l *randomLens) fixed(format string) (bool, string) {
	ratio, ok := l.args["random_range_ratio"]
	v, isNum, _ := textread.Number(ratio)
	_, newCLI := l.args["bench_type"] // vllm bench serve's Namespace
	switch {
	case !ok || !isNum:
		return false, l.label + " names no random_range_ratio"
	case format == ID && newCLI:
		return v == 0, "random_range_ratio=" + ratio + " (vllm bench serve draws lengths within ±ratio)"
	case format == ID:
		return false, l.label + " is not vllm bench serve's (no bench_type), so what random_range_ratio=" + ratio + " means is not known"
	default:
		return v == 1, "random_range_ratio=" + ratio + " (SGLang draws lengths from [ratio × length, length])"
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
		if run.FactPlaces == nil {
			run.FactPlaces = map[string]string{}
		}
		run.FactPlaces[field] = textread.At(f.line) + ", " + f.label
	}
	if l := p.lens; l != nil {
		if fixed, why := l.fixed(run.Format); fixed {
			for key, field := range map[string]string{"random_input_len": "workload.input_len", "random_output_len": "workload.output_len"} {
				if v, ok := l.args[key]; ok {
					p.set(field, v, l.line, l.label+" "+key)
					if f, ok := p.facts[field]; ok {
						if _, have := run.Facts[field]; !have {
							run.Facts[field] = f.value
						}
					}
				}
			}
		} else {
			run.Notes = append(run.Notes, fmt.Sprintf("%s at line %d names a random dataset but %s: input and output lengths not recorded as fixed", l.label, l.line, why))
		}
	}
	if run.Extra == nil && (p.args != "" || len(p.commands) > 0) {
		run.Extra = map[string]string{}
	}
	if p.args != "" {
		run.Extra[fmt.Sprintf("client arguments (line %d)", p.argsN)] = p.args
	}
	for _, c := range p.commands {
		run.Extra[fmt.Sprintf("%s command (line %d)", kindName(c.c.Kind), c.line)] = c.c.Text
		run.Notes = append(run.Notes, fmt.Sprintf("the %s command at line %d (%s) is read as this run's: %s", kindName(c.c.Kind), c.line, c.c.Tool, p.fieldsFrom(c.line)))
	}
	if len(p.facts) > 0 {
		run.Notes = append(run.Notes, "facts from the lines the log printed before the block (the client's arguments, load lines and commands) are the file's statement of this run")
	}
	run.Notes = append(run.Notes, p.notes...)
	return nil
}

// fieldsFrom lists the fields the preamble took from line n.
func (p *preamble) fieldsFrom(n int) string {
	var out []string
	for field, f := range p.facts {
		if f.line == n {
			out = append(out, field)
		}
	}
	if len(out) == 0 {
		return "no field"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
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
