package provenance

import (
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestManifestReferences(t *testing.T) {
	m, err := LoadManifest(filepath.Join("testdata", "references", "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	want := []Reference{
		{
			ID: "nvidia-rtx-pro-6000-qwen3-30b-a3b-1000-1000", Figure: "output_throughput", Value: 9938, Unit: "tok/s",
			Source: "https://developer.nvidia.com/deep-learning-performance-training-inference/ai-inference",
			Title:  "NVIDIA AI inference performance reference (RTX PRO 6000 Blackwell Server Edition row)",
			Notes:  "free text", Captured: day("2026-08-17"), Checked: day("2026-08-20"), Visible: false,
			Provenance: Record{
				{Field: "hardware.gpu_model", Value: "NVIDIA RTX PRO 6000 Blackwell Server Edition", Source: FromManifest},
				{Field: "runtime.engine", Value: "tensorrt-llm", Source: FromManifest},
				{Field: "runtime.version", Value: "1.1", Source: FromManifest},
			},
			Line: 3,
		},
		{
			ID: "example.ttft_v2", Figure: "ttft.median", Value: 125, Unit: "ms", Source: "HTTP://example.com/bench?x=1#row-3",
			Notes: "keys in any order; nested provenance; no title", Captured: day("2026-09-01"), Checked: day("2026-09-01"), Visible: true,
			Provenance: Record{
				{Field: "hardware.gpu_model", Value: "NVIDIA H100 80GB HBM3", Source: FromManifest},
				{Field: "hardware.gpu_count", Value: "8", Source: FromManifest},
				{Field: "workload.input_len", Value: "1000", Source: FromManifest},
				{Field: "workload.output_len", Value: "1000", Source: FromManifest},
			},
			Line: 17,
		},
		{
			ID: "empty-provenance", Figure: "output_throughput", Value: -0.5, Unit: "%", Source: "http://example.org",
			Captured: day("2026-01-01"), Checked: day("2026-01-01"), Visible: true, Line: 29,
		},
	}
	if len(m.References) != len(want) {
		t.Fatalf("%d references, want %d: %+v", len(m.References), len(want), m.References)
	}
	for i, w := range want {
		g := m.References[i]
		if g.ID != w.ID || g.Figure != w.Figure || g.Value != w.Value || g.Unit != w.Unit || g.Source != w.Source ||
			g.Title != w.Title || g.Notes != w.Notes || !g.Captured.Equal(w.Captured) || !g.Checked.Equal(w.Checked) ||
			g.Visible != w.Visible || g.Line != w.Line || !slices.Equal(g.Provenance, w.Provenance) {
			t.Errorf("references[%d]\n got %+v\nwant %+v", i, g, w)
		}
		if g.Captured.Location() != time.UTC || g.Checked.Location() != time.UTC || g.Checked.Hour() != 0 {
			t.Errorf("references[%d]: dates %v, %v are not UTC days", i, g.Captured, g.Checked)
		}
	}
	// References are not provenance of the campaign's runs.
	if eff := m.For("x.json", 0).Effective(); len(eff) != 1 {
		t.Errorf("references leaked into run provenance: %v", eff)
	}
}

func TestManifestReferenceErrors(t *testing.T) {
	tests := []struct {
		file  string
		line  int
		field string
		want  []string
	}{
		{"ref_not_list.yaml", 1, "references", []string{"must be a list"}},
		{"ref_item_not_mapping.yaml", 2, "references[0]", []string{"must be a mapping"}},
		{"ref_bad_id.yaml", 2, "id", []string{`id "Nvidia RTX"`, "lower-case"}},
		{"ref_dup_id.yaml", 18, "id", []string{`reference id "a" given twice (first at line 2)`}},
		{"ref_no_value.yaml", 2, "value", []string{`reference "a" has no value:`}},
		{"ref_no_unit.yaml", 2, "unit", []string{"has no unit:"}},
		{"ref_no_visible.yaml", 2, "visible", []string{"has no visible:"}},
		{"ref_figure_empty.yaml", 3, "figure", []string{"empty value"}},
		{"ref_figure_space.yaml", 3, "figure", []string{"no spaces"}},
		{"ref_value_string.yaml", 4, "value", []string{`value "9,938" is not a number`}},
		{"ref_value_inf.yaml", 4, "value", []string{"not a finite number"}},
		{"ref_value_nan.yaml", 4, "value", []string{"not a finite number"}},
		{"ref_source_ftp.yaml", 6, "source", []string{"not an http(s) URL"}},
		{"ref_source_relative.yaml", 6, "source", []string{"not an http(s) URL"}},
		{"ref_date_bad.yaml", 7, "captured", []string{`"17/08/2026" is not a date (YYYY-MM-DD)`}},
		{"ref_checked_time.yaml", 8, "checked", []string{"is not a date (YYYY-MM-DD)"}},
		{"ref_checked_before.yaml", 8, "checked", []string{"checked 2026-08-16 is before captured 2026-08-17"}},
		{"ref_visible_yes.yaml", 9, "visible", []string{`"yes" is not true or false`}},
		{"ref_unknown_key.yaml", 4, "vaule", []string{`unknown key "vaule"`, `did you mean "value"`}},
		{"ref_field_in_item.yaml", 10, "runtime.engine", []string{`unknown key "runtime.engine"`, "under provenance:"}},
		{"ref_prov_unknown.yaml", 11, "hardware.gpu_modle", []string{`did you mean "hardware.gpu_model"`}},
		{"ref_prov_bad_value.yaml", 11, "hardware.gpu_count", []string{`"0" is not a positive whole number`}},
		{"ref_prov_list.yaml", 10, "provenance", []string{"mapping of provenance fields"}},
		{"ref_dup_key.yaml", 10, "unit", []string{"unit given twice (first at line 5)"}},
		{"ref_top_typo.yaml", 1, "referenses", []string{`did you mean "references"`}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join("testdata", "bad", tc.file)
			m, err := LoadManifest(p)
			if err == nil {
				t.Fatalf("no error; references %+v", m.References)
			}
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %T %v is not a *ManifestError", err, err)
			}
			if me.Line != tc.line || me.Field != tc.field {
				t.Errorf("Line, Field = %d, %q; want %d, %q (%v)", me.Line, me.Field, tc.line, tc.field, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, p+":"+strconv.Itoa(tc.line)+": ") {
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

func TestValidReferenceSource(t *testing.T) {
	for s, want := range map[string]bool{
		"https://developer.nvidia.com/x": true,
		"http://example.com":             true,
		"HTTPS://EXAMPLE.COM/a?b=c#d":    true,
		"ftp://example.com/x":            false,
		"https:///path-only":             false,
		"example.com/x":                  false,
		"https://example.com/a b":        false,
		"":                               false,
		"mailto:perf@example.com":        false,
	} {
		if got := ValidReferenceSource(s); got != want {
			t.Errorf("ValidReferenceSource(%q) = %v, want %v", s, got, want)
		}
	}
}
