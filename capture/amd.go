package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// AMD GPUs are read through amd-smi (ROCm 6.1 on, the successor) or, where
// only it is installed, rocm-smi. Both give the same facts, so each tool has
// a parser into amdGPU and one recorder states them.

// amdGPU is what capture reads of one AMD GPU, values as the tool printed them.
type amdGPU struct {
	card   string  // "card0" (rocm-smi) or "gpu 0" (amd-smi)
	model  string  // marketing name
	memGB  float64 // 0 = not stated
	driver string  // "" = not stated
	power  string  // current power cap, "300 W"; "" = not stated
}

func (g amdGPU) id() string { return g.card }

// amdTool is one of the two AMD command-line tools: its arguments and the
// names it gives the fields capture reads (for the "how" of each fact).
type amdTool struct {
	name                                  string
	args                                  []string
	parse                                 func([]byte) ([]amdGPU, error)
	modelKey, memKey, driverKey, powerKey string
}

// rocmSMITool asks rocm-smi for the product name, VRAM, the driver version
// and the power cap, as JSON.
var rocmSMITool = amdTool{
	name:     "rocm-smi",
	args:     []string{"--showproductname", "--showmeminfo", "vram", "--showdriverversion", "--showmaxpower", "--json"},
	parse:    parseROCm,
	modelKey: "Card series", memKey: "VRAM Total Memory (B) ÷ 2³⁰", driverKey: "system Driver version", powerKey: "Max Graphics Package Power (W)",
}

// amdSMITool asks amd-smi static for the ASIC, VRAM, driver and limits. The
// keys are those amdsmi_cli/amdsmi_commands.py (ROCm/amdsmi) writes:
// asic.market_name, vram.size {value, unit "MB"}, driver.version and
// limit.socket_power, which is amdsmi_get_power_cap_info's power_cap (the
// cap in force, not the maximum settable).
var amdSMITool = amdTool{
	name:     "amd-smi",
	args:     []string{"static", "--asic", "--vram", "--driver", "--limit", "--json"},
	parse:    parseAMDSMI,
	modelKey: "asic.market_name", memKey: "vram.size ÷ 1024", driverKey: "driver.version", powerKey: "limit.socket_power",
}

var amdGPUFields = []string{"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.driver"}

// amdGPUs reads the AMD GPUs with amd-smi, else rocm-smi (whichever of
// bins is non-empty, in that order) and reports whether one of them could be
// read; if none, every GPU field is left unknown with each tool's reason.
func amdGPUs(ctx context.Context, b *builder, amdSMI, rocmSMI string) {
	var whys []string
	for _, try := range []struct {
		tool amdTool
		bin  string
	}{{amdSMITool, amdSMI}, {rocmSMITool, rocmSMI}} {
		if try.bin == "" {
			continue
		}
		gpus, why := runAMDTool(ctx, try.tool, try.bin)
		if why == "" {
			recordAMD(b, try.tool, gpus)
			return
		}
		whys = append(whys, why)
	}
	for _, f := range amdGPUFields {
		b.unknown(f, strings.Join(whys, "; "))
	}
}

func runAMDTool(ctx context.Context, t amdTool, bin string) ([]amdGPU, string) {
	how := t.name + " " + strings.Join(t.args, " ")
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, t.args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Sprintf("%s failed: %v%s", how, err, prefixed(": ", firstLine(errOut.String())))
	}
	gpus, err := t.parse(out.Bytes())
	if err != nil {
		return nil, fmt.Sprintf("%s printed no GPU list capture can read: %v", how, err)
	}
	return gpus, ""
}

// recordAMD states the facts of gpus read by t.
func recordAMD(b *builder, t amdTool, gpus []amdGPU) {
	how := t.name + " " + strings.Join(t.args, " ")
	n := len(gpus)
	listed := fmt.Sprintf("%d card%s", n, plural(n))
	b.fact("metadata.gpu.host_count", strconv.Itoa(n), how+": "+listed)
	if n == 1 {
		b.fact("hardware.gpu_count", "1", how+": the host has one GPU, so the engine serves on that one")
	} else {
		b.unknown("hardware.gpu_count", fmt.Sprintf("the host lists %s; how many serve the run is the engine's parallelism, which it did not report", listed))
	}
	model := func(g amdGPU) string { return g.model }
	switch name, ok := same(gpus, model); {
	case ok && name != "":
		b.fact("hardware.gpu_model", name, how+": "+t.modelKey+" of all "+listed)
	case ok:
		b.unknown("hardware.gpu_model", how+" states no "+t.modelKey)
	default:
		b.unknown("hardware.gpu_model", "the host's GPUs differ ("+perGPU(gpus, model)+"); which ones serve the run is not known")
	}
	mem := func(g amdGPU) string {
		if g.memGB <= 0 {
			return ""
		}
		return strconv.FormatFloat(g.memGB, 'f', -1, 64)
	}
	switch v, ok := same(gpus, mem); {
	case ok && v != "":
		b.fact("hardware.gpu_memory_gb", v, how+": "+t.memKey)
	case ok:
		b.unknown("hardware.gpu_memory_gb", how+" states no VRAM total")
	default:
		b.unknown("hardware.gpu_memory_gb", "the host's GPUs differ in memory ("+perGPU(gpus, mem)+")")
	}
	driver := func(g amdGPU) string { return g.driver }
	switch v, ok := same(gpus, driver); {
	case ok && v != "":
		b.fact("hardware.driver", v, how+": "+t.driverKey)
	case ok:
		b.unknown("hardware.driver", how+" states no driver version")
	default:
		b.unknown("hardware.driver", "the host's GPUs report different drivers ("+perGPU(gpus, driver)+")")
	}
	power := func(g amdGPU) string { return g.power }
	if v, ok := same(gpus, power); ok {
		if v != "" {
			b.fact("metadata.gpu.power_limit", v, how+": "+t.powerKey)
		}
	} else {
		b.fact("metadata.gpu.power_limit", perGPU(gpus, power), how+": "+t.powerKey+", per GPU")
	}
}

