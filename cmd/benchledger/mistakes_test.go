package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mistakeRun is one result file of the known-mistakes campaign
// (testdata/mistakes/README.md): the totals of the public page, and what
// its summary printed.
type mistakeRun struct {
	duration    float64 // s; the records' window is exactly this
	totalTPS    float64 // printed "Total TPS" (0: the consistent value)
	meanTPOTms  float64 // printed mean TPOT (0: the consistent value)
	peakOutTPS  float64 // printed peak output tok/s
	meanLatency float64 // s
}

// writeMistakeRun writes a `vllm bench serve --save-detailed` file of 200
// requests at 1 req/s, 2,000 output tokens each and 201,982 input tokens in
// all, whose records are consistent with the totals and whose summary
// prints what m says. The chunks arrive 20 at a time (non-incremental
// streaming), as on the public page.
func writeMistakeRun(t *testing.T, path string, m mistakeRun) {
	t.Helper()
	const n, outLen, chunks = 200, 2000, 20
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	lastStart := m.duration - m.meanLatency
	var starts, ins, outs, ttfts, lats, itls, errs []string
	var sumTTFT, sumLat, sumTPOT, sumITL float64
	var itlN int
	inTotal := 0
	for i := 0; i < n; i++ {
		start := float64(i) * lastStart / (n - 1)
		lat := m.meanLatency + 0.04*float64((i*7)%11-5)
		if i == n-1 {
			lat = m.meanLatency // the last request ends the window
		}
		ttft := 0.12 + 0.01*float64(i%5)
		in := 1010
		if i%11 == 0 && i < 198 {
			in = 1009 // 18 of these: 201,982 input tokens in all
		}
		inTotal += in
		gap := (lat - ttft) / (chunks - 1)
		g := make([]string, chunks-1)
		for k := range g {
			g[k] = ff(gap)
		}
		starts, ins, outs = append(starts, ff(5000+start)), append(ins, strconv.Itoa(in)), append(outs, strconv.Itoa(outLen))
		ttfts, lats, itls, errs = append(ttfts, ff(ttft)), append(lats, ff(lat)), append(itls, "["+strings.Join(g, ", ")+"]"), append(errs, `""`)
		sumTTFT, sumLat, sumTPOT = sumTTFT+ttft, sumLat+lat, sumTPOT+(lat-ttft)/(outLen-1)
		sumITL, itlN = sumITL+gap*(chunks-1), itlN+chunks-1
	}
	if inTotal != 201982 {
		t.Fatalf("input tokens %d, want 201,982", inTotal)
	}
	tps := float64(inTotal+n*outLen) / m.duration
	if m.totalTPS != 0 {
		tps = m.totalTPS
	}
	tpot := sumTPOT / n * 1000
	if m.meanTPOTms != 0 {
		tpot = m.meanTPOTms
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"date": "20260302-101500", "endpoint_type": "openai", "backend": "vllm", "label": null, "model_id": "Qwen/Qwen3.5-9B", "tokenizer_id": "Qwen/Qwen3.5-9B", "num_prompts": %d, "request_rate": 1.0, "burstiness": 1.0, "max_concurrency": null, "duration": %s, "completed": %d, "failed": 0, "total_input_tokens": %d, "total_output_tokens": %d, "request_throughput": %s, "output_throughput": %s, "total_token_throughput": %s, "max_output_tokens_per_s": %s, "mean_ttft_ms": %s, "mean_tpot_ms": %s, "mean_itl_ms": %s, "mean_e2el_ms": %s`,
		n, ff(m.duration), n, inTotal, n*outLen, ff(n/m.duration), ff(n*outLen/m.duration), ff(tps), ff(m.peakOutTPS),
		ff(sumTTFT/n*1000), ff(tpot), ff(sumITL/float64(itlN)*1000), ff(sumLat/n*1000))
	for _, kv := range []struct {
		k string
		v []string
	}{{"input_lens", ins}, {"output_lens", outs}, {"ttfts", ttfts}, {"itls", itls}, {"start_times", starts}, {"latencies", lats}, {"errors", errs}} {
		fmt.Fprintf(&b, ", %q: [%s]", kv.k, strings.Join(kv.v, ", "))
	}
	b.WriteString("}")
	writeFile(t, path, b.String())
}

// mistakesCampaign copies testdata/mistakes to a temporary folder, writes
// its result files and ingests them; it returns the archive and the spec.
func mistakesCampaign(t *testing.T) (db, specPath string) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "mistakes.db")
	return db, mistakesCampaignIn(t, db)
}

// mistakesCampaignIn is mistakesCampaign into the archive db, a file or a
// postgres:// URL; it returns the spec.
func mistakesCampaignIn(t *testing.T, db string) (specPath string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mistakes")
	for _, f := range []string{"campaign.yaml", "casestudy.yaml", "narrative/en.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", "mistakes", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), string(data))
	}
	writeMistakeRun(t, filepath.Join(dir, "h100-baseline.json"), mistakeRun{duration: 214.96, totalTPS: 2973.42, meanTPOTms: 0.33, peakOutTPS: 123795, meanLatency: 17.48})
	writeMistakeRun(t, filepath.Join(dir, "h100-optimized.json"), mistakeRun{duration: 214.98, totalTPS: 3025.11, meanTPOTms: 0.33, peakOutTPS: 20132659, meanLatency: 17.48})
	// The H200 run's own summary is consistent: its mistakes are in its
	// provenance and in the comparison that uses it.
	writeMistakeRun(t, filepath.Join(dir, "h200-optimized.json"), mistakeRun{duration: 211.5, peakOutTPS: 4000, meanLatency: 14.2})
	if r := bl(t, "ingest", "--db", db, dir); r.code != 0 {
		t.Fatalf("ingest of the mistakes campaign: %v", r)
	}
	return filepath.Join(dir, "casestudy.yaml")
}

// TestAuditFindsKnownMistakes: each known mistake of the fixture campaign
// (testdata/mistakes/README.md) is found, with its check id and severity.
func TestAuditFindsKnownMistakes(t *testing.T) {
	t.Parallel()
	db, specPath := mistakesCampaign(t)
	d, r := auditJSON(t, "--db", db, "--as-of", "2026-11-29", specPath)
	if r.code != exitProblems {
		t.Fatalf("audit of the mistakes campaign: exit %d, want %d\n%v", r.code, exitProblems, r)
	}
	runOf := func(file string) string {
		q := bl(t, "runs", "--db", db, "-q", "--campaign", "known-mistakes")
		for _, id := range strings.Fields(q.stdout) {
			if s := bl(t, "show", "--db", db, id); strings.Contains(s.stdout, file) {
				return id
			}
		}
		t.Fatalf("no run of %s", file)
		return ""
	}
	base, opt, h200 := runOf("h100-baseline.json"), runOf("h100-optimized.json"), runOf("h200-optimized.json")

	type want struct {
		what, check, severity, run string
		params                     map[string]string
	}
	for _, w := range []want{
		{"a stated percentage its data contradicts", "claims.text", "fail", "", map[string]string{"token": "+1.74%", "field": "narrative.en", "line": "7"}},
		{"a summary that disagrees with its records (baseline)", "recompute.stated", "fail", base, map[string]string{"metric": "total_token_throughput"}},
		{"a summary that disagrees with its records (optimized)", "recompute.stated", "fail", opt, map[string]string{"metric": "total_token_throughput"}},
		{"a TPOT implausible against latency", "plausibility.tpot", "fail", base, nil},
		{"a peak above every token of the run", "plausibility.peak_throughput", "fail", opt, nil},
		{"an engine in the heading the runs did not use", "provenance.engine", "fail", "", map[string]string{"field": "title.en", "engine": "sglang"}},
		{"an engine version in the narrative no run ran", "provenance.engine", "warn", "", map[string]string{"field": "narrative.en", "engine": "vllm", "version": "0.9.2"}},
		{"a launch command naming another engine", "provenance.engine", "fail", h200, map[string]string{"field": "runtime.server_args"}},
		{"a confounded comparison", "comparison.confounded", "fail", "", map[string]string{"comparison": "h200_vs_h100", "confounders": "hardware.gpu_model,hardware.node"}},
		{"throughput at a fixed offered load", "comparison.load_bound", "warn", "", map[string]string{"comparison": "total_tps"}},
		{"a reference no longer visible", "reference.not_visible", "warn", "", map[string]string{"reference": "published-h100-generation-heavy"}},
		{"a reference not re-checked for too long", "reference.stale", "warn", "", map[string]string{"reference": "published-h100-generation-heavy", "age_days": "323"}},
	} {
		found := false
		for _, f := range d.Findings {
			if f.Check != w.check || f.Severity != w.severity || f.Run != w.run {
				continue
			}
			match := true
			for k, v := range w.params {
				match = match && f.Params[k] == v
			}
			found = found || match
		}
		if !found {
			t.Errorf("%s: no %s %s (run %q, params %v) in\n%s", w.what, w.severity, w.check, w.run, w.params, r.stdout)
		}
	}
	// The disclosed confounder of "published" is a warning, not a failure.
	for _, f := range d.Findings {
		if f.Check == "comparison.confounded" && f.Params["comparison"] == "published" && f.Severity == "fail" {
			t.Errorf("a disclosed confounder must warn, not fail: %+v", f)
		}
	}
	// The baseline's printed peak (123,795 tok/s) is high but not above
	// the run's 400,000 tokens: no ceiling finding.
	if d.has("plausibility.peak_throughput", "fail", base) {
		t.Errorf("the baseline's peak is below its token total: %v", r.stdout)
	}
	// The text output names each failing check once per finding.
	text := bl(t, "audit", "--db", db, "--as-of", "2026-11-29", specPath)
	if text.code != exitProblems || !strings.Contains(text.stdout, "claims.text") || !strings.Contains(text.stdout, `"+1.74%"`) {
		t.Errorf("text output: %v", text)
	}
	// Without the reference age, the same archive as of the day after the
	// re-check has no reference.stale finding.
	early, _ := auditJSON(t, "--db", db, "--as-of", "2026-01-11", specPath)
	for _, f := range early.Findings {
		if f.Check == "reference.stale" {
			t.Errorf("as of the day after the re-check, the reference is not stale: %+v", f)
		}
	}
}

// TestSiteFindingsInTheLanguage: a run page of the known-mistakes campaign
// in Japanese writes each finding's message as the report's audit page
// does, in Japanese, with the CLI's English text beside it marked
// lang="en"; the English page keeps the English text alone.
func TestSiteFindingsInTheLanguage(t *testing.T) {
	t.Parallel()
	db, _ := mistakesCampaign(t)
	out := filepath.Join(t.TempDir(), "site")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en,ja"); r.code != 0 {
		t.Fatal(r)
	}
	row := regexp.MustCompile(`<tr class="(?:fail|warn|error|info)" data-check="([^"]+)">.*?</tr>`)
	localised, english := 0, 0
	for _, lang := range []string{"en", "ja"} {
		pages, _ := filepath.Glob(filepath.Join(out, lang, "run", "*.html"))
		for _, p := range pages {
			page, _ := os.ReadFile(p)
			for _, r := range row.FindAllString(string(page), -1) {
				cells := regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(r, -1)
				msg := cells[len(cells)-1]
				switch {
				case lang == "en" && !strings.Contains(r, `<span class="original"`):
					english++
				case lang == "ja" && strings.Contains(msg[1], `<span class="original" lang="en">`) && regexp.MustCompile(`\p{Han}|\p{Katakana}|\p{Hiragana}`).MatchString(strings.Split(msg[1], "<br>")[0]):
					localised++
				default:
					t.Errorf("%s %s: finding row %s", lang, filepath.Base(p), r)
				}
			}
		}
	}
	if localised == 0 || english == 0 {
		t.Errorf("%d Japanese and %d English finding rows: the check checked nothing", localised, english)
	}
}
