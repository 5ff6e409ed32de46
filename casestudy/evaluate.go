// Package casestudy evaluates a case-study spec against an archive: it
// selects the runs by their provenance, recomputes every figure from their
// per-request records through the definitions of package figures (for a
// summary-only run, takes the figures its tool stated, each value saying
// so), applies the publishable rule, and attaches confounders and caveat
// codes. Its Result, with the narrative
// bindings named after it (Bindings), is plain data for the command line,
// the renderers, the audit and the published history.
package casestudy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// Value is one figure of a case study with what it stands on.
type Value struct {
	Name       string   `json:"name"`
	Metric     string   `json:"metric"`
	Value      float64  `json:"value"`
	Unit       string   `json:"unit"`
	Definition string   `json:"definition"`
	N          int      `json:"n"`     // measurements behind it
	Basis      string   `json:"basis"` // "single run", "conservative of n repeats", ...
	Runs       []string `json:"runs"`  // run ids behind it
	Reference  string   `json:"reference,omitempty"`
	// ValueSource is where Value comes from: "recomputed" from per-request
	// records or "stated" by the run's tool (figures.SourceRecomputed,
	// figures.SourceStated); an external reference's value is stated by
	// its publisher. Sources says it for each run behind the value, in Runs
	// order.
	ValueSource string           `json:"value_source"`
	Sources     []figures.Origin `json:"sources"`
	// Min and Max are the lowest and highest of the N measurements (a
	// text names both repeats: "45,941 and 46,701 tok/s").
	Min, Max float64 `json:"-"`
	// GPUs serving each run behind the value (0: not stated, or the runs
	// differ); Cost the estimated cost of a million output tokens at this
	// output throughput (an output_throughput figure of a case study with
	// a price).
	GPUs float64               `json:"gpus,omitempty"`
	Cost *figures.CostEstimate `json:"cost,omitempty"`
}

// Mixed reports whether the runs behind the value mix recomputed and
// stated figures.
func (v Value) Mixed() bool {
	for _, o := range v.Sources {
		if o.Source != v.ValueSource {
			return true
		}
	}
	return false
}

// NodeFigure is a node aggregate: the conservative node run and each run.
type NodeFigure struct {
	Name         string               `json:"name"`
	Groups       []string             `json:"groups"`
	Runs         []figures.NodeResult `json:"runs"`
	Conservative int                  `json:"conservative"` // index into Runs
	Throughput   Value                `json:"throughput"`
	Scaling      *figures.Scaling     `json:"scaling,omitempty"`
	Caveats      []caveat.Caveat      `json:"caveats"`
	// GPUs of the conservative node run (Σ over its replicas, 0 when one
	// does not state its count), its output throughput per GPU and the
	// cost estimate at that throughput (a case study with a price).
	GPUs             float64               `json:"gpus,omitempty"`
	ThroughputPerGPU *float64              `json:"throughput_per_gpu,omitempty"`
	Cost             *figures.CostEstimate `json:"cost,omitempty"`
}

// ComparisonFigure is a named comparison.
type ComparisonFigure struct {
	Name       string             `json:"name"`
	Comparison figures.Comparison `json:"comparison"`
	Baseline   Value              `json:"baseline"`
	Candidate  Value              `json:"candidate"`
	Caveats    []caveat.Caveat    `json:"caveats"`
}

// SweepFigure is a named sweep.
type SweepFigure struct {
	Name      string              `json:"name"`
	Parameter string              `json:"parameter"`
	Result    figures.SweepResult `json:"result"`
	Caveats   []caveat.Caveat     `json:"caveats"`
}