// roundGB rounds to one decimal, the precision GPU memory is quoted in.
func roundGB(v float64) float64 { return float64(int(v*10+0.5)) / 10 }

// parseROCm reads rocm-smi's JSON: an object of "cardN" objects and a
// "system" object, all values strings. Key spellings changed between ROCm
// versions ("Card series", "Card Series"), so keys are read without regard
// to case.
func parseROCm(data []byte) ([]amdGPU, error) {
	var doc map[string]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not rocm-smi JSON: %w", err)
	}
	get := func(obj map[string]any, key string) string {
		for k, v := range obj {
			if s, ok := v.(string); ok && strings.EqualFold(k, key) {
				return strings.TrimSpace(s)
			}
		}
		return ""
	}
	driver := get(doc["system"], "Driver version")
	if driver != "" {
		driver += " (amdgpu)"
	}
	var gpus []amdGPU
	for k, obj := range doc {
		if !strings.HasPrefix(k, "card") {
			continue
		}
		g := amdGPU{card: k, model: get(obj, "Card series"), driver: driver}
		if bytes, err := strconv.ParseFloat(get(obj, "VRAM Total Memory (B)"), 64); err == nil && bytes > 0 {
			g.memGB = roundGB(bytes / (1 << 30))
		}
		if v := get(obj, "Max Graphics Package Power (W)"); v != "" {
			g.power = v + " W"
		}
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("no card object")
	}
	sort.Slice(gpus, func(i, j int) bool { return cardNum(gpus[i].card) < cardNum(gpus[j].card) })
	return gpus, nil
}

func cardNum(s string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(s, "card"), "gpu "))
	if err != nil {
		return 1 << 30
	}
	return n
}

// amdSMIGPU is one GPU of amd-smi static --json. Values that the library
// could not read are the string "N/A" where a number or object is expected,
// so those are decoded loosely.
type amdSMIGPU struct {
	GPU  *int `json:"gpu"`
	ASIC struct {
		MarketName string `json:"market_name"`
	} `json:"asic"`
	VRAM struct {
		Size json.RawMessage `json:"size"`
	} `json:"vram"`
	Driver struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"driver"`
	Limit struct {
		SocketPower json.RawMessage `json:"socket_power"`
	} `json:"limit"`
}

// amdSMIQuantity is amd-smi's {"value": 65520, "unit": "MB"}.
type amdSMIQuantity struct {
	Value json.RawMessage `json:"value"`
	Unit  string          `json:"unit"`
}

func (q amdSMIQuantity) number() (float64, bool) {
	v, err := strconv.ParseFloat(string(q.Value), 64)
	return v, err == nil && v > 0
}

// inKernelDriver matches the driver version amd-smi reports for the amdgpu
// driver built into the kernel: the kernel's banner with its spaces removed
// ("Linuxversion6.14.0-24-generic(buildd@…)…").
var inKernelDriver = regexp.MustCompile(`^Linuxversion([^(\s]+)\(`)

// parseAMDSMI reads amd-smi static --json: a list of GPU objects (ROCm 6)
// or, from ROCm 7, an object whose "gpu_data" holds that list.
func parseAMDSMI(data []byte) ([]amdGPU, error) {
	var list []amdSMIGPU
	if err := json.Unmarshal(data, &list); err != nil {
		var doc struct {
			GPUData *[]amdSMIGPU `json:"gpu_data"`
		}
		if err2 := json.Unmarshal(data, &doc); err2 != nil || doc.GPUData == nil {
			return nil, fmt.Errorf("not amd-smi JSON (neither a list of GPUs nor an object with gpu_data): %w", err)
		}
		list = *doc.GPUData
	}
	var gpus []amdGPU
	for i, s := range list {
		n := i
		if s.GPU != nil {
			n = *s.GPU
		}
		g := amdGPU{card: "gpu " + strconv.Itoa(n), model: knownOr(s.ASIC.MarketName)}
		var size amdSMIQuantity
		if json.Unmarshal(s.VRAM.Size, &size) == nil {
			if v, ok := size.number(); ok && size.Unit == "MB" {
				// amd-smi's "MB" is the library's vram_size in MiB.
				g.memGB = roundGB(v / 1024)
			}
		}
		if v := knownOr(s.Driver.Version); v != "" {
			name := knownOr(s.Driver.Name)
			if name == "" {
				name = "amdgpu"
			}
			if m := inKernelDriver.FindStringSubmatch(v); m != nil {
				g.driver = name + " in kernel " + m[1]
			} else {
				g.driver = v + " (" + name + ")"
			}
		}
		var pw amdSMIQuantity
		if json.Unmarshal(s.Limit.SocketPower, &pw) == nil {
			if v, ok := pw.number(); ok && pw.Unit != "" {
				g.power = strconv.FormatFloat(v, 'f', -1, 64) + " " + pw.Unit
			}
		}
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("no GPU object")
	}
	sort.SliceStable(gpus, func(i, j int) bool { return cardNum(gpus[i].card) < cardNum(gpus[j].card) })
	return gpus, nil
}

// knownOr returns s trimmed, or "" where the tool wrote N/A.
func knownOr(s string) string {
	s = strings.TrimSpace(s)
	if !known(s) {
		return ""
	}
	return s
}
