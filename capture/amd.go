package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// rocmArgs ask rocm-smi for what capture reads: the product name, VRAM,
// the driver version and the power cap, as JSON.
var rocmArgs = []string{"--showproductname", "--showmeminfo", "vram", "--showdriverversion", "--showmaxpower", "--json"}

// rocmGPU is one "cardN" object of rocm-smi --json. Key spellings changed
// between ROCm versions ("Card series", "Card Series"), so keys are read
// without regard to case.
type rocmGPU struct {
	card string
	kv   map[string]string
}

func (g rocmGPU) id() string { return g.card }

func (g rocmGPU) get(key string) string {
	for k, v := range g.kv {
		if strings.EqualFold(k, key) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// rocmSMI runs rocm-smi and records the AMD GPUs it lists.
func rocmSMI(ctx context.Context, b *builder, bin string) {
	how := "rocm-smi " + strings.Join(rocmArgs, " ")
	none := func(why string) {
		for _, f := range []string{"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.driver"} {
			b.unknown(f, why)
		}
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, rocmArgs...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		none(fmt.Sprintf("%s failed: %v%s", how, err, prefixed(": ", firstLine(errOut.String()))))
		return
	}
	gpus, driver, err := parseROCm(out.Bytes())
	if err != nil {
		none(fmt.Sprintf("%s printed no GPU list capture can read: %v", how, err))
		return
	}
	n := len(gpus)
	listed := fmt.Sprintf("%d card%s", n, plural(n))
	b.fact("metadata.gpu.host_count", strconv.Itoa(n), how+": "+listed)
	if n == 1 {
		b.fact("hardware.gpu_count", "1", how+": the host has one GPU, so the engine serves on that one")
	} else {
		b.unknown("hardware.gpu_count", fmt.Sprintf("the host lists %s; how many serve the run is the engine's parallelism, which it did not report", listed))
	}
	series := func(g rocmGPU) string { return g.get("Card series") }
	switch name, ok := same(gpus, series); {
	case ok && name != "":
		b.fact("hardware.gpu_model", name, how+": Card series of all "+listed)
	case ok:
		b.unknown("hardware.gpu_model", how+" states no Card series")
	default:
		b.unknown("hardware.gpu_model", "the host's GPUs differ ("+perGPU(gpus, series)+"); which ones serve the run is not known")
	}
	vram := func(g rocmGPU) string { return g.get("VRAM Total Memory (B)") }
	if v, ok := same(gpus, vram); ok {
		if bytes, err := strconv.ParseFloat(v, 64); err == nil && bytes > 0 {
			gb := float64(int(bytes/(1<<30)*10+0.5)) / 10
			b.fact("hardware.gpu_memory_gb", strconv.FormatFloat(gb, 'f', -1, 64), how+": VRAM Total Memory (B) "+v+" ÷ 2³⁰")
		} else {
			b.unknown("hardware.gpu_memory_gb", how+" states no VRAM total")
		}
	} else {
		b.unknown("hardware.gpu_memory_gb", "the host's GPUs differ in memory ("+perGPU(gpus, vram)+")")
	}
	if driver != "" {
		b.fact("hardware.driver", driver+" (amdgpu)", how+": system Driver version")
	} else {
		b.unknown("hardware.driver", how+" states no driver version")
	}
	power := func(g rocmGPU) string {
		if v := g.get("Max Graphics Package Power (W)"); v != "" {
			return v + " W"
		}
		return ""
	}
	if v, ok := same(gpus, power); ok {
		if v != "" {
			b.fact("metadata.gpu.power_limit", v, how+": Max Graphics Package Power (W)")
		}
	} else {
		b.fact("metadata.gpu.power_limit", perGPU(gpus, power), how+": Max Graphics Package Power (W), per GPU")
	}
}

// parseROCm reads rocm-smi's JSON: an object of "cardN" objects and a
// "system" object, all values strings.
func parseROCm(data []byte) ([]rocmGPU, string, error) {
	var doc map[string]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, "", fmt.Errorf("not rocm-smi JSON: %w", err)
	}
	var gpus []rocmGPU
	for k, obj := range doc {
		if !strings.HasPrefix(k, "card") {
			continue
		}
		g := rocmGPU{card: k, kv: map[string]string{}}
		for kk, v := range obj {
			if s, ok := v.(string); ok {
				g.kv[kk] = s
			}
		}
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return nil, "", fmt.Errorf("no card object")
	}
	sort.Slice(gpus, func(i, j int) bool { return cardNum(gpus[i].card) < cardNum(gpus[j].card) })
	driver := ""
	for k, v := range doc["system"] {
		if s, ok := v.(string); ok && strings.EqualFold(k, "Driver version") {
			driver = strings.TrimSpace(s)
		}
	}
	return gpus, driver, nil
}

func cardNum(s string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "card"))
	if err != nil {
		return 1 << 30
	}
	return n
}