// Result is a whole evaluated case study.
type Result struct {
	Spec        *spec.Spec                   `json:"-"`
	Figures     map[string]Value             `json:"figures"`
	Nodes       map[string]*NodeFigure       `json:"nodes"`
	Comparisons map[string]*ComparisonFigure `json:"comparisons"`
	Sweeps      map[string]*SweepFigure      `json:"sweeps"`
	// Selections maps each of the spec's run selections to the runs it
	// picked, in id order.
	Selections map[string][]string `json:"selections"`
	// Workload maps each selection to the numeric workload fields its runs
	// all share (WorkloadFields, by short name: input_len, ...), so that a
	// narrative binds a request spec such as 1,000/1,000 instead of typing it.
	Workload map[string]map[string]float64 `json:"workload"`
	// Caveats of the whole case study, sorted, without duplicates.
	Caveats []caveat.Caveat `json:"caveats"`
	// RunIDs are every run the figures stand on; Digest is a SHA-256 over
	// their sorted raw-file hashes, the spec's bytes and its narratives'
	// bytes in language order (DESIGN.md): the digest a report footer shows.
	RunIDs []string `json:"run_ids"`
	Digest string   `json:"archive_digest"`
	// Unpublishable maps each run the figures stand on that is not
	// publishable to what keeps it out (figures.Blockers, the one rule of
	// docs/provenance.md); empty when every run is publishable. report
	// records no version while it is not empty.
	Unpublishable map[string][]string `json:"unpublishable"`
	// SLO is the spec's SLO thresholds and SLOTargetPct its attainment
	// target; Price the spec's price of a GPU-hour. nil/0 when not declared.
	SLO          *figures.SLO   `json:"slo,omitempty"`
	SLOTargetPct float64        `json:"slo_target_pct,omitempty"`
	Price        *figures.Price `json:"price,omitempty"`
}

// Publishable reports whether every run the figures stand on is.
func (r *Result) Publishable() bool { return len(r.Unpublishable) == 0 }

// Source is what an evaluation reads of an archive (*store.Archive is
// one): a campaign's runs, a run's record and requests, and the external
// references of a campaign.
type Source interface {
	ListRuns(store.Filter) ([]store.RunSummary, error)
	RunMeta(idOrPrefix string) (*store.RunRecord, error)
	Requests(runID string) ([]benchrun.Request, error)
	Reference(campaign, id string) (*store.StoredReference, error)
}

// Options tune an evaluation.
type Options struct {
	Caveats caveat.Options `json:"caveats"`
	// SLO judges the runs' requests when the spec declares none (compare
	// --slo); zero: the spec's.
	SLO figures.SLO `json:"slo"`
}

type runInfo struct {
	rec  *store.RunRecord
	eff  map[string]string
	figs *figures.RunFigures
}

type evaluator struct {
	ctx  context.Context
	s    *spec.Spec
	a    Source
	opt  Options
	runs []*runInfo
	byID map[string]*runInfo
	used map[string]bool
	// refs are the external references the comparisons used, by id.
	refs  map[string]*store.StoredReference
	res   *Result
	cavs  []caveat.Caveat
	nodes map[string]*NodeFigure
}

