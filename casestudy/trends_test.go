package casestudy

import (
	"context"
	"slices"
	"testing"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/store"
)

// TestTrends: runs of one configuration (the repeats and the node's
// replicas share every comparison field) form one series, each value
// recomputed from its records; runs of other configurations are apart.
func TestTrends(t *testing.T) {
	t.Parallel()
	ss, err := Trends(context.Background(), campaign(), store.Filter{Campaign: "small"}, "output_throughput", figures.TrendRule{Window: 1})
	if err != nil {
		t.Fatal(err)
	}
	var found *figures.TrendSeries
	for i := range ss {
		for _, p := range ss[i].Points {
			if p.RunID == "bbbb0001" {
				found = &ss[i]
			}
		}
	}
	if found == nil {
		t.Fatalf("no series holds bbbb0001: %+v", ss)
	}
	var ids []string
	for _, p := range found.Points {
		ids = append(ids, p.RunID)
	}
	if !slices.Equal(ids, []string{"bbbb0001", "bbbb0002", "dddd0001", "dddd0002"}) {
		t.Errorf("series %v", ids)
	}
	// 50 then 100 tok/s: outside the one previous run's range, better.
	if p := found.Points[1]; p.Value != 100 || !p.Flagged || p.Better == nil || !*p.Better || found.Points[0].Value != 50 {
		t.Errorf("points %+v", found.Points[:2])
	}
	if _, err := Trends(context.Background(), campaign(), store.Filter{}, "speed", figures.TrendRule{}); err == nil {
		t.Error("an unknown metric was accepted")
	}
}
