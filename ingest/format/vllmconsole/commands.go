package vllmconsole

import (
	"fmt"
	"maps"
	"strings"

	"github.com/benchledger/benchledger/ingest/launch"
	"github.com/benchledger/benchledger/ingest/textread"
)

// commands are the bare command lines a page or log prints around its
// blocks — the server's launch command and the client's invocation, in a
// fenced code block or after a "$ " prompt — read as facts of the blocks
// they precede (ingest/launch). A command holds for the blocks after it
// until a command of its kind replaces it or a Markdown heading starts
// another part of the page. Two different commands of one kind before a
// block say nothing of it: which one ran it is not known.
type commands struct {
	fence   bool     // inside a Markdown code fence
	pending []string // lines of a command continued with a trailing backslash
	pendAt  int
	kinds   [3]cmdKind // by launch.Kind
}

type cmdKind struct {
	seen []cmdAt // the commands in effect: one, or several (ambiguous)
	used bool    // a block was read since the last of them
}

type cmdAt struct {
	c    launch.Command
	line int
}

// line looks at one line outside any block.
func (s *commands) line(ln textread.Line) {
	t := strings.TrimSpace(ln.Text)
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		s.fence, s.pending = !s.fence, nil
		return
	}
	if !s.fence && strings.HasPrefix(t, "#") && strings.HasPrefix(strings.TrimLeft(t, "#"), " ") {
		// A Markdown heading: another part of the page.
		s.kinds = [3]cmdKind{}
		return
	}
	if s.pending == nil {
		if !s.fence && !strings.HasPrefix(t, "$ ") {
			return
		}
		s.pendAt = ln.N
	}
	if cont, ok := strings.CutSuffix(t, "\\"); ok {
		s.pending = append(s.pending, strings.TrimSpace(cont))
		return
	}
	text := strings.Join(append(s.pending, t), " ")
	s.pending = nil
	c, ok := launch.Read(text)
	if !ok {
		return
	}
	k := &s.kinds[c.Kind]
	if k.used {
		*k = cmdKind{}
	}
	for _, have := range k.seen {
		if have.c.Text == c.Text {
			return
		}
	}
	k.seen = append(k.seen, cmdAt{c, s.pendAt})
}

// into gives the preamble of the next block the facts of the commands in
// effect, for the fields its own lines (a Namespace) did not state.
func (s *commands) into(p *preamble) {
	// The client first: its --model is the name the tool itself records
	// (as a Namespace's model), the server's may be a local path.
	for _, kind := range []launch.Kind{launch.Client, launch.Server} {
		k := &s.kinds[kind]
		k.used = len(k.seen) > 0
		switch len(k.seen) {
		case 0:
			continue
		case 1:
		default:
			var lines []string
			for _, c := range k.seen {
				lines = append(lines, fmt.Sprint(c.line))
			}
			p.notes = append(p.notes, fmt.Sprintf("%d different %s commands before the block (lines %s): which one ran it is not known, so none is read",
				len(k.seen), kindName(kind), strings.Join(lines, ", ")))
			continue
		}
		c := k.seen[0]
		p.commands = append(p.commands, c)
		label := fmt.Sprintf("the %s command (%s)", kindName(kind), c.c.Tool)
		if kind == launch.Server {
			p.setNew("runtime.engine", c.c.Engine, c.line, label)
			p.setNew("checkpoint.model_id", c.c.Model, c.line, label)
			p.setNew("runtime.server_args", c.c.Text, c.line, label)
			continue
		}
		p.clientArgs(c, label)
	}
}

func kindName(k launch.Kind) string {
	if k == launch.Server {
		return "server"
	}
	return "client"
}

// argAliases are the prefixes argparse accepts for the client options and
// that published commands use (--random-input 1024).
var argAliases = map[string]string{"random_input": "random_input_len", "random_output": "random_output_len", "num_prompt": "num_prompts"}

// clientArgs reads a client command's options as the Namespace it parses
// into: the same names, so the same facts (namespaceFacts).
func (p *preamble) clientArgs(c cmdAt, label string) {
	args := maps.Clone(c.c.Args)
	for short, long := range argAliases {
		if v, ok := args[short]; ok {
			if _, have := args[long]; !have {
				args[long] = v
			}
		}
	}
	switch c.c.Tool {
	case "guidellm benchmark":
		p.guidellmArgs(args, c.line, label)
		return
	case "vllm bench serve":
		// Options left out take their defaults: vllm bench serve draws
		// random lengths within ±random_range_ratio, 0.0 unless given.
		if _, ok := args["random_range_ratio"]; !ok {
			args["random_range_ratio"] = "0.0"
		}
		args["bench_type"] = "serve"
	}
	for key, field := range namespaceFacts {
		if v, ok := args[key]; ok && v != "True" {
			p.setNew(field, v, c.line, label)
		}
	}
	if args["dataset_name"] == "random" && p.lens == nil {
		p.lens = &randomLens{args: args, line: c.line, label: label}
	}
}

// guidellmArgs reads guidellm benchmark's load options: the rate type (or
// profile) and its rate, the request limit, the model and the seed.
func (p *preamble) guidellmArgs(args map[string]string, n int, label string) {
	p.setNew("checkpoint.model_id", args["model"], n, label)
	p.setNew("workload.request_count", args["max_requests"], n, label)
	p.setNew("workload.seed", args["random_seed"], n, label)
	rate := args["rate"]
	if strings.Contains(rate, ",") {
		rate = "" // several rates: a sweep, one per benchmark
	}
	kind := args["rate_type"]
	if kind == "" {
		kind = args["profile"]
	}
	switch kind {
	case "synchronous":
		p.setNew("workload.concurrency", "1", n, label)
	case "concurrent":
		p.setNew("workload.concurrency", rate, n, label)
	case "constant", "poisson":
		p.setNew("workload.request_rate", rate, n, label)
	case "throughput":
		p.setNew("workload.request_rate", "inf", n, label)
	}
}

// setNew records a fact unless the preamble's own lines stated the field.
func (p *preamble) setNew(field, val string, n int, label string) {
	if _, have := p.facts[field]; have || val == "" {
		return
	}
	p.set(field, val, n, label)
}
