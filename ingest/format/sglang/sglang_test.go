package sglang_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/sglang"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/ingest/textread"
	"github.com/benchledger/benchledger/internal/testshared"
	"github.com/benchledger/benchledger/store"
)

// sgParse runs the SGLang parser over data and collects what it emits.
func sgParse(t testing.TB, name string, data []byte) ([]*benchrun.Run, error) {
	t.Helper()
	// As the batch reads it: a file whose every line is bad is rejected.
	return ingesttest.Settled(sglang.New(), name, data)
}

func sgMustParse(t *testing.T, name string, data []byte) []*benchrun.Run {
	t.Helper()
	runs, err := sgParse(t, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return runs
}

func sgFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sgStated(t *testing.T, r *benchrun.Run, metric string) benchrun.Stated {
	t.Helper()
	s, ok := r.StatedValue(metric)
	if !ok {
		t.Fatalf("%s: no stated %s; have %v", r.Location, metric, r.Stated)
	}
	return s
}

func sgMetrics(r *benchrun.Run) []string {
	var out []string
	for _, s := range r.Stated {
		out = append(out, s.Metric)
	}
	return out
}

func sgCheckFacts(t *testing.T, r *benchrun.Run, want map[string]string, absent ...string) {
	t.Helper()
	for k, v := range want {
		if r.Facts[k] != v {
			t.Errorf("%s: fact %s = %q, want %q", r.Location, k, r.Facts[k], v)
		}
	}
	for _, k := range absent {
		if v, ok := r.Facts[k]; ok {
			t.Errorf("%s: fact %s = %q should not be stated", r.Location, k, v)
		}
	}
}

// sgMS converts milliseconds as the parser does, at run time (a constant
// expression would be exact, not float64 division).
func sgMS(v float64) float64 { return v / 1000 }

// sgAudit recomputes a run's figures from its records and checks its
// stated figures against them, as the audit does for a JSON source.
func sgAudit(r *benchrun.Run) figures.StatedAudit {
	dur, _ := r.StatedValue("duration")
	f := figures.Recompute(r.Requests, dur.Value, 0)
	return figures.CheckStated(r.Stated, f, figures.StatedOptions{SourceMethod: r.PercentileMethod})
}

func TestSGLangIdentity(t *testing.T) {
	p, ok := registry.ByID("sglang-bench-serving")
	if !ok {
		t.Fatalf("sglang-bench-serving is not registered: %v", registry.IDs())
	}
	if p.Describe() != "SGLang bench_serving JSONL result (one run per line)" {
		t.Errorf("Describe %q", p.Describe())
	}
	// vLLM's JSON parser is sniffed first; it must not claim SGLang lines.
	ids := registry.IDs()
	if slices.Index(ids, "sglang-bench-serving") < slices.Index(ids, "vllm-serve-json") {
		t.Errorf("detection order %v", ids)
	}
}

// sgSampleLine is what one line of a real sample states.
type sgSampleLine struct {
	dataset, rate                   string
	completed, in, out, retokenized int64
	duration, tput                  float64
	meanE2E, medianE2E              float64 // ms, as written
	medianTTFT, medianITL           float64 // ms, as written
}

// The values below are copied from the sample files (FORMATS.md §2: the
// Dec-2024 minimal key set, summary only).
var sgSamples = map[string][]sgSampleLine{
	"bench_serving_2024-12_offline_inf.jsonl": {
		{"random", "inf", 3000, 1525074, 1544818, 1541296, 341.72106836596504, 4520.698730654741, 224918.79882259612, 243517.67949794885, 91282.20983641222, 159.01175909675658},
		{"random", "inf", 4000, 2034177, 1029594, 1027770, 294.8187796440907, 3492.2944910189917, 208761.42100593017, 223212.66481594648, 114572.18416058458, 258.85073677636683},
		{"random", "inf", 800, 1637669, 818620, 816960, 399.0762558989227, 2051.287161036558, 271296.77870080894, 299022.09998399485, 61606.2875110656, 120.47930993139744},
		{"random", "inf", 1500, 3097487, 760205, 758090, 459.340072668856, 1654.9938601765348, 302930.2032211299, 314937.3645974556, 186501.87655747868, 133.96903011016548},
		{"random", "inf", 1500, 3097487, 760205, 758259, 459.93267366313376, 1652.8614806713933, 300346.1933822163, 309622.22571345046, 179526.87287854496, 133.00489401444793},
		{"random", "inf", 6000, 777987, 1529561, 1526638, 230.06317997979932, 6648.4389207099675, 156461.67297778238, 173721.9173015328, 33223.93286949955, 187.56905349437147},
		{"sharegpt", "inf", 2000, 448102, 383064, 381756, 97.2262002939824, 3939.9256459856624, 51991.706012124894, 48729.666985571384, 18726.9222245086, 85.59322194196284},
	},
	"bench_serving_2024-12_rate_sweep.jsonl": {
		{"random", "1", 300, 152612, 160347, 160192, 298.3675805060193, 537.4142851849319, 7840.616212638561, 7819.046192569658, 85.74514742940664, 13.638956006616354},
		{"random", "2", 600, 308748, 308712, 308471, 312.6791094408836, 987.3125216200807, 8540.55180882259, 8561.391707509756, 87.55627297796309, 14.830046566203237},
		{"random", "4", 1200, 615860, 607936, 605771, 296.8566754250787, 2047.9108281108272, 12896.330808075727, 12534.854034543969, 106.06311704032123, 19.419891061261296},
		{"random", "8", 2400, 1222995, 1218922, 1215958, 346.7753648299258, 3515.0190112201713, 52064.764045071985, 50316.21736683883, 191.41179136931896, 70.76324708759785},
		{"random", "16", 3200, 1629242, 1642637, 1638332, 383.073250005953, 4288.049348197696, 149037.25147111146, 159469.04255752452, 614.2499720444903, 179.12118090316653},
		{"sharegpt", "4", 1200, 269081, 226901, 226285, 304.126221193932, 746.0750970739618, 3201.4825566502986, 1988.5655880207196, 68.27884959056973, 13.841505162417889},
		{"sharegpt", "8", 2400, 540779, 461874, 460108, 313.96794493007474, 1471.0864833760852, 5302.550664339797, 3291.7507080128416, 83.16566958092153, 17.667690059170127},
	},
}

func TestSGLangSamples(t *testing.T) {
	for _, path := range testshared.Samples(t, "sglang") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			det := registry.Detect(path, data[:min(len(data), format.HeadSize)])
			if det.Parser == nil || det.Parser.ID() != "sglang-bench-serving" {
				t.Fatalf("Detect: %+v", det)
			}
			want, known := sgSamples[name]
			runs := sgMustParse(t, name, data)
			if !known {
				t.Logf("a sample added later: %d runs parsed", len(runs))
				return
			}
			if len(runs) != len(want) {
				t.Fatalf("%d runs, want %d", len(runs), len(want))
			}
			for i, w := range want {
				r := runs[i]
				if r.Rejection != "" || r.Ordinal != i || r.Location != textread.At(i+1) {
					t.Fatalf("run %d: ordinal %d location %q rejection %q", i, r.Ordinal, r.Location, r.Rejection)
				}
				if r.Format != "sglang-bench-serving" || r.FormatVariant != "bench_serving.py (2024 minimal key set)" ||
					r.SourceTool != "sglang bench_serving" || r.PercentileMethod != "linear" || r.Clock != benchrun.ClockNone {
					t.Errorf("%s: format %q variant %q tool %q method %q clock %q", r.Location, r.Format, r.FormatVariant, r.SourceTool, r.PercentileMethod, r.Clock)
				}
				// Failures are invisible without --output-details.
				if r.Completed != w.completed || r.Failed != -1 || r.HasRequests || r.RequestCount() != w.completed {
					t.Errorf("%s: completed %d failed %d records %v", r.Location, r.Completed, r.Failed, r.HasRequests)
				}
				if !ingesttest.HasNote(r, "failed requests are unknown, not zero") || !ingesttest.HasNote(r, "no date, model or request count") {
					t.Errorf("%s: notes %q", r.Location, r.Notes)
				}
				sgCheckFacts(t, r, map[string]string{"workload.dataset": w.dataset, "workload.request_rate": w.rate,
					"measurement.backend": "sglang", "measurement.client": "sglang bench_serving"},
					"workload.concurrency", "workload.input_len", "workload.output_len", "workload.request_count",
					"runtime.engine", "checkpoint.model_id", "measurement.date")
				// random_range_ratio 0.0: lengths were drawn, not fixed; on
				// ShareGPT the random_* values are unused defaults.
				if r.Extra["random_input_len"] != "1024" && w.dataset == "sharegpt" || r.Extra["random_range_ratio"] != "0.0" ||
					r.Extra["max_concurrency"] != "null" || r.Extra["sharegpt_output_len"] != "null" {
					t.Errorf("%s: extra %v", r.Location, r.Extra)
				}
				if w.dataset == "random" && !ingesttest.HasNote(r, "random_range_ratio 0.0") {
					t.Errorf("%s: no note on drawn lengths: %q", r.Location, r.Notes)
				}
				if r.Extra["total_output_tokens_retokenized"] != strconv.FormatInt(w.retokenized, 10) {
					t.Errorf("%s: retokenized %q, want %d", r.Location, r.Extra["total_output_tokens_retokenized"], w.retokenized)
				}
				wantMetrics := []string{"total_input_tokens", "total_output_tokens", "e2el.mean", "e2el.median", "ttft.median",
					"itl.median", "output_throughput", "duration", "completed"}
				if got := sgMetrics(r); !slices.Equal(got, wantMetrics) {
					t.Errorf("%s: stated %v, want %v", r.Location, got, wantMetrics)
				}
				for _, c := range []struct {
					metric, key, unit, srcUnit string
					value                      float64
				}{
					{"completed", "completed", "requests", "requests", float64(w.completed)},
					{"total_input_tokens", "total_input_tokens", "tokens", "tokens", float64(w.in)},
					{"total_output_tokens", "total_output_tokens", "tokens", "tokens", float64(w.out)},
					{"duration", "duration", "s", "s", w.duration},
					{"output_throughput", "output_throughput", "tok/s", "tok/s", w.tput},
					{"e2el.mean", "mean_e2e_latency_ms", "s", "ms", w.meanE2E / 1000},
					{"e2el.median", "median_e2e_latency_ms", "s", "ms", w.medianE2E / 1000},
					{"ttft.median", "median_ttft_ms", "s", "ms", w.medianTTFT / 1000},
					{"itl.median", "median_itl_ms", "s", "ms", w.medianITL / 1000},
				} {
					s := sgStated(t, r, c.metric)
					if s.Value != c.value || s.Unit != c.unit || s.SourceKey != c.key || s.SourceUnit != c.srcUnit {
						t.Errorf("%s: %s = %+v, want %v %s from %s", r.Location, c.metric, s, c.value, c.unit, c.key)
					}
				}
				// The summary is consistent with itself: SGLang computes
				// output_throughput as total_output_tokens / duration.
				if got := float64(w.out) / w.duration; math.Abs(got-w.tput) > 1e-9*w.tput {
					t.Errorf("%s: output throughput %v but tokens / duration = %v", r.Location, w.tput, got)
				}
			}
		})
	}
}

