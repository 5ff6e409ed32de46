package capture

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAMDSMI reads a real amd-smi static --json output (testdata/amd-smi,
// see SOURCE.md) in both layouts amd-smi has used: ROCm 7's gpu_data object
// and ROCm 6's bare list.
func TestAMDSMI(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "amd-smi", "device-metrics-exporter-mi210-static.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		GPUData json.RawMessage `json:"gpu_data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.GPUData) == 0 {
		t.Fatalf("fixture has no gpu_data: %v", err)
	}
	want := map[string]string{
		"hardware.gpu_model":       "AMD Instinct MI210",
		"hardware.gpu_count":       "1",
		"hardware.gpu_memory_gb":   "64",
		"hardware.driver":          "amdgpu in kernel 6.14.0-24-generic",
		"metadata.gpu.host_count":  "1",
		"metadata.gpu.power_limit": "300 W",
	}
	for _, tt := range []struct {
		layout string
		data   []byte
	}{{"gpu_data object (ROCm 7)", raw}, {"bare list (ROCm 6)", doc.GPUData}} {
		t.Run(tt.layout, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out.json")
			if err := os.WriteFile(out, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			path := stubTool(t, "amd-smi", `case "$*" in "static --asic --vram --driver --limit --json") cat '`+out+`' ;; *) echo "unexpected: $*" >&2; exit 2 ;; esac`)
			c := Take(context.Background(), Options{Getenv: env(map[string]string{"PATH": path})})
			checkFacts(t, c, want, nil)
			for _, f := range c.Facts {
				if strings.HasPrefix(f.Field, "hardware.gpu") && !strings.HasPrefix(f.How, "amd-smi static") {
					t.Errorf("%s: how = %q", f.Field, f.How)
				}
			}
		})
	}
}

// TestAMDSMIFallsBackToROCmSMI: where amd-smi fails but rocm-smi works, the
// GPUs come from rocm-smi.
func TestAMDSMIFallsBackToROCmSMI(t *testing.T) {
	t.Parallel()
	abs, _ := filepath.Abs(filepath.Join("testdata", "rocm-smi", "telegraf-rx6700xt_rocm612.json"))
	dir := stubTool(t, "amd-smi", "exit 1")
	if err := os.WriteFile(filepath.Join(dir, "rocm-smi"), []byte("#!/bin/sh\ncat '"+abs+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Take(context.Background(), Options{Getenv: env(map[string]string{"PATH": dir})})
	checkFacts(t, c, map[string]string{"hardware.gpu_count": "1", "hardware.gpu_memory_gb": "12"}, nil)
}

// TestParseAMDSMIRejects: what is not amd-smi's JSON is refused, not read as
// zero GPUs.
func TestParseAMDSMIRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{}`, `[]`, `{"gpu_data": []}`, `{"gpu_data": 3}`, `not json`} {
		if gpus, err := parseAMDSMI([]byte(in)); err == nil {
			t.Errorf("parseAMDSMI(%q) = %v, want an error", in, gpus)
		}
	}
}
