package figures

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// ReplicaRun is one client run of a node measurement: replica k of n, each
// serving instance loaded by its own client at the same time.
type ReplicaRun struct {
	RunID    string             `json:"run_id"`
	Clock    benchrun.Clock     `json:"clock"`
	Host     string             `json:"host"` // where the client ran (measurement.client_host)
	Requests []benchrun.Request `json:"requests"`
	Replica  int                `json:"replica"` // k, from 1
	Of       int                `json:"of"`      // n
}

// NodeOptions relax Node's refusals where the caller knows more.
type NodeOptions struct {
	// OneClientProcess states that every replica's requests were sent by one
	// client process, so its monotonic start times compare across replicas.
	// Needed (with one non-empty Host on every replica) for monotonic clocks.
	OneClientProcess bool `json:"one_client_process"`
	// AllowFailures aggregates replicas with failed requests, reporting the
	// failures, instead of refusing them.
	AllowFailures bool `json:"allow_failures"`
	// FixedOutput is the requested fixed output length, to count short
	// outputs per replica; 0 when outputs were not fixed.
	FixedOutput int `json:"fixed_output"`
}

// ReplicaFigures are one replica's own figures within a node result.
type ReplicaFigures struct {
	RunID        string `json:"run_id"`
	Replica      int    `json:"replica"`
	Of           int    `json:"of"`
	Host         string `json:"host"`
	Sent         int    `json:"sent"`
	Completed    int    `json:"completed"`
	Failed       int    `json:"failed"`
	Short        int    `json:"short"` // Short is -1 when the length is not fixed
	OutputTokens int64  `json:"output_tokens"`
	// Start and End are the replica's own first send and last completion on
	// its clock; Window = End − Start; OutputThroughput over its own window.
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Window           float64 `json:"window"`
	OutputThroughput float64 `json:"output_throughput"`
}

// NodeResult is a node's throughput over the common wall-clock window.
type NodeResult struct {
	Replicas int            `json:"replicas"` // n
	Clock    benchrun.Clock `json:"clock"`
	// The common window: earliest send to latest completion over all replicas.
	WindowStart  float64 `json:"window_start"`
	WindowEnd    float64 `json:"window_end"`
	Window       float64 `json:"window"`
	Sent         int     `json:"sent"`
	Completed    int     `json:"completed"`
	Failed       int     `json:"failed"`
	Short        int     `json:"short"`
	OutputTokens int64   `json:"output_tokens"`
	// OutputThroughput = OutputTokens / Window: the node figure.
	OutputThroughput float64 `json:"output_throughput"`
	// SumOfRates adds per-replica rates timed over their own windows. It is
	// not a node figure; it is computed to show how much it would overstate
	// (Overstatement, % over OutputThroughput).
	SumOfRates    float64          `json:"sum_of_rates"`
	Overstatement float64          `json:"overstatement"`
	PerReplica    []ReplicaFigures `json:"per_replica"` // in replica order
	// FailuresAllowed records that NodeOptions.AllowFailures let failed
	// requests through (Failed then says how many).
	FailuresAllowed bool `json:"failures_allowed"`
}

// ErrNoReplicas is returned by Node for an empty replica set.
var ErrNoReplicas = errors.New("node: no replica runs")

// ReplicaClockError refuses a replica whose start times cannot be placed on
// a clock shared with the other replicas.
type ReplicaClockError struct {
	RunID  string         `json:"run_id"`
	Clock  benchrun.Clock `json:"clock"`
	Reason string         `json:"reason"`
}

func (e *ReplicaClockError) Error() string {
	c := string(e.Clock)
	if c == "" {
		c = "none"
	}
	return fmt.Sprintf("node: replica run %s (clock %s): %s", e.RunID, c, e.Reason)
}

// ReplicaNumberingError refuses a replica set that is not replicas 1..n of
// one n: a gap, a duplicate, mixed n, or no numbering.
type ReplicaNumberingError struct {
	RunID   string `json:"run_id"` // the offending replica, when one is to blame
	Of      int    `json:"of"`
	Missing []int  `json:"missing"`
	Reason  string `json:"reason"`
}

func (e *ReplicaNumberingError) Error() string {
	s := "node: replica numbering: " + e.Reason
	if e.RunID != "" {
		s += " (run " + e.RunID + ")"
	}
	return s
}

// ReplicaTimingError refuses a replica without the times a window needs, or
// replicas whose windows do not overlap (they were not measured together).
type ReplicaTimingError struct {
	RunID  string `json:"run_id"`
	Other  string `json:"other"` // the replica it does not overlap, for an overlap refusal
	Reason string `json:"reason"`
}

func (e *ReplicaTimingError) Error() string {
	if e.Other != "" {
		return fmt.Sprintf("node: replica runs %s and %s: %s", e.RunID, e.Other, e.Reason)
	}
	return fmt.Sprintf("node: replica run %s: %s", e.RunID, e.Reason)
}