func TestSGLangSampleSweepSaturates(t *testing.T) {
	// What the rate-sweep sample shows: past 8 req/s the server no longer
	// keeps up. At an offered 16 req/s it completes 3200 requests in 383 s
	// (8.35 req/s) and the median E2E latency is 20x the 1 req/s one.
	data, err := os.ReadFile(filepath.Join(testshared.Dir(t, filepath.Join("samples", "sglang")), "bench_serving_2024-12_rate_sweep.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	runs := sgMustParse(t, "sweep.jsonl", data)
	last := runs[4]
	done := float64(last.Completed) / sgStated(t, last, "duration").Value
	if last.Facts["workload.request_rate"] != "16" || done > 8.4 || done < 8.3 {
		t.Errorf("rate %s: %.3f req/s completed", last.Facts["workload.request_rate"], done)
	}
	if g := sgStated(t, last, "e2el.median").Value / sgStated(t, runs[0], "e2el.median").Value; g < 20 {
		t.Errorf("median latency growth %.1fx", g)
	}
}

func TestSGLangFixtureServerInfoDetails(t *testing.T) {
	runs := sgMustParse(t, "serving_server_info_details.jsonl", sgFixture(t, "serving_server_info_details.jsonl"))
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	for i, r := range runs {
		if r.FormatVariant != "benchmark/serving.py (with server_info) --output-details" {
			t.Errorf("run %d: variant %q", i, r.FormatVariant)
		}
		sgCheckFacts(t, r, map[string]string{
			"runtime.engine": "sglang", "runtime.version": "0.5.4",
			"checkpoint.model_id": "Qwen/Qwen2.5-0.5B-Instruct", "checkpoint.tokenizer": "Qwen/Qwen2.5-0.5B-Instruct",
			"checkpoint.revision": "0123456789abcdef0123456789abcdef01234567", "checkpoint.kv_cache_dtype": "fp8_e4m3",
			"workload.dataset": "random", "workload.input_len": "128", "workload.output_len": "16",
			"workload.concurrency": "8", "workload.request_count": "6", "measurement.label": "h100-tp1",
			"measurement.backend": "sglang-oai",
		}, "checkpoint.precision", "measurement.date")
		if !strings.Contains(r.Extra["server_info"], `"version": "0.5.4"`) || r.Extra["accept_length"] != "null" ||
			r.Extra["total_input_text_tokens"] == "" || !strings.HasPrefix(r.Extra["generated_texts"], `"<kept in raw bytes only`) {
			t.Errorf("run %d: extra %v", i, r.Extra)
		}
		if !ingesttest.HasNote(r, "no date (SGLang does not write it)") {
			t.Errorf("run %d: notes %q", i, r.Notes)
		}
	}
	r := runs[0]
	if r.Facts["workload.request_rate"] != "4" || runs[1].Facts["workload.request_rate"] != "8" {
		t.Errorf("rates %q %q", r.Facts["workload.request_rate"], runs[1].Facts["workload.request_rate"])
	}
	// Request 3 failed: the errors list says so; its TTFT 0.0 is unknown.
	if !r.HasRequests || len(r.Requests) != 6 || r.Completed != 5 || r.Failed != 1 {
		t.Fatalf("records %v %d, completed %d failed %d", r.HasRequests, len(r.Requests), r.Completed, r.Failed)
	}
	q := r.Requests[3]
	if q.Error != "Service Unavailable: server is overloaded, retry later" || benchrun.IsKnown(q.TTFT) || benchrun.IsKnown(q.Latency) ||
		q.OutputTokens != 0 || q.InputTokens != 128 || q.Gaps.Count != 0 {
		t.Errorf("failed request %+v", q)
	}
	q = r.Requests[0]
	if q.TTFT != 0.034648510394617915 || q.Gaps.Count != 15 || q.OutputTokens != 16 || q.Latency != q.TTFT+q.Gaps.Sum ||
		benchrun.IsKnown(q.Start) || r.Clock != benchrun.ClockNone {
		t.Errorf("request 0 %+v clock %q", q, r.Clock)
	}
	for _, c := range []struct {
		metric string
		value  float64
	}{
		{"duration", 1.4366354730898514}, {"completed", 5}, {"total_input_tokens", 640}, {"total_output_tokens", 80},
		{"request_throughput", 3.480353989343047}, {"input_throughput", 445.48531063591}, {"output_throughput", 55.68566382948875},
		{"total_token_throughput", 501.1709744653988}, {"ttft.p90", sgMS(39.99823246849701)}, {"itl.p99", sgMS(6.036339064012282)},
		{"e2el.std", sgMS(7.247427510049211)}, {"tpot.median", sgMS(5.276865860408483)},
		{"achieved_concurrency", 0.38802785133169804}, {"max_output_tokens_per_s", 48}, {"max_concurrent_requests", 3},
	} {
		if s := sgStated(t, r, c.metric); s.Value != c.value {
			t.Errorf("%s = %v, want %v", c.metric, s.Value, c.value)
		}
	}
	// Recomputed from the records, counts, throughputs, TTFT and ITL agree
	// with what SGLang stated. E2E latency and TPOT do not: SGLang ends a
	// request at the last chunk it received, here the [DONE] chunk 0.3 to
	// 1.1 ms after the last content chunk the records end at. The audit
	// reports exactly those, stated larger than recomputed.
	for i, r := range runs {
		a := sgAudit(r)
		var bad []string
		for _, c := range a.Disagreements() {
			bad = append(bad, c.Metric)
			if d := c.Diff(); !strings.HasPrefix(c.Metric, "e2el.std") && !strings.HasPrefix(c.Metric, "tpot.std") && (d <= 0 || d > 0.0012) {
				t.Errorf("run %d: %s stated − recomputed = %v s", i, c.Metric, d)
			}
		}
		slices.Sort(bad)
		want := []string{"e2el.mean", "e2el.median", "e2el.p90", "e2el.p95", "e2el.p99", "e2el.std",
			"tpot.mean", "tpot.median", "tpot.p90", "tpot.p95", "tpot.p99", "tpot.std"}
		// A std can agree by chance when every request's trailing time is
		// alike; the means and percentiles cannot.
		bad = slices.DeleteFunc(bad, func(m string) bool { return strings.HasSuffix(m, ".std") })
		want = slices.DeleteFunc(want, func(m string) bool { return strings.HasSuffix(m, ".std") })
		if !slices.Equal(bad, want) {
			t.Errorf("run %d: disagreements %v, want %v", i, bad, want)
		}
		checked := map[string]bool{}
		for _, c := range a.Checks {
			checked[c.Metric] = true
		}
		for _, m := range []string{"completed", "total_input_tokens", "total_output_tokens", "request_throughput", "output_throughput",
			"total_token_throughput", "input_throughput", "ttft.mean", "ttft.p99", "itl.mean"} {
			if !checked[m] {
				t.Errorf("run %d: %s not checked", i, m)
			}
		}
		if !ingesttest.HasNote(r, "SGLang's own E2E and TPOT figures end at the last chunk received") {
			t.Errorf("run %d: no note on the derived latency: %q", i, r.Notes)
		}
	}
}

func TestSGLangFixtureTRTDetails(t *testing.T) {
	runs := sgMustParse(t, "bench_serving_2025_trt_details.jsonl", sgFixture(t, "bench_serving_2025_trt_details.jsonl"))
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.FormatVariant != "bench_serving.py (2025 key set) --output-details" || r.Completed != 4 || r.Failed != 0 || len(r.Requests) != 4 {
		t.Fatalf("variant %q completed %d failed %d requests %d", r.FormatVariant, r.Completed, r.Failed, len(r.Requests))
	}
	sgCheckFacts(t, r, map[string]string{"workload.request_rate": "inf", "workload.concurrency": "2", "workload.dataset": "sharegpt",
		"workload.output_len": "8", "workload.request_count": "4", "measurement.backend": "trt"},
		"workload.input_len", "runtime.engine", "runtime.version")
	if r.Extra["random_input_len"] != "1024" || r.Extra["random_range_ratio"] != "0.0" || r.Extra["sharegpt_output_len"] != "" {
		t.Errorf("extra %v", r.Extra)
	}
	if got := []int32{r.Requests[0].InputTokens, r.Requests[1].InputTokens, r.Requests[2].InputTokens, r.Requests[3].InputTokens}; !slices.Equal(got, []int32{57, 211, 34, 120}) {
		t.Errorf("input lens %v", got)
	}
	if s := sgStated(t, r, "itl.p95"); s.Value != sgMS(12.664696876299786) || s.SourceKey != "p95_itl_ms" {
		t.Errorf("itl.p95 %+v", s)
	}
	// The trt backend ends a request at its last content chunk, as the
	// records do: every stated figure agrees with its recomputed value.
	a := sgAudit(r)
	if d := a.Disagreements(); len(d) != 0 {
		t.Errorf("disagreements: %+v", d)
	}
	// Only what the records cannot reproduce is left unchecked: the window
	// (no send times), ITL statistics other than the mean (the archive keeps
	// gap sums) and the achieved concurrency.
	for _, nc := range a.NotChecked {
		if nc.Metric != "duration" && nc.Metric != "achieved_concurrency" && (!strings.HasPrefix(nc.Metric, "itl.") || nc.Metric == "itl.mean") {
			t.Errorf("not checked: %+v", nc)
		}
	}
	if len(a.Checks)+len(a.NotChecked) != len(r.Stated) || len(a.Checks) != 19 {
		t.Errorf("%d checks, %d not checked, %d stated", len(a.Checks), len(a.NotChecked), len(r.Stated))
	}
	if !ingesttest.HasNote(r, "which is how SGLang times the trt backend") {
		t.Errorf("notes %q", r.Notes)
	}
}

func TestSGLangFixtureAllFailed(t *testing.T) {
	runs := sgMustParse(t, "minimal_all_failed.jsonl", sgFixture(t, "minimal_all_failed.jsonl"))
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	ok, failed := runs[0], runs[1]
	sgCheckFacts(t, ok, map[string]string{"workload.input_len": "512", "workload.output_len": "128", "workload.request_rate": "2"})
	if ok.Completed != 40 || sgStated(t, ok, "ttft.median").Value != sgMS(41.93322799983434) {
		t.Errorf("good run: completed %d", ok.Completed)
	}
	// Every request of the 4 req/s run failed: archived as evidence, with
	// completed 0 and no latency figure (NaN means, 0.0 placeholders).
	if failed.Completed != 0 || failed.Failed != -1 || failed.Rejection != "" {
		t.Fatalf("all-failed run: completed %d failed %d rejection %q", failed.Completed, failed.Failed, failed.Rejection)
	}
	if got := sgMetrics(failed); !slices.Equal(got, []string{"total_input_tokens", "total_output_tokens", "output_throughput", "duration", "completed"}) {
		t.Errorf("stated %v", got)
	}
	if failed.Extra["mean_e2e_latency_ms"] != "NaN" || failed.Extra["median_ttft_ms"] != "0.0" || failed.Extra["median_itl_ms"] != "0.0" {
		t.Errorf("extra %v", failed.Extra)
	}
	if !ingesttest.HasNote(failed, "mean_e2e_latency_ms, median_e2e_latency_ms are NaN") || !ingesttest.HasNote(failed, "every request SGLang sent failed") ||
		!ingesttest.HasNote(failed, "median_ttft_ms, median_itl_ms are SGLang's placeholders") {
		t.Errorf("notes %q", failed.Notes)
	}
}

// sgHead is the argument part every SGLang line starts with.
const sgHead = `{"backend": "sglang", "dataset_name": "random", "request_rate": 4.0, "max_concurrency": null, "sharegpt_output_len": null, "random_input_len": 64, "random_output_len": 4, "random_range_ratio": 1.0, `

// sgDetails is a detailed tail of two requests, both completed.
const sgDetails = `"input_lens": [64, 64], "output_lens": [4, 4], "ttfts": [0.02, 0.03], "itls": [[0.01, 0.01, 0.01], [0.01, 0.02, 0.01]], "errors": ["", ""]`

func TestSGLangVariants(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		check   func(t *testing.T, r *benchrun.Run)
		variant string
	}{
		{"metrics dump key set", sgHead + `"duration": 2.0, "completed": 3, "total_input": 192, "total_input_text": 192, "total_output": 12, "total_output_retokenized": 12, "output_throughput": 6.0, "output_throughput_retokenized": 6.0, "max_itl_ms": 12.5, "mean_itl_ms": 10.0}`,
			func(t *testing.T, r *benchrun.Run) {
				if s := sgStated(t, r, "total_input_tokens"); s.Value != 192 || s.SourceKey != "total_input" {
					t.Errorf("total_input %+v", s)
				}
				if s := sgStated(t, r, "total_output_tokens"); s.Value != 12 || s.SourceKey != "total_output" {
					t.Errorf("total_output %+v", s)
				}
				if s := sgStated(t, r, "itl.max"); s.Value != 0.0125 {
					t.Errorf("itl.max %+v", s)
				}
				if r.Extra["output_throughput_retokenized"] != "6.0" || r.Extra["total_output_retokenized"] != "12" {
					t.Errorf("extra %v", r.Extra)
				}
				if !ingesttest.HasNote(r, "native backend splits each chunk's gap") {
					t.Errorf("notes %q", r.Notes)
				}
			}, "benchmark metrics dump (total_input/total_output keys)"},
		{"details nested", sgHead + `"duration": 1.0, "completed": 2, "details": {` + sgDetails + `}}`,
			func(t *testing.T, r *benchrun.Run) {
				if len(r.Requests) != 2 || r.Failed != 0 || r.Requests[1].Latency != 0.03+(0.01+0.02+0.01) {
					t.Errorf("records %+v", r.Requests)
				}
			}, "bench_serving.py (2024 minimal key set) --output-details (details nested)"},
		{"server_info null", `{"tag": null, "backend": "vllm", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 16, "sharegpt_output_len": null, "random_input_len": 1024, "random_output_len": 1024, "random_range_ratio": 0.5, "server_info": null, "duration": 9.5, "completed": 10}`,
			func(t *testing.T, r *benchrun.Run) {
				sgCheckFacts(t, r, map[string]string{"workload.request_rate": "inf", "workload.concurrency": "16"}, "runtime.engine", "measurement.label")
				if r.Extra["server_info"] != "null" || r.Extra["tag"] != "null" || !ingesttest.HasNote(r, "server_info is null") || !ingesttest.HasNote(r, "random_range_ratio 0.5") {
					t.Errorf("extra %v notes %q", r.Extra, r.Notes)
				}
			}, "benchmark/serving.py (with server_info)"},
		{"disaggregated server_info", `{"tag": "pd", "backend": "sglang-oai", "dataset_name": "sharegpt", "request_rate": "trace", "max_concurrency": null, "sharegpt_output_len": 256, "random_input_len": 1024, "random_output_len": 1024, "random_range_ratio": 0.0, "server_info": {"prefill": [{"version": "0.5.1"}], "decode": [{"model_path": "/models/llama", "version": "0.5.2", "revision": "main", "quantization": "fp8"}, {"model_path": "/models/llama", "version": "0.5.2"}]}, "duration": 9.5, "completed": 10}`,
			func(t *testing.T, r *benchrun.Run) {
				sgCheckFacts(t, r, map[string]string{"runtime.version": "0.5.2", "checkpoint.model_id": "/models/llama",
					"checkpoint.precision": "fp8", "workload.output_len": "256"}, "checkpoint.revision", "workload.request_rate", "checkpoint.kv_cache_dtype")
				if r.Extra["request_rate"] != `"trace"` || !ingesttest.HasNote(r, "request_rate is \"trace\"") || !ingesttest.HasNote(r, "prefill/decode pair") ||
					!ingesttest.HasNote(r, `revision "main", a branch or tag`) {
					t.Errorf("extra %v notes %q", r.Extra, r.Notes)
				}
				// Every server's version is kept, and the difference said.
				if got := r.Extra[sglang.ServerVersionsKey]; got != `{"prefill[0]":"0.5.1","decode[0]":"0.5.2","decode[1]":"0.5.2"}` ||
					!ingesttest.HasNote(r, "different engine versions: 0.5.1, 0.5.2") {
					t.Errorf("server versions %q notes %q", got, r.Notes)
				}
			}, "benchmark/serving.py (with server_info)"},
		// An empty decode list once made the server_info walk read past
		// the list's end and loop at the end of the value.
		{"server_info with an empty decode list", `{"tag": "x", "backend": "sglang", "dataset_name": "random", "request_rate": 1.0, "max_concurrency": null, "sharegpt_output_len": null, "random_input_len": 8, "random_output_len": 8, "random_range_ratio": 1.0, "server_info": {"decode": [], "version": "0.5.3", "model_path": "/models/qwen"}, "duration": 9.5, "completed": 10}`,
			func(t *testing.T, r *benchrun.Run) {
				sgCheckFacts(t, r, map[string]string{"runtime.version": "0.5.3", "checkpoint.model_id": "/models/qwen"})
			}, "benchmark/serving.py (with server_info)"},
		{"server_info of another server", `{"tag": "x", "backend": "sglang", "dataset_name": "random", "request_rate": 1.0, "max_concurrency": null, "sharegpt_output_len": null, "random_input_len": 8, "random_output_len": 8, "random_range_ratio": 1.0, "server_info": {"detail": "Not Found"}, "duration": 9.5, "completed": 10}`,
			func(t *testing.T, r *benchrun.Run) {
				sgCheckFacts(t, r, nil, "runtime.engine", "runtime.version")
				if !ingesttest.HasNote(r, "server_info has no version and model_path") {
					t.Errorf("notes %q", r.Notes)
				}
			}, "benchmark/serving.py (with server_info)"},
		{"speculative decoding on sglang-oai: ITL per retokenized token", `{"tag": null, "backend": "sglang-oai", "dataset_name": "random", "request_rate": 1.0, "max_concurrency": null, "sharegpt_output_len": null, "random_input_len": 8, "random_output_len": 8, "random_range_ratio": 1.0, "server_info": null, "duration": 9.5, "completed": 10, "mean_ttft_ms": 20.0, "mean_itl_ms": 3.1, "p99_itl_ms": 5.5, "accept_length": 2.7}`,
			func(t *testing.T, r *benchrun.Run) {
				if _, ok := r.StatedValue("itl.mean"); ok || r.Extra["mean_itl_ms"] != "3.1" || r.Extra["accept_length"] != "2.7" {
					t.Errorf("stated %v extra %v", sgMetrics(r), r.Extra)
				}
				if sgStated(t, r, "ttft.mean").Value != 0.02 || !ingesttest.HasNote(r, "per retokenized token") {
					t.Errorf("notes %q", r.Notes)
				}
			}, "benchmark/serving.py (with server_info)"},
		{"no samples: zero placeholders", sgHead + `"duration": 3.0, "completed": 3, "request_throughput": 1.0, "mean_ttft_ms": 30.0, "median_ttft_ms": 29.0, "mean_tpot_ms": 0.0, "median_tpot_ms": 0.0, "std_tpot_ms": 0.0, "p99_tpot_ms": 0.0, "mean_itl_ms": 0.0, "p99_itl_ms": 0.0, "mean_e2e_latency_ms": 30.5}`,
			func(t *testing.T, r *benchrun.Run) {
				if got := sgMetrics(r); !slices.Equal(got, []string{"duration", "completed", "request_throughput", "ttft.mean", "ttft.median", "e2el.mean"}) {
					t.Errorf("stated %v", got)
				}
				if r.Extra["mean_tpot_ms"] != "0.0" || !ingesttest.HasNote(r, "mean_tpot_ms, median_tpot_ms, std_tpot_ms, p99_tpot_ms, mean_itl_ms, p99_itl_ms are all 0") {
					t.Errorf("extra %v notes %q", r.Extra, r.Notes)
				}
			}, "bench_serving.py (2025 key set)"},
		{"multi-turn: no input tokens counted", sgHead + `"duration": 3.0, "completed": 3, "total_input_tokens": 0, "total_output_tokens": 12, "request_throughput": 1.0, "input_throughput": 0.0, "output_throughput": 4.0, "total_throughput": 4.0}`,
			func(t *testing.T, r *benchrun.Run) {
				if got := sgMetrics(r); !slices.Equal(got, []string{"duration", "completed", "total_output_tokens", "request_throughput", "output_throughput"}) {
					t.Errorf("stated %v", got)
				}
				if r.Extra["total_throughput"] != "4.0" || !ingesttest.HasNote(r, "multi-turn") {
					t.Errorf("extra %v notes %q", r.Extra, r.Notes)
				}
			}, "bench_serving.py (2025 key set)"},
		{"failure with an empty error text", sgHead + `"duration": 1.0, "completed": 2, "input_lens": [64, 64, 64], "output_lens": [4, 0, 4], "ttfts": [0.02, 0.0, 0.03], "itls": [[0.01, 0.01, 0.01], [], [0.01, 0.02, 0.01]], "errors": ["", "", ""]}`,
			func(t *testing.T, r *benchrun.Run) {
				if r.Failed != 1 || r.Completed != 2 || !r.Requests[1].Failed() || !ingesttest.HasNote(r, "empty error text taken as failed") {
					t.Errorf("failed %d completed %d notes %q", r.Failed, r.Completed, r.Notes)
				}
			}, "bench_serving.py (2024 minimal key set) --output-details"},
		{"completed disagrees with the errors", sgHead + `"duration": 1.0, "completed": 1, ` + sgDetails + `}`,
			func(t *testing.T, r *benchrun.Run) {
				if r.Failed != 0 || r.Completed != 1 || !ingesttest.HasNote(r, "completed states 1 but the errors list has 0 failures among 2 requests") {
					t.Errorf("failed %d completed %d notes %q", r.Failed, r.Completed, r.Notes)
				}
			}, "bench_serving.py (2024 minimal key set) --output-details"},
		{"non-streamed or empty output: TTFT 0.0", sgHead + `"duration": 1.0, "completed": 2, "input_lens": [64, 64], "output_lens": [4, 1], "ttfts": [0.02, 0.0], "itls": [[0.01, 0.01, 0.01], []], "errors": ["", ""]}`,
			func(t *testing.T, r *benchrun.Run) {
				if benchrun.IsKnown(r.Requests[1].TTFT) || r.Requests[1].Failed() || !ingesttest.HasNote(r, "1 completed requests have TTFT 0.0") {
					t.Errorf("request %+v notes %q", r.Requests[1], r.Notes)
				}
			}, "bench_serving.py (2024 minimal key set) --output-details"},
		{"empty strings are not facts", `{"tag": "", "backend": "", "dataset_name": "", "request_rate": 1.0, "max_concurrency": null, "sharegpt_output_len": null, "random_input_len": 8, "random_output_len": 8, "random_range_ratio": 1.0, "server_info": null, "duration": 9.5, "completed": 10}`,
			func(t *testing.T, r *benchrun.Run) {
				sgCheckFacts(t, r, nil, "measurement.label", "measurement.backend", "workload.dataset", "workload.input_len")
				if r.Extra["tag"] != `""` || r.Extra["dataset_name"] != `""` || !ingesttest.HasNote(r, `backend "" is not a valid measurement.backend`) {
					t.Errorf("extra %v notes %q", r.Extra, r.Notes)
				}
			}, "benchmark/serving.py (with server_info)"},
		{"cache report and unknown keys kept", sgHead + `"duration": 1.0, "completed": 2, "cache_report": {"cache_hit_rate_pct": 12.5}, "new_key": [1, 2], ` + sgDetails + `, "cached_tokens": [0, 16]}`,
			func(t *testing.T, r *benchrun.Run) {
				if r.Extra["cache_report"] != `{"cache_hit_rate_pct": 12.5}` || r.Extra["new_key"] != "[1, 2]" || r.Extra["cached_tokens"] != "[0, 16]" {
					t.Errorf("extra %v", r.Extra)
				}
			}, "bench_serving.py (2024 minimal key set) --output-details"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := sgMustParse(t, "v.jsonl", []byte(tc.line+"\n"))
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			if runs[0].FormatVariant != tc.variant {
				t.Errorf("variant %q, want %q", runs[0].FormatVariant, tc.variant)
			}
			tc.check(t, runs[0])
		})
	}
}

