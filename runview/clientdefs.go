package runview

import (
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/memo"
)

// Client names the benchmark client that produced a run, as a reader knows
// it: the tool its file names (guidellm, SGLang bench_serving, aiperf, a
// trace's client), else the client of its tool definitions, else its
// format.
func Client(r *benchrun.Run) string {
	if r.SourceTool != "" {
		return r.SourceTool
	}
	if td := figures.DefinitionsOf(r.Format); td != nil {
		return td.Tool
	}
	return r.Format
}

// fromVLLM says whether a run's file was written by vLLM's benchmark client,
// whose duration the Catalogue's definition describes.
func fromVLLM(format string) bool { return strings.HasPrefix(format, "vllm-") }

// ClientDefinition is the definition a run's page gives for one of its
// figures: the Catalogue's formula for what is recomputed, with the client
// named where the run's figure depends on it — the duration is the
// client's own timed span (the Catalogue says how vLLM's relates to the
// records' window), and where the client defines a figure it states
// differently (figures.DefinitionsOfRun: guidellm's and SGLang's end of a
// request, guidellm's percentiles and window) its definition follows,
// under its name. Never vLLM's wording on a run vLLM's client did not
// write.
func ClientDefinition(r *benchrun.Run, metric string) string {
	// The text depends on the metric and on what of the run Client,
	// DefinitionsOfRun and fromVLLM read: made once per kind of run (a
	// site gives it for every figure of every run).
	key := clientDefinitionKey{metric: metric, tool: r.SourceTool, format: r.Format,
		trt: strings.HasPrefix(r.Format, "sglang-") && r.Facts["measurement.backend"] == "trt"}
	return clientDefinitions.Get(key, func() string { return clientDefinition(r, metric) })
}

// clientDefinitionKey is what ClientDefinition's text is made of.
type clientDefinitionKey struct {
	metric, tool, format string
	trt                  bool
}

// clientDefinitions keeps ClientDefinition's texts.
var clientDefinitions memo.Map[clientDefinitionKey, string]

func clientDefinition(r *benchrun.Run, metric string) string {
	m, ok := figures.ParseMetric(metric)
	if !ok {
		return ""
	}
	client := Client(r)
	td := figures.DefinitionsOfRun(r)
	def := m.Formula()
	if m.Metric.Name == "duration" && !fromVLLM(r.Format) {
		def = client + "'s own timed span as its file states it; without one, the records' window (first send to last completion)"
		if td != nil && td.Window != "" {
			def += "; " + td.Window
		}
		return def
	}
	if td == nil {
		return def
	}
	var notes []string
	if m.Metric.Name == "e2el" && td.E2E != "" {
		notes = append(notes, td.Tool+"'s end-to-end latency: "+td.E2E)
	}
	if m.P != 0 && td.PercentileName != "" {
		if strings.Contains(td.PercentileName, td.Tool) {
			notes = append(notes, td.PercentileName) // it names its tool
		} else {
			notes = append(notes, td.Tool+"'s percentile: "+td.PercentileName)
		}
	}
	if len(notes) == 0 {
		return def
	}
	return def + "; " + strings.Join(notes, "; ")
}
