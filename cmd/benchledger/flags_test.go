package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAsOfFlag: --as-of is one flag type with one parser for every command
// that takes it; a date that is not one is a usage error before any work,
// with the same message everywhere.
func TestAsOfFlag(t *testing.T) {
	t.Parallel()
	var d asOfDate
	if err := d.Set("2026-11-29"); err != nil || d.check() != nil || !d.Day().Equal(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)) || d.String() != "2026-11-29" {
		t.Errorf("a date: %v %v %v", d.Day(), d.check(), d.String())
	}
	var unset asOfDate
	if !unset.Day().IsZero() || unset.check() != nil {
		t.Errorf("unset: day %v, check %v", unset.Day(), unset.check())
	}
	for _, args := range [][]string{{"audit"}, {"figures"}, {"report", "--out", "x"}, {"export", "--xlsx", "x.xlsx"}, {"site", "--out", "x"}} {
		r := bl(t, append(args, "--db", "nowhere.db", "--as-of", "2026-13-01", "spec.yaml")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, `benchledger `+args[0]+`: --as-of "2026-13-01" is not a date (YYYY-MM-DD)`) {
			t.Errorf("%s --as-of 2026-13-01: want exit 2 and the date message, got %v", args[0], r)
		}
	}
}

// TestSetBool: a boolean flag that knows whether it was given.
func TestSetBool(t *testing.T) {
	t.Parallel()
	var b setBool
	if b.or(true) != true || b.or(false) != false {
		t.Error("not given: the default")
	}
	if err := b.Set("false"); err != nil || b.or(true) != false {
		t.Error("--requests=false overrides a default of true")
	}
	if err := b.Set("maybe"); err == nil || err.Error() != "parse error" {
		t.Errorf("a bad value: %v, want the flag package's own parse error", err)
	}
}

// TestWriteJSON: every object document carries schema_version (added first
// when its type does not state it), arrays are printed as they are, and
// the bytes are those of an indenting json.Encoder.
func TestWriteJSON(t *testing.T) {
	t.Parallel()
	type plain struct {
		Name string `json:"name"`
		HTML string `json:"html"`
	}
	type versioned struct {
		SchemaVersion int `json:"schema_version"`
		N             int `json:"n"`
	}
	encode := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.Encode(v)
		return b.String()
	}
	for _, c := range []struct {
		name string
		doc  any
		want string
	}{
		{"object without", plain{"a", "<b>&"}, "{\n  \"schema_version\": 1,\n  \"name\": \"a\",\n  \"html\": \"\\u003cb\\u003e\\u0026\"\n}\n"},
		{"empty object", struct{}{}, "{\n  \"schema_version\": 1\n}\n"},
		{"object with", versioned{2, 3}, encode(versioned{2, 3})},
		{"map with", map[string]any{"schema_version": 1, "findings": []int{}, "counts": map[string]int{"fail": 0}}, encode(map[string]any{"schema_version": 1, "findings": []int{}, "counts": map[string]int{"fail": 0}})},
		{"nested key only", map[string]any{"x": map[string]int{"schema_version": 5}}, "{\n  \"schema_version\": 1,\n  \"x\": {\n    \"schema_version\": 5\n  }\n}\n"},
		{"array", []plain{{"a", ""}}, encode([]plain{{"a", ""}})},
	} {
		var b bytes.Buffer
		if err := writeJSON(&b, c.doc); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, b.String(), c.want)
		}
	}
}

// TestCommandLineConventions: --version and -v print the version; a bad
// flag is said once, on stderr, with a pointer to --help (exit 2); --help
// goes to stdout; no flag's default is said twice.
func TestCommandLineConventions(t *testing.T) {
	t.Parallel()
	want := bl(t, "version")
	if want.code != 0 || !strings.HasPrefix(want.stdout, "benchledger ") {
		t.Fatalf("version: %v", want)
	}
	for _, arg := range []string{"--version", "-v"} {
		if r := bl(t, arg); r.code != 0 || r.stdout != want.stdout || r.stderr != "" {
			t.Errorf("%s: %v, want %q", arg, r, want.stdout)
		}
	}
	for _, c := range commandTable() {
		r := bl(t, c.name, "--no-such-flag")
		if r.code != exitUsage || r.stdout != "" || strings.Count(r.stderr, "no-such-flag") != 1 ||
			!strings.Contains(r.stderr, "benchledger "+c.name+" --help") || strings.Contains(r.stderr, "Flags:") {
			t.Errorf("%s --no-such-flag: want one line naming the flag and --help, exit 2; got %v", c.name, r)
		}
		help := bl(t, c.name, "--help").stdout
		for _, line := range strings.Split(help, "\n") {
			if strings.Count(line, "default") > 1 {
				t.Errorf("%s --help: a default said twice: %q", c.name, line)
			}
		}
	}
}

// TestUnknownRunIsUsageError: a run id or prefix the archive does not know
// is the user's mistake (exit 2) in every command that takes one, with
// the id in the message; an ambiguous prefix too.
func TestUnknownRunIsUsageError(t *testing.T) {
	t.Parallel()
	db, _ := mistakesCampaign(t)
	ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)
	if len(ids) < 2 {
		t.Fatalf("the mistakes campaign has %d runs", len(ids))
	}
	for _, args := range [][]string{
		{"show", "ffffffffffff"},
		{"compare", ids[0], "ffffffffffff"},
		{"trace", "ffffffffffff"},
		{"audit", "--run", "ffffffffffff"},
		{"export", "--run", "ffffffffffff", "--xlsx", filepath.Join(t.TempDir(), "x.xlsx")},
		{"show", ""},
	} {
		r := bl(t, append([]string{args[0], "--db", db}, args[1:]...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "ffffffffffff") && args[1] != "" {
			t.Errorf("%v: want exit 2 naming the id, got %v", args, r)
		}
	}
	// The (small) demo has more runs than there are hex digits: two share
	// their first.
	demo := smallDemo(t).db
	seen := map[byte]bool{}
	for _, id := range strings.Fields(bl(t, "runs", "--db", demo, "-q").stdout) {
		if seen[id[0]] {
			if r := bl(t, "show", "--db", demo, id[:1]); r.code != exitUsage || !strings.Contains(r.stderr, "ambiguous") {
				t.Errorf("show %s (ambiguous): want exit 2, got %v", id[:1], r)
			}
			return
		}
		seen[id[0]] = true
	}
	t.Error("no two demo runs share a first digit")
}
