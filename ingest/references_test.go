package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// writeVLLMResult writes a small `vllm bench serve --save-detailed` file
// with n successful requests; seed varies the timings so files differ.
func writeVLLMResult(t *testing.T, path string, n int, seed float64) {
	t.Helper()
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	list := func(f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	doc := fmt.Sprintf(`{"date": "20260818-101500", "backend": "openai", "model_id": "nvidia/Qwen3-30B-A3B-FP4",
 "tokenizer_id": "nvidia/Qwen3-30B-A3B-FP4", "num_prompts": %d, "request_rate": "inf", "burstiness": 1.0,
 "max_concurrency": 64, "duration": %s, "completed": %d, "failed": 0, "total_input_tokens": %d, "total_output_tokens": %d,
 "input_lens": %s, "output_lens": %s, "ttfts": %s, "itls": %s, "start_times": %s, "latencies": %s, "errors": %s,
 "mean_ttft_ms": 53.0, "median_ttft_ms": 53.0, "p99_ttft_ms": 56.0}`,
		n, ff(float64(n)*0.01+1), n, n*64, n*5,
		list(func(int) string { return "64" }),
		list(func(int) string { return "5" }),
		list(func(i int) string { return ff(0.05 + float64(i%7)*0.001 + seed) }),
		list(func(i int) string { return "[0.004, 0.0041, 0.0042, 0.0043]" }),
		list(func(i int) string { return ff(1000 + float64(i)*0.01) }),
		list(func(i int) string { return ff(0.07 + float64(i%7)*0.001 + seed) }),
		list(func(int) string { return `""` }))
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

const refID = "nvidia-rtx-pro-6000-qwen3-30b-a3b-1000-1000"

// refManifest is a complete campaign.yaml with one reference; the
// reference's item starts on line 10.
func refManifest(checked, visible, value string) string {
	return `campaign: testcamp
defaults:
  hardware: {gpu_model: NVIDIA RTX PRO 6000 Blackwell Server Edition, gpu_count: 1}
  runtime: {engine: vllm, version: 0.25.1}
  checkpoint: {repository: nvidia/Qwen3-30B-A3B-FP4, revision: 2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3, precision: nvfp4}
  workload: {input_len: 64, output_len: 5, request_count: 4, concurrency: 64}
  measurement: {client: vllm bench serve, date: 2026-08-18}
references:
  # the published figure we compare against
  - id: ` + refID + `
    figure: output_throughput
    value: ` + value + `
    unit: tok/s
    source: https://developer.nvidia.com/deep-learning-performance-training-inference/ai-inference
    title: NVIDIA AI inference performance reference (RTX PRO 6000 Blackwell Server Edition row)
    captured: 2026-08-17
    checked: ` + checked + `
    visible: ` + visible + `
    provenance:
      hardware.gpu_model: NVIDIA RTX PRO 6000 Blackwell Server Edition
      runtime.engine: tensorrt-llm
      runtime.version: "1.1"
`
}

func referenceEvents(t *testing.T, a *store.Archive) []map[string]any {
	t.Helper()
	evs, err := a.Events("")
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range evs {
		if ev.Action != "reference" {
			continue
		}
		if ev.RunID != "" || ev.BlobSHA256 != "" {
			t.Errorf("reference event names a run or blob: %+v", ev)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(ev.Detail), &d); err != nil {
			t.Fatalf("event detail %q: %v", ev.Detail, err)
		}
		out = append(out, d)
	}
	return out
}

// TestIngestReferences ingests a campaign folder whose manifest declares a
// reference, then re-ingests it as the manifest changes.
func TestIngestReferences(t *testing.T) {
	dir := t.TempDir()
	campaignDir := filepath.Join(dir, "campaign")
	if err := os.Mkdir(campaignDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeVLLMResult(t, filepath.Join(campaignDir, "run-a.json"), 4, 0)
	writeVLLMResult(t, filepath.Join(campaignDir, "run-b.json"), 4, 0.001)
	manifestPath := filepath.Join(campaignDir, provenance.ManifestName)
	a, err := store.Open(filepath.Join(dir, "archive.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })

	steps := []struct {
		name     string
		manifest string
		set      provenance.Record
		// want lists the outcomes of the step as "status reason" for
		// references and rejections, "status" for runs.
		want       []string
		wantChecks int
		wantEvents int
		campaign   string // where the reference is looked up; "" = testcamp
	}{
		{"first ingest records the reference once for two files", refManifest("2026-08-17", "true", "9938"), nil,
			[]string{"reference " + refID + ": recorded", "new", "new"}, 1, 1, ""},
		{"re-ingest adds no check", refManifest("2026-08-17", "true", "9938"), nil,
			[]string{"duplicate", "duplicate"}, 1, 1, ""},
		{"re-check: gone from the source", refManifest("2026-08-20", "false", "9938"), nil,
			[]string{"reference " + refID + ": re-check recorded (visible true → false)", "duplicate", "duplicate"}, 2, 2, ""},
		{"the same re-check again adds nothing", refManifest("2026-08-20", "false", "9938"), nil,
			[]string{"duplicate", "duplicate"}, 2, 2, ""},
		{"corrected value on the same check", refManifest("2026-08-20", "false", "9100"), nil,
			[]string{"reference " + refID + ": correction recorded (value 9938 tok/s → 9100 tok/s)", "duplicate", "duplicate"}, 3, 3, ""},
		{"an older check is rejected, the runs go on", refManifest("2026-08-18", "true", "9100"), nil,
			[]string{"rejected reference " + refID + ": checked 2026-08-18 is before the re-check the archive holds (2026-08-20)",
				"duplicate", "duplicate"}, 3, 3, ""},
		{"--set campaign moves the reference with the runs", refManifest("2026-08-17", "true", "9938"),
			provenance.Record{{Field: "campaign", Value: "elsewhere", Source: provenance.FromCLI}},
			// The runs are archived under testcamp: a different campaign is refused for them.
			[]string{"reference " + refID + ": recorded", "rejected", "rejected"}, 1, 4, "elsewhere"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := os.WriteFile(manifestPath, []byte(st.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []string
			var refOutcomes []Outcome
			err := Batch(context.Background(), []string{campaignDir}, Options{Archive: a, Set: st.set}, func(o Outcome) {
				switch {
				case o.Status == StatusSkipped:
					return
				case o.Status == StatusReference || (o.Status == StatusRejected && o.File == manifestPath):
					got = append(got, string(o.Status)+" "+strings.SplitN(o.Reason, "; an older", 2)[0])
					refOutcomes = append(refOutcomes, o)
				default:
					got = append(got, string(o.Status))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(st.want, "\n") {
				t.Errorf("outcomes\n got %q\nwant %q", got, st.want)
			}
			for _, o := range refOutcomes {
				if o.RunID != "" || o.File != manifestPath {
					t.Errorf("reference outcome %+v: want no run id and the manifest as file", o)
				}
				if o.Status == StatusReference && o.Format != "reference" {
					t.Errorf("reference outcome Format = %q", o.Format)
				}
				if o.Status == StatusRejected && o.Place != "line 10" {
					t.Errorf("rejection Place = %q, want line 10", o.Place)
				}
			}
			campaign := st.campaign
			if campaign == "" {
				campaign = "testcamp"
			}
			sr, err := a.Reference(campaign, refID)
			if err != nil {
				t.Fatal(err)
			}
			if len(sr.Checks) != st.wantChecks {
				t.Errorf("%d checks, want %d", len(sr.Checks), st.wantChecks)
			}
			if sr.Figure != "output_throughput" || sr.Unit != "tok/s" || sr.Provenance.Effective()["runtime.engine"] != "tensorrt-llm" {
				t.Errorf("stored reference %+v", sr.Reference)
			}
			evs := referenceEvents(t, a)
			if len(evs) != st.wantEvents {
				t.Fatalf("%d reference events, want %d: %v", len(evs), st.wantEvents, evs)
			}
			if last := evs[len(evs)-1]; last["reference"] != refID || last["manifest"] != manifestPath {
				t.Errorf("last reference event %v", last)
			}
		})
	}

	// The history kept every state, in order.
	sr, err := a.Reference("testcamp", refID)
	if err != nil {
		t.Fatal(err)
	}
	var hist []string
	for _, c := range sr.Checks {
		hist = append(hist, fmt.Sprintf("%s %v %g", c.Checked.Format("2006-01-02"), c.Visible, c.Value))
	}
	want := []string{"2026-08-17 true 9938", "2026-08-20 false 9938", "2026-08-20 false 9100"}
	if strings.Join(hist, ", ") != strings.Join(want, ", ") {
		t.Errorf("history %v, want %v", hist, want)
	}
}

// TestRecordReferencesOncePerManifest: a batch records a manifest's
// references once, however many of its files it meets.
func TestRecordReferencesOncePerManifest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, provenance.ManifestName)
	if err := os.WriteFile(p, []byte(refManifest("2026-08-17", "true", "9938")), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := provenance.LoadManifest(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := store.Open(filepath.Join(dir, "archive.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := &batch{opt: Options{Archive: a}}
	n := 0
	report := func(o Outcome) { n++ }
	if err := b.recordReferences(context.Background(), m, report); err != nil {
		t.Fatal(err)
	}
	// A second attempt would need the archive; closed, it would fail.
	a.Close()
	if err := b.recordReferences(context.Background(), m, report); err != nil {
		t.Errorf("second call for the same manifest touched the archive: %v", err)
	}
	if err := b.recordReferences(context.Background(), nil, report); err != nil {
		t.Errorf("no manifest: %v", err)
	}
	if n != 1 {
		t.Errorf("%d outcomes, want 1", n)
	}
}

func TestShownPath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(wd, "c", "campaign.yaml"):               filepath.Join("c", "campaign.yaml"),
		"rel/campaign.yaml":                                   "rel/campaign.yaml",
		filepath.Join(filepath.Dir(wd), "x", "campaign.yaml"): filepath.Join(filepath.Dir(wd), "x", "campaign.yaml"),
	} {
		if got := shownPath(in); got != want {
			t.Errorf("shownPath(%q) = %q, want %q", in, got, want)
		}
	}
}
