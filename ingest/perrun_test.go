package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/testshared"
	"github.com/benchledger/benchledger/store"
)

// TestPerRunRejectionEveryFormat: in every format whose file holds several
// runs, real (or realistically written) files with one or more runs
// damaged — a malformed value, a missing field, a cut-off block, a
// contradiction with the manifest — archive their good runs and report
// every bad one in the same pass, each at its place, through the one rule
// of the pipeline (format.Settle and putRuns).
func TestPerRunRejectionEveryFormat(t *testing.T) {
	t.Parallel()
	sweep := func(objs ...string) string { return "[\n    " + strings.Join(objs, ",\n    ") + "\n]\n" }
	obj := func(n int, edit func(string) string) string { return edit(sweepObject(n, "    ")) }
	same := func(s string) string { return s }
	// line sets line n (1-based) of the file to text.
	type lineEdit struct {
		n    int
		text string
	}
	tests := []struct {
		name     string
		fixture  string // a file under ingest/ or, with shared:, under ../shared/samples
		body     string // or the file's text
		file     string // the name it is ingested under
		lines    []lineEdit
		replace  [][2]string // first occurrences replaced
		manifest string
		good     int      // runs ingested (new, or the same as another block of the file)
		distinct int      // runs in the archive, when fewer than good
		rejected []string // "place: reason" prefixes, in order
	}{
		{
			name: "vLLM blocks of a published page", fixture: "../cmd/benchledger/testdata/mistakes-published/qwen3-32b-h100.md", file: "page.md",
			lines: []lineEdit{
				{124, "    Benchmark duration (s):                  247,94"},
				{156, "    Succesful requests:                      1000"},
				{248, "    "},
			},
			good: 10,
			rejected: []string{
				`ordinal 1: line 124: Benchmark duration (s): "247,94" is not a number (in the block at line 122)`,
				`ordinal 2: line 155: the block has no "Successful requests" line`,
				`ordinal 4: line 226: truncated block: the code fence at line 249 ends it before its closing ===== line`,
			},
		},
		{
			name: "GPUStack blocks of a published page", fixture: "format/gpustackconsole/testdata/qwen3.5-9b-h100.md", file: "page.md",
			lines:    []lineEdit{{254, "    Successful requests:                     N/A"}},
			manifest: "campaign: c\nruns:\n  - files: page.md\n    ordinal: 1\n    workload.concurrency: 256\n",
			good:     22, distinct: 19, // the page prints three blocks twice
			rejected: []string{
				"line 161: provenance contradicts the file: the file says workload.concurrency = \"512\"",
				"ordinal 3: line 254: Successful requests is N/A",
			},
		},
		{
			name: "SGLang blocks of a published page", fixture: "format/sglangconsole/testdata/MiniMax-M2.5.md", file: "page.md",
			lines: []lineEdit{{479, "Benchmark duration (s):                  48.4.3"}},
			good:  8,
			rejected: []string{
				`ordinal 1: line 479: Benchmark duration (s): "48.4.3" is not a number (in the block at line 474)`,
			},
		},
		{
			name: "vLLM sweep summary list", file: "summary.json",
			body: sweep(obj(0, same),
				obj(1, func(s string) string { return strings.Replace(s, `"completed": 4`, `"completed": "4"`, 1) }),
				obj(2, func(s string) string {
					return strings.NewReplacer(`"completed": 4,`, ``, `"duration": 2.5,`, ``).Replace(s)
				}),
				obj(3, same)),
			good: 2,
			rejected: []string{
				`object 1, key "completed", byte `,
				`object 2 at byte `,
			},
		},
		{
			name: "vLLM --append-result file cut short", file: "append.json",
			body: strings.ReplaceAll(sweepObject(0, ""), "\n", " ") + "\n" + strings.ReplaceAll(sweepObject(1, ""), "\n", " ") + "\n" +
				strings.ReplaceAll(sweepObject(2, ""), "\n", " ")[:200] + "\n",
			good:     2,
			rejected: []string{`object 2, `},
		},
		{
			name: "guidellm sweep with a broken benchmark", fixture: "format/guidellm/testdata/guidellm/sweep_v07_samples.json", file: "benchmarks.json",
			good:     2,
			rejected: []string{"benchmark 2 at "},
		},
		{
			name: "GPUStack export with a record without results", fixture: "format/guidellm/testdata/gpustack/export.yaml", file: "export.yaml",
			good:     2,
			rejected: []string{"record 2"},
		},
		{
			name: "trtllm-bench log of two reports", fixture: "format/trtllm/testdata/console_v0.16_two_runs.log", file: "bench.log",
			replace:  [][2]string{{"Request Throughput (req/sec):   211.1140", "Request Throughput (req/sec):   abc"}},
			good:     1,
			rejected: []string{"line 35"},
		},
		{
			name: "perf_analyzer experiments", fixture: "format/aiperf/testdata/genai-perf/profile_export.json", file: "profile_export.json",
			replace:  [][2]string{{`"timestamp":1767225610200000000`, `"timestamp":"x"`}},
			good:     1,
			rejected: []string{"experiment 1"},
		},
		{
			name: "SGLang JSON Lines rate sweep", fixture: "shared:sglang/bench_serving_2024-12_rate_sweep.jsonl", file: "sweep.jsonl",
			replace:  [][2]string{{`"completed": `, `"completed": -`}},
			good:     6,
			rejected: []string{`line 1, key "completed"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := tc.body
			if tc.fixture != "" {
				path := tc.fixture
				if rel, ok := strings.CutPrefix(path, "shared:"); ok {
					root := testshared.Root()
					if root == "" {
						t.Skip("../shared is absent: the real SGLang sweep is not here")
					}
					path = filepath.Join(root, "samples", rel)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				body = string(b)
			}
			lines := strings.Split(body, "\n")
			for _, e := range tc.lines {
				lines[e.n-1] = e.text
			}
			body = strings.Join(lines, "\n")
			for _, r := range tc.replace {
				if !strings.Contains(body, r[0]) {
					t.Fatalf("fixture lacks %q", r[0])
				}
				body = strings.Replace(body, r[0], r[1], 1)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, tc.file)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.manifest != "" {
				if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(tc.manifest), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a := openTestArchive(t)
			var got []string
			news := 0
			for _, o := range ingestPaths(t, a, p) {
				switch o.Status {
				case StatusNew, StatusDuplicate:
					news++
				case StatusRejected:
					got = append(got, o.Place+": "+o.Reason)
				default:
					t.Errorf("outcome %+v", o)
				}
			}
			ok := news == tc.good && len(got) == len(tc.rejected)
			for i := 0; ok && i < len(got); i++ {
				ok = strings.HasPrefix(got[i], tc.rejected[i])
			}
			if !ok {
				t.Errorf("%d archived, rejected:\n  %s\nwant %d archived, rejected:\n  %s", news, strings.Join(got, "\n  "), tc.good, strings.Join(tc.rejected, "\n  "))
			}
			want := tc.good
			if tc.distinct > 0 {
				want = tc.distinct
			}
			if runs, err := a.ListRuns(store.Filter{}); err != nil || len(runs) != want {
				t.Errorf("%d runs in the archive (%v), want %d", len(runs), err, want)
			}
		})
	}
}
