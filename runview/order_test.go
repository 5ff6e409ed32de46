package runview

import (
	"cmp"
	"math"
	"math/rand/v2"
	"testing"
)

// compareListedRef is CompareListed as it was written, every part
// compared: the reference the early returns must match.
func compareListedRef(x, y ListKey) int {
	return cmp.Or(cmp.Compare(x.Date, y.Date), cmp.Compare(x.Campaign, y.Campaign),
		cmp.Compare(x.roleRank, y.roleRank), cmp.Compare(x.Role, y.Role), cmp.Compare(x.Group, y.Group),
		cmp.Compare(x.LoadValue, y.LoadValue), cmp.Compare(x.Replica, y.Replica))
}

// TestCompareListedMatchesRef: keys that tie on any number of their
// first parts, loads that are not numbers or infinite, compare as before.
func TestCompareListedMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pick := func(ss ...string) string { return ss[rng.IntN(len(ss))] }
	key := func() ListKey {
		role := pick("", "baseline", "tuned", "reference", "zz")
		rate := pick("", "1", "2.5", "inf", "x")
		conc := pick("", "", "8", "64", "08")
		replica := pick("", "1/3", "2/3", "x/2")
		return ListKeyOf(pick("", "2026-01-01", "2026-01-02", "2026-01-01T10:00:00Z"), pick("", "a", "b", "é"), role,
			map[string]string{"group": pick("", "g1", "g2"), "workload.concurrency": conc, "workload.request_rate": rate,
				"replica": replica, "repeat": pick("", "1", "2", "x")})
	}
	keys := make([]ListKey, 300)
	for i := range keys {
		keys[i] = key()
	}
	keys[0].LoadValue, keys[1].LoadValue, keys[2].LoadValue = math.NaN(), math.Inf(-1), math.NaN()
	for _, x := range keys {
		for _, y := range keys {
			if got, want := CompareListed(x, y), compareListedRef(x, y); got != want {
				t.Fatalf("CompareListed(%+v, %+v) = %d, want %d", x, y, got, want)
			}
		}
	}
}