func TestSGLangBadInput(t *testing.T) {
	const ok = sgHead + `"duration": 1.0, "completed": 2`
	tests := []struct {
		name, data, place, reason string
	}{
		{"empty", "", "", "the file is empty"},
		{"whitespace", "\n \n", "", "only whitespace"},
		{"truncated", ok + `, "mean_ttft_ms": 12.`, "line 1, key \"mean_ttft_ms\" (column ", "unexpected end of input inside number (is the file truncated?)"},
		{"truncated in list", ok + `, "ttfts": [0.1, 0.2`, `line 1, key "ttfts" item 2 (column `, "(is the file truncated?)"},
		{"object over two lines", sgHead + "\n" + `"duration": 1.0, "completed": 2}`, "line 1 (column ", "does not end on its line"},
		{"malformed", ok + `,, "x": 1}`, "line 1 (column ", "malformed JSON: expected a string key after ','"},
		{"not an object", `[1, 2]`, "line 1 (column 1)", "expected a JSON object (one SGLang bench_serving run per line), found array"},
		{"two values on a line", ok + `} {"a": 1}`, "line 1 (column ", "a second JSON value on the line"},
		{"another tool's object", `{"elapsed_time": 1.0, "num_requests": 10}`, "line 1", `not an SGLang bench_serving result: no "completed" or "duration" key`},
		{"no duration", sgHead + `"completed": 2}`, "line 1", `no "duration" key`},
		{"NaN duration", sgHead + `"duration": NaN, "completed": 2}`, `line 1, key "duration" (column `, "NaN is not a valid duration"},
		{"Infinity completed", sgHead + `"duration": 1.0, "completed": Infinity}`, `line 1, key "completed"`, "expected a whole number, found Infinity"},
		{"negative completed", sgHead + `"duration": 1.0, "completed": -3}`, `line 1, key "completed"`, "negative count -3"},
		{"fractional completed", sgHead + `"duration": 1.0, "completed": 2.5}`, `line 1, key "completed"`, "expected a whole number, found 2.5"},
		{"completed as text", sgHead + `"duration": 1.0, "completed": "2"}`, `line 1, key "completed"`, "expected a whole number, found string"},
		{"null completed", sgHead + `"duration": 1.0, "completed": null}`, `line 1, key "completed"`, "completed is null"},
		{"zero duration", sgHead + `"duration": 0.0, "completed": 2}`, `line 1, key "duration"`, "duration is 0"},
		{"negative throughput", ok + `, "output_throughput": -1.5}`, `line 1, key "output_throughput"`, "negative output_throughput -1.5"},
		{"Infinity latency", ok + `, "p99_ttft_ms": Infinity}`, `line 1, key "p99_ttft_ms"`, "Infinity is not a valid time"},
		{"negative latency", ok + `, "mean_itl_ms": -2.0}`, `line 1, key "mean_itl_ms"`, "negative time -2.0 ms"},
		{"latency as text", ok + `, "mean_itl_ms": "2.0"}`, `line 1, key "mean_itl_ms"`, "expected a number, found string"},
		{"backend not a string", `{"backend": 5, "duration": 1.0, "completed": 2}`, `line 1, key "backend"`, "expected a string, found number"},
		{"negative rate", `{"backend": "sglang", "request_rate": -1.0, "duration": 1.0, "completed": 2}`, `line 1, key "request_rate"`, "request rate -1.0 is not positive"},
		{"NaN rate", `{"backend": "sglang", "request_rate": NaN, "duration": 1.0, "completed": 2}`, `line 1, key "request_rate"`, "NaN is not a request rate"},
		{"negative concurrency", `{"backend": "sglang", "max_concurrency": -4, "duration": 1.0, "completed": 2}`, `line 1, key "max_concurrency"`, "negative count -4"},
		{"ratio NaN", `{"backend": "sglang", "random_range_ratio": NaN, "duration": 1.0, "completed": 2}`, `line 1, key "random_range_ratio"`, "NaN is not a valid range ratio"},
		{"server_info a string", `{"backend": "sglang", "server_info": "x", "duration": 1.0, "completed": 2}`, `line 1, key "server_info"`, "expected an object or null, found string"},
		{"duplicate key", ok + `, "duration": 2.0}`, "line 1 (column ", `key "duration" appears twice`},
		{"NaN ttft", ok + `, "ttfts": [0.1, NaN]}`, `line 1, key "ttfts" item 1`, "NaN is not a valid time"},
		{"negative ttft", ok + `, "ttfts": [0.1, -0.2]}`, `line 1, key "ttfts" item 1`, "negative time -0.2"},
		{"negative gap", ok + `, "itls": [[0.1, -1e-3]]}`, `line 1, key "itls" item 0 gap 1`, "-1e-3 is not a valid gap in seconds"},
		{"gap list wrong type", ok + `, "itls": [0.1]}`, `line 1, key "itls" item 0`, "expected a list of gaps, found number"},
		{"negative tokens", ok + `, "output_lens": [4, -1]}`, `line 1, key "output_lens" item 1`, "negative token count -1"},
		{"fractional tokens", ok + `, "input_lens": [2.5]}`, `line 1, key "input_lens" item 0`, "expected a token count, found 2.5"},
		{"list wrong type", ok + `, "ttfts": "0.1"}`, `line 1, key "ttfts"`, "expected a list, found string"},
		{"error wrong type", ok + `, "errors": [0]}`, `line 1, key "errors" item 0`, "expected a string, found number"},
		{"lengths differ", ok + `, "input_lens": [1, 2, 3], "ttfts": [0.1, 0.2]}`, `line 1, key "ttfts"`, `"ttfts" has 2 items but "input_lens" has 3`},
		{"list twice", ok + `, "ttfts": [0.1], "details": {"ttfts": [0.1]}}`, `line 1, key "ttfts"`, "appears twice"},
		{"empty lists", ok + `, "input_lens": [], "ttfts": []}`, "line 1", "run has no requests: its per-request lists are empty"},
		{"invalid utf-8", ok + `, "errors": ["a` + "\xff" + `"]}`, `line 1, key "errors" item 0 (column `, "invalid UTF-8"},
		{"binary", "\x00\x01\x02", "line 1 (column 1)", "malformed JSON"},
		{"eight bad lines", strings.Repeat(`{"backend": 1}`+"\n", 8), `line 1, key "backend"`, "expected a string, found number"},
		{"two bad lines", `{"backend": 1}` + "\n" + `{"backend": 2}` + "\n", `line 1, key "backend"`, "expected a string, found number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := sgParse(t, "bad.jsonl", []byte(tc.data))
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an *InputError, got %v (runs %d)", err, len(runs))
			}
			if ie.File != "bad.jsonl" || !strings.HasPrefix(ie.Place, tc.place) || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got place %q reason %q\nwant place %q… reason …%q…", ie.Place, ie.Reason, tc.place, tc.reason)
			}
			for _, r := range runs {
				if r.Rejection == "" {
					t.Errorf("a good run emitted from a file with no readable run: %+v", r)
				}
			}
			// Every bad line is reported, each at its own line.
			if lines := strings.Count(strings.TrimSpace(tc.data), "\n") + 1; lines > 1 && !strings.Contains(tc.data, "\x00") {
				rej := ingesttest.Rejections(runs)
				if len(rej) != lines || !strings.HasPrefix(rej[lines-1], fmt.Sprintf("line %d", lines)) {
					t.Errorf("rejections %q, want one per line of %d", rej, lines)
				}
			}
		})
	}
}

