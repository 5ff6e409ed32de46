package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIngestNonRegularFiles (issue 17, hole 7): a FIFO named on the command
// line is refused with a reason (it used to hang the read), one met in a
// folder is skipped with a note; a folder named through a symbolic link
// without a trailing slash is walked, and a link met inside is reported.
func TestIngestNonRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	results := filepath.Join(dir, "results")
	for _, d := range []string{results, filepath.Join(dir, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeVLLM(t, filepath.Join(results, "r1.json"), vllmSpec{n: 5, seed: 1})
	fifo := filepath.Join(results, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := bl(t, "ingest", "--db", db, fifo)
	if r.code != 3 || !strings.Contains(r.stderr, "not a regular file (a named pipe)") {
		t.Errorf("a named FIFO: exit %d, want 3 with a reason:\n%s", r.code, r.stderr)
	}

	elsewhere := filepath.Join(dir, "elsewhere")
	writeVLLM(t, filepath.Join(elsewhere, "r2.json"), vllmSpec{n: 5, seed: 2})
	if err := os.Symlink(elsewhere, filepath.Join(results, "more")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "results-link")
	if err := os.Symlink(results, link); err != nil {
		t.Fatal(err)
	}
	r = bl(t, "ingest", "--db", db, link) // no trailing slash
	if r.code != 0 {
		t.Fatalf("a folder named through a link: %s", r)
	}
	if n := strings.Count(r.stdout, "  new  "); n != 1 || !strings.Contains(r.stdout, "r1.json") {
		t.Errorf("a folder named through a link: want its one result ingested, got\n%s", r.stdout)
	}
	for _, want := range []string{"pipe.json: not a regular file (a named pipe)", "more: a symbolic link (to " + elsewhere + "), not followed"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestIngestControlCharactersEscaped (issue 17, hole 7): a newline in a
// file name cannot forge an ingest output line, nor an escape sequence
// reach the terminal; --json keeps the name's bytes.
func TestIngestControlCharactersEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := "x\nffffffffffff  new  vllm-bench-json  forged.json\x1b[2J.json"
	writeVLLM(t, filepath.Join(dir, name), vllmSpec{n: 5, seed: 4})
	db := filepath.Join(dir, "a.db")
	r := bl(t, "ingest", "--db", db, filepath.Join(dir, name))
	if r.code != 0 {
		t.Fatal(r)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 1 || strings.HasPrefix(lines[0], "ffffffffffff") || !strings.Contains(lines[0], `x\nffffffffffff`) || !strings.Contains(lines[0], `\x1b[2J`) {
		t.Errorf("stdout %q: want one line with the name's control characters escaped", r.stdout)
	}
	if strings.ContainsAny(r.stderr, "\x1b") {
		t.Errorf("stderr carries an escape sequence: %q", r.stderr)
	}
	j := bl(t, "ingest", "--db", filepath.Join(dir, "b.db"), "--json", filepath.Join(dir, name))
	if !strings.Contains(j.stdout, `x\nffffffffffff`) || !strings.Contains(j.stdout, `\u001b[2J`) {
		t.Errorf("--json does not keep the name: %s", j.stdout)
	}
}

// TestReproduceCommandsQuoted (issue 17, hole 7): the reproduce section's
// commands quote every provenance value, so pasting one runs no `whoami`.
func TestReproduceCommandsQuoted(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	db := copyArchive(t, d.db)
	tamper(t, db, "UPDATE provenance SET value = '--max-num-seqs 256 --served-model-name `whoami` $(id)' WHERE field = 'runtime.server_args'",
		"UPDATE provenance SET value = 'img;reboot' WHERE field = 'runtime.image'")
	out := t.TempDir()
	if r := bl(t, "report", d.spec(), "--db", db, "--draft", "--no-audit", "--lang", "en", "--format", "md", "--out", out); r.code != 0 {
		t.Fatal(r)
	}
	md := string(readFileT(t, filepath.Join(out, "qwen3-batch.en.md")))
	if !strings.Contains(md, "--served-model-name '`whoami`' '$(id)'") || !strings.Contains(md, "'img;reboot'") {
		t.Errorf("the reproduce commands are not quoted:\n%s", grepLines(md, "docker run"))
	}
	// The commands shown for copying; the recorded value itself is shown
	// as text elsewhere.
	for _, l := range strings.Split(md, "\n") {
		if cmd := strings.Contains(l, "docker run") || strings.Contains(l, "trtllm-serve ") || strings.Contains(l, "vllm serve"); cmd &&
			(strings.Contains(l, " `whoami` ") || strings.Contains(l, " $(id)")) {
			t.Errorf("an unquoted substitution is left in a command: %s", l)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestOutputModes (issue 17, hole 7): the xlsx workbook and trace -o are
// created with the mode os.Create gives under the same umask (0644 under
// 022), not 0600.
func TestOutputModes(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	refMode := mustStat(t, ref).Mode().Perm()
	xlsx := filepath.Join(dir, "out.xlsx")
	if r := bl(t, "export", d.spec(), "--db", d.db, "--no-audit", "--xlsx", xlsx); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.Fields(bl(t, "runs", "--db", d.db, "-q").stdout)[0]
	trace := filepath.Join(dir, "t.jsonl")
	if r := bl(t, "trace", "--db", d.db, "-o", trace, id); r.code != 0 {
		t.Fatal(r)
	}
	for _, p := range []string{xlsx, trace} {
		if m := mustStat(t, p).Mode().Perm(); m != refMode {
			t.Errorf("%s: mode %v, os.Create gives %v", filepath.Base(p), m, refMode)
		}
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
