package audit

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/store"
)

// vllmFile describes a small vllm bench serve --save-detailed file.
type vllmFile struct {
	n           int
	failEach    int  // every failEach-th request fails (0: none)
	nonStreamed bool // TTFT equal to latency
	outLen      int  // output tokens of a completed request (default 5)
	short       int  // this many completed requests produce 2 tokens
	// extra summary keys, as raw JSON, overriding the consistent ones.
	extra map[string]string
	rate  string  // request_rate as raw JSON (default "inf")
	start float64 // clock value of the first send (default 100): makes files differ
}

// write writes the file with a summary consistent with its requests unless
// extra says otherwise.
func (v vllmFile) write(t *testing.T, path string) {
	t.Helper()
	if v.outLen == 0 {
		v.outLen = 5
	}
	ff := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var ttft, lat, outs, errs, starts, itls, ins []string
	completed, failed, outTok := 0, 0, 0
	var tpotSum float64
	for i := 0; i < v.n; i++ {
		starts = append(starts, ff(100+v.start+float64(i)*0.01))
		ins = append(ins, "64")
		if v.failEach > 0 && i%v.failEach == 0 {
			failed++
			ttft, lat, outs, errs, itls = append(ttft, "0.0"), append(lat, "0.0"), append(outs, "0"), append(errs, `"boom"`), append(itls, "[]")
			continue
		}
		completed++
		out := v.outLen
		if i < v.short {
			out = 2
		}
		outTok += out
		tf := 0.05 + float64(i%3)*0.001
		l := tf + float64(out-1)*0.004
		g := make([]string, out-1)
		for k := range g {
			g[k] = "0.004"
		}
		if v.nonStreamed {
			tf = l
			g = nil
		}
		tpotSum += (l - tf) / float64(out-1)
		ttft, lat, outs, errs = append(ttft, ff(tf)), append(lat, ff(l)), append(outs, strconv.Itoa(out)), append(errs, `""`)
		itls = append(itls, "["+strings.Join(g, ", ")+"]")
	}
	dur := float64(v.n)*0.01 + 1
	sum := map[string]string{
		"duration": ff(dur), "completed": strconv.Itoa(completed), "failed": strconv.Itoa(failed),
		"total_input_tokens": strconv.Itoa(completed * 64), "total_output_tokens": strconv.Itoa(outTok),
		"output_throughput": ff(float64(outTok) / dur), "max_output_tokens_per_s": ff(math.Min(float64(outTok)/dur+50, float64(outTok))),
	}
	if completed > 0 {
		sum["mean_tpot_ms"] = ff(tpotSum / float64(completed) * 1000)
	}
	for k, x := range v.extra {
		sum[k] = x
	}
	var b strings.Builder
	rate := v.rate
	if rate == "" {
		rate = `"inf"`
	}
	fmt.Fprintf(&b, `{"date": "20260818-101500", "backend": "openai", "model_id": "m/x", "tokenizer_id": "m/x", "num_prompts": %d, "request_rate": %s, "max_concurrency": 8`, v.n, rate)
	for _, k := range []string{"duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "output_throughput", "max_output_tokens_per_s", "mean_tpot_ms", "mean_ttft_ms"} {
		if x, ok := sum[k]; ok {
			fmt.Fprintf(&b, ", %q: %s", k, x)
		}
	}
	for _, kv := range []struct {
		k string
		v []string
	}{{"input_lens", ins}, {"output_lens", outs}, {"ttfts", ttft}, {"itls", itls}, {"start_times", starts}, {"latencies", lat}, {"errors", errs}} {
		fmt.Fprintf(&b, ", %q: [%s]", kv.k, strings.Join(kv.v, ", "))
	}
	b.WriteString("}")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const manifest = `campaign: auditcamp
defaults:
  hardware: {gpu_model: NVIDIA H100 80GB HBM3, gpu_count: 1}
  runtime: {engine: vllm, version: 0.25.1}
  checkpoint: {repository: m/x, revision: 2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3, precision: bf16}
  workload: {input_len: 64, output_len: 5, request_count: 40, concurrency: 8, fixed_output: true}
  measurement: {client: vllm bench serve, date: 2026-08-18}
`

// archiveOf ingests the files (named name -> spec) into a new archive and
// returns it with the run id of each file. With complete false no manifest
// is written, so the runs are unpublishable.
func archiveOf(t *testing.T, files map[string]vllmFile, complete bool) (*store.Archive, string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for name, f := range files {
		p := filepath.Join(dir, name)
		f.write(t, p)
		paths = append(paths, p)
	}
	if complete {
		if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dbPath := filepath.Join(t.TempDir(), "a.db")
	a, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	err = ingest.Batch(context.Background(), []string{dir}, ingest.Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o ingest.Outcome) {
		if o.Status == ingest.StatusRejected {
			t.Errorf("rejected %s: %s %s", o.File, o.Place, o.Reason)
		}
		if o.RunID != "" {
			ids[filepath.Base(o.File)] = o.RunID
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, dbPath, ids
}

func findings(t *testing.T, a *store.Archive, ids ...string) []Finding {
	t.Helper()
	fs, err := Run(context.Background(), a, ids)
	if err != nil {
		t.Fatal(err)
	}
	sayable(t, fs)
	return fs
}

func find(fs []Finding, check, run string) *Finding {
	for i := range fs {
		if fs[i].Check == check && fs[i].Run == run {
			return &fs[i]
		}
	}
	return nil
}

// findKey is the finding of run with the message key, nil if none.
func findKey(fs []Finding, key, run string) *Finding {
	for i := range fs {
		if fs[i].MessageKey == key && fs[i].Run == run {
			return &fs[i]
		}
	}
	return nil
}

func TestCleanRunHasNoFindings(t *testing.T) {
	a, _, ids := archiveOf(t, map[string]vllmFile{"clean.json": {n: 40}}, true)
	fs := findings(t, a)
	if len(fs) != 0 {
		t.Fatalf("a consistent, complete run must audit clean, got %+v", fs)
	}
	if fs := findings(t, a, ids["clean.json"][:6]); len(fs) != 0 {
		t.Fatalf("by id prefix: %+v", fs)
	}
	if _, err := Run(context.Background(), a, []string{"ffffffffffff"}); err == nil {
		t.Fatal("an unknown run id must be an error")
	}
}

func TestPlausibilityFindings(t *testing.T) {
	a, _, ids := archiveOf(t, map[string]vllmFile{
		"failing.json":  {n: 40, failEach: 2},
		"someFail.json": {n: 40, failEach: 20},
		"flat.json":     {n: 40, nonStreamed: true},
		"peak.json":     {n: 40, extra: map[string]string{"max_output_tokens_per_s": "10.0"}},
		"tpot.json":     {n: 40, extra: map[string]string{"mean_tpot_ms": "9.5"}},
		"nan.json":      {n: 40, extra: map[string]string{"mean_tpot_ms": "NaN"}},
		"dur.json":      {n: 40, extra: map[string]string{"duration": "0.2", "output_throughput": "1000.0"}},
		"short.json":    {n: 40, short: 3},
		"ceiling.json":  {n: 40, extra: map[string]string{"max_output_tokens_per_s": "20132659"}},
		"zero.json":     {n: 40, extra: map[string]string{"mean_ttft_ms": "0.0"}},
		"behind.json":   {n: 40, rate: "1000"},
		"keptup.json":   {n: 40, rate: "40"},
	}, true)
	fs := findings(t, a)
	want := []struct{ file, check, severity string }{
		{"failing.json", CheckSuccessRate, Warn}, // 50% exactly: below 99%, not below 50%
		{"someFail.json", CheckSuccessRate, Warn},
		{"flat.json", CheckNonStreamed, Warn},
		{"peak.json", CheckPeakThroughput, Fail},
		{"tpot.json", CheckTPOT, Fail},
		{"nan.json", CheckNonFinite, Warn}, // kept out of the stated figures by the parser
		{"dur.json", CheckDuration, Fail},
		{"short.json", CheckOutputLength, Warn},
		{"ceiling.json", CheckPeakThroughput, Fail},
		{"zero.json", CheckZeroSeries, Fail},
		{"behind.json", CheckOfferedRate, Warn},
	}
	for _, w := range want {
		f := find(fs, w.check, ids[w.file])
		if f == nil || f.Severity != w.severity {
			t.Errorf("%s: want %s %s, got %+v", w.file, w.severity, w.check, f)
		}
	}
	if f := find(fs, CheckTPOT, ids["tpot.json"]); f != nil && (!strings.Contains(f.Message, "9.5") && !strings.Contains(f.Message, "0.0095") ||
		!strings.Contains(f.Message, "(E2E − TTFT) / (output tokens − 1)")) {
		t.Errorf("the TPOT finding must name the stated value and the definition: %s", f.Message)
	}
	if f := find(fs, CheckOutputLength, ids["short.json"]); f != nil && f.Params["short"] != "3" {
		t.Errorf("short outputs: %+v", f.Params)
	}
	if f := find(fs, CheckOfferedRate, ids["keptup.json"]); f != nil {
		t.Errorf("a run that kept up with its offered rate: %+v", f)
	}
	if f := find(fs, CheckPeakThroughput, ids["ceiling.json"]); f != nil && !strings.Contains(f.Message, "20132659") {
		t.Errorf("the ceiling finding must name the stated peak: %s", f.Message)
	}
	for _, f := range fs {
		if f.Run == ids["someFail.json"] && f.Severity == Fail || f.Run == ids["failing.json"] && f.Severity == Fail {
			t.Errorf("a run with failed requests but a consistent summary must not fail: %+v", f)
		}
		if f.Check == CheckRecords || f.Check == CheckBlobHash {
			t.Errorf("an untouched archive has no integrity finding: %+v", f)
		}
	}
	// Order: by run id, then check id.
	for i := 1; i < len(fs); i++ {
		if fs[i-1].Run > fs[i].Run || fs[i-1].Run == fs[i].Run && fs[i-1].Check > fs[i].Check {
			t.Fatalf("findings out of order at %d: %+v then %+v", i, fs[i-1], fs[i])
		}
	}
}

func TestMostlyFailedRunFails(t *testing.T) {
	a, _, ids := archiveOf(t, map[string]vllmFile{"bad.json": {n: 40, failEach: 1}}, true)
	fs := findings(t, a)
	if f := find(fs, CheckSuccessRate, ids["bad.json"]); f == nil || f.Severity != Fail {
		t.Fatalf("a run whose every request failed: want a success_rate failure, got %+v", fs)
	}
	if f := find(fs, CheckProvenanceComplete, ids["bad.json"]); f == nil || f.Severity != Info {
		t.Fatalf("an unpublishable run: want provenance.incomplete info, got %+v", fs)
	}
}

func TestIncompleteProvenanceIsInfo(t *testing.T) {
	a, _, ids := archiveOf(t, map[string]vllmFile{"bare.json": {n: 10}}, false)
	fs := findings(t, a)
	f := find(fs, CheckProvenanceComplete, ids["bare.json"])
	if f == nil || f.Severity != Info || f.Params["missing"] == "" {
		t.Fatalf("want provenance.incomplete info listing the missing fields, got %+v", fs)
	}
	if Failed(fs) {
		t.Fatalf("incomplete provenance alone must not fail: %+v", fs)
	}
}

func TestTamperedRowNamesRequestAndField(t *testing.T) {
	a, dbPath, ids := archiveOf(t, map[string]vllmFile{"x.json": {n: 40}, "y.json": {n: 40, failEach: 3}}, true)
	raw, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	id := ids["y.json"]
	if _, err := raw.Exec("UPDATE requests SET output_tokens = output_tokens + 1 WHERE run_id = ? AND idx = 7", id); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("UPDATE stated SET value = NULL WHERE run_id = ? AND metric = 'output_throughput'", ids["x.json"]); err != nil {
		t.Fatal(err)
	}
	fs := findings(t, a)
	if f := find(fs, CheckNonFinite, ids["x.json"]); f == nil || f.Severity != Fail || f.Params["metric"] != "output_throughput" {
		t.Errorf("a stored stated figure that is NaN: want plausibility.nonfinite fail, got %+v", fs)
	}
	f := find(fs, CheckRecords, id)
	if f == nil || f.Severity != Fail || f.Params["request"] != "7" || !strings.Contains(f.Message, "request 7 output tokens") {
		t.Fatalf("want integrity.records naming request 7's output tokens, got %+v", fs)
	}
	if f := find(fs, CheckRecords, ids["x.json"]); f == nil || f.Params["field"] != "the stated output_throughput" {
		t.Fatalf("the NaN stated figure must also differ from the raw file: %+v", f)
	}
	// Only the selected runs are audited.
	for _, f := range findings(t, a, ids["y.json"]) {
		if f.Run != "" && f.Run != id {
			t.Fatalf("auditing one run reported another: %+v", f)
		}
	}
}

func TestCountsAndFailed(t *testing.T) {
	fs := []Finding{{Severity: Warn}, {Severity: Info}, {Severity: Warn}}
	if c := Counts(fs); c[Fail] != 0 || c[Warn] != 2 || c[Info] != 1 || Failed(fs) {
		t.Fatalf("counts %v failed %v", c, Failed(fs))
	}
	if !Failed(append(fs, Finding{Severity: Fail})) {
		t.Fatal("a fail finding must make Failed true")
	}
}

// TestRunSelectedArchiveWideReadsNoRawFile: with only archive-wide checks
// selected (the hash chain), no raw file is read again: with the chunk
// table gone, which the whole audit cannot get past (reading a raw file is
// an error), the selected audit still runs and the chain still reports the
// run changed behind the tool's back.
func TestRunSelectedArchiveWideReadsNoRawFile(t *testing.T) {
	a, dbPath, ids := archiveOf(t, map[string]vllmFile{"x.json": {n: 40}}, true)
	raw, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, stmt := range []string{`DROP TABLE blob_chunks`, `UPDATE runs SET publishable = 1 - publishable`} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(context.Background(), a, nil); err == nil {
		t.Fatal("the whole audit read the raw files without their chunks: the test proves nothing")
	}
	sel, err := ParseSelection("integrity.chain,integrity.changed")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := RunSelected(context.Background(), a, nil, Options{Checks: sel})
	if err != nil {
		t.Fatalf("an archive-wide selection read a raw file: %v", err)
	}
	if find(fs, store.CheckChainChanged, ids["x.json"]) == nil {
		t.Errorf("the changed run is not reported by the chain: %+v", fs)
	}
	for _, f := range fs {
		if !sel.Includes(f.Check) {
			t.Errorf("unselected check %s reported", f.Check)
		}
	}
}