// TestSGLangRejections: in a file of several runs, one bad line is that
// run's rejection and the others are read.
func TestSGLangRejections(t *testing.T) {
	good := sgHead + `"duration": 1.0, "completed": 2}`
	tests := []struct {
		name     string
		data     string
		rejected map[int]string // ordinal -> rejection substring
		loc      map[int]string
		runs     int
	}{
		{"middle line bad", good + "\n" + sgHead + `"duration": 1.0, "completed": -1}` + "\n" + good + "\n",
			map[int]string{1: `key "completed" (column `}, map[int]string{1: "line 2"}, 3},
		{"first line bad", `{"duration": NaN, "completed": 1}` + "\n" + good + "\n",
			map[int]string{0: `key "duration" (column 14): NaN is not a valid duration`}, map[int]string{0: "line 1"}, 2},
		{"truncated last line", good + "\n" + good + "\n" + sgHead + `"duration": 1.`,
			map[int]string{2: "(is the file truncated?)"}, map[int]string{2: "line 3"}, 3},
		{"blank lines are not runs", "\n" + good + "\n\n" + `{"completed": 1}` + "\n",
			map[int]string{1: `no "duration" key`}, map[int]string{0: "line 2", 1: "line 4"}, 2},
		{"CRLF", good + "\r\n" + good + "\r\n", nil, map[int]string{1: "line 2"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := sgMustParse(t, "multi.jsonl", []byte(tc.data))
			if len(runs) != tc.runs {
				t.Fatalf("%d runs, want %d", len(runs), tc.runs)
			}
			for i, r := range runs {
				if r.Ordinal != i {
					t.Errorf("run %d has ordinal %d", i, r.Ordinal)
				}
				if want, ok := tc.rejected[i]; ok {
					if got := r.Location + ": " + r.Rejection; !strings.Contains(got, want) || len(r.Stated) != 0 {
						t.Errorf("run %d: rejection %q, want …%q…", i, got, want)
					}
				} else if r.Rejection != "" || r.Completed < 0 {
					t.Errorf("run %d rejected: %q", i, r.Rejection)
				}
				if want, ok := tc.loc[i]; ok && r.Location != want && !strings.HasPrefix(r.Location, want+", ") && !strings.HasPrefix(r.Location, want+" (") {
					t.Errorf("run %d at %q, want %q", i, r.Location, want)
				}
			}
		})
	}
}

