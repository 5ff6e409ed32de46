package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileSecrets are provenance values a benchmark archive really holds
// now and then, each with the part that must never leave it.
var hostileSecrets = []struct{ field, value, secret string }{
	{"runtime.server_args", "--api-key=sk-fake-AAA --password hunter2pw --served-model-name qwen", "sk-fake-AAA"},
	{"runtime.server_args", "", "hunter2pw"},
	{"measurement.client_host", "10.1.2.3", "10.1.2.3"},
	{"runtime.image", "registry.corp/team/vllm:1", "registry.corp"},
	{"metadata.contact", "alice.smith@example.com", "alice.smith"},
	{"metadata.webhook", "https://hooks.slack.com/services/T0/B0/SECRETHOOK", "SECRETHOOK"},
	{"metadata.db_url", "postgres://bob:pgpass@db.internal:5432/x?api_key=QKEY123", "pgpass"},
	{"metadata.db_url", "", "QKEY123"},
	{"metadata.db_url", "", "db.internal"},
	{"metadata.auth_header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"},
	{"metadata.cfg", "aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMIK7MDENG"},
	{"metadata.ssh", "ssh carol@gpubox", "carol"},
	{"metadata.model_dir", "/home/dave/models/qwen", "/home/dave"},
	{"metadata.client_cmd", "vllm bench serve --api-key sk-fake-BBB --host 10.9.8.7", "sk-fake-BBB"},
	{"metadata.client_cmd", "", "10.9.8.7"},
	{"metadata.launch", "env password=plainpw9 vllm serve", "plainpw9"},
	{"metadata.curl", "curl -H 'Authorization: Bearer abc.SECRETJWT' http://x", "SECRETJWT"},
	{"metadata.peer", "fd00:1234:5678::42", "fd00:1234:5678::42"},
	{"metadata.cloud", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
}

// TestRedactHostileCorpus (issue 17, hole 4): with --redact, not one byte
// that report, site, trace and export write carries a secret of the
// hostile corpus, nor the node names (hashed in the comparison, and now in
// the caveat sentence too).
func TestRedactHostileCorpus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	// Each value under its own field (the rules by field), and all of them
	// in workload.dataset too, a text every output carries (the report's
	// run table, the trace header, the site, the export): so every case of
	// the text rules reaches all four outputs.
	var sets, all []string
	for _, h := range hostileSecrets {
		if h.value != "" {
			sets = append(sets, "--set", h.field+"="+h.value)
			all = append(all, h.value)
		}
	}
	sets = append(sets, "--set", "workload.dataset=prompts; "+strings.Join(all, " ; "))
	common := []string{"--set", "campaign=hostile", "--set", "hardware.gpu_model=H100", "--set", "hardware.gpu_count=1",
		"--set", "checkpoint.repository=nvidia/Qwen3-30B-A3B-FP4", "--set", "checkpoint.revision=2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3",
		"--set", "checkpoint.precision=bf16", "--set", "runtime.engine=vllm", "--set", "runtime.version=0.11.0",
		"--set", "measurement.client=vllm bench serve", "--set", "measurement.date=2026-08-18",
		"--set", "workload.input_len=128", "--set", "workload.output_len=128", "--set", "workload.concurrency=64"}
	secrets := []string{"gpunode-alpha", "gpunode-beta"}
	for i, role := range []string{"baseline", "tuned"} {
		f := filepath.Join(dir, role+".json")
		// A small vLLM result whose records make a valid trace.
		writeFile(t, f, fmt.Sprintf(`{"date": "20260818-101500", "backend": "vllm", "model_id": "nvidia/Qwen3-30B-A3B-FP4", "tokenizer_id": "nvidia/Qwen3-30B-A3B-FP4",
			"num_prompts": 3, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 64, "duration": %d, "completed": 3, "failed": 0,
			"total_input_tokens": 300, "total_output_tokens": 12, "input_lens": [100, 100, 100], "output_lens": [4, 4, 4],
			"ttfts": [0.1, 0.125, 0.2], "itls": [[0.01, 0.02, 0.03], [0.015, 0.015, 0.02], [0.05, 0.05, 0.05]],
			"start_times": [1000.0, 1000.5, 1001.5], "latencies": [0.16, 0.175, 0.35], "errors": ["", "", ""]}`, 2+i))
		args := append([]string{"ingest", "--db", db, "--set", "role=" + role, "--set", "hardware.node=" + secrets[i]}, common...)
		args = append(args, sets...)
		if r := bl(t, append(args, f)...); r.code != 0 {
			t.Fatal(r)
		}
	}
	for _, h := range hostileSecrets {
		secrets = append(secrets, h.secret)
	}
	spec := filepath.Join(dir, "case", "casestudy.yaml")
	writeFile(t, spec, `id: hostile
campaign: hostile
runs:
  base: {role: baseline}
  tuned: {role: tuned}
comparisons:
  tuning: {baseline: base, candidate: tuned, metric: output_throughput, intended: [runtime.server_args]}
headline: [tuning]
languages: [en]
title: {en: Hostile}
`)
	// Each output is written twice: with --redact, and without it, so a
	// case is seen to reach every output and then to be gone from it.
	id := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)[0]
	write := func(out string, redact bool) {
		t.Helper()
		for _, args := range [][]string{
			{"report", spec, "--db", db, "--draft", "--format", "html,md", "--out", filepath.Join(out, "report")},
			{"site", spec, "--db", db, "--lang", "en", "--out", filepath.Join(out, "site")},
			{"trace", "--db", db, "-o", filepath.Join(out, "trace.jsonl"), id},
			{"export", spec, "--db", db, "--csv", filepath.Join(out, "csv")},
			{"export", spec, "--db", db, "--xlsx", filepath.Join(out, "x.xlsx")},
		} {
			if redact {
				args = append(args, "--redact")
			}
			r := bl(t, args...)
			if r.code != 0 && r.code != 3 {
				t.Fatalf("%s: %s", args[0], r)
			}
			for _, s := range secrets {
				if redact && strings.Contains(r.stdout, s) {
					t.Errorf("%s --redact prints %q on stdout", args[0], s)
				}
			}
		}
	}
	out, plain := filepath.Join(dir, "out"), filepath.Join(dir, "plain")
	write(out, true)
	write(plain, false)
	for output, found := range secretsIn(t, out, secrets) {
		for s, where := range found {
			t.Errorf("%s --redact carries %q: %s", output, s, where)
		}
	}
	// Without --redact every case reaches every output (the xlsx and the
	// CSV files each as a whole): the test above could fail. A trace's
	// header has no node field, so the node names are not in it.
	byOutput := secretsIn(t, plain, secrets)
	for _, output := range []string{"report", "site", "trace.jsonl", "csv", "x.xlsx"} {
		for _, s := range secrets {
			if _, ok := byOutput[output][s]; !ok && !(output == "trace.jsonl" && strings.HasPrefix(s, "gpunode-")) {
				t.Errorf("without --redact, %s lacks %q: the case does not reach it", output, s)
			}
		}
	}
}

// secretsIn reads every file under root (an xlsx part by part: it is a
// zip) and returns, per output (the first path element under root), each
// secret found with where it was.
func secretsIn(t *testing.T, root string, secrets []string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	look := func(rel string, data []byte) {
		output, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		for _, s := range secrets {
			if i := bytes.Index(data, []byte(s)); i >= 0 {
				if out[output] == nil {
					out[output] = map[string]string{}
				}
				out[output][s] = fmt.Sprintf("%s: …%s…", rel, data[max(0, i-60):min(len(data), i+len(s)+20)])
			}
		}
	}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, p)
		if strings.HasSuffix(p, ".xlsx") {
			z, err := zip.OpenReader(p)
			if err != nil {
				return err
			}
			defer z.Close()
			for _, f := range z.File {
				rc, err := f.Open()
				if err != nil {
					return err
				}
				data, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return err
				}
				look(rel+"/"+f.Name, data)
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		look(rel, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Errorf("only %d files written under %s", files, root)
	}
	return out
}
