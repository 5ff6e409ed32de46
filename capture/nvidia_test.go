package capture

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchledger/benchledger/provenance"
)

// stubTool writes an executable script named name into a new folder and
// returns the folder, for a PATH.
func stubTool(t *testing.T, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A process another test forks while the file is open for writing
	// holds it open until that process execs: running the stub then
	// fails with "text file busy", and capture records the fact as
	// unknown. Wait until it runs (the tests run in parallel).
	for try := 0; ; try++ {
		err := exec.Command(path).Run()
		if !errors.Is(err, syscall.ETXTBSY) {
			break
		}
		if try == 200 {
			t.Fatalf("stub %s: %v", name, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return dir
}

// stubSMI is a PATH whose nvidia-smi prints a real recorded output.
func stubSMI(t *testing.T, fixture string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "nvidia-smi", fixture))
	if err != nil {
		t.Fatal(err)
	}
	return stubTool(t, "nvidia-smi", `[ "$1 $2" = "-q -x" ] || { echo "unexpected arguments: $*" >&2; exit 2; }
cat '`+abs+`'`)
}

func facts(c *provenance.Capture) map[string]string {
	out := map[string]string{}
	for _, f := range c.Facts {
		out[f.Field] = f.Value
	}
	return out
}

func unknowns(c *provenance.Capture) map[string]string {
	out := map[string]string{}
	for _, u := range c.Unknown {
		out[u.Field] = u.Why
	}
	return out
}

func TestNvidiaSMI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		want    map[string]string // fact → value
		unknown map[string]string // field → part of why
	}{
		{"telegraf-a100-sxm4-v12.xml", map[string]string{
			"hardware.gpu_model":       "NVIDIA A100-SXM4-80GB",
			"hardware.gpu_memory_gb":   "80",
			"hardware.driver":          "535.54.03 (CUDA 12.2)",
			"metadata.gpu.cuda":        "12.2",
			"metadata.gpu.mig_mode":    "Enabled",
			"metadata.gpu.power_limit": "500.00 W",
			"metadata.gpu.max_clocks":  "SM 1410 MHz, memory 1593 MHz",
			"metadata.gpu.host_count":  "1",
		}, map[string]string{
			// one <gpu> listed, but attached_gpus says 4: not one GPU.
			"hardware.gpu_count": "attached_gpus says 4",
		}},
		{"telegraf-rtx-4000-sff-ada-v13.xml", map[string]string{
			"hardware.gpu_model":       "NVIDIA RTX 4000 SFF Ada Generation",
			"hardware.gpu_count":       "1",
			"metadata.gpu.power_limit": "70.00 W",
			"metadata.gpu.max_clocks":  "SM 3105 MHz, memory 7001 MHz",
			"metadata.gpu.mig_mode":    "",
		}, nil},
		{"hadoop-excerpt-2gpu.xml", map[string]string{
			"hardware.driver":         "375.66",
			"metadata.gpu.host_count": "2",
			"metadata.gpu.cuda":       "",
		}, map[string]string{
			"hardware.gpu_model":     "the host's GPUs differ (0000:04:00.0: Tesla P100-PCIE-12GB; 0000:82:00.0: Tesla P100-PCIE-12GB_2)",
			"hardware.gpu_memory_gb": "differ in memory",
			"hardware.gpu_count":     "the host lists 2 <gpu> elements",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			path := stubSMI(t, tt.fixture)
			c := Take(context.Background(), Options{Getenv: env(map[string]string{"PATH": path})})
			checkFacts(t, c, tt.want, tt.unknown)
			for _, f := range c.Facts {
				if !strings.HasPrefix(f.How, "nvidia-smi -q -x") && strings.Contains(f.Field, "gpu") {
					t.Errorf("%s: how = %q", f.Field, f.How)
				}
			}
		})
	}
}