func TestSGLangSniff(t *testing.T) {
	p := sglang.New()
	var ours []string
	fixtures, _ := filepath.Glob("testdata/*.jsonl")
	if len(fixtures) < 3 {
		t.Fatalf("fixtures missing: %v", fixtures)
	}
	ours = append(ours, fixtures...)
	for _, f := range fixtures {
		data := sgFixture(t, filepath.Base(f))
		if d := registry.Detect(f, data[:min(len(data), format.HeadSize)]); d.Parser == nil || d.Parser.ID() != "sglang-bench-serving" {
			t.Errorf("%s: Detect %+v", f, d)
		}
	}
	// Other formats' fixtures and samples are not SGLang's.
	others := ingesttest.Fixtures()
	for _, f := range others {
		if strings.Contains(f, string(filepath.Separator)+"sglang"+string(filepath.Separator)) || strings.HasSuffix(f, ".md") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if p.Sniff(f, data[:min(len(data), format.HeadSize)]) {
			t.Errorf("%s sniffed as SGLang", f)
		}
	}
	if root := testshared.Root(); root != "" {
		all, _ := filepath.Glob(filepath.Join(root, "samples", "*", "*"))
		for _, f := range all {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			isOurs := filepath.Base(filepath.Dir(f)) == "sglang"
			if got := p.Sniff(f, data[:min(len(data), format.HeadSize)]); got != isOurs {
				t.Errorf("%s: Sniff %v", f, got)
			}
			if isOurs && vllmjson.New().Sniff(f, data[:min(len(data), format.HeadSize)]) {
				t.Errorf("%s: the vLLM JSON parser claims an SGLang file", f)
			}
		}
	}
	for _, s := range []string{
		``, `[]`, `{}`, `not json`, `{"backend": "sglang", "duration": 1.0, "completed": 3}`,
		// vLLM's identity keys: a vLLM result, however SGLang-like.
		`{"date": "20250101-000000", "backend": "vllm", "model_id": "m", "dataset_name": "random", "random_input_len": 1024, "duration": 1.0, "completed": 1}`,
		`{"benchledger_trace": 1, "clock": "epoch"}`,
		"\n\n" + `{"backend": "sglang", "dataset_name": "random"}` + "\n" + `{"random_input_len": 1}`,
	} {
		if p.Sniff("x.jsonl", []byte(s)) {
			t.Errorf("sniffed %q", s)
		}
	}
	for _, s := range []string{
		"\ufeff\n" + sgHead + `"duration": 1.0, "completed": 2}`,
		// A head cut inside a long first line still shows the arguments.
		`{"tag": null, "backend": "sglang-oai", "dataset_name": "random", "request_rate": 1.0, "max_concurrency": 4, "sharegpt_output_len": null, "random_input_len": 8, "server_info": {"x": "` + strings.Repeat("y", format.HeadSize),
	} {
		if !p.Sniff("x.jsonl", []byte(s)[:min(len(s), format.HeadSize)]) {
			t.Errorf("not sniffed: %.100q", s)
		}
	}
}