// ReplicaFailuresError refuses a replica with failed requests (unless
// NodeOptions.AllowFailures).
type ReplicaFailuresError struct {
	RunID  string `json:"run_id"`
	Failed int    `json:"failed"`
	Sent   int    `json:"sent"`
}

func (e *ReplicaFailuresError) Error() string {
	return fmt.Sprintf("node: replica run %s has %d failed of %d requests (allow failures to aggregate it anyway)", e.RunID, e.Failed, e.Sent)
}

// Node aggregates replicas over their common window (docs/metrics.md,
// "Node"): window = earliest send to latest completion across all replicas,
// node output throughput = total completed output tokens / window.
func Node(replicas []ReplicaRun, opt NodeOptions) (NodeResult, error) {
	if len(replicas) == 0 {
		return NodeResult{}, ErrNoReplicas
	}
	rs := slices.Clone(replicas)
	if err := checkNumbering(rs); err != nil {
		return NodeResult{}, err
	}
	slices.SortFunc(rs, func(a, b ReplicaRun) int { return a.Replica - b.Replica })
	if err := checkClocks(rs, opt); err != nil {
		return NodeResult{}, err
	}
	n := NodeResult{Replicas: rs[0].Of, Clock: rs[0].Clock, WindowStart: math.Inf(1), WindowEnd: math.Inf(-1),
		FailuresAllowed: opt.AllowFailures}
	if opt.FixedOutput <= 0 {
		n.Short = -1
	}
	for _, r := range rs {
		rf, err := replicaFigures(r, opt.FixedOutput)
		if err != nil {
			return NodeResult{}, err
		}
		if rf.Failed > 0 && !opt.AllowFailures {
			return NodeResult{}, &ReplicaFailuresError{RunID: r.RunID, Failed: rf.Failed, Sent: rf.Sent}
		}
		n.PerReplica = append(n.PerReplica, rf)
		n.WindowStart = math.Min(n.WindowStart, rf.Start)
		n.WindowEnd = math.Max(n.WindowEnd, rf.End)
		n.Sent += rf.Sent
		n.Completed += rf.Completed
		n.Failed += rf.Failed
		if rf.Short > 0 {
			n.Short += rf.Short
		}
		n.OutputTokens += rf.OutputTokens
		n.SumOfRates += rf.OutputThroughput
	}
	// Replicas measured together share some instant: the latest start comes
	// before the earliest end (pairwise overlap of intervals on a line is the
	// same as a common intersection).
	late, early := 0, 0
	for i, r := range n.PerReplica {
		if r.Start > n.PerReplica[late].Start {
			late = i
		}
		if r.End < n.PerReplica[early].End {
			early = i
		}
	}
	if n.PerReplica[late].Start >= n.PerReplica[early].End {
		a, b := n.PerReplica[early], n.PerReplica[late]
		return NodeResult{}, &ReplicaTimingError{RunID: a.RunID, Other: b.RunID, Reason: fmt.Sprintf(
			"windows do not overlap: replica %d ends at %.6f, replica %d starts at %.6f; they were not measured together",
			a.Replica, a.End, b.Replica, b.Start)}
	}
	n.Window = n.WindowEnd - n.WindowStart
	n.OutputThroughput = float64(n.OutputTokens) / n.Window
	n.Overstatement = (n.SumOfRates/n.OutputThroughput - 1) * 100
	return n, nil
}

func checkNumbering(rs []ReplicaRun) error {
	of := rs[0].Of
	for _, r := range rs {
		if r.Of <= 0 || r.Replica <= 0 {
			return &ReplicaNumberingError{RunID: r.RunID, Reason: "replica k of n is not stated"}
		}
		if r.Of != of {
			return &ReplicaNumberingError{RunID: r.RunID, Of: r.Of, Reason: fmt.Sprintf("mixed n: replica of %d among replicas of %d", r.Of, of)}
		}
		if r.Replica > of {
			return &ReplicaNumberingError{RunID: r.RunID, Of: of, Reason: fmt.Sprintf("replica %d of %d", r.Replica, of)}
		}
	}
	seen := make(map[int]string, of)
	for _, r := range rs {
		if prev, dup := seen[r.Replica]; dup {
			return &ReplicaNumberingError{RunID: r.RunID, Of: of, Reason: fmt.Sprintf("replica %d of %d given twice (also run %s)", r.Replica, of, prev)}
		}
		seen[r.Replica] = r.RunID
	}
	var missing []int
	for k := 1; k <= of; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		ks := make([]string, len(missing))
		for i, k := range missing {
			ks[i] = strconv.Itoa(k)
		}
		return &ReplicaNumberingError{Of: of, Missing: missing, Reason: fmt.Sprintf("replica %s of %d missing", strings.Join(ks, ", "), of)}
	}
	return nil
}

