package spec

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const good = `id: demo
campaign: c1
runs:
  baseline: {role: baseline}
  tuned: {role: tuned}
  node1: {group: node-run-1}
  single: {role: reference}
figures:
  baseline_tput: {of: baseline, metric: output_throughput}
nodes:
  node: {groups: [node1], reference: single}
comparisons:
  tuning: {baseline: baseline, candidate: tuned, metric: output_throughput, intended: [runtime.server_args]}
  vs_ref: {baseline: "ref:nvidia-x", candidate: single, metric: output_throughput}
  node_vs: {baseline: "node:node", candidate: tuned, metric: output_throughput}
headline: [tuning, node]
`

func TestParseGood(t *testing.T) {
	s, err := Parse("cs.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs["node1"]["group"] != "node-run-1" || s.Comparisons["tuning"].Intended[0] != "runtime.server_args" {
		t.Fatalf("parsed %+v", s)
	}
	if s, err := Parse("cs.yaml", []byte(good+"link_hosts: [docs.vllm.ai, 127.0.0.1]\n")); err != nil || len(s.LinkHosts) != 2 {
		t.Fatalf("link_hosts: %v %v", s, err)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, edit, want string }{
		{"unknown key", "id: demo\nbogus: 1\n", "bogus"},
		{"unknown selection", strings.Replace(good, "of: baseline,", "of: nosuch,", 1), `no selection named "nosuch"`},
		{"unknown metric", strings.Replace(good, "metric: output_throughput}\nnodes", "metric: speed}\nnodes", 1), `unknown metric "speed"`},
		{"unknown intended field", strings.Replace(good, "runtime.server_args", "runtime.serverargs", 1), "unknown provenance field"},
		{"unknown node", strings.Replace(good, `"node:node"`, `"node:other"`, 1), `no node named "other"`},
		{"headline unknown", strings.Replace(good, "[tuning, node]", "[tuning, nope]", 1), `"nope" is not a figure`},
		{"duplicate name", strings.Replace(good, "  node: {groups", "  tuning: {groups", 1) + "", "also used"},
		{"bad selector value", strings.Replace(good, "{role: tuned}", "{role: winner}", 1), "role"},
		{"empty", "", "empty"},
		{"link host with a scheme", good + "link_hosts: [https://docs.vllm.ai]\n", `link_hosts[0] "https://docs.vllm.ai"`},
		{"link host wildcard", good + "link_hosts: [docs.vllm.ai, '*.example.com']\n", `link_hosts[1]`},
	}
	for _, c := range cases {
		_, err := Parse("cs.yaml", []byte(c.edit))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "cs.yaml") {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
	}
}

func TestDefaultLanguagesWithoutTexts(t *testing.T) {
	s, err := Parse("cs.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Languages, DefaultLanguages) {
		t.Errorf("languages %v, want the default %v", s.Languages, DefaultLanguages)
	}
	if s.NarrativePath("en") != "" {
		t.Errorf("NarrativePath without narratives = %q", s.NarrativePath("en"))
	}
	s.Languages[0] = "xx"
	if DefaultLanguages[0] != "en" {
		t.Error("Parse shares DefaultLanguages with the spec")
	}
}

