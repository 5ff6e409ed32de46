package figures

import (
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// Three requests sent at 10, 11 and 12 s on the run's clock, finishing at
// 14, 13 (failed) and 16 s: sampled every second of the 6 s from the first
// send to the last finish.
func TestLoadOverTime(t *testing.T) {
	reqs := []benchrun.Request{
		{Start: 10, Latency: 4},
		{Start: 11, Latency: 2, Error: "timeout"},
		{Start: 12, Latency: 4},
	}
	got := LoadOverTime(reqs, 7)
	want := []LoadPoint{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 2, 0}, {4, 1, 1}, {5, 1, 1}, {6, 0, 2}}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("t=%v: %+v, want %+v", want[i].T, got[i], want[i])
		}
	}
	if LoadOverTime([]benchrun.Request{{Start: benchrun.Unknown}}, 0) != nil {
		t.Error("points for a run without send times")
	}
}