// Evaluate computes every figure the spec names.
func Evaluate(ctx context.Context, s *spec.Spec, a Source, opt Options) (*Result, error) {
	ev := &evaluator{ctx: ctx, s: s, a: a, opt: opt, byID: map[string]*runInfo{}, used: map[string]bool{},
		nodes: map[string]*NodeFigure{},
		res: &Result{Spec: s, Figures: map[string]Value{}, Unpublishable: map[string][]string{}, Nodes: map[string]*NodeFigure{}, Selections: map[string][]string{}, Workload: map[string]map[string]float64{},
			Comparisons: map[string]*ComparisonFigure{}, Sweeps: map[string]*SweepFigure{}}}
	if opt.Caveats.InteractiveLatency == 0 {
		ev.opt.Caveats.InteractiveLatency = s.Caveats.InteractiveLatencyS
	}
	if opt.Caveats.MaxReferenceAgeDays == 0 {
		ev.opt.Caveats.MaxReferenceAgeDays = s.Caveats.ReferenceMaxAgeDays
	}
	if th := s.SLO.Thresholds(); th.Declared() {
		ev.res.SLO, ev.res.SLOTargetPct = &th, s.SLO.AttainmentPct
	}
	if s.Price.Declared() {
		p := s.Price
		ev.res.Price = &p
	}
	if err := ev.load(); err != nil {
		return nil, err
	}
	// Every selection must pick runs, used by a figure or not: an empty one
	// is a spec that no longer matches its archive.
	for _, n := range sorted(s.Runs) {
		runs, err := ev.selection(n)
		if err != nil {
			return nil, err
		}
		for _, ri := range runs {
			ev.res.Selections[n] = append(ev.res.Selections[n], ri.rec.ID)
		}
		if w := sharedWorkload(runs); len(w) > 0 {
			ev.res.Workload[n] = w
		}
	}
	for _, n := range sorted(s.Figures) {
		if err := ev.figure(n, s.Figures[n]); err != nil {
			return nil, fmt.Errorf("figure %s: %w", n, err)
		}
	}
	for _, n := range sorted(s.Nodes) {
		if err := ev.node(n, s.Nodes[n]); err != nil {
			return nil, fmt.Errorf("node %s: %w", n, err)
		}
	}
	for _, n := range sorted(s.Sweeps) {
		if err := ev.sweep(n, s.Sweeps[n]); err != nil {
			return nil, fmt.Errorf("sweep %s: %w", n, err)
		}
	}
	for _, n := range sorted(s.Comparisons) {
		if err := ev.comparison(n, s.Comparisons[n]); err != nil {
			return nil, fmt.Errorf("comparison %s: %w", n, err)
		}
	}
	ev.res.Caveats = caveat.Sort(ev.cavs)
	if err := ev.digest(); err != nil {
		return nil, err
	}
	return ev.res, nil
}

// load reads the provenance of every run of the spec's campaign.
func (ev *evaluator) load() error {
	list, err := ev.a.ListRuns(store.Filter{Campaign: ev.s.Campaign})
	if err != nil {
		return err
	}
	for _, sum := range list {
		if ev.s.Campaign != "" && sum.Campaign != ev.s.Campaign {
			continue // the filter matches substrings; a spec names one campaign
		}
		rec, err := ev.a.RunMeta(sum.ID)
		if err != nil {
			return err
		}
		ri := &runInfo{rec: rec, eff: provenance.Record(rec.Provenance).Effective()}
		ev.runs = append(ev.runs, ri)
		ev.byID[rec.ID] = ri
	}
	return nil
}

// selection returns the runs a named selector picks, in id order; an empty
// selection is an error that says what was looked for.
func (ev *evaluator) selection(name string) ([]*runInfo, error) {
	sel := ev.s.Runs[name]
	var out []*runInfo
	for _, ri := range ev.runs {
		ok := true
		for f, v := range sel {
			if ri.eff[f] != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, ri)
		}
	}
	if len(out) == 0 {
		var parts []string
		for _, f := range sortedKeys(sel) {
			parts = append(parts, f+"="+sel[f])
		}
		return nil, fmt.Errorf("selection %q (%s) matches no archived run of campaign %q", name, strings.Join(parts, ", "), ev.s.Campaign)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rec.ID < out[j].rec.ID })
	return out, nil
}

// figuresOf recomputes a run's figures from its records (once).
func (ev *evaluator) figuresOf(ri *runInfo) (*figures.RunFigures, error) {
	if ri.figs != nil {
		return ri.figs, nil
	}
	if err := ev.ctx.Err(); err != nil {
		return nil, err
	}
	run := ri.rec.Run
	if !run.HasRequests {
		// A summary-only run: its figures are the ones its tool stated,
		// marked as such wherever they appear.
		f := figures.FromStated(run)
		f.GPUs = figures.GPUsOf(ri.eff)
		f.ApplySLO(nil, ev.slo())
		ri.figs = &f
		ev.used[ri.rec.ID] = true
		ev.blocked(ri, run)
		ev.cavs = append(ev.cavs, caveat.ForRun(ri.rec.ID, f, ri.eff)...)
		return ri.figs, nil
	}
	reqs, err := ev.a.Requests(ri.rec.ID)
	if err != nil {
		return nil, err
	}
	f := figures.RecomputeRun(run, reqs, ri.eff)
	f.ApplySLO(reqs, ev.slo())
	ri.figs = &f
	ev.used[ri.rec.ID] = true
	withReqs := *run
	withReqs.Requests = reqs
	ev.blocked(ri, &withReqs)
	ev.cavs = append(ev.cavs, caveat.ForRun(ri.rec.ID, f, ri.eff)...)
	return ri.figs, nil
}

