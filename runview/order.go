package runview

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/provenance"
)

// ListKey is what tells the runs of one campaign apart in a list of runs
// (the runs command's table, the site's runs table) and the order they are
// listed in: by date, campaign, role (provenance.RoleRank), group (a node
// run, a repeat set), offered load, and replica's k or repeat's r.
type ListKey struct {
	Date, Campaign, Role, Group string
	// Concurrency and Rate are the offered load as the provenance states
	// it (workload.concurrency, workload.request_rate).
	Concurrency, Rate string
	// Load is the offered load in the archive's words: "conc 2048", "rate
	// 4/s", "rate inf" ("" when neither is stated); LoadValue orders it.
	Load      string
	LoadValue float64
	// Replica is the replica's k ("k/n") or the repeat's r; 0 when neither.
	Replica  int
	roleRank int
}

// ListKeyOf is the list key of a run of the given date, campaign and role
// with the effective provenance eff.
func ListKeyOf(date, campaign, role string, eff map[string]string) ListKey {
	return ListKeyOfFields(date, campaign, role, ListFields{Group: eff["group"], Replica: eff["replica"], Repeat: eff["repeat"],
		Concurrency: eff["workload.concurrency"], Rate: eff["workload.request_rate"]})
}

// ListFields are the fields of a run's effective provenance its list key
// reads: group, replica, repeat, workload.concurrency and
// workload.request_rate.
type ListFields struct {
	Group, Replica, Repeat, Concurrency, Rate string
}

// ListKeyOfFields is ListKeyOf of a run whose effective provenance has
// the fields f (a caller that keeps them apart, such as the site's runs
// table, needs no map for each run).
func ListKeyOfFields(date, campaign, role string, f ListFields) ListKey {
	k := ListKey{Date: date, Campaign: campaign, Role: role, Group: f.Group, roleRank: provenance.RoleRank(role),
		Concurrency: f.Concurrency, Rate: f.Rate}
	switch c, rate := k.Concurrency, k.Rate; {
	case c != "":
		k.Load = "conc " + c
		k.LoadValue, _ = strconv.ParseFloat(c, 64)
	case rate == "inf":
		k.Load, k.LoadValue = "rate inf", math.Inf(1)
	case rate != "":
		k.Load = "rate " + rate + "/s"
		k.LoadValue, _ = strconv.ParseFloat(rate, 64)
	}
	if n, _, ok := strings.Cut(f.Replica, "/"); ok {
		k.Replica, _ = strconv.Atoi(strings.TrimSpace(n))
	} else if r := f.Repeat; r != "" { // "" is no number (and its error an allocation)
		if rep, err := strconv.Atoi(r); err == nil {
			k.Replica = rep
		}
	}
	return k
}

// CompareListed orders two runs' list keys (0 when the keys tie; a caller
// keeps its own order then).
//
// Each part is compared only when the ones before it tie (a site sorts
// 10,000 runs, and the date decides most pairs).
func CompareListed(x, y ListKey) int {
	if c := strings.Compare(x.Date, y.Date); c != 0 {
		return c
	}
	if c := strings.Compare(x.Campaign, y.Campaign); c != 0 {
		return c
	}
	if c := cmp.Compare(x.roleRank, y.roleRank); c != 0 {
		return c
	}
	if c := strings.Compare(x.Role, y.Role); c != 0 {
		return c
	}
	if c := strings.Compare(x.Group, y.Group); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(x.LoadValue, y.LoadValue), cmp.Compare(x.Replica, y.Replica))
}