func TestSGLangEmitErrorAndCancel(t *testing.T) {
	data := sgFixture(t, "minimal_all_failed.jsonl")
	stop := errors.New("stop")
	n := 0
	err := sglang.New().Parse(context.Background(), "x.jsonl", bytes.NewReader(data), func(*benchrun.Run) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("emit error: got %v after %d runs", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = sglang.New().Parse(ctx, "x.jsonl", bytes.NewReader(data), func(*benchrun.Run) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

type sgFailingReader struct {
	data []byte
	err  error
}

func (r *sgFailingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestSGLangReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	data := sgFixture(t, "serving_server_info_details.jsonl")
	for _, cut := range []int{0, 100, len(data) / 2, len(data) - 1} {
		var n int
		err := sglang.New().Parse(context.Background(), "x.jsonl", &sgFailingReader{data: data[:cut], err: boom}, func(*benchrun.Run) error { n++; return nil })
		var ie *format.InputError
		if !errors.As(err, &ie) || !errors.Is(err, boom) || !strings.Contains(ie.Reason, "reading the file") {
			t.Errorf("cut %d: got %v", cut, err)
		}
	}
	// io.ErrUnexpectedEOF from a reader is a read failure too, not a truncation.
	err := sglang.New().Parse(context.Background(), "x.jsonl", &sgFailingReader{data: data[:10], err: io.ErrUnexpectedEOF}, func(*benchrun.Run) error { return nil })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v", err)
	}
}

// TestSGLangBatch ingests the real samples and the fixtures end to end into
// an archive, as `benchledger ingest` does, and reads the runs back.
func TestSGLangBatch(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, f := range []string{"serving_server_info_details.jsonl", "bench_serving_2025_trt_details.jsonl", "minimal_all_failed.jsonl"} {
		paths = append(paths, filepath.Join("testdata", f))
	}
	samples := 0
	if root := testshared.Root(); root != "" {
		s, _ := filepath.Glob(filepath.Join(root, "samples", "sglang", "*.jsonl"))
		samples = len(s)
		paths = append(paths, s...)
	}
	// One bad line among good ones: that run is rejected, the others kept.
	mixed := filepath.Join(dir, "mixed.jsonl")
	good := sgHead + `"duration": 1.0, "completed": 2}`
	// Two good runs that differ (one identical line twice would be one run).
	good2 := sgHead + `"duration": 1.5, "completed": 2}`
	if err := os.WriteFile(mixed, []byte(good+"\n"+`{"backend": "sglang", "duration": -1.0, "completed": 2}`+"\n"+good2+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, mixed)
	a, err := store.Open(filepath.Join(dir, "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var outs []ingest.Outcome
	err = ingest.Batch(context.Background(), paths, ingest.Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o ingest.Outcome) { outs = append(outs, o) })
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]ingest.Outcome{}
	for _, o := range outs {
		byFile[filepath.Base(o.File)] = append(byFile[filepath.Base(o.File)], o)
	}
	wantNew := map[string]int{"serving_server_info_details.jsonl": 2, "bench_serving_2025_trt_details.jsonl": 1, "minimal_all_failed.jsonl": 2, "mixed.jsonl": 2}
	if samples > 0 {
		wantNew["bench_serving_2024-12_rate_sweep.jsonl"] = 7
		wantNew["bench_serving_2024-12_offline_inf.jsonl"] = 7
	}
	for file, n := range wantNew {
		got := 0
		for _, o := range byFile[file] {
			if o.Status == ingest.StatusNew {
				got++
				if o.Format != "sglang-bench-serving" {
					t.Errorf("%s: format %q", file, o.Format)
				}
			}
		}
		if got != n {
			t.Errorf("%s: %d new runs, want %d: %+v", file, got, n, byFile[file])
		}
	}
	var rej []ingest.Outcome
	for _, o := range byFile["mixed.jsonl"] {
		if o.Status == ingest.StatusRejected {
			rej = append(rej, o)
		}
	}
	if len(rej) != 1 || rej[0].Place != `line 2, key "duration" (column 35)` || !strings.Contains(rej[0].Reason, "negative duration -1.0") {
		t.Errorf("mixed.jsonl rejections %+v", rej)
	}
	for _, o := range outs {
		if o.Status != ingest.StatusNew {
			continue
		}
		rec, err := a.Run(o.RunID)
		if err != nil {
			t.Fatal(err)
		}
		r := rec.Run
		if r.Format != "sglang-bench-serving" || r.Completed < 0 {
			t.Errorf("%s run %d: format %q completed %d", o.File, o.Ordinal, r.Format, r.Completed)
		}
		switch {
		case strings.HasSuffix(o.File, "serving_server_info_details.jsonl") && o.Ordinal == 0:
			if !r.HasRequests || len(r.Requests) != 6 || r.Failed != 1 || sgStated(t, r, "output_throughput").Value != 55.68566382948875 ||
				r.Facts["runtime.version"] != "0.5.4" {
				t.Errorf("archived detailed run: %d requests, failed %d, facts %v", len(r.Requests), r.Failed, r.Facts)
			}
		case strings.HasSuffix(o.File, "minimal_all_failed.jsonl") && o.Ordinal == 1:
			if o.Publishable || !slices.Contains(o.Missing, "completed requests (every request failed)") {
				t.Errorf("the all-failed run must be archived and never publishable: %+v", o)
			}
		case strings.HasSuffix(o.File, "rate_sweep.jsonl") && o.Ordinal == 0:
			if sgStated(t, r, "output_throughput").Value != 537.4142851849319 || r.Completed != 300 || r.Failed != -1 || r.Facts["workload.request_rate"] != "1" {
				t.Errorf("archived sample run: completed %d failed %d facts %v", r.Completed, r.Failed, r.Facts)
			}
		}
	}
}

// FuzzSGLang: whatever the bytes, Sniff and Parse must not panic, Parse
// must reject with an *InputError only, and every emitted run must be
// internally consistent.
func FuzzSGLang(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "sglang", "*"))
		paths = append(paths, shared...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		``, "\n", `[]`, `42`, "\x00\xff", sgHead + `"duration": 1.0, "completed": 2, ` + sgDetails + "}\n" + sgHead + `"duration": 1.`,
		sgHead + `"duration": 1.0, "completed": 2, "details": {` + sgDetails + `}}`,
		sgHead + `"duration": 1.0, "completed": 0, "mean_e2e_latency_ms": NaN, "median_ttft_ms": 0.0}` + "\n" + `{"completed": 1}`,
		`{"tag": "t", "backend": "sglang", "server_info": {"decode": [{"version": "1", "model_path": "m"}]}, "duration": 1.0, "completed": 1}`,
	} {
		f.Add([]byte(s))
	}
	p := sglang.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.jsonl", data[:min(len(data), format.HeadSize)])
		ordinal := 0
		good := false
		err := p.Parse(context.Background(), "fuzz.jsonl", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Ordinal != ordinal || !strings.HasPrefix(r.Location, "line ") {
				t.Fatalf("run %d: ordinal %d location %q", ordinal, r.Ordinal, r.Location)
			}
			ordinal++
			if r.Rejection != "" {
				return nil
			}
			good = true
			if r.Format != "sglang-bench-serving" || r.Facts == nil || r.Extra == nil || r.Completed < 0 {
				t.Fatalf("run %d: format %q completed %d", r.Ordinal, r.Format, r.Completed)
			}
			if r.HasRequests != (len(r.Requests) > 0) {
				t.Fatalf("HasRequests %v with %d requests", r.HasRequests, len(r.Requests))
			}
			for i, q := range r.Requests {
				if q.Index != i || q.InputTokens < -1 || q.OutputTokens < -1 || q.Gaps.Count < 0 || q.TTFT < 0 || q.Latency < 0 {
					t.Fatalf("request %d: %+v", i, q)
				}
			}
			ingesttest.FuzzStated(t, r)
			return nil
		})
		if err != nil {
			ingesttest.FuzzError(t, err, "fuzz.jsonl")
			if good {
				t.Fatalf("a file-level error after a good run")
			}
		}
	})
}