// slo is the SLO the runs' requests are judged against: the spec's, else
// Options.SLO.
func (ev *evaluator) slo() figures.SLO {
	if th := ev.s.SLO.Thresholds(); th.Declared() {
		return th
	}
	return ev.opt.SLO
}

// blocked applies the publishable rule to a run the figures use.
func (ev *evaluator) blocked(ri *runInfo, run *benchrun.Run) {
	b := figures.Blockers(run, ri.eff)
	if len(b) == 0 {
		return
	}
	if ev.res != nil {
		if ev.res.Unpublishable == nil {
			ev.res.Unpublishable = map[string][]string{}
		}
		ev.res.Unpublishable[ri.rec.ID] = b
	}
	if imp := figures.ImpossibleStated(run); len(imp) > 0 {
		var ms []string
		for _, i := range imp {
			ms = append(ms, i.Metric)
		}
		ev.cavs = append(ev.cavs, caveat.New(caveat.CodeStatedImpossible, "run", ri.rec.ID, "metrics", strings.Join(ms, ",")))
	}
}

// measure computes a metric over a selection: the value of a single run,
// or the conservative value over repeats.
func (ev *evaluator) measure(name, sel, metric string) (Value, []*runInfo, *figures.RepeatStats, error) {
	runs, err := ev.selection(sel)
	if err != nil {
		return Value{}, nil, nil, err
	}
	m, ok := figures.ParseMetric(metric)
	if !ok {
		return Value{}, nil, nil, fmt.Errorf("unknown metric %q", metric)
	}
	var ms []figures.Measurement
	origins := map[string]figures.Origin{}
	for _, ri := range runs {
		f, err := ev.figuresOf(ri)
		if err != nil {
			return Value{}, nil, nil, err
		}
		x := m.Of(f)
		o := f.OriginOf(ri.rec.ID, m)
		if f.SLO != nil && !f.SLO.Recomputable() && (m.Metric.Name == "goodput" || m.Metric.Name == "slo_attainment") {
			return Value{}, nil, nil, fmt.Errorf("run %s (%s): %s against the SLO %s is not recomputable: %s", ri.rec.ID, ri.rec.FileName, metric, f.SLO.SLO, f.SLO.Reason)
		}
		if o.Stated() && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return Value{}, nil, nil, fmt.Errorf("run %s (%s) has no per-request records and its tool (%s) did not state %s: the figure can be neither recomputed nor read",
				ri.rec.ID, ri.rec.FileName, o.Tool, metric)
		}
		origins[ri.rec.ID] = o
		ms = append(ms, figures.Measurement{RunID: ri.rec.ID, Value: x})
	}
	rs, err := figures.Repeats(ms, m.Metric.Direction)
	if err != nil {
		return Value{}, nil, nil, err
	}
	v := Value{Name: name, Metric: metric, Value: rs.Conservative, Unit: m.Unit(), Definition: m.Formula(),
		N: rs.N, Runs: rs.RunIDs, ValueSource: origins[rs.ConservativeRun].Source, Min: rs.Min, Max: rs.Max}
	if o := origins[rs.ConservativeRun]; o.Stated() {
		// The value is the tool's, by its own definition of the metric.
		v.Definition = o.String() + "; the tool's own counterpart of: " + v.Definition
	}
	for _, id := range rs.RunIDs {
		o := origins[id]
		v.Sources = append(v.Sources, o)
		if o.Stated() {
			ev.cavs = append(ev.cavs, caveat.ForStated(name, o))
		}
	}
	v.GPUs = selectionGPUs(runs)
	if p := ev.priceFor(v.Runs); m.Metric.Name == "output_throughput" && p != nil {
		if c, ok := figures.EstimateCost(*p, v.GPUs, v.Value); ok {
			v.Cost = &c
		}
	}
	if rs.N == 1 {
		v.Basis = "single run"
	} else {
		v.Basis = fmt.Sprintf("conservative of %d repeats (%s)", rs.N, map[bool]string{true: "lowest", false: "highest"}[m.Metric.Direction == figures.HigherIsBetter])
	}
	return v, runs, &rs, nil
}

