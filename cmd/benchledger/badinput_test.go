package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputBatch ingests each kind of bad file together with a good one:
// each bad file gets one line on stderr naming it and the place, nothing of
// it is archived, the good file still is, and the exit status is 3.
func TestBadInputBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	writeVLLM(t, good, vllmSpec{n: 20})
	valid, _ := os.ReadFile(good)

	cases := []struct {
		name    string
		content []byte
		want    []string // substrings of the file's stderr line (besides its name)
	}{
		{"truncated.json", valid[:len(valid)*2/3], []string{"byte"}},
		{"malformed.json", []byte(`{"date": "20260818-101500", "duration": 1.0, "completed": 2,, "model_id": "x"}`), []string{"byte"}},
		{"empty.json", nil, []string{"empty"}},
		{"binary.json", []byte("\x00\x01\x02\xff\xfe binary \x00"), []string{"binary"}},
		{"othertool.json", []byte(`{"locust_version": "2.15.1", "stats": [{"name": "/v1/completions", "num_requests": 3}]}`), []string{"unknown kind"}},
		{"noreqs.json", []byte(`{"date": "20260818-101500", "backend": "openai", "model_id": "m", "num_prompts": 0, "duration": 0.1, "completed": 0, "failed": 0, "total_input_tokens": 0, "total_output_tokens": 0, "request_throughput": 0.0, "output_throughput": 0.0}`), []string{"no requests"}},
		{"lengths.json", []byte(`{"date": "20260818-101500", "backend": "openai", "model_id": "m", "num_prompts": 2, "duration": 1.0, "completed": 2, "total_input_tokens": 2, "total_output_tokens": 4, "request_throughput": 2.0, "output_throughput": 4.0, "input_lens": [1, 1], "output_lens": [2, 2], "ttfts": [0.1, 0.1, 0.1], "itls": [[0.1], [0.1]], "errors": ["", ""]}`), []string{"ttfts", "3"}},
		{"negative.json", []byte(`{"date": "20260818-101500", "backend": "openai", "model_id": "m", "num_prompts": 2, "duration": 1.0, "completed": 2, "total_input_tokens": 2, "total_output_tokens": 4, "request_throughput": 2.0, "output_throughput": 4.0, "input_lens": [1, 1], "output_lens": [2, 2], "ttfts": [0.1, -0.5], "itls": [[0.1], [0.1]], "errors": ["", ""]}`), []string{"ttfts", "1"}},
		{"nan.json", []byte(`{"date": "20260818-101500", "backend": "openai", "model_id": "m", "num_prompts": 2, "duration": 1.0, "completed": 2, "total_input_tokens": 2, "total_output_tokens": 4, "request_throughput": 2.0, "output_throughput": 4.0, "input_lens": [1, 1], "output_lens": [2, 2], "ttfts": [0.1, 0.1], "itls": [[0.1], [0.1]], "latencies": [0.2, NaN], "errors": ["", ""]}`), []string{"latencies", "1"}},
	}
	args := []string{"ingest", "--db", filepath.Join(dir, "a.db")}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.content, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	args = append(args, good)
	r := bl(t, args...)
	if r.code != 3 {
		t.Fatalf("want exit 3 for a batch with rejections: %v", r)
	}
	if m := idLine.FindAllStringSubmatch(r.stdout, -1); len(m) != 1 || !strings.HasSuffix(m[0][4], "good.json") {
		t.Fatalf("the good file must still be ingested, alone: %v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		var found []string
		for _, l := range lines {
			if strings.HasPrefix(l, "rejected: "+p+":") {
				found = append(found, l)
			}
		}
		if len(found) != 1 {
			t.Errorf("%s: want exactly one rejection line, got %q\n%s", c.name, found, r.stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(found[0], w) {
				t.Errorf("%s: rejection %q should mention %q", c.name, found[0], w)
			}
		}
	}
	if c := counts(t, filepath.Join(dir, "a.db")); c["runs"] != 1 || c["blobs"] != 1 {
		t.Errorf("only the good file may reach the archive: %v", c)
	}
}

func TestAllFailedRunIsArchivedNotPublishable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := filepath.Join(dir, "allfail.json")
	writeVLLM(t, f, vllmSpec{n: 10, failEach: 1})
	db := filepath.Join(dir, "a.db")
	r := bl(t, "ingest", "--db", db, f)
	if r.code != 0 || !strings.Contains(r.stdout, "new") {
		t.Fatalf("an all-failed run is evidence and must be archived: %v", r)
	}
	id := idLine.FindStringSubmatch(r.stdout)[1]
	r = bl(t, "show", "--db", db, id)
	if !strings.Contains(r.stdout, "publishable  no") || !strings.Contains(r.stdout, "every request failed") || !strings.Contains(r.stdout, "failed 10") {
		t.Fatalf("show must say it is unpublishable because every request failed: %v", r)
	}
}

func TestNamedNonResultIsRejectedWalkedIsSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	sub := filepath.Join(dir, "c")
	writeFile(t, filepath.Join(sub, "README.txt"), "just some notes\n")
	writeFile(t, filepath.Join(sub, "spec.yaml"), "title: x\n")
	writeVLLM(t, filepath.Join(sub, "r.json"), vllmSpec{n: 5})
	r := bl(t, "ingest", "--db", db, sub)
	if r.code != 0 || strings.Count(r.stderr, "skipped: ") != 2 {
		t.Fatalf("walking: non-results are skipped with a note, exit 0: %v", r)
	}
	r = bl(t, "ingest", "--db", db, filepath.Join(sub, "README.txt"))
	if r.code != 3 || !strings.Contains(r.stderr, "rejected: ") {
		t.Fatalf("a named non-result is a rejection: %v", r)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"ingest"}, {"nosuchcommand"}, {"show"}, {"runs", "--since", "yesterday"}, {"ingest", "--format", "nope", "x"}, {"ingest", "--set", "nofield=1", "x"}} {
		if r := bl(t, args...); r.code != 2 {
			t.Errorf("%v: want usage exit 2, got %v", args, r)
		}
	}
	if r := bl(t, "--help"); r.code != 0 || !strings.Contains(r.stdout, "130") {
		t.Errorf("--help should document the exit codes: %v", r)
	}
}
