package ingest

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
)

// registered is a parser with its place in detection order.
type registered struct {
	order  int
	parser func() Parser
}

var registry = []registered{{10, func() Parser { return NewVLLMJSON() }}, {20, func() Parser { return NewVLLMConsole() }},
	{30, func() Parser { return NewTrace() }}}

// register adds a format (from its parser file's init): lower orders are
// sniffed first. A parser whose Sniff could also accept another format's
// files must come after it, or refuse them.
func register(order int, parser func() Parser) {
	registry = append(registry, registered{order, parser})
}

// Parsers lists every format benchledger reads, in detection order.
func Parsers() []Parser {
	rs := slices.Clone(registry)
	slices.SortStableFunc(rs, func(a, b registered) int { return a.order - b.order })
	out := make([]Parser, len(rs))
	for i, r := range rs {
		out[i] = r.parser()
	}
	return out
}

// ParserByID returns the parser with this format id (for --format).
func ParserByID(id string) (Parser, bool) {
	for _, p := range Parsers() {
		if p.ID() == id {
			return p, true
		}
	}
	return nil, false
}

// FormatIDs lists the ids --format accepts.
func FormatIDs() []string {
	var ids []string
	for _, p := range Parsers() {
		ids = append(ids, p.ID())
	}
	return ids
}

// Detection is what a file looks like before it is parsed.
type Detection struct {
	Parser Parser // the format to parse it with; nil when none fits
	// NotResult says why the file is not a benchmark result at all (a
	// manifest, a derived table, source code); such files are skipped when
	// walking a folder.
	NotResult string
	// Unsupported names a recognised result of a tool this version cannot
	// read yet; it is a rejection, not a skip.
	Unsupported string
}

// skippedExt are files that sit beside results in a campaign folder and are
// never results themselves.
var skippedExt = map[string]string{
	".yaml": "manifest or spec (YAML)", ".yml": "manifest or spec (YAML)",
	".md": "narrative or notes (Markdown)", ".go": "generator source", ".py": "script source",
	".sh": "script", ".toml": "configuration", ".html": "rendered page", ".png": "image",
	".svg": "image", ".pdf": "document", ".xlsx": "spreadsheet", ".gitignore": "git metadata",
	".db": "database", ".db-wal": "database", ".db-shm": "database",
}

// resultExt are the endings benchmark clients write; other unknown files met
// while walking are skipped with a note instead of rejected.
var resultExt = map[string]bool{".json": true, ".jsonl": true, ".txt": true, ".log": true, ".csv": true, ".out": true}

// Detect decides how to read a file from its name and first bytes.
func Detect(name string, head []byte) Detection {
	base := strings.ToLower(filepath.Base(name))
	ext := filepath.Ext(base)
	if why, ok := skippedExt[ext]; ok {
		// YAML is usually a manifest or a spec, but guidellm reports and
		// GPUStack exports can be YAML too: a parser that recognises the
		// content takes it.
		if ext == ".yaml" || ext == ".yml" {
			for _, p := range Parsers() {
				if p.Sniff(name, head) {
					return Detection{Parser: p}
				}
			}
		}
		return Detection{NotResult: why}
	}
	if base == "makefile" || base == "readme" || base == "license" {
		return Detection{NotResult: "project file"}
	}
	switch {
	case strings.HasSuffix(base, ".failure.json"):
		return Detection{NotResult: "vllm sweep failure record"}
	case strings.HasSuffix(base, ".pytorch.json"):
		return Detection{NotResult: "vllm PyTorch-benchmark-format side file (the main result file holds the same run)"}
	}
	for _, p := range Parsers() {
		if p.Sniff(name, head) {
			return Detection{Parser: p}
		}
	}
	trimmed := bytes.TrimSpace(head)
	if why := derivedTable(trimmed); why != "" {
		return Detection{NotResult: why}
	}
	if tool := otherTool(trimmed); tool != "" {
		return Detection{Unsupported: tool}
	}
	return Detection{}
}

// LooksLikeResultFile reports whether an unrecognised file met during a
// folder walk should still be treated as a broken result (rejected) rather
// than skipped: it has a result file's ending and is empty, binary, or JSON.
func LooksLikeResultFile(name string, head []byte) bool {
	if !resultExt[strings.ToLower(filepath.Ext(name))] {
		return false
	}
	t := bytes.TrimSpace(head)
	if len(t) == 0 {
		return true
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	return false
}

func derivedTable(head []byte) string {
	if bytes.HasPrefix(head, []byte("[")) && bytes.Contains(head, []byte(`"Test name"`)) && bytes.Contains(head, []byte(`"Output Tput (tok/s)"`)) {
		return "vLLM nightly-benchmarks summary table (derived from raw results; ingest the raw result files instead)"
	}
	return ""
}

// otherTool names results of clients that have no parser yet, so the user
// is told what the file is rather than that it is malformed.
func otherTool(head []byte) string {
	// Every client once named here (SGLang, AIPerf, guidellm, llmperf,
	// trtllm-bench, vllm bench throughput) has a parser now; a recognised
	// tool without one gets a case again.
	return ""
}