func (ev *evaluator) figure(name string, f spec.Figure) error {
	v, _, rs, err := ev.measure(name, f.Of, f.Metric)
	if err != nil {
		return err
	}
	ev.cavs = append(ev.cavs, caveat.ForRepeats(name, *rs)...)
	ev.res.Figures[name] = v
	return nil
}

// node aggregates each group over its common window; with several groups
// the lowest node throughput is the capacity figure.
func (ev *evaluator) node(name string, nd spec.Node) error {
	out := &NodeFigure{Name: name, Groups: nd.Groups}
	var ms []figures.Measurement
	var nodeGPUs []float64
	for _, g := range nd.Groups {
		runs, err := ev.selection(g)
		if err != nil {
			return err
		}
		var effs []map[string]string
		for _, ri := range runs {
			effs = append(effs, ri.eff)
		}
		nodeGPUs = append(nodeGPUs, figures.NodeGPUs(effs))
		var reps []figures.ReplicaRun
		for _, ri := range runs {
			if _, err := ev.figuresOf(ri); err != nil {
				return err
			}
			if !ri.rec.Run.HasRequests {
				// A stated duration says how long one client ran, not when:
				// without send times no common window can be placed.
				return fmt.Errorf("group %s: run %s (%s) has no per-request records: its tool stated a duration but not when the run started and ended, so no common window with the other replicas can be established and the node cannot be aggregated",
					g, ri.rec.ID, ri.rec.FileName)
			}
			reqs, err := ev.a.Requests(ri.rec.ID)
			if err != nil {
				return err
			}
			k, n := parseReplica(ri.eff["replica"])
			reps = append(reps, figures.ReplicaRun{RunID: ri.rec.ID, Clock: ri.rec.Run.Clock, Host: ri.eff["measurement.client_host"],
				Requests: reqs, Replica: k, Of: n})
		}
		res, err := figures.Node(reps, figures.NodeOptions{FixedOutput: figures.FixedOutput(runs[0].eff), AllowFailures: nd.AllowFailures})
		if err != nil {
			return fmt.Errorf("group %s: %w", g, err)
		}
		out.Runs = append(out.Runs, res)
		ms = append(ms, figures.Measurement{RunID: g, Value: res.OutputThroughput})
		out.Caveats = append(out.Caveats, caveat.ForNode(res)...)
	}
	rs, err := figures.Repeats(ms, figures.HigherIsBetter)
	if err != nil {
		return err
	}
	for i, m := range ms {
		if m.RunID == rs.ConservativeRun {
			out.Conservative = i
		}
	}
	cons := out.Runs[out.Conservative]
	out.Throughput = Value{Name: name, Metric: "output_throughput", Value: cons.OutputThroughput, Unit: "tok/s",
		Definition: "node: Σ output tokens of completed requests over all replicas / common window (earliest send to latest completion)",
		N:          rs.N, Runs: replicaIDs(cons), ValueSource: figures.SourceRecomputed}
	for _, r := range cons.PerReplica {
		out.Throughput.Sources = append(out.Throughput.Sources, figures.Origin{RunID: r.RunID, Source: figures.SourceRecomputed, Records: r.Sent})
	}
	if rs.N == 1 {
		out.Throughput.Basis = "single node run"
	} else {
		out.Throughput.Basis = fmt.Sprintf("conservative (lowest) of %d node runs", rs.N)
	}
	out.Caveats = append(out.Caveats, caveat.ForRepeats(name, rs)...)
	out.GPUs = nodeGPUs[out.Conservative]
	if out.GPUs > 0 {
		v := figures.PerGPU(cons.OutputThroughput, out.GPUs)
		out.ThroughputPerGPU = &v
		if p := ev.priceFor(replicaIDs(cons)); p != nil {
			if c, ok := figures.EstimateCost(*p, out.GPUs, cons.OutputThroughput); ok {
				out.Cost = &c
			}
		}
	}
	if nd.Reference != "" {
		single, _, _, err := ev.measure(name+".reference", nd.Reference, "output_throughput")
		if err != nil {
			return err
		}
		if single.N != 1 {
			return fmt.Errorf("reference %s selects %d runs; scaling efficiency needs one single-replica run", nd.Reference, single.N)
		}
		sc, err := cons.ScalingEfficiency(nd.Groups[out.Conservative], figures.Measurement{RunID: single.Runs[0], Value: single.Value})
		if err != nil {
			return err
		}
		out.Scaling = &sc
	}
	out.Caveats = caveat.Sort(out.Caveats)
	ev.cavs = append(ev.cavs, out.Caveats...)
	ev.res.Nodes[name] = out
	ev.nodes[name] = out
	return nil
}

