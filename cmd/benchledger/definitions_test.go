package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/testshared"
)

// guidellmFiles are the real guidellm reports the definition tests read:
// the shipped fixtures (testdata/guidellm/SOURCE.md) and, when ../shared is
// beside the repository, its guidellm samples.
func guidellmFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "guidellm", "*.json"))
	if err != nil || len(files) != 2 {
		t.Fatalf("testdata/guidellm: %v %v", files, err)
	}
	if testshared.Root() == "" {
		t.Log("../shared is not beside the repository: only the shipped guidellm fixtures are audited")
		return files
	}
	return append(files, testshared.Samples(t, "guidellm")...)
}

// TestGuidellmDefinitions: real guidellm reports whose stated figures differ
// from ours only by guidellm's definitions (E2E to the end of the response,
// its float-CDF percentiles, a measurement window excluding warmup and
// cooldown) audit without a fail, each difference reported as
// recompute.definition naming both definitions.
func TestGuidellmDefinitions(t *testing.T) {
	t.Parallel()
	for _, f := range guidellmFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "a.db")
			if r := bl(t, "ingest", "--db", db, "--set", "campaign=guidellm", f); r.code != 0 {
				t.Fatalf("ingest: %v", r)
			}
			d, r := auditJSON(t, "--db", db)
			if r.code != 0 {
				t.Errorf("audit of a consistent guidellm report: exit %d, want 0\n%s", r.code, r.stdout)
			}
			for _, f := range d.Findings {
				if f.Severity == "fail" {
					t.Errorf("fail %s: %s", f.Check, f.Message)
				}
				if f.Check == "recompute.definition" && (f.Params["our_definition"] == "" || f.Params["tool_definition"] == "" || f.Params["difference"] == "") {
					t.Errorf("recompute.definition must name both definitions and the difference: %v", f.Params)
				}
			}
		})
	}
	// The report with warmup and cooldown: its duration is the measurement
	// window, recomputed from the file.
	d, _ := auditJSON(t, "--db", ingestOne(t, filepath.Join("testdata", "guidellm", "warmup-cooldown_Qwen3-30B-A3B_benchmarks.json")))
	var window, e2e bool
	for _, f := range d.Findings {
		if f.Check != "recompute.definition" || f.Severity != "info" {
			continue
		}
		window = window || f.Params["metric"] == "duration" && f.Params["window_start"] != ""
		e2e = e2e || f.Params["metric"] == "e2el.median"
	}
	if !window || !e2e {
		t.Errorf("measurement window recomputed %v, E2E recomputed under guidellm's definition %v", window, e2e)
	}
}

// ingestOne ingests a file into a new archive and returns it.
func ingestOne(t *testing.T, path string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "a.db")
	if r := bl(t, "ingest", "--db", db, "--set", "campaign=guidellm", path); r.code != 0 {
		t.Fatalf("ingest %s: %v", path, r)
	}
	return db
}

// plant rewrites the first number after each anchor in turn, then after
// `"key": `, to f(old).
func plant(t *testing.T, data string, anchors []string, key string, f func(float64) float64) string {
	t.Helper()
	at := 0
	for _, a := range anchors {
		i := strings.Index(data[at:], a)
		if i < 0 {
			t.Fatalf("no %s after byte %d", a, at)
		}
		at += i + len(a)
	}
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `": (-?[0-9.eE+-]+)`)
	m := re.FindStringSubmatchIndex(data[at:])
	if m == nil {
		t.Fatalf("no %s after the anchors", key)
	}
	old, err := strconv.ParseFloat(data[at+m[2]:at+m[3]], 64)
	if err != nil {
		t.Fatal(err)
	}
	return data[:at+m[2]] + strconv.FormatFloat(f(old), 'g', -1, 64) + data[at+m[3]:]
}

// TestGuidellmPlantedDisagreement: a changed stated value in a real report
// still fails, though the definitions explain the original.
func TestGuidellmPlantedDisagreement(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "guidellm", "warmup-cooldown_Qwen3-30B-A3B_benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	data := string(raw)
	for _, tc := range []struct {
		name, check, metric string
		file                string
	}{
		{"median E2E latency +0.5%", "recompute.stated", "e2el.median",
			plant(t, data, []string{`"metrics"`, `"request_latency"`, `"successful"`}, "median", func(v float64) float64 { return v * 1.005 })},
		{"mean TTFT +1%", "recompute.stated", "ttft.mean",
			plant(t, data, []string{`"metrics"`, `"time_to_first_token_ms"`, `"successful"`}, "mean", func(v float64) float64 { return v * 1.01 })},
		{"duration 700 s instead of the 720 s window", "plausibility.duration", "",
			strings.Replace(data, `"duration": 720.0, "warmup_duration"`, `"duration": 700.0, "warmup_duration"`, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "planted.json")
			writeFile(t, path, tc.file)
			d, r := auditJSON(t, "--db", ingestOne(t, path))
			if r.code != exitProblems {
				t.Errorf("audit: exit %d, want %d", r.code, exitProblems)
			}
			found := false
			for _, f := range d.Findings {
				found = found || f.Check == tc.check && f.Severity == "fail" && (tc.metric == "" || f.Params["metric"] == tc.metric)
			}
			if !found {
				t.Errorf("no %s fail for %s:\n%s", tc.check, tc.metric, r.stdout)
			}
		})
	}
}
