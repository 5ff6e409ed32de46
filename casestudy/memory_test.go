package casestudy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// memory is a campaign held in memory: a Source for Evaluate without an
// archive file.
type memory struct {
	runs map[string]*store.RunRecord
	refs map[string]*store.StoredReference // by campaign + " " + id
}

// run is a run of the in-memory campaign: its provenance (campaign.yaml's
// fields) and its requests.
type run struct {
	id    string
	prov  map[string]string
	clock benchrun.Clock
	reqs  []benchrun.Request
}

// rq is a completed request sending at start, its first token after ttft
// and its last after lat seconds, with 10 input and out output tokens.
func rq(start, ttft, lat float64, out int32) benchrun.Request {
	return benchrun.Request{Start: start, TTFT: ttft, Latency: lat, InputTokens: 10, OutputTokens: out}
}

func newMemory(runs ...run) *memory {
	m := &memory{runs: map[string]*store.RunRecord{}, refs: map[string]*store.StoredReference{}}
	for i, r := range runs {
		clock := r.clock
		if clock == "" {
			clock = benchrun.ClockMonotonic
		}
		rec := &store.RunRecord{ID: r.id, BlobSHA256: fmt.Sprintf("%064x", i+1), FileName: r.id + ".json",
			Run: &benchrun.Run{Format: "vllm-serve-json", Clock: clock, Requests: r.reqs, HasRequests: true,
				Completed: -1, Failed: -1}, Publishable: true}
		for _, f := range slices.Sorted(maps.Keys(r.prov)) {
			rec.Provenance = append(rec.Provenance, provenance.Entry{Field: f, Value: r.prov[f], Source: provenance.FromManifest})
		}
		m.runs[r.id] = rec
	}
	return m
}

func (m *memory) ListRuns(f store.Filter) ([]store.RunSummary, error) {
	var out []store.RunSummary
	for _, id := range slices.Sorted(maps.Keys(m.runs)) {
		eff := m.runs[id].Provenance.Effective()
		if strings.Contains(eff["campaign"], f.Campaign) {
			out = append(out, store.RunSummary{ID: id, Campaign: eff["campaign"], Role: eff["role"]})
		}
	}
	return out, nil
}

func (m *memory) RunMeta(idOrPrefix string) (*store.RunRecord, error) {
	var found *store.RunRecord
	for id, rec := range m.runs {
		if strings.HasPrefix(id, idOrPrefix) {
			if found != nil {
				return nil, fmt.Errorf("run id prefix %q is ambiguous", idOrPrefix)
			}
			found = rec
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no run %q", idOrPrefix)
	}
	// A copy, as the archive gives one: the evaluation may add to it.
	c := *found
	run := *found.Run
	c.Run = &run
	return &c, nil
}

func (m *memory) Requests(id string) ([]benchrun.Request, error) {
	rec, ok := m.runs[id]
	if !ok {
		return nil, fmt.Errorf("no run %q", id)
	}
	return slices.Clone(rec.Run.Requests), nil
}

func (m *memory) Reference(campaign, id string) (*store.StoredReference, error) {
	if r, ok := m.refs[campaign+" "+id]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("no reference %q in campaign %q", id, campaign)
}
