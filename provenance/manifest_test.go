package provenance

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func loadGood(t *testing.T) *Manifest {
	t.Helper()
	m, err := LoadManifest(filepath.Join("testdata", "good", "campaign.yaml"))
	if err != nil {
		t.Fatalf("LoadManifest: %v", err)
	}
	return m
}

func TestLoadManifestGood(t *testing.T) {
	m := loadGood(t)
	if m.Campaign != "qwen3-batch" {
		t.Errorf("Campaign = %q", m.Campaign)
	}
	if want, _ := filepath.Abs(filepath.Join("testdata", "good")); m.Dir != want {
		t.Errorf("Dir = %q, want %q", m.Dir, want)
	}
	want := map[string]string{
		"synthetic":              "true",
		"hardware.gpu_model":     "NVIDIA RTX PRO 6000 Blackwell Server Edition",
		"hardware.gpu_count":     "1",
		"hardware.gpu_memory_gb": "96",
		"runtime.engine":         "vllm",
		"runtime.version":        "0.25.1",
		"runtime.image":          "vllm/vllm-openai:v0.25.1",
		"checkpoint.revision":    "2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3",
		"workload.thinking":      "false",
		"workload.fixed_output":  "true", // YAML True, canonical lower case
		"measurement.date":       "2026-09-05",
		"labels.customer":        "demo",
	}
	got := map[string]string{}
	for _, e := range m.Defaults {
		if e.Source != FromManifest {
			t.Errorf("%s: Source = %q", e.Field, e.Source)
		}
		got[e.Field] = e.Value
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("defaults %s = %q, want %q", k, got[k], v)
		}
	}
	if len(m.Runs) != 7 {
		t.Fatalf("%d runs, want 7", len(m.Runs))
	}
	if r := m.Runs[4]; r.Files != "sweep.json" || r.Ordinal != 1 || r.Line != 38 {
		t.Errorf("runs[4] = %+v", r)
	}
	if r := m.Runs[6]; r.Files != "baseline-2.json" {
		t.Errorf("runs[6].Files = %q: ./ should be cleaned away", r.Files)
	}
}

func TestManifestFor(t *testing.T) {
	m := loadGood(t)
	const notes = "applies to every run, after the overrides above"
	tests := []struct {
		name    string
		rel     string
		ordinal int
		want    map[string]string // "" = field absent
	}{
		{"baseline", "baseline-1.json", 0, map[string]string{
			"campaign": "qwen3-batch", "role": "baseline", "runtime.server_args": "--max-num-seqs 256",
			"workload.concurrency": "512", "measurement.notes": notes,
		}},
		{"override order: later override beats the default", "baseline-2.json", 0, map[string]string{
			"role": "baseline", "workload.concurrency": "256",
		}},
		{"pattern without / matches the base name in a subfolder", "sub/baseline-3.json", 0, map[string]string{
			"role": "baseline", "runtime.server_args": "--max-num-seqs 256",
		}},
		{"list of server args joined and quoted", "tuned.json", 0, map[string]string{
			"role":                "tuned",
			"runtime.server_args": `--max-num-seqs 1024 --max-num-batched-tokens 16384 --override-generation-config '{"temperature": 0}'`,
		}},
		{"pattern with / matches the relative path", "node/replica-2.json", 0, map[string]string{
			"role": "replica", "group": "node-8x", "replica": "2/8",
		}},
		{"pattern with / does not match deeper", "x/node/replica-2.json", 0, map[string]string{
			"role": "", "replica": "",
		}},
		{"ordinal selects one run", "sweep.json", 1, map[string]string{
			"role": "sweep-point", "sweep.parameter": "max_concurrency", "sweep.value": "128",
			"workload.request_rate": "inf",
		}},
		{"other ordinals untouched", "sweep.json", 0, map[string]string{
			"role": "", "sweep.value": "", "workload.request_rate": "", "measurement.notes": notes,
		}},
		{"*.json matches base names everywhere", "deep/er/other.json", 3, map[string]string{
			"measurement.notes": notes, "hardware.gpu_count": "1",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := m.For(tc.rel, tc.ordinal)
			for _, e := range rec {
				if e.Source != FromManifest {
					t.Errorf("%s: Source = %q", e.Field, e.Source)
				}
			}
			eff := rec.Effective()
			for k, v := range tc.want {
				if eff[k] != v {
					t.Errorf("%s = %q, want %q", k, eff[k], v)
				}
			}
		})
	}
	// All entries are kept: the default concurrency is still in the record.
	var conc []string
	for _, e := range m.For("baseline-2.json", 0) {
		if e.Field == "workload.concurrency" {
			conc = append(conc, e.Value)
		}
	}
	if !slices.Equal(conc, []string{"512", "256"}) {
		t.Errorf("concurrency entries = %v, want [512 256]", conc)
	}
}

