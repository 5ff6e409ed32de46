package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// result is what one in-process command run printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

// bl runs the command in-process, as main would, with buffers for output.
func bl(t *testing.T, args ...string) result {
	t.Helper()
	return runCommand(args...)
}

// runCommand is bl for a fixture made outside a test. The environment is
// empty: no $BENCHLEDGER_DB, whatever the shell has.
func runCommand(args ...string) result {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }})
	return result{code, out.String(), errb.String()}
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// commandProcess is the real command as a separate process, for tests that need
// one (concurrent writers, a kill mid-file): this test binary, which acts
// as the command when asCommandEnv is set (TestMain).
func commandProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), asCommandEnv+"=1")
	return cmd
}

// vllmSpec describes a small vllm bench serve --save-detailed file written
// by the tests themselves (the core behaviour must not depend on ../shared).
type vllmSpec struct {
	n        int     // requests
	gaps     int     // chunk gaps per successful request
	failEach int     // every failEach-th request fails (0: none)
	model    string  // model_id
	seed     float64 // varies the timings so files differ
}

// vllmFiles writes count vLLM files named prefix0.json, prefix1.json, ...
// in dir, the i-th as spec(i) describes, and returns their paths.
func vllmFiles(t testing.TB, dir, prefix string, count int, spec func(i int) vllmSpec) []string {
	t.Helper()
	var paths []string
	for i := range count {
		f := filepath.Join(dir, fmt.Sprintf("%s%d.json", prefix, i))
		writeVLLM(t, f, spec(i))
		paths = append(paths, f)
	}
	return paths
}

// writeVLLM writes the file in the current serve.py layout.
func writeVLLM(t testing.TB, path string, s vllmSpec) {
	t.Helper()
	if s.model == "" {
		s.model = "nvidia/Qwen3-30B-A3B-FP4"
	}
	if s.gaps == 0 {
		s.gaps = 4
	}
	var b strings.Builder
	arr := func(key string, f func(i int) string) {
		fmt.Fprintf(&b, ", %q: [", key)
		for i := 0; i < s.n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f(i))
		}
		b.WriteString("]")
	}
	failed := func(i int) bool { return s.failEach > 0 && i%s.failEach == 0 }
	completed, nfail, outTok := 0, 0, 0
	for i := 0; i < s.n; i++ {
		if failed(i) {
			nfail++
		} else {
			completed++
			outTok += s.gaps + 1
		}
	}
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	fmt.Fprintf(&b, `{"date": "20260818-101500", "endpoint_type": "openai", "backend": "openai", "label": null, "model_id": %q, "tokenizer_id": %q, "num_prompts": %d, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 64, "duration": %s, "completed": %d, "failed": %d, "total_input_tokens": %d, "total_output_tokens": %d`,
		s.model, s.model, s.n, ff(float64(s.n)*0.01+1), completed, nfail, completed*64, outTok)
	arr("input_lens", func(i int) string { return "64" })
	arr("output_lens", func(i int) string {
		if failed(i) {
			return "0"
		}
		return strconv.Itoa(s.gaps + 1)
	})
	arr("ttfts", func(i int) string {
		if failed(i) {
			return "0.0"
		}
		return ff(0.05 + float64(i%7)*0.001 + s.seed)
	})
	arr("itls", func(i int) string {
		if failed(i) {
			return "[]"
		}
		g := make([]string, s.gaps)
		for k := range g {
			g[k] = ff(0.004 + float64((i+k)%5)*0.0001)
		}
		return "[" + strings.Join(g, ", ") + "]"
	})
	arr("start_times", func(i int) string { return ff(1000 + float64(i)*0.01) })
	arr("latencies", func(i int) string {
		if failed(i) {
			return "0.0"
		}
		return ff(0.05 + float64(i%7)*0.001 + s.seed + float64(s.gaps)*0.0042)
	})
	arr("errors", func(i int) string {
		if failed(i) {
			return `"Internal Server Error"`
		}
		return `""`
	})
	b.WriteString(`, "mean_ttft_ms": 53.0, "median_ttft_ms": 53.0, "p99_ttft_ms": 56.0}`)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// manifest is a complete campaign.yaml, so runs ingested under it are publishable.
const manifest = `campaign: testcamp
defaults:
  hardware: {gpu_model: NVIDIA H100 80GB HBM3, gpu_count: 1}
  runtime: {engine: vllm, version: 0.25.1}
  checkpoint: {repository: nvidia/Qwen3-30B-A3B-FP4, revision: 2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3, precision: nvfp4}
  workload: {input_len: 64, output_len: 5, request_count: 40, concurrency: 64}
  measurement: {client: vllm bench serve, date: 2026-08-18}
runs:
  - files: "base*.json"
    role: baseline
`

// checkGolden compares a command's output with testdata/NAME, benchstat's
// way: `go test -run TEST -update` rewrites the file, to be reviewed in the
// diff before it is committed.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '^%s$' -update writes it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("output differs from %s at line %d (go test -run '^%s$' -update rewrites it; review the diff):\ngot:  %q\nwant: %q\n--- got\n%s", path, i+1, t.Name(), gl, wl, got)
			return
		}
	}
}

var (
	rfc3339RE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	byUserRE  = regexp.MustCompile(` by \S+ with benchledger \S+`)
)

// stable masks what differs between two runs of a test in a command's
// output: the given folders (by name), the times of ingests and who made
// them with which build.
func stable(out string, dirs map[string]string) string {
	for name, dir := range dirs {
		out = strings.ReplaceAll(out, dir, name)
	}
	out = rfc3339RE.ReplaceAllString(out, "TIME")
	return byUserRE.ReplaceAllString(out, " by USER with benchledger VERSION")
}