// sgLongLine builds a detailed line of n requests, longer than the read
// buffer, so that it is streamed rather than decoded in place.
func sgLongLine(n int, badAt int) string {
	var b strings.Builder
	b.WriteString(sgHead + `"duration": 100.0, "completed": ` + strconv.Itoa(n) + `, "input_lens": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("64")
	}
	b.WriteString(`], "ttfts": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == badAt {
			b.WriteString("-0.5")
		} else {
			b.WriteString("0.025")
		}
	}
	b.WriteString(`], "itls": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[0.01, 0.01, 0.01]")
	}
	b.WriteString(`], "errors": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`""`)
	}
	b.WriteString("]}")
	return b.String()
}

func TestSGLangLongLines(t *testing.T) {
	long := sgLongLine(8000, -1)
	if len(long) <= sglang.LineBuffer {
		t.Fatalf("the long line is only %d bytes", len(long))
	}
	small := sgHead + `"duration": 1.0, "completed": 2}`
	badLong := sgLongLine(8000, 6000)
	runs := sgMustParse(t, "long.jsonl", []byte(small+"\n"+long+"\n"+badLong+"\n"+small+"\n"+long))
	if len(runs) != 5 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, i := range []int{1, 4} {
		r := runs[i]
		if r.Rejection != "" || len(r.Requests) != 8000 || r.Failed != 0 || r.Requests[7999].Latency != 0.025+(0.01+0.01+0.01) {
			t.Errorf("run %d: rejection %q, %d requests", i, r.Rejection, len(r.Requests))
		}
	}
	if !strings.HasPrefix(runs[2].Location, `line 3, key "ttfts" item 6000 (column `) || runs[2].Rejection != "negative time -0.5" {
		t.Errorf("bad long line: %q at %q", runs[2].Rejection, runs[2].Location)
	}
	if runs[3].Rejection != "" || runs[3].Location != "line 4" {
		t.Errorf("the line after a bad long one: %+v", runs[3])
	}
	// A long line cut by the end of the file is a truncation.
	_, err := sgParse(t, "cut.jsonl", []byte(long[:len(long)-100]))
	var ie *format.InputError
	if !errors.As(err, &ie) || !strings.HasPrefix(ie.Place, "line 1, key ") || !strings.Contains(ie.Reason, "(is the file truncated?)") {
		t.Errorf("truncated long line: %v", err)
	}
	// A long line over two physical lines.
	_, err = sgParse(t, "split.jsonl", []byte(long[:100000]+"\n"+long[100000:]))
	if !errors.As(err, &ie) || !strings.Contains(ie.Reason, "does not end on its line") {
		t.Errorf("split long line: %v", err)
	}
	// A read failure in the middle of a streamed line.
	boom := errors.New("disk on fire")
	err = sglang.New().Parse(context.Background(), "x.jsonl", &sgFailingReader{data: []byte(small + "\n" + long[:150000]), err: boom}, func(*benchrun.Run) error { return nil })
	if !errors.As(err, &ie) || !errors.Is(err, boom) || ie.Place != "line 2" {
		t.Errorf("read error in a long line: %v", err)
	}
}