func replicaIDs(n figures.NodeResult) []string {
	var ids []string
	for _, r := range n.PerReplica {
		ids = append(ids, r.RunID)
	}
	return ids
}

func parseReplica(s string) (k, n int) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0
	}
	k, _ = strconv.Atoi(a)
	n, _ = strconv.Atoi(b)
	return k, n
}

func (ev *evaluator) sweep(name string, sw spec.Sweep) error {
	runs, err := ev.selection(sw.Of)
	if err != nil {
		return err
	}
	var pts []figures.SweepPoint
	for _, ri := range runs {
		f, err := ev.figuresOf(ri)
		if err != nil {
			return err
		}
		p, err := strconv.ParseFloat(ri.eff[sw.Parameter], 64)
		if err != nil {
			return fmt.Errorf("run %s: %s = %q is not a number", ri.rec.ID, sw.Parameter, ri.eff[sw.Parameter])
		}
		pts = append(pts, figures.SweepPoint{RunID: ri.rec.ID, Param: p, Throughput: f.OutputThroughput, MedianLatency: f.E2EL.Median,
			GPUs: f.GPUs, SLO: f.SLO})
		if f.Source == figures.SourceStated {
			// A summary-only sweep point: its throughput and median
			// latency are its tool's.
			for _, metric := range []string{"output_throughput", "e2el.median"} {
				m, _ := figures.ParseMetric(metric)
				ev.cavs = append(ev.cavs, caveat.ForStated(name+"."+metric, f.OriginOf(ri.rec.ID, m)))
			}
		}
	}
	rule := figures.SaturationRule{MaxGainPct: sw.MaxGainPct, MinLatencyGrowthPct: sw.MinLatencyGrowthPct, SLOAttainmentPct: ev.res.SLOTargetPct}
	res, err := figures.Sweep(pts, rule)
	if err != nil {
		return err
	}
	for i := range res.Levels {
		l := &res.Levels[i]
		if p := ev.priceFor(l.RunIDs); p != nil {
			if c, ok := figures.EstimateCost(*p, l.GPUs, l.Throughput); ok {
				l.Cost = &c
			}
		}
	}
	out := &SweepFigure{Name: name, Parameter: sw.Parameter, Result: res, Caveats: caveat.Sort(caveat.ForSweep(res, ev.opt.Caveats))}
	ev.cavs = append(ev.cavs, out.Caveats...)
	ev.res.Sweeps[name] = out
	return nil
}

