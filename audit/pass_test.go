package audit

import (
	"reflect"
	"strings"
	"testing"
)

// Run streams each run's stored records through the checks (requestPass);
// Stored passes over records already loaded. On the same runs both give
// the same findings, whatever the checks find (integrity aside, which only
// Run checks).
func TestStreamedAndLoadedRecordsAgree(t *testing.T) {
	files := map[string]vllmFile{
		"clean.json":    {n: 40},
		"failing.json":  {n: 40, failEach: 2},
		"flat.json":     {n: 40, nonStreamed: true},
		"short.json":    {n: 40, short: 3},
		"zero.json":     {n: 40, extra: map[string]string{"mean_ttft_ms": "0.0"}},
		"tpot.json":     {n: 40, extra: map[string]string{"mean_tpot_ms": "9.5"}},
		"dur.json":      {n: 40, extra: map[string]string{"duration": "0.2", "output_throughput": "1000.0"}},
		"behind.json":   {n: 40, rate: "1000"},
		"declared.json": {n: 40, outLen: 30},
	}
	a, _, ids := archiveOf(t, files, true)
	fs := findings(t, a)
	for name, id := range ids {
		var streamed []Finding
		for _, f := range fs {
			if f.Run == id && !strings.HasPrefix(f.Check, "integrity.") {
				f.File = ""
				streamed = append(streamed, f)
			}
		}
		rec, err := a.Run(id)
		if err != nil {
			t.Fatal(err)
		}
		loaded := Stored(rec, nil)
		SortFindings(loaded)
		if !reflect.DeepEqual(streamed, loaded) {
			t.Errorf("%s: streamed records give\n%+v\nloaded ones\n%+v", name, streamed, loaded)
		}
		if name != "clean.json" && len(streamed) == 0 {
			t.Errorf("%s: no finding: the file does not test the pass", name)
		}
	}
}

// The declared workload against the records, through the stream: records
// of 30 output tokens, sent every 10 ms and taking ~167 ms (17 in flight),
// where the manifest declares 5 tokens at concurrency 8.
func TestDeclaredVersusMeasuredStreamed(t *testing.T) {
	a, _, ids := archiveOf(t, map[string]vllmFile{"declared.json": {n: 40, outLen: 30}}, true)
	fs := findings(t, a)
	got := map[string]string{}
	for _, f := range fs {
		if f.Check == CheckDeclaredMeasured && f.Run == ids["declared.json"] {
			got[f.Params["field"]] = f.Params["measured"]
		}
	}
	want := map[string]string{"workload.output_len": "30.00", "workload.concurrency": "17"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("declared vs measured (field: measured) = %v, want %v", got, want)
	}
}