func TestNvidiaSMIAbsentOrFailing(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, path, want string }{
		{"absent", t.TempDir(), "none of nvidia-smi, amd-smi, rocm-smi is on PATH"},
		{"fails", stubTool(t, "nvidia-smi", "echo 'NVIDIA-SMI has failed because it couldn'\"'\"'t communicate with the NVIDIA driver.'; exit 9"), "exit status 9: NVIDIA-SMI has failed"},
		{"not XML", stubTool(t, "nvidia-smi", "echo 'GPU 0: NVIDIA H100'"), "printed no GPU list capture can read"},
		{"amd-smi fails", stubTool(t, "amd-smi", "echo 'AMDSMI_STATUS_NOT_INIT' >&2; exit 1"), "amd-smi static --asic --vram --driver --limit --json failed: exit status 1: AMDSMI_STATUS_NOT_INIT"},
		{"amd-smi not JSON", stubTool(t, "amd-smi", "echo 'GPU: 0'"), "amd-smi static --asic --vram --driver --limit --json printed no GPU list capture can read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Take(context.Background(), Options{Getenv: env(map[string]string{"PATH": tt.path})})
			unk := unknowns(c)
			for _, f := range []string{"hardware.gpu_model", "hardware.gpu_count", "hardware.driver"} {
				if !strings.Contains(unk[f], tt.want) {
					t.Errorf("unknown %s: why = %q, want %q", f, unk[f], tt.want)
				}
			}
			if v, ok := facts(c)["hardware.gpu_model"]; ok {
				t.Errorf("gpu_model guessed: %q", v)
			}
		})
	}
}

// checkFacts checks that c established want (field → value; "" = not
// established) and left unknown each field of unknown with a reason
// containing its text.
func checkFacts(t *testing.T, c *provenance.Capture, want, unknown map[string]string) {
	t.Helper()
	got, unk := facts(c), unknowns(c)
	for f, v := range want {
		if got[f] != v {
			t.Errorf("%s = %q, want %q", f, got[f], v)
		}
	}
	for f, why := range unknown {
		if v, ok := got[f]; ok {
			t.Errorf("%s established as %q; want it unknown", f, v)
		}
		if !strings.Contains(unk[f], why) {
			t.Errorf("unknown %s: why = %q, want it to contain %q", f, unk[f], why)
		}
	}
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestROCmSMI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		want    map[string]string
		unknown map[string]string
	}{
		{"telegraf-mi100_rocm602.json", map[string]string{
			"hardware.gpu_model":       "Arcturus GL-XL [Instinct MI100]",
			"hardware.gpu_memory_gb":   "32",
			"hardware.driver":          "6.3.6 (amdgpu)",
			"metadata.gpu.host_count":  "4",
			"metadata.gpu.power_limit": "290.0 W",
		}, map[string]string{"hardware.gpu_count": "the host lists 4 cards"}},
		{"telegraf-rx6700xt_rocm612.json", map[string]string{
			"hardware.gpu_model":     "Navi 22 [Radeon RX 6700/6700 XT / 6800M]",
			"hardware.gpu_count":     "1",
			"hardware.gpu_memory_gb": "12",
			"hardware.driver":        "6.3.6 (amdgpu)",
		}, nil},
		{"telegraf-vega-10-XT.json", map[string]string{"hardware.gpu_count": "1", "hardware.driver": "5.9.25 (amdgpu)", "hardware.gpu_memory_gb": "16"},
			map[string]string{"hardware.gpu_model": "states no Card series"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			abs, _ := filepath.Abs(filepath.Join("testdata", "rocm-smi", tt.fixture))
			path := stubTool(t, "rocm-smi", `case "$*" in *--json*) cat '`+abs+`' ;; *) echo "want --json" >&2; exit 2 ;; esac`)
			c := Take(context.Background(), Options{Getenv: env(map[string]string{"PATH": path})})
			checkFacts(t, c, tt.want, tt.unknown)
		})
	}
}