// side builds one side of a comparison.
func (ev *evaluator) side(name, ref, metric string) (figures.Side, Value, error) {
	switch {
	case strings.HasPrefix(ref, "ref:"):
		id := strings.TrimPrefix(ref, "ref:")
		sr, err := ev.a.Reference(ev.s.Campaign, id)
		if err != nil {
			return figures.Side{}, Value{}, fmt.Errorf("external reference %q: %w", id, err)
		}
		x := ExternalReference(sr)
		if ev.refs == nil {
			ev.refs = map[string]*store.StoredReference{}
		}
		ev.refs[id] = sr
		ev.cavs = append(ev.cavs, caveat.ForReference(x, ev.opt.Caveats)...)
		v := Value{Name: name, Metric: sr.Figure, Value: sr.Value, Unit: sr.Unit, Definition: "as published by " + sr.Source,
			N: 1, Basis: "external reference", Reference: id, ValueSource: figures.SourceStated,
			Sources: []figures.Origin{{RunID: id, Source: figures.SourceStated, Tool: sr.Source}}}
		return figures.ReferenceSide(x), v, nil
	case strings.HasPrefix(ref, "node:"):
		nf := ev.nodes[strings.TrimPrefix(ref, "node:")]
		if metric != "output_throughput" {
			return figures.Side{}, Value{}, fmt.Errorf("a node side offers output_throughput only, not %s", metric)
		}
		first := ev.byID[nf.Throughput.Runs[0]]
		return figures.Side{RunID: nf.Groups[nf.Conservative], Value: nf.Throughput.Value, Unit: "tok/s", N: nf.Throughput.N,
			Provenance: first.eff, Clock: first.rec.Run.Clock}, nf.Throughput, nil
	}
	v, runs, rs, err := ev.measure(name, ref, metric)
	if err != nil {
		return figures.Side{}, Value{}, err
	}
	s := figures.Side{RunID: rs.ConservativeRun, Value: v.Value, Unit: v.Unit, N: v.N, Provenance: runs[0].eff, ValueSource: v.ValueSource,
		PercentileMethod: string(ev.byID[rs.ConservativeRun].figs.PercentileMethod), Clock: runs[0].rec.Run.Clock}
	for _, ri := range runs {
		if ri.rec.ID == rs.ConservativeRun {
			s.Provenance = ri.eff
			s.SourceTool, s.SourcePercentileMethod = sourceTool(ri), ri.rec.Run.PercentileMethod
			if st, ok := ri.rec.Run.StatedValue(metric); ok {
				s.SourceKey = st.SourceKey
			}
		}
	}
	if rs.N > 1 {
		s.Values = rs.Values
	}
	return s, v, nil
}

// sourceTool names the client that measured a run: its format's tool, with
// the version the run states.
func sourceTool(ri *runInfo) string {
	t := ri.rec.Run.SourceTool
	if t == "" {
		t = ri.rec.Run.Format
	}
	return t
}

// ExternalReference converts an archived reference for the computation.
func ExternalReference(sr *store.StoredReference) figures.ExternalReference {
	return figures.ExternalReference{ID: sr.ID, Figure: sr.Figure, Unit: sr.Unit, Source: sr.Source, Title: sr.Title,
		Value: sr.Value, Captured: sr.Captured, Checked: sr.Checked, Visible: sr.Visible, Provenance: sr.Provenance.Effective()}
}

func (ev *evaluator) comparison(name string, c spec.Comparison) error {
	bs, bv, err := ev.side(name+".baseline", c.Baseline, c.Metric)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	cs, cv, err := ev.side(name+".candidate", c.Candidate, c.Metric)
	if err != nil {
		return fmt.Errorf("candidate: %w", err)
	}
	cmp, err := figures.Compare(bs, cs, figures.ComparisonSpec{Metric: c.Metric, Intended: c.Intended})
	if err != nil {
		return err
	}
	out := &ComparisonFigure{Name: name, Comparison: cmp, Baseline: bv, Candidate: cv,
		Caveats: caveat.Sort(caveat.ForComparison(cmp, ev.opt.Caveats))}
	ev.cavs = append(ev.cavs, out.Caveats...)
	ev.res.Comparisons[name] = out
	return nil
}

