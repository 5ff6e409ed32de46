package locales

import (
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/caveat"
)

// sample gives plausible machine-text values for every caveat parameter.
var sample = map[string]string{
	"figure": "output_throughput", "run": "r-3f9a2c", "n": "3", "need": "6",
	"purpose": "confidence_interval", "p": "0.2", "alpha": "0.05",
	"field": "runtime.version", "baseline": "0.23.0", "candidate": "0.25.1",
	"baseline_method": "linear", "candidate_method": "nearest-rank",
	"runs": "r-3f9a2c,r-77b01e", "output_len": "256",
	"median_s": "20.04", "threshold_s": "10", "param": "512",
	"id": "nvidia-rtx-pro-6000", "checked": "2026-08-17", "age_days": "200", "max_days": "180",
	"failed": "3", "sent": "2048", "short": "12", "completed": "2045",
	"missing": "runtime.version,workload.concurrency|workload.request_rate",
	"tool":    "vllm bench serve", "key": "output_throughput", "precision": "2 ms",
	"baseline_source": "recomputed", "candidate_source": "stated", "metrics": "duration,ttft.p99",
}

func sampleCaveat(code string) caveat.Caveat {
	c := caveat.Caveat{Code: code, Params: map[string]string{}}
	for _, p := range caveat.Params[code] {
		c.Params[p] = sample[p]
	}
	return c
}

// Every code has a sentence in every language that uses only the code's
// parameters, and renders without leftover placeholders.
func TestCaveatSentences(t *testing.T) {
	for _, code := range caveat.Codes {
		params, ok := caveat.Params[code]
		if !ok {
			t.Errorf("%s: not in caveat.Params", code)
			continue
		}
		for _, tag := range Supported() {
			l := MustMatch(tag)
			m, ok := l.l.msgs["caveat."+code]
			if !ok {
				t.Errorf("%s: no sentence for %s", tag, code)
				continue
			}
			for _, p := range placeholders(m.other) {
				if !slices.Contains(params, p) {
					t.Errorf("%s: caveat.%s uses {%s}, which the code does not have (%v)", tag, code, p, params)
				}
			}
			got, err := l.Caveat(sampleCaveat(code))
			if err != nil {
				t.Errorf("%s: %s: %v", tag, code, err)
				continue
			}
			if strings.ContainsAny(got, "{}") || strings.Contains(got, "[!") {
				t.Errorf("%s: %s: leftover placeholder in %q", tag, code, got)
			}
			if strings.Contains(got, "  ") {
				t.Errorf("%s: %s: double space in %q", tag, code, got)
			}
		}
	}
	// No sentence for a code that does not exist.
	for _, tag := range Supported() {
		for k := range MustMatch(tag).l.msgs {
			if code, ok := strings.CutPrefix(k, "caveat."); ok && !slices.Contains(caveat.Codes, code) {
				t.Errorf("%s: sentence for unknown code %q", tag, code)
			}
		}
	}
}

func TestCaveatParamKindsCoverCodes(t *testing.T) {
	for code, params := range caveat.Params {
		for _, p := range params {
			if _, ok := paramKinds[p]; !ok {
				t.Errorf("%s: parameter %q has no display kind", code, p)
			}
		}
	}
	for _, f := range Fields {
		for _, tag := range Supported() {
			if _, err := MustMatch(tag).Message("field." + f); err != nil {
				t.Errorf("%s: no label for field %s", tag, f)
			}
		}
	}
}