// BenchmarkColumns parses one line of 100,000 requests' lists (the column
// loop vLLM's parser shares), from memory.
func BenchmarkColumns(b *testing.B) {
	const n = 100_000
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"backend": "sglang", "dataset_name": "random", "completed": %d, "duration": 100.0, "request_throughput": 1000.0`, n)
	list := func(key string, item func(i int) string) {
		fmt.Fprintf(&buf, `, %q: [`, key)
		for i := range n {
			if i > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(item(i))
		}
		buf.WriteString("]")
	}
	list("input_lens", func(i int) string { return strconv.Itoa(100 + i%900) })
	list("output_lens", func(i int) string { return strconv.Itoa(10 + i%90) })
	list("ttfts", func(i int) string { return strconv.FormatFloat(0.01+float64(i%1000)/7919, 'g', -1, 64) })
	list("itls", func(i int) string {
		return fmt.Sprintf("[%g, %g, %g]", 0.001+float64(i%97)/10007, 0.002+float64(i%89)/10009, 0.003+float64(i%83)/10037)
	})
	list("errors", func(i int) string { return `""` })
	buf.WriteString("}\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	p := sglang.New()
	for b.Loop() {
		got := 0
		err := p.Parse(context.Background(), "m.jsonl", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Rejection != "" {
				return errors.New(r.Rejection)
			}
			got += len(r.Requests)
			return nil
		})
		if err != nil || got != n {
			b.Fatal(err, got)
		}
	}
}
