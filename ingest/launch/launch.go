// Package launch reads the command lines that published pages and logs
// print beside benchmark results: a serving engine's launch command
// (`vllm serve MODEL ...`, `python3 -m sglang.launch_server --model-path
// ...`, `trtllm-serve MODEL ...`) and a benchmark client's invocation
// (`vllm bench serve ...`, `python3 -m sglang.bench_serving ...`,
// `guidellm benchmark ...`). It is also the one table of which launcher
// and image name which engine (Engines), which the audit uses to compare a
// run's runtime.engine with its command and image.
package launch

import (
	"regexp"
	"sort"
	"strings"
)

// engines maps launchers and image references to the runtime.engine id
// (provenance.md). Names match on word boundaries so that a model called
// "vllm-test" in a path does not count.
var engines = []struct {
	id  string
	cmd *regexp.Regexp
}{
	{"vllm", regexp.MustCompile(`(?i)\bvllm\s+serve\b|\bvllm\.entrypoints\b|\bvllm/vllm-openai\b|\bvllm-openai\b`)},
	{"sglang", regexp.MustCompile(`(?i)\bsglang\.launch_server\b|\bsglang\s+serve\b|\blmsysorg/sglang\b`)},
	{"tensorrt-llm", regexp.MustCompile(`(?i)\btrtllm-serve\b|\btensorrt_llm\b|/tensorrt-llm\b|\btensorrt-llm/`)},
	{"tgi", regexp.MustCompile(`(?i)\btext-generation-launcher\b|/text-generation-inference\b`)},
	{"lmdeploy", regexp.MustCompile(`(?i)\blmdeploy\s+serve\b|/lmdeploy\b`)},
	{"llama.cpp", regexp.MustCompile(`(?i)\bllama-server\b|/llama\.cpp\b`)},
	{"ollama", regexp.MustCompile(`(?i)\bollama\s+(serve|run)\b|\bollama/ollama\b`)},
}

// Engines lists, sorted, the engines a launch command or an image
// reference names.
func Engines(s string) []string {
	var out []string
	for _, e := range engines {
		if e.cmd.MatchString(s) {
			out = append(out, e.id)
		}
	}
	sort.Strings(out)
	return out
}

// Kind says what a command runs.
type Kind int

const (
	Server Kind = iota + 1 // a serving engine
	Client                 // a benchmark client
)

// Command is what one command line says.
type Command struct {
	Kind Kind
	// Tool names the program: "vllm serve", "sglang.launch_server",
	// "trtllm-serve", "vllm bench serve", "benchmark_serving.py",
	// "sglang.bench_serving", "guidellm benchmark".
	Tool string
	// Engine is a server's runtime.engine id.
	Engine string
	// Model is the model a server serves (its positional argument,
	// --model or --model-path; --served-model-name when given, the name
	// clients ask for).
	Model string
	// Args are the options as argparse names them (--num-prompts →
	// num_prompts); a flag without a value is "True". The last of a
	// repeated option counts.
	Args map[string]string
	// Text is the command as written, its words joined by one space.
	Text string
}

// A launcher is the words that start a known command.
type launcher struct {
	words []string // "-m" before a module; "*.py" matches a script path's base name
	kind  Kind
	tool  string
}

var launchers = []launcher{
	{[]string{"vllm", "bench", "serve"}, Client, "vllm bench serve"},
	{[]string{"vllm", "serve"}, Server, "vllm serve"},
	{[]string{"-m", "vllm.entrypoints.openai.api_server"}, Server, "vllm.entrypoints.openai.api_server"},
	{[]string{"-m", "sglang.launch_server"}, Server, "sglang.launch_server"},
	{[]string{"-m", "sglang.bench_serving"}, Client, "sglang.bench_serving"},
	{[]string{"-m", "sglang.benchmark.serving"}, Client, "sglang.bench_serving"},
	{[]string{"trtllm-serve"}, Server, "trtllm-serve"},
	{[]string{"benchmark_serving.py"}, Client, "benchmark_serving.py"},
	{[]string{"guidellm", "benchmark"}, Client, "guidellm benchmark"},
}

