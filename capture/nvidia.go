package capture

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// smiLog is the part of `nvidia-smi -q -x` capture reads. The power limit
// moved between DTD versions: power_readings/power_limit (v8),
// power_readings/current_power_limit (v12), gpu_power_readings (v13).
type smiLog struct {
	Driver   string   `xml:"driver_version"`
	CUDA     string   `xml:"cuda_version"`
	Attached string   `xml:"attached_gpus"`
	GPUs     []smiGPU `xml:"gpu"`
}

type smiGPU struct {
	ID       string `xml:"id,attr"`
	Name     string `xml:"product_name"`
	MemTotal string `xml:"fb_memory_usage>total"` // the GPU's own, not a MIG device's
	MIG      string `xml:"mig_mode>current_mig"`
	PL8      string `xml:"power_readings>power_limit"`
	PL12     string `xml:"power_readings>current_power_limit"`
	PL13     string `xml:"gpu_power_readings>current_power_limit"`
	MaxSM    string `xml:"max_clocks>sm_clock"`
	MaxMem   string `xml:"max_clocks>mem_clock"`
	AppGfx   string `xml:"applications_clocks>graphics_clock"`
	AppMem   string `xml:"applications_clocks>mem_clock"`
}

func (g smiGPU) id() string { return g.ID }

