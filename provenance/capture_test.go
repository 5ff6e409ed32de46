package provenance

import (
	"strings"
	"testing"
)

const captureSection = `capture:
  taken_at: "2026-12-02T06:00:00Z"
  clock: realtime
  tool: benchledger test
  facts:
    - {field: hardware.gpu_model, value: NVIDIA A100-SXM4-80GB, how: "nvidia-smi -q -x: product_name"}
    - {field: hardware.gpu_count, value: "1", how: "nvidia-smi -q -x: 1 GPU on the host"}
    - {field: metadata.gpu.mig_mode, value: Enabled, how: "nvidia-smi -q -x: mig_mode/current_mig"}
  unknown:
    - {field: checkpoint.revision, why: no Hugging Face cache entry}
`

func TestManifestCapture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		extra   string // hand-written part of the manifest
		wantErr string // "" = parses
	}{
		{"capture only", "", ""},
		{"hand-written agrees", "defaults:\n  hardware.gpu_count: 1\n  runtime.engine: vllm\n", ""},
		{"hand-written fills an unknown", "defaults:\n  checkpoint.revision: abc\n", ""},
		{"defaults contradict", "defaults:\n  hardware: {gpu_count: 8}\n", `campaign.yaml:12: defaults: hardware.gpu_count "8" contradicts the captured value "1" (line 7, nvidia-smi -q -x: 1 GPU on the host)`},
		{"runs item contradicts", "runs:\n  - files: \"*.json\"\n    hardware.gpu_model: NVIDIA H100\n", `campaign.yaml:13: runs[0]: hardware.gpu_model "NVIDIA H100" contradicts the captured value "NVIDIA A100-SXM4-80GB"`},
		{"reference setup is not checked", "references:\n  - {id: r, figure: output_throughput, value: 1, unit: tok/s, source: \"https://example.com/x\", captured: 2026-01-01, checked: 2026-01-01, visible: true, provenance: {hardware.gpu_count: 8}}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := captureSection + tt.extra
			m, err := ParseManifest("campaign.yaml", []byte(data))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			eff := m.For("run.json", 0).Effective()
			if eff["hardware.gpu_model"] != "NVIDIA A100-SXM4-80GB" || eff["metadata.gpu.mig_mode"] != "Enabled" {
				t.Errorf("captured facts not applied: %v", eff)
			}
			if m.Capture == nil || len(m.Capture.Unknown) != 1 || m.Capture.Facts[1].Line != 7 {
				t.Errorf("capture section = %+v", m.Capture)
			}
		})
	}
}

func TestManifestCaptureAfterDefaults(t *testing.T) {
	t.Parallel()
	_, err := ParseManifest("m.yaml", []byte("defaults:\n  hardware.gpu_count: 2\n"+captureSection))
	if err == nil || !strings.Contains(err.Error(), "m.yaml:2:") {
		t.Fatalf("a contradicting default before capture: err = %v", err)
	}
}

func TestManifestCaptureBad(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"unknown field", "capture:\n  facts:\n    - {field: hardware.gpu_modle, value: x, how: y}\n", `m.yaml:3: captured fact: unknown field "hardware.gpu_modle"`},
		{"no how", "capture:\n  facts:\n    - {field: hardware.gpu_model, value: x}\n", "says not how it was obtained"},
		{"bad value", "capture:\n  facts:\n    - {field: hardware.gpu_count, value: two, how: y}\n", `"two" is not a positive whole number`},
		{"twice", "capture:\n  facts:\n    - {field: runtime.engine, value: vllm, how: y}\n    - {field: runtime.engine, value: vllm, how: z}\n", "given twice (first at line 3)"},
		{"unknown key", "capture:\n  fact: []\n", `unknown key "fact" in capture:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseManifest("m.yaml", []byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestManifestCheckSet(t *testing.T) {
	t.Parallel()
	m, err := ParseManifest("campaign.yaml", []byte(captureSection))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckSet([]Entry{{Field: "hardware.gpu_count", Value: "1"}, {Field: "runtime.engine", Value: "vllm"}}); err != nil {
		t.Errorf("agreeing --set refused: %v", err)
	}
	err = m.CheckSet([]Entry{{Field: "hardware.gpu_count", Value: "4"}})
	if err == nil || !strings.Contains(err.Error(), "--set hardware.gpu_count=4 contradicts the value captured in campaign.yaml (line 7") {
		t.Errorf("contradicting --set: err = %v", err)
	}
}
