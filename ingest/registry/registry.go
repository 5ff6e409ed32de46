// Package registry lists every input format in detection order and decides
// how to read a file: the one place a format is added (a row in formats)
// and the one place the order that keeps look-alike formats apart is set.
package registry

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/aiperf"
	"github.com/benchledger/benchledger/ingest/format/guidellm"
	"github.com/benchledger/benchledger/ingest/format/inferenceperf"
	"github.com/benchledger/benchledger/ingest/format/llmperf"
	"github.com/benchledger/benchledger/ingest/format/lmbench"
	"github.com/benchledger/benchledger/ingest/format/sglang"
	"github.com/benchledger/benchledger/ingest/format/trtllm"
	"github.com/benchledger/benchledger/ingest/format/vllmconsole"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/ingest/format/vllmthroughput"
	"github.com/benchledger/benchledger/ingest/trace"
)

// formats are the parsers in detection order: a file goes to the first
// whose Sniff accepts it. A parser whose Sniff could also accept another
// format's files must come after it, or refuse them.
var formats = []func() format.Parser{
	vllmjson.New,            // vllm-serve-json: before SGLang, whose results share its keys
	vllmconsole.NewGPUStack, // gpustack-console: its blocks borrow vLLM's header
	vllmconsole.NewSGLang,   // sglang-bench-serving-console: likewise
	vllmconsole.New,         // vllm-serve-console: any page of result blocks
	trace.NewParser,         // benchledger-trace
	sglang.New,              // sglang-bench-serving
	aiperf.NewJSON,          // aiperf-json
	aiperf.NewCSV,           // aiperf-csv
	aiperf.NewRecords,       // aiperf-records
	aiperf.NewGenAIPerfJSON,
	aiperf.NewGenAIPerfCSV,
	aiperf.NewPerfAnalyzerJSON,
	guidellm.New,
	guidellm.NewGPUStack, // after guidellm: its records embed guidellm reports
	llmperf.NewSummary,
	llmperf.NewResponses,
	trtllm.NewJSON,
	inferenceperf.New, // inference-perf-json
	lmbench.New,       // lmbench-csv
	trtllm.NewConsole,
	vllmthroughput.New, // last: its few keys are the loosest test
}

// Parsers lists every format benchledger reads, in detection order.
func Parsers() []format.Parser {
	out := make([]format.Parser, len(formats))
	for i, f := range formats {
		out[i] = f()
	}
	return out
}

// ByID returns the parser with this format id (for --format).
func ByID(id string) (format.Parser, bool) {
	for _, p := range Parsers() {
		if p.ID() == id {
			return p, true
		}
	}
	return nil, false
}

// IDs lists the ids --format accepts.
func IDs() []string {
	var ids []string
	for _, p := range Parsers() {
		ids = append(ids, p.ID())
	}
	return ids
}

// skippedExt are files that sit beside results in a campaign folder and are
// never results themselves.
var skippedExt = map[string]string{
	".yaml": "manifest or spec (YAML)", ".yml": "manifest or spec (YAML)",
	".md": "narrative or notes (Markdown; name it to read its result blocks)", ".go": "generator source", ".py": "script source",
	".sh": "script", ".toml": "configuration", ".html": "rendered page", ".png": "image",
	".svg": "image", ".pdf": "document", ".xlsx": "spreadsheet", ".gitignore": "git metadata",
	".db": "database", ".db-wal": "database", ".db-shm": "database",
}

// resultExt are the endings benchmark clients write; other unknown files met
// while walking are skipped with a note instead of rejected.
var resultExt = map[string]bool{".json": true, ".jsonl": true, ".txt": true, ".log": true, ".csv": true, ".out": true}

// Detect decides how to read a file from its name and first bytes.
func Detect(name string, head []byte) format.Detection {
	base := strings.ToLower(filepath.Base(name))
	ext := filepath.Ext(base)
	if why, ok := skippedExt[ext]; ok {
		// YAML is usually a manifest or a spec, but guidellm reports and
		// GPUStack exports can be YAML too: a parser that recognises the
		// content takes it.
		if ext == ".yaml" || ext == ".yml" {
			for _, p := range Parsers() {
				if p.Sniff(name, head) {
					return format.Detection{Parser: p}
				}
			}
		}
		// A Markdown page pasting console result blocks (a published
		// write-up) is read when named, skipped by a walk.
		if ext == ".md" {
			for _, p := range Parsers() {
				if p.Sniff(name, head) {
					return format.Detection{Parser: p, NotResult: why, NamedOnly: true}
				}
			}
		}
		return format.Detection{NotResult: why}
	}
	if base == "makefile" || base == "readme" || base == "license" {
		return format.Detection{NotResult: "project file"}
	}
	switch {
	case strings.HasSuffix(base, ".failure.json"):
		return format.Detection{NotResult: "vllm sweep failure record"}
	case strings.HasSuffix(base, ".pytorch.json"):
		return format.Detection{NotResult: "vllm PyTorch-benchmark-format side file (the main result file holds the same run)"}
	}
	for _, p := range Parsers() {
		if p.Sniff(name, head) {
			return format.Detection{Parser: p}
		}
	}
	trimmed := bytes.TrimSpace(head)
	if why := derivedTable(trimmed); why != "" {
		return format.Detection{NotResult: why}
	}
	if tool := otherTool(trimmed); tool != "" {
		return format.Detection{Unsupported: tool}
	}
	return format.Detection{}
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