func (g smiGPU) powerLimit() string {
	for _, v := range []string{g.PL13, g.PL12, g.PL8} {
		if known(v) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// known is false for the placeholders nvidia-smi prints for what it cannot
// read.
func known(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && v != "N/A" && !strings.Contains(v, "Not Supported") && !strings.Contains(v, "deprecated")
}

const smiHow = "nvidia-smi -q -x"

// nvidia runs nvidia-smi from pathEnv and records the GPUs it lists.
func nvidia(ctx context.Context, b *builder, pathEnv string) {
	gpuFields := []string{"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.driver"}
	none := func(why string) {
		for _, f := range gpuFields {
			b.unknown(f, why)
		}
	}
	bin, ok := lookPath("nvidia-smi", pathEnv)
	if !ok {
		amdSMI, _ := lookPath("amd-smi", pathEnv)
		rocmSMI, _ := lookPath("rocm-smi", pathEnv)
		if amdSMI != "" || rocmSMI != "" {
			amdGPUs(ctx, b, amdSMI, rocmSMI)
			return
		}
		none("none of nvidia-smi, amd-smi, rocm-smi is on PATH")
		return
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-q", "-x")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(firstLine(errOut.String() + "\n" + out.String()))
		none(fmt.Sprintf("%s -q -x failed: %v%s", bin, err, prefixed(": ", msg)))
		return
	}
	log, err := parseSMI(out.Bytes())
	if err != nil {
		none(fmt.Sprintf("%s -q -x printed no GPU list capture can read: %v", bin, err))
		return
	}
	addSMI(b, log)
}

func parseSMI(data []byte) (*smiLog, error) {
	var log smiLog
	d := xml.NewDecoder(bytes.NewReader(data))
	// The DOCTYPE names a DTD file; nothing is fetched or expanded.
	d.Strict = true
	if err := d.Decode(&log); err != nil {
		return nil, fmt.Errorf("not nvidia-smi XML: %w", err)
	}
	if len(log.GPUs) == 0 {
		return nil, errors.New("no <gpu> element")
	}
	return &log, nil
}

// addSMI turns one nvidia-smi listing into facts. The GPU model and memory
// are facts only when every listed GPU agrees; the count of GPUs serving
// the run only when the host has one (which GPUs an engine uses is not
// something nvidia-smi says).
func addSMI(b *builder, log *smiLog) {
	n := len(log.GPUs)
	listed := fmt.Sprintf("%d <gpu> element%s", n, plural(n))
	if a := strings.TrimSpace(log.Attached); a != "" && a != strconv.Itoa(n) {
		listed += " (attached_gpus says " + a + ")"
	}
	b.fact("metadata.gpu.host_count", strconv.Itoa(n), smiHow+": "+listed)
	if n == 1 && (log.Attached == "" || strings.TrimSpace(log.Attached) == "1") {
		b.fact("hardware.gpu_count", "1", smiHow+": the host has one GPU, so the engine serves on that one")
	} else {
		b.unknown("hardware.gpu_count", fmt.Sprintf("the host lists %s; how many serve the run is the engine's parallelism, which it did not report", listed))
	}
	if name, ok := same(log.GPUs, func(g smiGPU) string { return g.Name }); ok {
		b.fact("hardware.gpu_model", name, smiHow+": product_name of all "+listed)
	} else {
		b.unknown("hardware.gpu_model", "the host's GPUs differ ("+perGPU(log.GPUs, func(g smiGPU) string { return g.Name })+"); which ones serve the run is not known")
	}
	if mem, ok := same(log.GPUs, func(g smiGPU) string { return g.MemTotal }); ok {
		if gb, ok := mibToGB(mem); ok {
			b.fact("hardware.gpu_memory_gb", gb, smiHow+": fb_memory_usage/total "+mem+" ÷ 1024")
		} else {
			b.unknown("hardware.gpu_memory_gb", smiHow+": fb_memory_usage/total "+strconv.Quote(mem)+" is not a size in MiB")
		}
	} else {
		b.unknown("hardware.gpu_memory_gb", "the host's GPUs differ in memory ("+perGPU(log.GPUs, func(g smiGPU) string { return g.MemTotal })+")")
	}
	if known(log.Driver) {
		drv := strings.TrimSpace(log.Driver)
		how := smiHow + ": driver_version"
		if known(log.CUDA) {
			drv += " (CUDA " + strings.TrimSpace(log.CUDA) + ")"
			how += " and cuda_version"
		}
		b.fact("hardware.driver", drv, how)
	} else {
		b.unknown("hardware.driver", smiHow+" states no driver_version")
	}
	if known(log.CUDA) {
		b.fact("metadata.gpu.cuda", strings.TrimSpace(log.CUDA), smiHow+": cuda_version (the highest CUDA the driver supports)")
	}
	details := []struct {
		field, how string
		get        func(smiGPU) string
	}{
		{"metadata.gpu.mig_mode", "mig_mode/current_mig", func(g smiGPU) string { return g.MIG }},
		{"metadata.gpu.power_limit", "the current power limit (power_readings or gpu_power_readings)", smiGPU.powerLimit},
		{"metadata.gpu.max_clocks", "max_clocks sm_clock and mem_clock", func(g smiGPU) string { return pair("SM", g.MaxSM, "memory", g.MaxMem) }},
		{"metadata.gpu.applications_clocks", "applications_clocks graphics_clock and mem_clock", func(g smiGPU) string { return pair("graphics", g.AppGfx, "memory", g.AppMem) }},
	}
	for _, d := range details {
		if v, ok := same(log.GPUs, d.get); ok {
			if known(v) {
				b.fact(d.field, v, smiHow+": "+d.how)
			}
			continue
		}
		b.fact(d.field, perGPU(log.GPUs, d.get), smiHow+": "+d.how+", per GPU")
	}
}

// same returns the value every GPU has, if they agree (and there is one).
func same[G any](gs []G, get func(G) string) (string, bool) {
	if len(gs) == 0 {
		return "", false
	}
	v := strings.TrimSpace(get(gs[0]))
	for _, g := range gs[1:] {
		if strings.TrimSpace(get(g)) != v {
			return "", false
		}
	}
	return v, true
}

// perGPU lists each GPU's value after its id.
func perGPU[G interface{ id() string }](gs []G, get func(G) string) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		v := strings.TrimSpace(get(g))
		if !known(v) {
			v = "N/A"
		}
		parts[i] = g.id() + ": " + v
	}
	return strings.Join(parts, "; ")
}

func pair(an, a, bn, b string) string {
	var parts []string
	if known(a) {
		parts = append(parts, an+" "+strings.TrimSpace(a))
	}
	if known(b) {
		parts = append(parts, bn+" "+strings.TrimSpace(b))
	}
	return strings.Join(parts, ", ")
}

// mibToGB converts "81920 MiB" to GB of 1024 MiB, to one decimal: the
// figure a GPU's memory is sold by (80, 96), not 10⁹ bytes.
func mibToGB(s string) (string, bool) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok || unit != "MiB" {
		return "", false
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return "", false
	}
	gb := float64(int(v/1024*10+0.5)) / 10
	return strconv.FormatFloat(gb, 'f', -1, 64), true
}

// lookPath finds an executable in a PATH value (not the process's own, so
// a capture can be pointed at other tools).
func lookPath(name, pathEnv string) (string, bool) {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