// checkClocks allows epoch clocks (synchronised hosts), and monotonic clocks
// only from one client process: perf_counter values of two processes have
// unrelated origins, so their start times cannot be put on one line.
func checkClocks(rs []ReplicaRun, opt NodeOptions) error {
	for _, r := range rs {
		switch r.Clock {
		case benchrun.ClockEpoch, benchrun.ClockMonotonic:
		default:
			return &ReplicaClockError{RunID: r.RunID, Clock: r.Clock, Reason: "no per-request send times on a known clock"}
		}
	}
	for _, r := range rs {
		if r.Clock != benchrun.ClockMonotonic {
			continue
		}
		switch {
		case rs[0].Clock != r.Clock || slices.ContainsFunc(rs, func(o ReplicaRun) bool { return o.Clock != r.Clock }):
			return &ReplicaClockError{RunID: r.RunID, Clock: r.Clock, Reason: "a monotonic clock cannot be compared with the other replicas' epoch clocks"}
		case !opt.OneClientProcess:
			return &ReplicaClockError{RunID: r.RunID, Clock: r.Clock, Reason: "monotonic start times compare only within one client process, and the replicas are not stated to come from one"}
		case r.Host == "" || r.Host != rs[0].Host:
			return &ReplicaClockError{RunID: r.RunID, Clock: r.Clock, Reason: fmt.Sprintf("monotonic start times compare only on one host: host %q, replica %d's is %q", r.Host, rs[0].Replica, rs[0].Host)}
		}
	}
	return nil
}

func replicaFigures(r ReplicaRun, fixed int) (ReplicaFigures, error) {
	rf := ReplicaFigures{RunID: r.RunID, Replica: r.Replica, Of: r.Of, Host: r.Host, Sent: len(r.Requests),
		Start: math.Inf(1), End: math.Inf(-1), Short: -1}
	if fixed > 0 {
		rf.Short = 0
	}
	for i := range r.Requests {
		q := &r.Requests[i]
		if !benchrun.IsKnown(q.Start) {
			return rf, &ReplicaTimingError{RunID: r.RunID, Reason: fmt.Sprintf("request %d has no send time", q.Index)}
		}
		rf.Start = math.Min(rf.Start, q.Start)
		if q.Failed() {
			rf.Failed++
			continue
		}
		if !benchrun.IsKnown(q.Latency) {
			return rf, &ReplicaTimingError{RunID: r.RunID, Reason: fmt.Sprintf("completed request %d has no latency: its completion time is unknown", q.Index)}
		}
		rf.Completed++
		rf.End = math.Max(rf.End, q.Start+q.Latency)
		if q.OutputTokens > 0 {
			rf.OutputTokens += int64(q.OutputTokens)
		}
		if fixed > 0 && int(q.OutputTokens) < fixed {
			rf.Short++
		}
	}
	if rf.Completed == 0 {
		return rf, &ReplicaTimingError{RunID: r.RunID, Reason: "no completed requests: the replica has no window"}
	}
	rf.Window = rf.End - rf.Start
	rf.OutputThroughput = float64(rf.OutputTokens) / rf.Window
	return rf, nil
}

// Scaling is a scaling efficiency: node / (replicas × single).
type Scaling struct {
	Node      float64 `json:"node"`       // node throughput
	NodeRef   string  `json:"node_ref"`   // the node figure's run or group id
	Single    float64 `json:"single"`     // single-replica throughput
	SingleRun string  `json:"single_run"` // the single-replica reference run id
	Replicas  int     `json:"replicas"`
	// Efficiency is the ratio (0.9931); Pct the same in percent (99.31).
	Efficiency float64 `json:"efficiency"`
	Pct        float64 `json:"pct"`
}

// ScalingEfficiency = node / (replicas × single). The single-replica run
// must have the node's workload: dividing by a run of another request spec
// mixes configurations (the caller's comparison provenance says whether it
// does).
func ScalingEfficiency(node, single Measurement, replicas int) (Scaling, error) {
	if replicas <= 0 {
		return Scaling{}, fmt.Errorf("scaling efficiency: %d replicas", replicas)
	}
	if !(single.Value > 0) || math.IsInf(single.Value, 0) {
		return Scaling{}, fmt.Errorf("scaling efficiency: single-replica run %s has no positive throughput", single.RunID)
	}
	if !(node.Value >= 0) || math.IsInf(node.Value, 0) {
		return Scaling{}, fmt.Errorf("scaling efficiency: node figure %s has no value", node.RunID)
	}
	e := node.Value / (float64(replicas) * single.Value)
	return Scaling{Node: node.Value, NodeRef: node.RunID, Single: single.Value, SingleRun: single.RunID,
		Replicas: replicas, Efficiency: e, Pct: e * 100}, nil
}

// ScalingEfficiency of this node against a single-replica run; nodeRef names
// the node (its group id).
func (n NodeResult) ScalingEfficiency(nodeRef string, single Measurement) (Scaling, error) {
	return ScalingEfficiency(Measurement{RunID: nodeRef, Value: n.OutputThroughput}, single, n.Replicas)
}
