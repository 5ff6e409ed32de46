package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

func TestOutputPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"vllm", "bench", "serve", "--save-result", "--result-dir", "res", "--result-filename", "a.json"}, []string{"/w/res", "/w/res/a.json"}},
		{[]string{"python3", "-m", "sglang.bench_serving", "--output-file=/data/out.jsonl"}, []string{"/data/out.jsonl"}},
		{[]string{"aiperf", "profile", "--artifact-dir", "artifacts"}, []string{"/w/artifacts"}},
		{[]string{"guidellm", "benchmark", "--output-path", "g.json", "--rate", "4"}, []string{"/w/g.json"}},
		{[]string{"vllm", "bench", "serve", "--result-dir"}, nil}, // a flag without its value
	}
	for _, tt := range tests {
		if got := OutputPaths(tt.argv, "/w"); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "res")
	os.WriteFile(filepath.Join(dir, "old.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "same.json"), []byte("{}"), 0o644)
	before := Stamp(dir, []string{sub})
	os.WriteFile(filepath.Join(dir, "old.json"), []byte(`{"a": 1}`), 0o644) // changed size
	os.MkdirAll(filepath.Join(sub, "deep"), 0o755)
	os.WriteFile(filepath.Join(sub, "deep", "new.json"), []byte("{}"), 0o644)
	os.MkdirAll(filepath.Join(dir, "other"), 0o755)
	os.WriteFile(filepath.Join(dir, "other", "x.json"), []byte("{}"), 0o644) // not walked: top level only
	got := Written(before, Stamp(dir, []string{sub}))
	want := []string{filepath.Join(dir, "old.json"), filepath.Join(sub, "deep", "new.json")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Written = %q, want %q", got, want)
	}
}

func TestBracket(t *testing.T) {
	t.Parallel()
	mk := func(at string, facts ...provenance.Fact) *provenance.Capture {
		return &provenance.Capture{TakenAt: at, Facts: facts, Unknown: []provenance.Unknown{{Field: "runtime.image", Why: "not inspected"}}}
	}
	f := func(field, value string) provenance.Fact {
		return provenance.Fact{Field: field, Value: value, How: "h"}
	}
	before := mk("t0", f("runtime.engine", "vllm"), f("runtime.version", "0.11.0"), f("hardware.node", "n1"))
	after := mk("t1", f("runtime.engine", "vllm"), f("runtime.version", "0.11.1"), f("metadata.engine.max_model_len", "4096"))
	got := Bracket(before, after)
	facts := map[string]string{}
	for _, x := range got.Facts {
		facts[x.Field] = x.Value
	}
	if facts["runtime.engine"] != "vllm" || facts["hardware.node"] != "n1" || facts["metadata.engine.max_model_len"] != "4096" {
		t.Errorf("facts = %v", facts)
	}
	if _, ok := facts["runtime.version"]; ok {
		t.Error("a version that changed during the run is still a fact")
	}
	why := map[string]string{}
	for _, u := range got.Unknown {
		why[u.Field] = u.Why
	}
	if !strings.Contains(why["runtime.version"], `changed during the run: "0.11.0" before`) || why["runtime.image"] == "" {
		t.Errorf("unknown = %v", why)
	}
	if len(got.Record.Changed) != 3 {
		t.Errorf("changed = %q", got.Record.Changed)
	}
}

func TestRunClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	r := RunClient(context.Background(), []string{"sh", "-c", "pwd; echo oops >&2; exit 4"}, dir, &out, &errb)
	if r.Exit != 4 || !strings.Contains(string(r.Log), "oops") || !strings.Contains(out.String(), dir) || errb.String() != "oops\n" {
		t.Errorf("run = %+v, out %q, err %q", r, out.String(), errb.String())
	}
	if r := RunClient(context.Background(), []string{filepath.Join(dir, "no-such-client")}, dir, &out, &errb); r.Exit != -1 || r.Err == nil {
		t.Errorf("a client that cannot start: %+v", r)
	}
}
