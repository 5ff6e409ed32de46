package audit

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchledger/benchledger/ingest/launch"
)

// engine is a serving engine the audit recognises in texts. ID is the
// value runtime.engine holds (provenance.md); which launch commands and
// images name it is ingest/launch's table (launch.Engines).
type engine struct {
	ID string
	// Text matches the engine's name as a case study writes it.
	Text *regexp.Regexp
}

// engines: names are matched on word boundaries.
var engines = []engine{
	{"vllm", regexp.MustCompile(`(?i)\bvLLM\b`)},
	{"sglang", regexp.MustCompile(`(?i)\bSGLang\b`)},
	{"tensorrt-llm", regexp.MustCompile(`(?i)\bTensorRT[- ]LLM\b|\bTRT[- ]LLM\b`)},
	{"tgi", regexp.MustCompile(`\bTGI\b|(?i)\bText Generation Inference\b`)},
	{"lmdeploy", regexp.MustCompile(`(?i)\bLMDeploy\b`)},
	{"llama.cpp", regexp.MustCompile(`(?i)\bllama\.cpp\b`)},
	{"ollama", regexp.MustCompile(`(?i)\bOllama\b`)},
}

// normEngine maps the spellings of runtime.engine to an engine id.
func normEngine(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "trtllm", "trt-llm", "tensorrt_llm", "tensorrt-llm", "tensorrt llm":
		return "tensorrt-llm"
	case "text-generation-inference":
		return "tgi"
	case "llamacpp", "llama-cpp":
		return "llama.cpp"
	}
	return v
}

// enginesIn lists the engines a launch command or image names, sorted.
func enginesIn(s string) []string { return launch.Engines(s) }

// imageVersion is the version an image reference's tag states
// ("vllm/vllm-openai:v0.10.1" → "0.10.1"), or "" when the tag is not a
// version (latest, nightly, a digest).
func imageVersion(image string) string {
	image, _, _ = strings.Cut(image, "@")
	i := strings.LastIndexByte(image, ':')
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	tag := strings.TrimPrefix(strings.TrimPrefix(image[i+1:], "v"), "V")
	if tag == "" || tag[0] < '0' || tag[0] > '9' || !strings.Contains(tag, ".") {
		return ""
	}
	return tag
}

// sameVersion: two version strings name one release when equal, or when
// one extends the other at a boundary ("0.11.0" and "0.11.0+cu128",
// "0.11.0-cuda12"); "0.11" does not match "0.11.1".
func sameVersion(a, b string) bool {
	a = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(a)), "v")
	b = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(b)), "v")
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if !strings.HasPrefix(b, a) || a == "" {
		return false
	}
	switch b[len(a)] {
	case '+', '-', '_', ' ':
		return true
	}
	return false
}

// runEngineFindings compares a run's runtime.engine and runtime.version with
// the engine its launch command and image name, and the version its image
// tag states.
func runEngineFindings(eff map[string]string) []Finding {
	var out []Finding
	stated := normEngine(eff["runtime.engine"])
	if stated == "" {
		return nil
	}
	for _, field := range []string{"runtime.server_args", "runtime.image"} {
		v := eff[field]
		if v == "" {
			continue
		}
		named := enginesIn(v)
		if len(named) == 0 || contains(named, stated) {
			continue
		}
		out = append(out, Finding{Check: CheckEngine, Severity: Fail,
			Message: fmt.Sprintf("the run's %s names %s, but its runtime.engine is %s: the figures are attributed to an engine that did not serve them, or the command is another run's",
				field, strings.Join(named, " and "), eff["runtime.engine"]),
			Params: map[string]string{"field": field, "named": strings.Join(named, ","), "engine": eff["runtime.engine"], "value": v}, MessageKey: MsgEngineNamed})
	}
	// The client's backend (vllm bench serve --backend) names the API it
	// spoke; "vllm" is often used against any OpenAI-compatible server, so
	// a mismatch is a warning, not a failure.
	if b := normEngine(eff["measurement.backend"]); b != "" && b != stated && knownEngine(b) {
		out = append(out, Finding{Check: CheckEngine, Severity: Warn,
			Message: fmt.Sprintf("the result file's client backend is %s, but the run's runtime.engine is %s: check which engine served the run",
				eff["measurement.backend"], eff["runtime.engine"]),
			Params: map[string]string{"field": "measurement.backend", "named": b, "engine": eff["runtime.engine"]}, MessageKey: MsgEngineBackend})
	}
	if img, ver := eff["runtime.image"], eff["runtime.version"]; img != "" && ver != "" {
		named := enginesIn(img)
		if tag := imageVersion(img); tag != "" && (len(named) == 0 || contains(named, stated)) && !sameVersion(tag, ver) {
			out = append(out, Finding{Check: CheckEngine, Severity: Fail,
				Message: fmt.Sprintf("the run's image %s is tagged %s, but its runtime.version is %s: one of them is wrong", img, tag, ver),
				Params:  map[string]string{"field": "runtime.image", "image_version": tag, "version": ver}, MessageKey: MsgEngineImage})
		}
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func knownEngine(id string) bool {
	for _, e := range engines {
		if e.ID == id {
			return true
		}
	}
	return false
}
