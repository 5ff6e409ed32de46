package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/spec"
)

func TestScanNumbers(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Throughput rose 132% to 41,651 tok/s.", []string{"132%", "41,651"}},
		{"a gain of +8.2 % and −3.5%", []string{"+8.2 %", "−3.5%"}},
		{"it was 2.32x faster", []string{"2.32x"}},
		{"性能提升 2.32 倍", []string{"2.32 倍"}},
		{"es: 17.961 y 2,32×", []string{"17.961", "2,32×"}},
		{"grouped 17\u202f961 tok/s", []string{"17\u202f961"}},
		{"-5 degrees, 1,000/1,000", []string{"-5", "1,000", "1,000"}},
		{"Ends with 42.", []string{"42"}},
		{"吞吐量为8000，提升了", []string{"8000"}},
		// Names, versions, code and URLs are not numbers.
		{"Qwen3-30B-A3B on RTX PRO 6000 with FP8 and TP1", nil},
		{"the 256-token cap, p95/p99, 2026-08-18", nil},
		{"vLLM v0.10.1 and TensorRT-LLM 1.3.0rc24 and 1.3.0", nil},
		// A number after an engine's name is its version, in every language.
		{"NVIDIA used TensorRT-LLM 1.1; en NVIDIA 1.1 era TensorRT-LLM 1.1, vLLM 0.23", []string{"1.1"}},
		{"NVIDIA 为 TensorRT-LLM 1.1，早期 vLLM 0.23 的对比", nil},
		{"run `bench --n 512` or see [the page](https://x.test/a/1000) <https://y.test/9>", nil},
		{"```\nconcurrency = 64\n```\nafter", nil},
		{"bound {{scheduler_tuning.pct}} and {{node}}", nil},
		{"1. first\n2) second\n  3. third", nil},
		{"issue #5, footnote[^2], user@42", nil},
		{"<!-- 99 -->", nil},
		{"0x1F and 3xl", nil},
	} {
		var got []string
		for _, tok := range ScanNumbers(c.text) {
			got = append(got, tok.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ScanNumbers(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	toks := ScanNumbers("line one\n\nthree has 7%\n")
	if len(toks) != 1 || toks[0].Line != 3 {
		t.Errorf("line numbers: %+v", toks)
	}
}

// demoResult is a hand-made result with the demo's scheduler-tuning and
// NVIDIA comparisons (percent changes 131.9… and 8.17…).
func demoResult() *casestudy.Result {
	cmp := func(base, cand float64) *casestudy.ComparisonFigure {
		def := figures.Definitions["output_throughput"].Formula
		return &casestudy.ComparisonFigure{
			Comparison: figures.Comparison{Metric: "output_throughput", Unit: "tok/s",
				Change: figures.NewChange(base, cand, figures.DirectionOf("output_throughput"))},
			Baseline:  casestudy.Value{Value: base, Unit: "tok/s", Definition: def},
			Candidate: casestudy.Value{Value: cand, Unit: "tok/s", Definition: def},
		}
	}
	return &casestudy.Result{
		Figures: map[string]casestudy.Value{"saturation_throughput": {Name: "saturation_throughput", Metric: "output_throughput",
			Value: 17961.4, Unit: "tok/s", Definition: figures.Definitions["output_throughput"].Formula, Basis: "single run"}},
		Comparisons: map[string]*casestudy.ComparisonFigure{
			"scheduler_tuning": cmp(7763.2, 18003.9), // +131.91%
			"nvidia_reference": cmp(5376.0, 5815.06), // +8.167%
		},
	}
}

func writeSpec(t *testing.T, extra string) *spec.Spec {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "narrative"), 0o755)
	os.WriteFile(filepath.Join(dir, "narrative", "en.md"), []byte("# Tuning\n\nThroughput rose {{scheduler_tuning.pct}} on Qwen3-30B-A3B.\n\nThat is 132% more.\n"), 0o644)
	text := `id: demo
runs: {baseline: {role: baseline}}
languages: [en]
title: {en: "Tuning on RTX PRO 6000: 2.32x"}
summary:
  en: >-
    A summary with
    {{scheduler_tuning.ratio}} and 41,651 tok/s.
narrative: {en: narrative/en.md}
` + extra
	p := filepath.Join(dir, "casestudy.yaml")
	os.WriteFile(p, []byte(text), 0o644)
	s, err := spec.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClaimsUnbound(t *testing.T) {
	s := writeSpec(t, "")
	fs, err := Claims(demoResult(), s)
	if err != nil {
		t.Fatal(err)
	}
	var got, text []string
	for _, f := range fs {
		where := filepath.Base(f.File) + ":" + f.Params["line"] + ":" + f.Params["token"]
		switch {
		case f.Check == CheckClaimsUnbound && f.Severity == Warn:
			got = append(got, where+"="+f.Params["equals"])
		case f.Check == CheckClaimsText && f.Severity == Fail:
			text = append(text, where+"~"+f.Params["nearest"])
		default:
			t.Errorf("unexpected finding %+v", f)
		}
	}
	// 2.32x and 132% equal figures at their precision: bind them. 41,651
	// tok/s is no figure of the case study: a failure naming the nearest.
	want := []string{"casestudy.yaml:4:2.32x=scheduler_tuning.ratio", "en.md:5:132%=scheduler_tuning.pct"}
	if !slices.Equal(got, want) {
		t.Errorf("unbound = %q, want %q", got, want)
	}
	if want := []string{"casestudy.yaml:8:41,651~scheduler_tuning.candidate"}; !slices.Equal(text, want) {
		t.Errorf("claims.text = %q, want %q", text, want)
	}
}

// TestClaimsText: a number with a kind (%, x, a unit) in a text is checked
// against the case study's figures of that kind, in the text's language.
func TestClaimsText(t *testing.T) {
	for _, c := range []struct {
		lang, text string
		check      string // CheckClaimsUnbound, CheckClaimsText, or "" for no finding
		figure     string // equals (unbound) or nearest (text)
	}{
		{"en", "Throughput rose by 132%.", CheckClaimsUnbound, "scheduler_tuning.pct"},
		{"en", "Throughput rose by +131.9%.", CheckClaimsUnbound, "scheduler_tuning.pct"},
		{"en", "Total TPS rose (+1.74%).", CheckClaimsText, "nvidia_reference.pct"},
		{"en", "It is 2.3x faster.", CheckClaimsUnbound, "scheduler_tuning.ratio"},
		{"en", "It is 2.5x faster.", CheckClaimsText, "scheduler_tuning.ratio"},
		{"en", "The saturation point gives 17,961 tok/s.", CheckClaimsUnbound, "saturation_throughput"},
		{"en", "The saturation point gives 17,000 tok/s.", CheckClaimsText, "saturation_throughput"},
		{"es", "El punto de saturación da 17.961 tok/s.", CheckClaimsUnbound, "saturation_throughput"},
		{"es", "Una mejora del 131,9 %.", CheckClaimsUnbound, "scheduler_tuning.pct"},
		{"es", "Una mejora del 13,9 %.", CheckClaimsText, "nvidia_reference.pct"},
		{"es-419", "Da 17,961 tok/s.", CheckClaimsUnbound, "saturation_throughput"},
		{"zh", "吞吐量为8000 tok/s。", CheckClaimsText, "scheduler_tuning.baseline"},
		{"ja", "スループットは 2.32 倍です。", CheckClaimsUnbound, "scheduler_tuning.ratio"},
		{"en", "A count: 1,000 prompts.", CheckClaimsUnbound, ""},
		{"en", "Latency 15.91 s.", CheckClaimsUnbound, ""}, // no figure in s: nothing to check against
	} {
		fs := claimsOfText(t, c.lang, c.text)
		if len(fs) != 1 {
			t.Errorf("%s %q: want one finding, got %+v", c.lang, c.text, fs)
			continue
		}
		f := fs[0]
		got := f.Params["equals"] + f.Params["nearest"]
		if f.Check != c.check || got != c.figure {
			t.Errorf("%s %q: got %s (%s), want %s (%s): %s", c.lang, c.text, f.Check, got, c.check, c.figure, f.Message)
		}
		if f.Check == CheckClaimsText && (f.Severity != Fail || !strings.Contains(f.Message, f.Params["token"]) || f.Params["computed"] == "") {
			t.Errorf("%s %q: a claims.text failure names the stated and the computed value: %+v", c.lang, c.text, f)
		}
	}
}

func TestClaimsStated(t *testing.T) {
	for _, c := range []struct {
		name, claim string
		fail        string // "" when the claim holds; else a part of the message
	}{
		{"rounded percent", `{text: headline, value: 132, unit: "%", figure: scheduler_tuning.pct}`, ""},
		{"one decimal", `{value: 131.9, unit: "%", figure: scheduler_tuning.pct}`, ""},
		{"wrong percent", `{text: headline, value: 135, unit: "%", figure: scheduler_tuning.pct}`, "131.9"},
		{"nvidia 8.2", `{value: 8.2, unit: "%", figure: nvidia_reference.pct}`, ""},
		{"nvidia 8.3", `{value: 8.3, unit: "%", figure: nvidia_reference.pct}`, "8.2"},
		{"explicit decimals", `{value: 8, decimals: 0, unit: "%", figure: nvidia_reference.pct}`, ""},
		{"explicit decimals fail", `{value: 8.2, decimals: 2, unit: "%", figure: nvidia_reference.pct}`, "8.17"},
		{"ratio", `{value: 2.32, unit: x, figure: scheduler_tuning.ratio}`, ""},
		{"quantity", `{value: 17961, unit: tok/s, figure: saturation_throughput}`, ""},
		{"quantity off", `{value: 17970, unit: tok/s, figure: saturation_throughput}`, "17961"},
		{"unit mismatch", `{value: 132, unit: tok/s, figure: scheduler_tuning.pct}`, "in %"},
		{"unknown figure", `{value: 1, unit: "%", figure: scheduler.pct}`, "not a figure"},
		// A figure named with its precision is checked at that precision.
		{"at 0 decimals", `{value: 8, unit: "%", figure: "nvidia_reference.pct:0"}`, ""},
		{"at 0 decimals off", `{value: 9, unit: "%", figure: "nvidia_reference.pct:0"}`, "the report shows +8%"},
		{"approx", `{value: 18000, unit: tok/s, figure: saturation_throughput.approx}`, ""},
		{"approx, typed exactly", `{value: 17961, unit: tok/s, figure: saturation_throughput.approx}`, "18000"},
		{"unsigned", `{value: 132, unit: "%", figure: scheduler_tuning.pct.unsigned}`, ""},
		{"unknown figure: bad precision", `{value: 8, unit: "%", figure: "nvidia_reference.pct:x"}`, "not a figure"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := writeSpec(t, "claims:\n  - "+c.claim+"\n")
			fs, err := Claims(demoResult(), s)
			if err != nil {
				t.Fatal(err)
			}
			sayable(t, fs)
			var stated []Finding
			for _, f := range fs {
				if f.Check == CheckClaimsStated {
					stated = append(stated, f)
				}
			}
			if c.fail == "" {
				if len(stated) != 0 {
					t.Fatalf("want no failure, got %+v", stated)
				}
				return
			}
			if len(stated) != 1 || stated[0].Severity != Fail || !strings.Contains(stated[0].Message, c.fail) {
				t.Fatalf("want one failure mentioning %q, got %+v", c.fail, stated)
			}
			if c.name == "wrong percent" && !strings.Contains(stated[0].Message, "135") ||
				!strings.Contains(stated[0].Message, "definition") && !strings.HasPrefix(c.name, "unknown figure") && c.name != "unit mismatch" {
				t.Errorf("the message must name both values and the definition: %s", stated[0].Message)
			}
		})
	}
}

func TestClaimSpecValidation(t *testing.T) {
	for _, claim := range []string{`{value: 1}`, `{value: .nan, figure: node}`, `{value: 1, figure: node, decimals: -1}`, `{value: 1, figure: node, lang: xx}`} {
		_, err := spec.Parse("x.yaml", []byte("id: x\nruns: {a: {role: baseline}}\nclaims:\n  - "+claim+"\n"))
		if err == nil || !strings.Contains(err.Error(), "claims[0]") {
			t.Errorf("claim %s: err = %v", claim, err)
		}
	}
}

// TestClaimsTextSuggestsPrecision: a typed number that equals a figure at
// its precision is answered with the binding that writes it that way.
func TestClaimsTextSuggestsPrecision(t *testing.T) {
	for _, c := range []struct{ text, binding string }{
		{"Throughput rose by 132%.", "scheduler_tuning.pct.unsigned"},
		{"Throughput rose (+132%).", "scheduler_tuning.pct"},
		{"Throughput rose (+131.9%).", "scheduler_tuning.pct:1"},
		{"It gained 8.2%.", "nvidia_reference.pct.unsigned:1"},
		{"About 18,000 tok/s.", "saturation_throughput.approx"},
		{"It is 2.3x faster.", "scheduler_tuning.ratio:1"},
	} {
		fs := claimsOfText(t, "en", c.text)
		if len(fs) != 1 || fs[0].Params["binding"] != c.binding || !strings.Contains(fs[0].Message, "{{"+c.binding+"}}") {
			t.Errorf("%q: want the suggestion {{%s}}, got %+v", c.text, c.binding, fs)
		}
	}
}

// claimsOfText audits the claims of a case study whose only text is a
// narrative in lang, against demoResult.
func claimsOfText(t *testing.T, lang, text string) []Finding {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "n.md"), []byte(text+"\n"), 0o644)
	p := filepath.Join(dir, "casestudy.yaml")
	os.WriteFile(p, []byte("id: demo\nruns: {baseline: {role: baseline}}\nlanguages: ["+lang+"]\ntitle: {"+lang+": T}\nsummary: {"+lang+": S}\nnarrative: {"+lang+": n.md}\n"), 0o644)
	s, err := spec.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Claims(demoResult(), s)
	if err != nil {
		t.Fatal(err)
	}
	sayable(t, fs)
	return fs
}
