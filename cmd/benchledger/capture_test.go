package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// blEnv is bl with an environment (PATH for stub tools).
func blEnv(t *testing.T, vars map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] }})
	return result{code, out.String(), errb.String()}
}

// stubNvidiaSMI is a PATH folder whose nvidia-smi prints a real recorded
// nvidia-smi -q -x output (capture/testdata/nvidia-smi).
func stubNvidiaSMI(t *testing.T, fixture string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "..", "capture", "testdata", "nvidia-smi", fixture))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte("#!/bin/sh\ncat '"+abs+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCaptureIngestShow: capture -o writes a manifest; ingest --meta
// archives it with the run; show prints each captured value with how it
// was obtained, and what was not established.
func TestCaptureIngestShow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	meta, db := filepath.Join(dir, "capture.yaml"), filepath.Join(dir, "a.db")
	vars := map[string]string{"PATH": stubNvidiaSMI(t, "telegraf-rtx-4000-sff-ada-v13.xml")}
	if r := blEnv(t, vars, "capture", "-o", meta); r.code != 0 || !strings.Contains(r.stderr, "facts captured") {
		t.Fatal(r)
	}
	res := filepath.Join("..", "..", "ingest", "format", "vllmjson", "testdata", "inf_rate_string.json")
	r := bl(t, "ingest", "--db", db, "--meta", meta, "--json", res)
	if r.code != 0 {
		t.Fatal(r)
	}
	var ing struct{ Outcomes []struct{ ID string } }
	if err := json.Unmarshal([]byte(r.stdout), &ing); err != nil || len(ing.Outcomes) != 1 {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	outs := ing.Outcomes
	show := bl(t, "show", "--db", db, outs[0].ID)
	// Each wanted line: its words in order, whatever the column widths.
	for _, want := range [][]string{
		{"hardware.gpu_model", "manifest", "NVIDIA RTX 4000 SFF Ada Generation", "[captured]"},
		{"Captured on the benchmark host at ", meta},
		{"hardware.gpu_count", "1", "nvidia-smi -q -x: the host has one GPU"},
		{"metadata.gpu.power_limit", "70.00 W", "nvidia-smi -q -x: the current power limit"},
		{"runtime.engine", "(not established)", "no --server URL was given"},
	} {
		if !hasLine(show.stdout, want...) {
			t.Errorf("show lacks a line with %q:\n%s", want, show.stdout)
		}
	}
	var doc struct {
		Captures []struct {
			Facts []struct{ Field, Value, How string }
		}
	}
	js := bl(t, "show", "--db", db, "--json", outs[0].ID)
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil || len(doc.Captures) != 1 || len(doc.Captures[0].Facts) == 0 || doc.Captures[0].Facts[0].How == "" {
		t.Fatalf("show --json captures: %v %+v", err, doc)
	}
	// The audit recomputes the captured provenance from the archived blob.
	if a := bl(t, "audit", "--db", db); !strings.Contains(a.stdout, "Audit: 0 failed") {
		t.Errorf("audit: %s", a.stdout)
	}
}

// hasLine reports whether some line of text holds parts, in order.
func hasLine(text string, parts ...string) bool {
	for _, line := range strings.Split(text, "\n") {
		rest, ok := line, true
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

// TestShowCaptureHostileText: what a capture document says (written by
// hand, or taken from a server's answer) reaches the terminal with its
// control characters replaced: it cannot clear the screen or forge a line.
func TestShowCaptureHostileText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	meta, db := filepath.Join(dir, "capture.yaml"), filepath.Join(dir, "a.db")
	doc := "capture:\n  taken_at: \"2026-12-02T06:00:00Z\"\n  clock: c\n  tool: \"t\\e[2J\"\n  facts:\n" +
		"    - {field: runtime.engine, value: vllm, how: \"GET /v1/models\\nrun 000000000000  new  forged\"}\n" +
		"  unknown:\n    - {field: runtime.version, why: \"\\e]0;title\\a\"}\n"
	if err := os.WriteFile(meta, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join("..", "..", "ingest", "format", "vllmjson", "testdata", "inf_rate_string.json")
	if r := bl(t, "ingest", "--db", db, "--meta", meta, res); r.code != 0 && r.code != exitProblems {
		t.Fatal(r)
	}
	id := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)[0]
	show := bl(t, "show", "--db", db, id).stdout
	if strings.ContainsAny(show, "\x1b\a") || strings.Contains(show, "\nrun 000000000000") {
		t.Errorf("control characters reached the terminal:\n%q", show)
	}
	if !hasLine(show, "runtime.engine", "vllm", "GET /v1/models?run 000000000000  new  forged") {
		t.Errorf("show:\n%s", show)
	}
}

// TestCaptureServerToken: the API key from --server-token-file (else
// $BENCHLEDGER_SERVER_TOKEN) goes to the --server as a bearer token and
// into nothing capture writes; an unreadable or empty key file is a usage
// error.
func TestCaptureServerToken(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	keyFile, out := filepath.Join(dir, "key"), filepath.Join(dir, "capture.yaml")
	if err := os.WriteFile(keyFile, []byte("file-key-81c2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"PATH": dir, "BENCHLEDGER_SERVER_TOKEN": "env-key-77aa"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-token-file", keyFile}, "Bearer file-key-81c2"},
		{nil, "Bearer env-key-77aa"},
	} {
		seen = nil
		args := append([]string{"capture", "--server", srv.URL, "-o", out}, tt.args...)
		if r := blEnv(t, vars, args...); r.code != 0 {
			t.Fatal(r)
		}
		if len(seen) == 0 || slices.ContainsFunc(seen, func(h string) bool { return h != tt.want }) {
			t.Errorf("%v: server saw Authorization %q, want %q on every request", tt.args, seen, tt.want)
		}
		doc, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(doc, []byte("key-")) {
			t.Errorf("the key is in the capture document:\n%s", doc)
		}
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, f := range []string{empty, filepath.Join(dir, "missing")} {
		if r := blEnv(t, vars, "capture", "--server", srv.URL, "--server-token-file", f); r.code != 2 || !strings.Contains(r.stderr, "--server-token-file") {
			t.Errorf("%s: %+v", f, r)
		}
	}
}