// textSpec writes a spec with texts and one narrative file into a
// temporary folder and returns the folder and the spec's path.
func textSpec(t *testing.T, texts string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "narrative"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "narrative", "zh.md"), []byte("## 结果\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "casestudy.yaml")
	if err := os.WriteFile(path, []byte(good+texts), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

const texts = `languages: [zh, en]
title: {en: Tuning, zh: 调优}
summary: {en: "From {{tuning.baseline}} to {{tuning.candidate}}."}
narrative: {zh: narrative/zh.md}
`

func TestTexts(t *testing.T) {
	dir, path := textSpec(t, texts)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Languages, []string{"zh", "en"}) || s.Title["zh"] != "调优" || !strings.Contains(s.Summary["en"], "{{tuning.baseline}}") {
		t.Fatalf("parsed languages %v, titles %v, summaries %v", s.Languages, s.Title, s.Summary)
	}
	if got, want := s.NarrativePath("zh"), filepath.Join(dir, "narrative", "zh.md"); got != want {
		t.Errorf("NarrativePath(zh) = %q, want %q", got, want)
	}
	if got := s.NarrativePath("en"); got != "" {
		t.Errorf("NarrativePath(en) = %q, want none", got)
	}

	// A relative spec path resolves against the working directory.
	t.Chdir(dir)
	s, err = Load("casestudy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.NarrativePath("zh"); !filepath.IsAbs(got) || got != filepath.Join(dir, "narrative", "zh.md") {
		t.Errorf("NarrativePath(zh) from a relative spec path = %q", got)
	}
}

// TestLabels: labels name selections, figures, comparisons and sweep
// parameters, and Label falls back to "" for a language without one.
func TestLabels(t *testing.T) {
	t.Parallel()
	_, path := textSpec(t, texts+"labels: {tuning: {en: Scheduler tuning, zh: 调度器调优}, baseline: {en: Baseline}, \"value:NVIDIA reference system\": {zh: NVIDIA 参考系统}}\n")
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Label("tuning", "zh"); got != "调度器调优" {
		t.Errorf("Label(tuning, zh) = %q", got)
	}
	if got := s.Label("baseline", "zh"); got != "" {
		t.Errorf("Label(baseline, zh) = %q, want none", got)
	}
	// A label of a recorded value names no spec name: the report checks it.
	if got := s.ValueLabels(); len(got) != 1 || got[0] != "NVIDIA reference system" || s.Label(ValueLabel+got[0], "zh") != "NVIDIA 参考系统" {
		t.Errorf("ValueLabels = %q", got)
	}
}

func TestTextErrors(t *testing.T) {
	cases := []struct{ name, texts, want string }{
		{"missing title", strings.Replace(texts, "title: {en: Tuning, zh: 调优}", "title: {en: Tuning}", 1), `no title for language "zh"`},
		{"empty title", strings.Replace(texts, "zh: 调优", `zh: " "`, 1), "title.zh: empty"},
		{"default languages need titles", "title: {en: Tuning}\n", `no title for language "ja"`},
		{"summary alone asks for titles", "summary: {en: Tuning}\n", `no title for language "en"`},
		{"unsupported language", strings.Replace(texts, "[zh, en]", "[zh, en, fr]", 1), `unsupported language "fr"`},
		{"region tag", strings.Replace(texts, "[zh, en]", "[zh-CN, en]", 1), `unsupported language "zh-CN"`},
		{"duplicate language", strings.Replace(texts, "[zh, en]", "[zh, en, zh]", 1), `"zh" is listed twice`},
		{"title not in languages", strings.Replace(texts, "zh: 调优}", "zh: 调优, ja: 調整}", 1), `title.ja: "ja" is not in languages`},
		{"summary not in languages", strings.Replace(texts, "summary: {en:", "summary: {es-419:", 1), `summary.es-419: "es-419" is not in languages`},
		{"summary with unsupported tag", strings.Replace(texts, "summary: {en:", "summary: {pt:", 1), `summary.pt: unsupported language "pt"`},
		{"narrative not in languages", strings.Replace(texts, "narrative: {zh:", "narrative: {es:", 1), `narrative.es: "es" is not in languages`},
		{"narrative missing", strings.Replace(texts, "narrative/zh.md", "narrative/zh-missing.md", 1), "narrative/zh-missing.md not found"},
		{"narrative is a folder", strings.Replace(texts, "narrative/zh.md", "narrative", 1), "is not a regular file"},
		{"label of an unknown name", texts + "labels: {tunning: {en: Scheduler tuning}}\n", `labels.tunning: no selection, figure, comparison, sweep, node or sweep parameter named "tunning"`},
		{"label not in languages", texts + "labels: {tuning: {ja: 調整}}\n", `labels.tuning.ja: "ja" is not in languages`},
		{"empty label", texts + "labels: {tuning: {en: \" \"}}\n", "labels.tuning.en: empty"},
		{"value label without text", texts + "labels: {\"value: \": {en: x}}\n", `labels.value: : no recorded text after "value:"`},
		{"value label not in languages", texts + "labels: {\"value:a node\": {ja: ノード}}\n", `labels.value:a node.ja: "ja" is not in languages`},
	}
	for _, c := range cases {
		_, path := textSpec(t, c.texts)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
	}
}

// Binding suffixes by kind (the renderer's names; see docs/casestudy.md).
var (
	comparisonSuffixes = []string{"baseline", "candidate", "abs", "pct", "ratio"}
	nodeSuffixes       = []string{"window", "requests", "tokens", "failed", "replicas", "sent", "max", "sum_of_rates", "overstatement", "runs", "failed_all", "completed_min"}
	referencedSuffixes = []string{"efficiency", "single"} // nodes with a reference run only
	sweepSuffixes      = []string{"saturation.throughput", "saturation.latency", "saturation.param",
		"next.throughput", "next.latency", "step.gain", "step.latency_growth"}
	refSuffixes      = []string{"value", "captured", "checked"}
	workloadSuffixes = []string{"input_len", "output_len", "request_count", "concurrency"} // when the selection's runs share them
)

// bindingNames lists every {{name}} a text of the spec may use.
func bindingNames(s *Spec) map[string]bool {
	names := map[string]bool{}
	add := func(base string, suffixes ...string) {
		for _, x := range suffixes {
			names[base+"."+x] = true
		}
	}
	for n := range s.Figures {
		names[n] = true
		add(n, "precise", "min", "max", "n") // min, max, n: figures of repeats
	}
	for n, c := range s.Comparisons {
		add(n, comparisonSuffixes...)
		for _, side := range []string{c.Baseline, c.Candidate} {
			if id, ok := strings.CutPrefix(side, "ref:"); ok {
				add("ref."+id, refSuffixes...)
			}
		}
	}
	for n, nd := range s.Nodes {
		names[n] = true
		add(n, nodeSuffixes...)
		if nd.Reference != "" {
			add(n, referencedSuffixes...)
		}
	}
	for n := range s.Sweeps {
		add(n, sweepSuffixes...)
	}
	for n := range s.Runs {
		add(n, workloadSuffixes...)
	}
	return names
}

var bindingRE = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

var codeSpanRE = regexp.MustCompile("`[^`\n]*`")

// modifierRE is a binding's precision (docs/casestudy.md "Precision").
var modifierRE = regexp.MustCompile(`(\.approx|\.unsigned)*(:[0-6])?$`)

// cjkSpacedRE: spaces, or one line break (a soft break, read as a space),
// between a binding and CJK text; a paragraph break is not a space.
var cjkSpacedRE = regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}ー](?:[ \t]+|\n)\{\{[^{}]*\}\}|\{\{[^{}]*\}\}(?:[ \t]+|\n)[\p{Han}\p{Hiragana}\p{Katakana}ー]`)

// notData are the digit strings the demo's texts may contain without a
// binding: names of products, versions and request specs, and percentile
// names — none of them a figure of the data.
var notData = []string{
	"Qwen3-30B-A3B", "Qwen3", "RTX PRO 6000", "TensorRT-LLM", "1.3.0rc24", "1.1", "1,000/1,000", "vLLM 0.25.1",
	"NVFP4", "FP8", "TP1", "p95/p99", "P95/P99", "256-token", "256 token", "256 トークン", "256 tokens",
}

// TestDemoTexts checks the texts of the demo case study: every language has
// a title, a summary and a narrative; every {{binding}} names something the
// spec computes; no number is typed that is not a binding.
func TestDemoTexts(t *testing.T) {
	s, err := Load("../results/qwen3-batch/casestudy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"en", "zh", "ja", "es-419"}; !slices.Equal(s.Languages, want) {
		t.Errorf("languages %v, want %v", s.Languages, want)
	}
	known := bindingNames(s)
	used := map[string]map[string]bool{}
	for _, lang := range s.Languages {
		if s.Summary[lang] == "" {
			t.Errorf("%s: no summary", lang)
		}
		p := s.NarrativePath(lang)
		if p == "" {
			t.Errorf("%s: no narrative", lang)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		used[lang] = map[string]bool{}
		texts := map[string]string{"title": s.Title[lang], "summary": s.Summary[lang], filepath.Base(p): string(data)}
		for where, text := range texts {
			for _, m := range bindingRE.FindAllStringSubmatch(text, -1) {
				name := modifierRE.ReplaceAllString(m[1], "")
				if !known[name] {
					t.Errorf("%s %s: unknown binding {{%s}}", lang, where, m[1])
				}
				if where != "title" && where != "summary" {
					used[lang][name] = true
				}
			}
			if lang == "zh" || lang == "ja" {
				// The report spaces values from CJK text itself (as the
				// catalogues rely on); a typed space would double it
				// after units such as 秒 or dates ending in 日.
				if m := cjkSpacedRE.FindString(text); m != "" {
					t.Errorf("%s %s: a space between a binding and CJK text: %q", lang, where, m)
				}
			}
			rest := bindingRE.ReplaceAllString(text, "")
			if strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
				t.Errorf("%s %s: malformed binding", lang, where)
			}
			// Code quotes what was run (images, server arguments), as the
			// audit reads it: not figures of the data.
			rest = codeSpanRE.ReplaceAllString(rest, "")
			for _, ok := range notData {
				rest = strings.ReplaceAll(rest, ok, "")
			}
			if i := strings.IndexFunc(rest, func(r rune) bool { return r >= '0' && r <= '9' }); i >= 0 {
				t.Errorf("%s %s: unbound number near %q", lang, where, around(rest, i))
			}
		}
	}
	// The narratives tell one case: each binds the same figures.
	for _, lang := range s.Languages {
		for n := range used["en"] {
			if !used[lang][n] {
				t.Errorf("%s narrative: does not bind {{%s}}, which en does", lang, n)
			}
		}
		for n := range used[lang] {
			if !used["en"][n] {
				t.Errorf("%s narrative: binds {{%s}}, which en does not", lang, n)
			}
		}
	}
}

// around returns the text around byte i, cut at rune boundaries.
func around(s string, i int) string {
	start := max(0, i-30)
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	r := []rune(s[start:])
	return string(r[:min(len(r), 40)])
}

func TestLayoutChecks(t *testing.T) {
	ok := good + "layout:\n  tables: [tuning, node]\n  charts: [node, tuning, \"latency:baseline\", \"pareto:baseline\", \"cdf:tuning\", \"ttft-input:tuned\", \"timeline:tuned\"]\n"
	if _, err := Parse("cs.yaml", []byte(ok)); err != nil {
		t.Fatalf("a valid layout: %v", err)
	}
	for _, c := range []struct{ layout, want string }{
		{"layout:\n  tables: [nosuch]\n", `layout.tables: "nosuch"`},
		{"layout:\n  charts: [baseline_tput]\n", `layout.charts: "baseline_tput"`},
		{"layout:\n  charts: [\"latency:nosuch\"]\n", `no selection named "nosuch"`},
		{"layout:\n  charts: [\"pareto:tuning\"]\n", `"tuning" is neither a sweep nor a selection`},
		{"layout:\n  charts: [\"cdf:baseline\"]\n", `"baseline" is not a comparison`},
		{"layout:\n  charts: [\"cdf:vs_ref\"]\n", `comparison vs_ref has a reference or node side`},
		{"layout:\n  charts: [\"ttft-input:nosuch\"]\n", `no selection named "nosuch"`},
		{"layout:\n  charts: [\"timeline:nosuch\"]\n", `no selection named "nosuch"`},
	} {
		if _, err := Parse("cs.yaml", []byte(good+c.layout)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.layout, err, c.want)
		}
	}
}

func TestSLOAndPriceChecks(t *testing.T) {
	ok := good + "slo: {ttft_ms: 2000, tpot_ms: 50, attainment_pct: 90}\nprice: {per_gpu_hour: 2.49, currency: USD, date: 2026-08-01}\n" +
		"sweeps:\n  load: {of: tuned, parameter: workload.concurrency}\n"
	s, err := Parse("cs.yaml", []byte(strings.Replace(ok, "baseline_tput: {of: baseline, metric: output_throughput}",
		"baseline_tput: {of: baseline, metric: output_throughput}\n  good: {of: baseline, metric: goodput}", 1)))
	if err != nil {
		t.Fatalf("a valid SLO and price: %v", err)
	}
	if th := s.SLO.Thresholds(); th.TTFT != 2 || th.TPOT != 0.05 || th.E2EL != 0 || s.SLO.AttainmentPct != 90 || s.Price.Currency != "USD" {
		t.Errorf("parsed %+v %+v", s.SLO, s.Price)
	}
	for _, c := range []struct{ extra, want string }{
		{"slo: {ttft_ms: -1}\n", "slo.ttft_ms"},
		{"slo: {attainment_pct: 90}\n", "no threshold"},
		{"slo: {ttft_ms: 100, attainment_pct: 101}\n", "slo.attainment_pct"},
		{"slo: {ttft: 100}\n", "field ttft not found"},
		{"price: {per_gpu_hour: 2}\n", "currency"},
		{"price: {per_gpu_hour: 2, currency: USD, date: soon}\n", "date"},
		{"price: {per_gpu_hour: -2, currency: USD, date: 2026-08-01}\n", "per_gpu_hour"},
	} {
		if _, err := Parse("cs.yaml", []byte(good+c.extra)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.extra, err, c.want)
		}
	}
	// goodput and slo_attainment need an SLO.
	for _, m := range []string{"goodput", "slo_attainment"} {
		bad := strings.Replace(good, "metric: output_throughput}", "metric: "+m+"}", 1)
		if _, err := Parse("cs.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "needs an SLO") {
			t.Errorf("%s without an SLO: %v", m, err)
		}
	}
}