// digest is the archive digest of DESIGN.md: SHA-256 over the sorted raw
// file hashes of the runs used, then the spec's bytes, the narratives'
// bytes, and (so that a changed reference or provenance value changes it,
// docs/casestudy.md) the external references used and the effective
// provenance of every run used.
func (ev *evaluator) digest() error {
	shas := map[string]bool{}
	for id := range ev.used {
		ev.res.RunIDs = append(ev.res.RunIDs, id)
		shas[ev.byID[id].rec.BlobSHA256] = true
	}
	sort.Strings(ev.res.RunIDs)
	h := sha256.New()
	for _, s := range sortedKeys(shas) {
		h.Write([]byte(s + "\n"))
	}
	data, err := os.ReadFile(ev.s.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	h.Write(data)
	for _, lang := range sorted(ev.s.Narrative) {
		_, data, err := ev.s.ReadNarrative(lang)
		if err != nil {
			return err
		}
		h.Write(data)
	}
	for _, id := range sortedKeys(ev.refs) {
		r := ev.refs[id]
		fmt.Fprintf(h, "reference %q %q %s %q %q %s %s %t\n", id, r.Figure, strconv.FormatFloat(r.Value, 'g', -1, 64), r.Unit, r.Source,
			r.Captured.Format(time.DateOnly), r.Checked.Format(time.DateOnly), r.Visible)
		for _, e := range r.Provenance {
			fmt.Fprintf(h, "reference provenance %q %q\n", e.Field, e.Value)
		}
	}
	for _, id := range ev.res.RunIDs {
		eff := ev.byID[id].eff
		fmt.Fprintf(h, "run %s\n", id)
		for _, k := range sortedKeys(eff) {
			fmt.Fprintf(h, "provenance %q %q\n", k, eff[k])
		}
	}
	ev.res.Digest = hex.EncodeToString(h.Sum(nil))
	return nil
}

func sorted[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// WorkloadFields are the workload provenance fields a selection exposes to
// narratives when all its runs give the same number.
var WorkloadFields = []string{"input_len", "output_len", "request_count", "concurrency"}

// sharedWorkload returns the WorkloadFields whose value is the same plain
// number on every run (a range such as 63-66 is not one number).
func sharedWorkload(runs []*runInfo) map[string]float64 {
	out := map[string]float64{}
	for _, f := range WorkloadFields {
		var v float64
		ok := len(runs) > 0
		for i, ri := range runs {
			x, err := strconv.ParseFloat(ri.eff["workload."+f], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || i > 0 && x != v {
				ok = false
				break
			}
			v = x
		}
		if ok {
			out[f] = v
		}
	}
	return out
}

// priceFor is the GPU-hour price of an operating point: the spec's, else
// the one every run behind it states alike in its provenance (cost.*);
// nil when there is neither.
func (ev *evaluator) priceFor(runIDs []string) *figures.Price {
	if ev.res != nil && ev.res.Price != nil {
		return ev.res.Price
	}
	var p *figures.Price
	for _, id := range runIDs {
		ri := ev.byID[id]
		if ri == nil {
			return nil
		}
		q, ok := figures.PriceOf(ri.eff)
		if !ok || p != nil && *p != q {
			return nil
		}
		p = &q
	}
	return p
}

// selectionGPUs is the number of GPUs every run of a selection states; 0 when
// one does not or they differ.
func selectionGPUs(runs []*runInfo) float64 {
	var n float64
	for i, ri := range runs {
		g := figures.GPUsOf(ri.eff)
		if g == 0 || i > 0 && g != n {
			return 0
		}
		n = g
	}
	return n
}