func TestNestedAndDottedAgree(t *testing.T) {
	n, err := LoadManifest(filepath.Join("testdata", "nested", "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadManifest(filepath.Join("testdata", "dotted", "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.Defaults, d.Defaults) {
		t.Errorf("nested %v\n dotted %v", n.Defaults, d.Defaults)
	}
	if got := n.For("r.json", 0).Effective()["runtime.version"]; got != "0.10" {
		t.Errorf("unquoted version 0.10 became %q", got)
	}
	if got := n.For("r.json", 0).Effective()["labels.team.name"]; got != "perf" {
		t.Errorf("labels.team.name = %q", got)
	}
	// No campaign: key → the folder's base name.
	if n.Campaign != "nested" || d.Campaign != "dotted" {
		t.Errorf("campaigns %q, %q", n.Campaign, d.Campaign)
	}
}

func TestEmptyManifest(t *testing.T) {
	m, err := LoadManifest(filepath.Join("testdata", "empty", "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.For("a.json", 0).Effective(); len(got) != 1 || got["campaign"] != "empty" {
		t.Errorf("empty manifest gives %v", got)
	}
}

func TestLoadManifestErrors(t *testing.T) {
	tests := []struct {
		file  string
		line  int
		field string
		want  []string // substrings of the message
	}{
		{"unknown_field.yaml", 5, "hardware.gpu_modle", []string{`unknown field "hardware.gpu_modle"`, `did you mean "hardware.gpu_model"`}},
		{"unknown_field_far.yaml", 2, "colour", []string{`unknown field "colour"`, "labels."}},
		{"unknown_in_run.yaml", 5, "roll", []string{`unknown field "roll"`, `did you mean "role"`}},
		{"unknown_top.yaml", 2, "default", []string{`unknown top-level key "default"`, `did you mean "defaults"`}},
		{"misplaced_field.yaml", 2, "hardware", []string{`unknown top-level key "hardware"`, "under defaults"}},
		{"gpu_count_zero.yaml", 3, "hardware.gpu_count", []string{`"0" is not a positive whole number`}},
		{"request_count_float.yaml", 2, "workload.request_count", []string{`"10.5" is not a positive whole number`}},
		{"role_bad.yaml", 3, "role", []string{`"winner" is not a role`, "baseline"}},
		{"replica_bad.yaml", 3, "replica", []string{`"3/2"`, "1 ≤ k ≤ n"}},
		{"date_bad.yaml", 2, "measurement.date", []string{"YYYY-MM-DD or RFC 3339"}},
		{"clock_bad.yaml", 3, "measurement.clock", []string{"monotonic or epoch"}},
		{"bool_bad.yaml", 2, "synthetic", []string{`"yes" is not true or false`}},
		{"rate_bad.yaml", 2, "workload.request_rate", []string{`a positive number or "inf"`}},
		{"null_value.yaml", 2, "hardware.node", []string{"has no value"}},
		{"empty_string.yaml", 2, "hardware.node", []string{"empty value"}},
		{"list_value.yaml", 2, "hardware.gpu_model", []string{"not a list"}},
		{"mapping_for_field.yaml", 4, "hardware.gpu_model", []string{"not a mapping"}},
		{"duplicate.yaml", 4, "hardware.gpu_count", []string{"given twice (first at line 2)"}},
		{"runs_no_files.yaml", 2, "runs[0]", []string{"no files: pattern"}},
		{"bad_pattern.yaml", 2, "files", []string{"bad pattern"}},
		{"bad_ordinal.yaml", 3, "ordinal", []string{"not a run number"}},
		{"campaign_in_defaults.yaml", 2, "campaign", []string{"top-level campaign: key"}},
		{"syntax.yaml", 4, "", []string{"not valid YAML"}},
		{"not_mapping.yaml", 1, "", []string{"a manifest is a mapping"}},
		{"labels_no_key.yaml", 2, "labels", []string{"labels needs a key"}},
		{"runs_not_list.yaml", 2, "runs", []string{"list of overrides"}},
		{"two_docs.yaml", 2, "", []string{"more than one YAML document"}},
		{"digest_bad.yaml", 2, "runtime.image_digest", []string{"image digest"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join("testdata", "bad", tc.file)
			_, err := LoadManifest(p)
			if err == nil {
				t.Fatal("no error")
			}
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %T %v is not a *ManifestError", err, err)
			}
			if me.Path != p {
				t.Errorf("Path = %q", me.Path)
			}
			if me.Line != tc.line {
				t.Errorf("Line = %d, want %d (%v)", me.Line, tc.line, err)
			}
			if me.Field != tc.field {
				t.Errorf("Field = %q, want %q", me.Field, tc.field)
			}
			msg := err.Error()
			if tc.line > 0 && !strings.HasPrefix(msg, p+":"+strconv.Itoa(tc.line)+": ") {
				t.Errorf("message %q does not start with file:line", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestLoadManifestMissingFile(t *testing.T) {
	_, err := LoadManifest(filepath.Join(t.TempDir(), "campaign.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

func TestFindManifest(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("campaign: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	top := mk("campaign.yaml")
	inner := mk("results/a/campaign.yaml")
	if err := os.MkdirAll(filepath.Join(root, "results", "a", "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "results", "other", "campaign.yaml"), 0o755); err != nil {
		t.Fatal(err) // a folder with the manifest's name is not a manifest
	}
	j := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	tests := []struct {
		dir, stop string
		want      string
	}{
		{j("results", "a", "b", "c"), j("results"), inner},
		{j("results", "a"), j("results"), inner},
		{j("results", "other"), j("results"), ""},           // stops at results, never reaches root's manifest
		{j("results", "other"), root, top},                  // allowed up to root
		{j("results", "other"), "", top},                    // no stop: up to the root (nothing above the temp dir is a manifest)
		{j("results", "a", "b"), j("results", "other"), ""}, // dir outside stopAt: itself only
	}
	for _, tc := range tests {
		got, ok := FindManifest(tc.dir, tc.stop)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("FindManifest(%s, %s) = %q, %v; want %q", tc.dir, tc.stop, got, ok, tc.want)
		}
	}
}