// Read recognises a command line: shell words, optionally after a "$ "
// prompt, environment assignments (CUDA_VISIBLE_DEVICES=0) and an
// interpreter (python3 -m, uv run). ok is false for anything else — prose,
// a comment, another program.
func Read(line string) (Command, bool) {
	t := strings.TrimSpace(line)
	t = strings.TrimSpace(strings.TrimPrefix(t, "$ "))
	words, end, ok := split(t)
	if !ok || len(words) == 0 {
		return Command{}, false
	}
	i := 0
	for i < len(words) && isAssignment(words[i]) {
		i++
	}
	// The command as written, quotes kept: from its first word after the
	// environment assignments to a comment.
	text := strings.Join(strings.Fields(t[:end]), " ")
	for k := 0; k < i; k++ {
		_, rest, _ := strings.Cut(text, " ")
		text = rest
	}
	for i < len(words) && isWrapper(words[i]) {
		i++
	}
	for _, l := range launchers {
		n, ok := matchAt(words[i:], l.words)
		if !ok {
			continue
		}
		c := Command{Kind: l.kind, Tool: l.tool, Args: map[string]string{}, Text: text}
		rest := words[i+n:]
		if l.tool == "trtllm-serve" && len(rest) > 0 && rest[0] == "serve" {
			rest = rest[1:]
		}
		if l.tool == "guidellm benchmark" && len(rest) > 0 && rest[0] == "run" {
			rest = rest[1:]
		}
		positional := options(rest, c.Args)
		if c.Kind == Server {
			if e := Engines(strings.Join(words[i:i+n], " ")); len(e) == 1 {
				c.Engine = e[0]
			}
			c.Model = firstOf(c.Args, "served_model_name", "model", "model_path")
			if c.Model == "" && len(positional) > 0 {
				c.Model = positional[0]
			}
		}
		return c, true
	}
	return Command{}, false
}

// matchAt reports whether words start with want ("-m" matches only
// after an interpreter, so it is looked for among the first words; a
// "*.py" word matches a script path ending in it).
func matchAt(words, want []string) (int, bool) {
	if want[0] == "-m" {
		// python3 -m MODULE: the interpreter was skipped as a wrapper.
		if len(words) >= 2 && words[0] == "-m" && words[1] == want[1] {
			return 2, true
		}
		return 0, false
	}
	if strings.HasSuffix(want[0], ".py") {
		if len(words) > 0 && (words[0] == want[0] || strings.HasSuffix(words[0], "/"+want[0])) {
			return 1, true
		}
		return 0, false
	}
	if len(words) < len(want) {
		return 0, false
	}
	for k, w := range want {
		if words[k] != w {
			return 0, false
		}
	}
	return len(want), true
}

// isWrapper: words that run the command that follows (an interpreter,
// uv run, nohup, time).
func isWrapper(w string) bool {
	base := w[strings.LastIndexByte(w, '/')+1:]
	switch {
	case base == "uv" || base == "run" || base == "nohup" || base == "time" || base == "exec":
		return true
	case base == "python" || strings.HasPrefix(base, "python3"):
		return true
	}
	return false
}

func isAssignment(w string) bool {
	k, _, ok := strings.Cut(w, "=")
	if !ok || k == "" {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// options reads --name value, --name=value and bare --flag into args
// (argparse names) and returns the positional words.
func options(words []string, args map[string]string) []string {
	var positional []string
	for k := 0; k < len(words); k++ {
		w := words[k]
		name, ok := strings.CutPrefix(w, "--")
		if !ok {
			if strings.HasPrefix(w, "-") && len(w) > 1 {
				name = w[1:] // a short option (-tp 2): kept under its letters
			} else {
				positional = append(positional, w)
				continue
			}
		}
		if name == "" {
			continue // "--" ends the options
		}
		key, val, hasVal := strings.Cut(name, "=")
		key = strings.ReplaceAll(key, "-", "_")
		if !hasVal {
			if k+1 < len(words) && !strings.HasPrefix(words[k+1], "-") {
				val = words[k+1]
				k++
			} else {
				val = "True"
			}
		}
		args[key] = val
	}
	return positional
}

func firstOf(args map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := args[k]; v != "" && v != "True" {
			return v
		}
	}
	return ""
}

// split cuts a command line into shell words: blanks separate, single
// quotes keep everything, double quotes and backslashes escape; a comment
// (" #") ends the line, at end. ok is false for an unclosed quote.
func split(s string) (words []string, end int, ok bool) {
	var (
		out   []string
		cur   strings.Builder
		in    bool // a word is open
		quote byte
	)
	end = len(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s):
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		case c == '#' && !in:
			end = i
			i = len(s)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out, end, quote == 0
}
