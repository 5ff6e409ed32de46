package benchrun

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// summaryRun is a run as a summary file describes it: stated figures and
// facts, no records, counts unknown.
func summaryRun() *Run {
	return &Run{
		Format: "aiperf-json", Completed: -1, Failed: -1,
		Facts:  map[string]string{"checkpoint.model_id": "m/x"},
		Stated: []Stated{{Metric: "output_throughput", Value: 1000.25, Unit: "tok/s"}, {Metric: "ttft.p99", Value: 0.12, Unit: "s", Printed: 2}},
		Extra:  map[string]string{"was_cancelled": "false"},
		Notes:  []string{"a note both files make"},
	}
}

// recordsRun is the same run as its per-request file describes it.
func recordsRun() *Run {
	return &Run{
		Format: "aiperf-records", Clock: ClockEpoch, PercentileMethod: "linear", HasRequests: true,
		Requests:  []Request{{Index: 0, Start: 1, TTFT: 0.1, Latency: 0.5}, {Index: 1, Start: 2, TTFT: 0.1, Latency: 0.4, Error: "x"}},
		Completed: 1, Failed: 1,
		Facts:  map[string]string{"checkpoint.model_id": "m/x", "workload.concurrency": "8", "measurement.client": "aiperf"},
		Stated: []Stated{{Metric: "ttft.p99", Value: 0.1234, Unit: "s"}, {Metric: "output_throughput", Value: 999, Unit: "tok/s", Printed: 2}, {Metric: "e2el.mean", Value: 0.45, Unit: "s"}},
		Extra:  map[string]string{"was_cancelled": "true", "records_version": "2"},
		Notes:  []string{"a note both files make", "a note of the records"},
	}
}

func TestMergeCompanion(t *testing.T) {
	t.Parallel()
	dst, src := summaryRun(), recordsRun()
	added, err := MergeCompanion(dst, src)
	if err != nil {
		t.Fatal(err)
	}
	// What was added, in the order the ingest reports it; facts sorted.
	want := []string{"per-request records", "completed count", "failed count", "full-precision ttft.p99", "stated e2el.mean",
		"fact measurement.client", "fact workload.concurrency"}
	if !slices.Equal(added, want) {
		t.Errorf("added\n%q\nwant\n%q", added, want)
	}
	if !dst.HasRequests || len(dst.Requests) != 2 || dst.Clock != ClockEpoch {
		t.Errorf("the records come with the clock of their file: %d records, clock %q", len(dst.Requests), dst.Clock)
	}
	if dst.Completed != 1 || dst.Failed != 1 || dst.PercentileMethod != "linear" {
		t.Errorf("counts %d/%d, percentile method %q", dst.Completed, dst.Failed, dst.PercentileMethod)
	}
	// A figure dst states in full precision stays; a printed one is
	// replaced by the full-precision one; a new one is added.
	got := map[string]Stated{}
	for _, s := range dst.Stated {
		got[s.Metric] = s
	}
	if got["output_throughput"].Value != 1000.25 || got["ttft.p99"].Value != 0.1234 || got["ttft.p99"].Printed != 0 || got["e2el.mean"].Value != 0.45 || len(dst.Stated) != 3 {
		t.Errorf("stated figures after the merge: %+v", dst.Stated)
	}
	if dst.Facts["workload.concurrency"] != "8" || dst.Facts["measurement.client"] != "aiperf" || dst.Format != "aiperf-json" {
		t.Errorf("facts %v, format %q", dst.Facts, dst.Format)
	}
	// Extra keys dst has keep its value; notes are not repeated.
	if !reflect.DeepEqual(dst.Extra, map[string]string{"was_cancelled": "false", "records_version": "2"}) {
		t.Errorf("extra %v", dst.Extra)
	}
	if !slices.Equal(dst.Notes, []string{"a note both files make", "a note of the records"}) {
		t.Errorf("notes %q", dst.Notes)
	}
}

func TestMergeCompanionKeepsWhatDstHas(t *testing.T) {
	t.Parallel()
	dst, src := recordsRun(), summaryRun()
	dst.Facts = nil
	added, err := MergeCompanion(dst, src)
	if err != nil {
		t.Fatal(err)
	}
	// The records file already has records, counts and a method; the
	// summary's printed ttft.p99 does not replace a full-precision one, and
	// its full-precision output_throughput replaces the printed one.
	if want := []string{"full-precision output_throughput", "fact checkpoint.model_id"}; !slices.Equal(added, want) {
		t.Errorf("added %q, want %q", added, want)
	}
	if len(dst.Requests) != 2 || dst.Completed != 1 || dst.Clock != ClockEpoch {
		t.Errorf("dst's own records and counts must stay: %+v", dst)
	}
	if s, _ := dst.StatedValue("ttft.p99"); s.Value != 0.1234 {
		t.Errorf("ttft.p99 = %v, want dst's full-precision 0.1234", s.Value)
	}
}

func TestMergeCompanionRefusesDisagreeingFacts(t *testing.T) {
	t.Parallel()
	dst, src := summaryRun(), recordsRun()
	src.Facts["checkpoint.model_id"] = "m/y"
	before := *dst
	added, err := MergeCompanion(dst, src)
	if err == nil || !strings.Contains(err.Error(), "checkpoint.model_id") || !strings.Contains(err.Error(), `"m/x"`) || !strings.Contains(err.Error(), `"m/y"`) {
		t.Fatalf("disagreeing facts: err %v, want one naming the field and both values", err)
	}
	if added != nil || dst.HasRequests || len(dst.Stated) != len(before.Stated) || len(dst.Facts) != 1 {
		t.Errorf("a refused merge changed dst: %+v (added %q)", dst, added)
	}
}
