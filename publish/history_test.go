package publish

import (
	"testing"
	"time"

	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/store"
)

// TestFromRecords: the one path from the archive's records to a page's
// history gives a figure erratum the values of both versions' snapshots
// (when their display is the one recorded) and a caveat erratum its caveat.
func TestFromRecords(t *testing.T) {
	t.Parallel()
	snapshot := func(t *testing.T, latency float64) string {
		s, err := Take(result(t, latency, "n\n"))
		if err != nil {
			t.Fatal(err)
		}
		text, err := s.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	day := func(d int) time.Time { return time.Date(2026, 8, d, 0, 0, 0, 0, time.UTC) }
	v1, v2 := snapshot(t, 15.9123), snapshot(t, 17.5)
	pubs := []store.Publication{
		{CaseID: "demo", Version: 1, RecordedAt: day(18), Snapshot: v1},
		{CaseID: "demo", Version: 2, RecordedAt: day(19), Snapshot: v2, Errata: []store.Erratum{
			{Seq: 1, Kind: KindFigure, Name: "median_latency", Old: "15.91 s", New: "17.50 s"},
			{Seq: 2, Kind: KindFigure, Name: "median_latency.precise", Old: "9.99 s", New: "17.50 s"},
			{Seq: 3, Kind: KindCaveat, Name: caveat.CodeSingleMeasurement, New: `{"figure":"x"}`},
		}},
	}
	tests := []struct {
		name    string
		version int
		draft   bool
	}{
		{"latest", 2, false},
		{"draft of the latest", 2, true},
		{"an earlier version", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub, err := FromRecords(pubs, tt.version, tt.draft)
			if err != nil {
				t.Fatal(err)
			}
			if pub.Version != tt.version || pub.Draft != tt.draft || !pub.Recorded.Equal(day(17+tt.version)) || len(pub.History) != 2 {
				t.Fatalf("publication %+v", pub)
			}
			errata := pub.History[1].Errata
			if len(pub.History[0].Errata) != 0 || len(errata) != 3 {
				t.Fatalf("errata %+v", pub.History)
			}
			if e := errata[0]; e.OldValue == nil || e.OldValue.Value != 15.9123 || e.NewValue == nil || e.NewValue.Value != 17.5 {
				t.Errorf("figure erratum without its values: %+v", e)
			}
			// The old display is not the snapshot's: the recorded text stays.
			if e := errata[1]; e.OldValue != nil || e.NewValue == nil {
				t.Errorf("figure erratum whose old display disagrees: %+v", e)
			}
			if e := errata[2]; e.Caveat == nil || e.Caveat.Code != caveat.CodeSingleMeasurement || e.Caveat.Params["figure"] != "x" {
				t.Errorf("caveat erratum without its caveat: %+v", e)
			}
		})
	}
	if _, err := FromRecords([]store.Publication{{CaseID: "demo", Version: 1, Snapshot: "{"}}, 1, false); err == nil {
		t.Error("a broken snapshot: no error")
	}
	if pub, err := Latest(nil); pub != nil || err != nil {
		t.Errorf("no records: %+v, %v", pub, err)
	}
}