func TestCaveatRendering(t *testing.T) {
	cases := []struct {
		tag  string
		c    caveat.Caveat
		want string
	}{
		{"en", caveat.New(caveat.CodeSingleMeasurement, "figure", "output_throughput", "run", "r1"),
			"Single measurement: output throughput comes from one run (r1), so run-to-run variation is unknown."},
		{"zh", caveat.New(caveat.CodeSingleMeasurement, "figure", "ttft.median", "run", "r1"),
			"单次测量：TTFT 中位数只来自一次运行（r1），无法判断多次运行之间的波动。"},
		{"es", caveat.New(caveat.CodeFailuresPresent, "run", "r1", "failed", "12", "sent", "32768"),
			"Ejecución r1: fallaron 12 de 32.768 solicitudes."},
		{"es-419", caveat.New(caveat.CodeFailuresPresent, "run", "r1", "failed", "12", "sent", "32768"),
			"Ejecución r1: fallaron 12 de 32,768 solicitudes."},
		{"ja", caveat.New(caveat.CodeSaturationLatency, "median_s", "20.04", "threshold_s", "10", "param", "512"),
			"推奨動作点（スイープ値 512）ではリクエスト遅延の中央値が 20.04 秒で、対話型サービスの目安とする 10 秒を超えています。この設定はバッチ推論向けです。"},
		{"es", caveat.New(caveat.CodeNotSignificant, "figure", "e2el.median", "p", "0.2", "alpha", "0.05"),
			"La diferencia en mediana de latencia de las solicitudes no es estadísticamente significativa (p = 0,2, α = 0,05)."},
		{"en", caveat.New(caveat.CodeReferenceNotVisible, "id", "nv-ref", "checked", "2026-09-30"),
			"External reference nv-ref was no longer shown at its source when last checked on 30 September 2026. It is kept as a dated comparison."},
		// Versions stay as recorded ("0.10" is not the number 0.1); counts are numbers.
		{"es", caveat.New(caveat.CodeRuntimeDiffers, "field", "runtime.version", "baseline", "0.10", "candidate", "0.25.1"),
			"El runtime no es el mismo (versión del motor: 0.10 en la referencia, 0.25.1 en la configuración comparada)."},
		{"es", caveat.New(caveat.CodeRequestSpecDiffers, "field", "workload.input_len", "baseline", "1000", "candidate", "64"),
			"Las solicitudes no son las mismas (longitud de entrada: 1000 en la referencia, 64 en la configuración comparada)."},
		{"en", caveat.New(caveat.CodeFixedUnverified, "field", "checkpoint.revision", "baseline", "2538ded", "candidate", ""),
			"Only one side records checkpoint revision (2538ded for the baseline, not recorded for the candidate), so it cannot be shown to be held fixed."},
		{"zh", caveat.New(caveat.CodeLoadModeDiffers, "field", "workload.load_mode", "baseline", "concurrency", "candidate", "request_rate"),
			"加压方式不一致：基线为固定并发，候选配置为固定请求速率。"},
		{"ja", caveat.New(caveat.CodeProvenanceIncomplete, "run", "r1", "missing", "runtime.version,workload.concurrency|workload.request_rate"),
			"実行 r1 にはエンジンのバージョン、同時実行数またはリクエストレートの記録がないため、公開できません。"},
		// The same list of fields in another language (a list is kept per
		// locale once made), and in the first again.
		{"en", caveat.New(caveat.CodeProvenanceIncomplete, "run", "r2", "missing", "runtime.version,workload.concurrency|workload.request_rate"),
			"Run r2 does not record engine version, concurrency or request rate, so it cannot be published."},
		{"ja", caveat.New(caveat.CodeProvenanceIncomplete, "run", "r2", "missing", "runtime.version,workload.concurrency|workload.request_rate"),
			"実行 r2 にはエンジンのバージョン、同時実行数またはリクエストレートの記録がないため、公開できません。"},
	}
	for _, c := range cases {
		got, err := MustMatch(c.tag).Caveat(c.c)
		if err != nil || got != c.want {
			t.Errorf("%s %s:\n got %q, %v\nwant %q", c.tag, c.c.Code, got, err, c.want)
		}
	}
}

func TestCaveatErrors(t *testing.T) {
	en := MustMatch("en")
	bad := []caveat.Caveat{
		caveat.New("no_such_code"),
		caveat.New(caveat.CodeSingleMeasurement, "figure", "ttft"),                       // run missing
		caveat.New(caveat.CodeFailuresPresent, "run", "r1", "failed", "x", "sent", "10"), // not a number
		caveat.New(caveat.CodeReferenceStale, "id", "a", "checked", "yesterday", "age_days", "1", "max_days", "2"),
	}
	for _, c := range bad {
		if s, err := en.Caveat(c); err == nil {
			t.Errorf("%s %v: no error, got %q", c.Code, c.Params, s)
		}
	}
}

// BenchmarkCaveat: a run's provenance caveat (a list of fields) and a
// message with named arguments, as every run page writes them.
func BenchmarkCaveat(b *testing.B) {
	l := MustMatch("en")
	c := caveat.New(caveat.CodeProvenanceIncomplete, "run", "r2", "missing", "runtime.version,workload.concurrency|workload.request_rate")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Caveat(c); err != nil {
			b.Fatal(err)
		}
	}
}
