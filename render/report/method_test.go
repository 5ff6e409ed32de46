package report

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// pairedCase is a small case study: a vLLM comparison on one GPU, a
// TensorRT-LLM figure without an image, a two-replica node, a sweep.
func pairedCase() *builder {
	vllm := map[string]string{"runtime.engine": "vllm", "runtime.version": "0.25.1", "runtime.image": "vllm/vllm-openai:v0.25.1",
		"hardware.gpu_count": "1", "workload.fixed_output": "true", "workload.request_rate": "inf", "workload.input_len": "63-66",
		"workload.dataset": "one prompt repeated", "workload.thinking": "false"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	trt := with(vllm, "runtime.engine", "tensorrt-llm", "runtime.version", "1.3.0rc24", "runtime.image", "")
	sp := &spec.Spec{ID: "cs",
		Runs: map[string]spec.Selector{"baseline": {"role": "baseline"}, "fast": {"group": "fast"}, "trt_run": {"group": "trt"},
			"node_run": {"group": "n"}, "points": {"group": "sweep"}},
		Figures:     map[string]spec.Figure{"trt_throughput": {Of: "trt_run", Metric: "output_throughput"}},
		Comparisons: map[string]spec.Comparison{"scheduler_tuning": {Baseline: "baseline", Candidate: "fast", Metric: "output_throughput"}},
		Nodes:       map[string]spec.Node{"whole_node": {Groups: []string{"node_run"}}},
		Sweeps:      map[string]spec.Sweep{"saturation": {Of: "points", Parameter: "sweep.value"}},
		Labels:      map[string]map[string]string{"scheduler_tuning": {"zh": "单卡调度器调优", "es-419": "Ajuste del planificador"}},
	}
	res := &casestudy.Result{Spec: sp,
		Selections: map[string][]string{"baseline": {"r1"}, "fast": {"r2"}, "trt_run": {"r3"}, "node_run": {"r4", "r5"}, "points": {"r6", "r7"}},
		Comparisons: map[string]*casestudy.ComparisonFigure{"scheduler_tuning": {Baseline: casestudy.Value{Runs: []string{"r1"}},
			Candidate: casestudy.Value{Runs: []string{"r2"}}}},
		Figures: map[string]casestudy.Value{"trt_throughput": {Runs: []string{"r3"}}},
		Nodes:   map[string]*casestudy.NodeFigure{"whole_node": {}},
		Sweeps:  map[string]*casestudy.SweepFigure{"saturation": {}},
	}
	b := &builder{res: res, order: []string{"scheduler_tuning", "saturation", "whole_node", "trt_throughput"}, runs: []runMeta{
		{id: "r1", eff: with(vllm, "role", "baseline")}, {id: "r2", eff: with(vllm, "group", "fast")}, {id: "r3", eff: trt},
		{id: "r4", eff: vllm}, {id: "r5", eff: vllm}, {id: "r6", eff: with(vllm, "workload.concurrency", "1024")},
		{id: "r7", eff: with(vllm, "workload.concurrency", "2048")},
	}}
	return b
}

func itemOf(t *testing.T, p *page, label string) item {
	t.Helper()
	for _, g := range p.Methodology {
		for _, it := range g.Items {
			if it.Label == capFirst(label) {
				return it
			}
		}
	}
	t.Fatalf("no methodology item %q", label)
	return item{}
}

// TestMethodologyPaired: engine, version and image are stated together per
// part of the case study, so no reader can pair TensorRT-LLM with vLLM's
// version; a node's GPU count is its replicas' sum, not one replica's.
func TestMethodologyPaired(t *testing.T) {
	t.Parallel()
	b := pairedCase()
	for _, tag := range []string{"en", "zh", "ja", "es-419"} {
		l := locales.MustMatch(tag)
		p := &page{}
		b.methodology(l, p)
		rt := itemOf(t, p, l.T("method.runtime"))
		if len(rt.Parts) != 2 {
			t.Fatalf("%s: runtime %+v, want two values", tag, rt)
		}
		vllm, trt := rt.Parts[0], rt.Parts[1]
		if !strings.Contains(vllm.Text, "vLLM 0.25.1") || !strings.Contains(vllm.Text, "vllm/vllm-openai:v0.25.1") ||
			!strings.Contains(trt.Text, "TensorRT-LLM 1.3.0rc24") || !strings.Contains(trt.Text, l.T("value.image_not_recorded")) {
			t.Errorf("%s: runtime values %q / %q are not paired per run", tag, vllm.Text, trt.Text)
		}
		if !strings.Contains(vllm.Where, b.label(l, "scheduler_tuning")) || !strings.Contains(vllm.Where, b.label(l, "whole_node")) ||
			strings.Contains(vllm.Where, b.label(l, "trt_throughput")) || !strings.Contains(trt.Where, b.label(l, "trt_throughput")) {
			t.Errorf("%s: runtime values name the wrong parts: %q / %q", tag, vllm.Where, trt.Where)
		}
		// The image and the parts are one parenthetical group
		// ("vLLM 0.25.1（vllm/vllm-openai:v0.25.1、対象：…）"), never two
		// side by side ("（image）（parts）").
		for _, v := range rt.Parts {
			whole := v.Text + v.Where
			for _, two := range []string{")(", ") (", "）（"} {
				if strings.Contains(whole, two) {
					t.Errorf("%s: runtime %q has two parenthetical groups side by side", tag, whole)
				}
			}
			if strings.Count(whole, "(")+strings.Count(whole, "（") != strings.Count(whole, ")")+strings.Count(whole, "）") {
				t.Errorf("%s: runtime %q has unbalanced parentheses", tag, whole)
			}
		}
		gpus := itemOf(t, p, l.FieldLabel("hardware.gpu_count"))
		if len(gpus.Parts) != 2 || gpus.Parts[0].Text != "1" || gpus.Parts[1].Text != "2" || !strings.Contains(gpus.Parts[1].Where, b.label(l, "whole_node")) {
			t.Errorf("%s: GPU count %+v, want 1 for the single-GPU parts and 2 for the node", tag, gpus.Parts)
		}
		// One value for every part is stated alone, in the page's words.
		for field, want := range map[string]string{"workload.fixed_output": l.T("value.yes_no.true"), "workload.request_rate": l.T("value.unlimited_rate"),
			"workload.thinking": l.T("value.on_off.false"), "workload.input_len": "63–66"} {
			if it := itemOf(t, p, l.FieldLabel(field)); it.Value != want || it.Parts != nil {
				t.Errorf("%s: %s = %q (%d parts), want %q", tag, field, it.Value, len(it.Parts), want)
			}
		}
		// A label starts its line: sentence case (es "Número de GPU", not
		// "número de GPU").
		for _, g := range p.Methodology {
			for _, it := range g.Items {
				if r, _ := utf8.DecodeRuneInString(it.Label); unicode.IsLower(r) {
					t.Errorf("%s: methodology label %q starts in lower case", tag, it.Label)
				}
			}
		}
		ds := itemOf(t, p, l.FieldLabel("workload.dataset"))
		if (tag == "en") != (ds.Lang == "") {
			t.Errorf("%s: dataset recorded in English marked lang=%q", tag, ds.Lang)
		}
	}
}

// TestLabelsNeverKeys: every name of the spec, and a run, reads as a
// reader's name in every language — the spec's label where it has one,
// else a generated description — never the key itself.
func TestLabelsNeverKeys(t *testing.T) {
	t.Parallel()
	b := pairedCase()
	names := []string{"baseline", "fast", "trt_run", "node_run", "points", "trt_throughput", "scheduler_tuning", "whole_node", "saturation", "sweep.value"}
	for _, tag := range []string{"en", "zh", "ja", "es-419", "es-AR"} {
		l := locales.MustMatch(tag)
		for _, n := range names {
			got := b.label(l, n)
			if got == "" || strings.Contains(got, n) || strings.Contains(got, "[!") || strings.Contains(got, "_") {
				t.Errorf("%s: label(%s) = %q", tag, n, got)
			}
		}
		if got := b.label(l, "r3"); !strings.Contains(got, "r3") || got == "r3" {
			t.Errorf("%s: a run without a one-run selection of its own reads %q, want a word beside its id", tag, got)
		}
	}
	if got := b.label(locales.MustMatch("zh"), "scheduler_tuning"); got != "单卡调度器调优" {
		t.Errorf("zh label from the spec: %q", got)
	}
	// A regional variant reads its parent's labels, as it reads its texts.
	if got := b.label(locales.MustMatch("es-AR"), "scheduler_tuning"); got != "Ajuste del planificador" {
		t.Errorf("es-AR label from the spec's es-419: %q", got)
	}
	if got, want := b.label(locales.MustMatch("en"), "baseline"), "Baseline"; got != want {
		t.Errorf("en: selection baseline reads %q, want the glossary's %q", got, want)
	}
}

// TestLimitationsGrouped: caveats that differ only in what they concern
// read as one sentence naming all of it; a confounder the results table
// shows is not repeated; other caveats keep their own sentence.
func TestLimitationsGrouped(t *testing.T) {
	t.Parallel()
	b := pairedCase()
	hw := caveat.New(caveat.CodeHardwareDiffers, "field", "hardware.node", "baseline", "a", "candidate", "b")
	unv := []caveat.Caveat{
		caveat.New(caveat.CodeFixedUnverified, "field", "checkpoint.revision", "baseline", "", "candidate", "abc"),
		caveat.New(caveat.CodeFixedUnverified, "field", "workload.dataset", "baseline", "", "candidate", "one prompt"),
	}
	b.res.Comparisons["scheduler_tuning"].Caveats = append([]caveat.Caveat{hw}, unv...)
	b.res.Caveats = caveat.Sort(append([]caveat.Caveat{
		caveat.New(caveat.CodeSingleMeasurement, "figure", "scheduler_tuning", "run", "r1"),
		caveat.New(caveat.CodeSingleMeasurement, "figure", "trt_throughput", "run", "r3"),
		caveat.New(caveat.CodeSingleMeasurement, "figure", "output_throughput", "run", "r1"),
		caveat.New(caveat.CodeTooFewSamples, "figure", "whole_node", "n", "2", "need", "6", "purpose", "confidence_interval"),
		caveat.New(caveat.CodeTooFewSamples, "figure", "saturation", "n", "2", "need", "6", "purpose", "confidence_interval"),
		caveat.New(caveat.CodeFixedOutputLength, "output_len", "256"),
		caveat.New(caveat.CodeFixedOutputLength, "output_len", "1000"),
		caveat.New(caveat.CodeSaturationLatency, "median_s", "20.04", "threshold_s", "10", "param", "4096"),
		hw,
	}, unv...))
	for _, tag := range []string{"en", "zh", "ja", "es-419"} {
		l := locales.MustMatch(tag)
		p := &page{Comparisons: []cmpRow{{Name: "scheduler_tuning"}}}
		if err := b.limitations(l, p); err != nil {
			t.Fatal(err)
		}
		if len(p.Limitations) != 5 {
			t.Fatalf("%s: %d sentences, want 5 (measured once, too few repeats, unrecorded fields, fixed lengths, latency):\n%s", tag, len(p.Limitations), strings.Join(p.Limitations, "\n"))
		}
		once := p.Limitations[0]
		if !strings.Contains(once, b.label(l, "r1")) || !strings.Contains(once, b.label(l, "r3")) || strings.Count(once, b.label(l, "r1")) != 1 {
			t.Errorf("%s: measured-once sentence %q does not name each run once", tag, once)
		}
		if s := p.Limitations[1]; !strings.Contains(s, b.label(l, "whole_node")) || !strings.Contains(s, b.label(l, "saturation")) {
			t.Errorf("%s: too-few-repeats sentence %q", tag, s)
		}
		if s := p.Limitations[2]; !strings.Contains(s, l.FieldLabel("checkpoint.revision")) || !strings.Contains(s, l.FieldLabel("workload.dataset")) ||
			!strings.Contains(s, b.label(l, "scheduler_tuning")) {
			t.Errorf("%s: unrecorded-fields sentence %q", tag, s)
		}
		if s := p.Limitations[3]; !strings.Contains(s, l.Number(256, 0)) || !strings.Contains(s, l.Number(1000, 0)) {
			t.Errorf("%s: fixed-length sentence %q", tag, s)
		}
		for _, s := range p.Limitations {
			if strings.Contains(s, "_") || strings.Contains(s, "hardware.node") {
				t.Errorf("%s: machine name in %q", tag, s)
			}
		}
	}
}

// TestHeadersAndNotesSayItInWords: the sweep table's column of the next
// step's throughput is named in words, not "output throughput (+1)"; a
// chart's confounder note has one colon, not a label's colon followed by
// another's ("混杂因素：节点：…").
func TestHeadersAndNotesSayItInWords(t *testing.T) {
	t.Parallel()
	b := pairedCase()
	for _, tag := range []string{"en", "zh", "ja", "es-419"} {
		l := locales.MustMatch(tag)
		if h := labels(l)["next"]; strings.Contains(h, "+1") || !strings.Contains(strings.ToLower(h), strings.ToLower(l.Term("output_throughput"))) {
			t.Errorf("%s: next-step header %q", tag, h)
		}
		note := b.confounderNote(l, "hardware.node", "ref-host", "node01").String()
		colon := strings.TrimSpace(l.T("format.colon"))
		if n := strings.Count(note, colon); n != 1 || !strings.Contains(note, l.FieldLabel("hardware.node")) || !strings.Contains(note, "ref-host → node01") {
			t.Errorf("%s: confounder note %q (%d colons), want one colon, the field and both values", tag, note, n)
		}
	}
}

// TestValueLabels: a free-text value recorded in English (a dataset, a
// node, a reference's title) is shown in the spec's "value:" label of the
// page's language wherever it appears — methodology, confounders — and as
// recorded, marked lang="en", where the spec has no label for the page's
// language; a "value:" label quoting a text nothing records is an error.
func TestValueLabels(t *testing.T) {
	t.Parallel()
	b := pairedCase()
	b.res.Spec.Labels[spec.ValueLabel+"one prompt repeated"] = map[string]string{"zh": "同一提示词重复发送", "es-419": "un mismo prompt repetido"}
	b.res.Spec.Labels[spec.ValueLabel+"NVIDIA reference system"] = map[string]string{"zh": "NVIDIA 参考系统"}
	for _, c := range []struct{ tag, want, lang string }{
		{"zh", "同一提示词重复发送", ""}, {"es-419", "un mismo prompt repetido", ""}, {"es-AR", "un mismo prompt repetido", ""},
		{"ja", "one prompt repeated", "en"}, {"en", "one prompt repeated", ""},
	} {
		l := locales.MustMatch(c.tag)
		p := &page{}
		b.methodology(l, p)
		if ds := itemOf(t, p, l.FieldLabel("workload.dataset")); ds.Value != c.want || ds.Lang != c.lang {
			t.Errorf("%s: dataset %q lang=%q, want %q lang=%q", c.tag, ds.Value, ds.Lang, c.want, c.lang)
		}
	}
	zh := b.confounder(locales.MustMatch("zh"), "hardware.node", "NVIDIA reference system", "node01")
	if got := string(zh.HTML()); !strings.HasPrefix(got, "节点：NVIDIA 参考系统 → ") {
		t.Errorf("zh confounder %s, want the spec's label, unmarked", got)
	}
	ja := b.confounderNote(locales.MustMatch("ja"), "hardware.node", "NVIDIA reference system", "node01")
	if got := string(ja.HTML()); !strings.Contains(got, `<span lang="en">NVIDIA reference system</span> → `) {
		t.Errorf("ja confounder note %s, want the English text marked lang=\"en\"", got)
	}
	recorded := recordedTexts([]map[string]string{{"workload.dataset": "one prompt repeated"}}, nil)
	if err := b.checkValueLabels(recorded); err == nil || !strings.Contains(err.Error(), "NVIDIA reference system") {
		t.Errorf("a value label nothing records: %v", err)
	}
	recorded["NVIDIA reference system"] = true
	if err := b.checkValueLabels(recorded); err != nil {
		t.Error(err)
	}
}
