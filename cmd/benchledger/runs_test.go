package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/textwidth"
)

// runWithEnv is runCommand with some environment variables set.
func runWithEnv(vars map[string]string, args ...string) result {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] }})
	return result{code, out.String(), errb.String()}
}

// TestRunsTable: the demo's runs in the order a reader expects (baseline,
// tuned, sweep points by load, each node run's replicas by k),
// with the columns that tell sweep points apart; cut to $COLUMNS with a
// note, in full with --wide or when not on a terminal.
func TestRunsTable(t *testing.T) {
	t.Parallel()
	db := sharedDemo(t).db
	full := bl(t, "runs", "--db", db)
	if full.code != 0 {
		t.Fatal(full)
	}
	lines := strings.Split(strings.TrimSpace(full.stdout), "\n")
	header := strings.Fields(lines[0])
	if want := "ID CAMPAIGN ROLE LOAD OUT TOK/S MODEL ENGINE GPU DATE REQUESTS PUBLISHABLE FILE"; strings.Join(header, " ") != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	var roles, sweepLoads []string
	lastK := map[string]int{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		role := f[2]
		if len(roles) == 0 || roles[len(roles)-1] != role {
			roles = append(roles, role)
		}
		if role == "sweep-point" {
			sweepLoads = append(sweepLoads, f[4])
		}
		if role == "replica" {
			file := f[len(f)-1]
			group := file[:strings.LastIndexByte(file, '/')]
			k, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(file[len(group)+1:], "replica-"), ".jsonl"))
			if k <= lastK[group] {
				t.Errorf("replica %d of %s listed after replica %d", k, group, lastK[group])
			}
			lastK[group] = k
		}
		if tput := f[5]; tput == "-" {
			t.Errorf("run %s has no output throughput: %s", f[0], l)
		}
	}
	if got, want := strings.Join(roles, " "), "baseline tuned sweep-point replica repeat reference"; got != want {
		t.Errorf("roles in the order %q, want %q", got, want)
	}
	if got, want := strings.Join(sweepLoads, " "), "1024 2048 3072 4096 6144"; got != want {
		t.Errorf("sweep points by load %q, want %q", got, want)
	}

	for _, width := range []int{100, 140} {
		r := runWithEnv(map[string]string{"COLUMNS": strconv.Itoa(width)}, "runs", "--db", db)
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if textwidth.Of(l) > width {
				t.Errorf("COLUMNS=%d: a line of %d columns: %q", width, textwidth.Of(l), l)
			}
		}
		if !strings.Contains(r.stderr, "FILE") || !strings.Contains(r.stderr, "--wide shows every column") {
			t.Errorf("COLUMNS=%d: no note on what was left out: %q", width, r.stderr)
		}
		if len(strings.Split(strings.TrimSpace(r.stdout), "\n")) != len(lines) {
			t.Errorf("COLUMNS=%d: lines lost", width)
		}
		if wide := runWithEnv(map[string]string{"COLUMNS": strconv.Itoa(width)}, "runs", "--db", db, "--wide"); wide.stdout != full.stdout || wide.stderr != "" {
			t.Errorf("COLUMNS=%d --wide differs from the uncut table", width)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		n       int
		keepEnd bool
		want    string
	}{
		{"results/qwen3-batch/tuned.json", 12, true, "…/tuned.json"},
		{"NVIDIA RTX PRO 6000", 10, false, "NVIDIA RT…"},
		{"short", 10, false, "short"},
		{"結果ファイル.json", 10, true, "…イル.json"},
	} {
		got := cut(tc.in, tc.n, tc.keepEnd)
		if got != tc.want || textwidth.Of(got) > tc.n {
			t.Errorf("cut(%q, %d) = %q (%d columns), want %q", tc.in, tc.n, got, textwidth.Of(got), tc.want)
		}
	}
}
