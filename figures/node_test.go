package figures

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// t0 is 2026-08-18 00:00 UTC in epoch seconds.
const t0 = 1787011200.0

// replica builds replica k of n: count requests of out tokens each, sent
// evenly over the first tenth of [start, end], the last completing at end.
func replica(k, n, count int, out int32, start, end float64) ReplicaRun {
	r := ReplicaRun{RunID: fmt.Sprintf("rep%d", k), Clock: benchrun.ClockEpoch, Host: fmt.Sprintf("client-%d", k), Replica: k, Of: n}
	span := (end - start) / 10
	for i := range count {
		s := start + span*float64(i)/float64(count)
		// completions spread back from end; request count-1 ends exactly at end
		done := end - span*float64(count-1-i)/float64(count)
		r.Requests = append(r.Requests, benchrun.Request{Index: i, Start: s, TTFT: 0.05, Latency: done - s,
			InputTokens: 64, OutputTokens: out})
	}
	return r
}

func TestNodePublished(t *testing.T) {
	// Eight replicas of 4,096 requests × 256 tokens, slightly staggered; the
	// first send is at t0, the last completion at t0 + 23.1935.
	var reps []ReplicaRun
	for k := 1; k <= 8; k++ {
		reps = append(reps, replica(k, 8, 4096, 256, t0+0.004*float64(k-1), t0+23.1935-0.006*float64(8-k)))
	}
	n, err := Node(reps, NodeOptions{FixedOutput: 256})
	if err != nil {
		t.Fatal(err)
	}
	if n.OutputTokens != 8388608 || n.Completed != 32768 || n.Failed != 0 || n.Short != 0 || n.Replicas != 8 {
		t.Errorf("tokens %d completed %d failed %d short %d", n.OutputTokens, n.Completed, n.Failed, n.Short)
	}
	if math.Abs(n.Window-23.1935) > 1e-6 || math.Round(n.Window*100)/100 != 23.19 {
		t.Errorf("window %v", n.Window)
	}
	if math.Round(n.OutputThroughput) != 361679 {
		t.Errorf("node throughput %v, want 361,679", n.OutputThroughput)
	}
	// Each replica's own window is shorter than the common one: adding
	// their rates overstates.
	if !(n.SumOfRates > n.OutputThroughput) || !(n.Overstatement > 0) {
		t.Errorf("sum of rates %v overstatement %v", n.SumOfRates, n.Overstatement)
	}
	for i, r := range n.PerReplica {
		if r.Replica != i+1 || r.Completed != 4096 || r.Window >= n.Window {
			t.Errorf("replica %+v", r)
		}
	}

	// Conservative of the two published node runs, and the scaling efficiency
	// of the other (1,000/1,000) workload.
	rs, _ := Repeats([]Measurement{{"node-a", 362812}, {"node-b", n.OutputThroughput}}, HigherIsBetter)
	if math.Round(rs.Conservative) != 361679 || rs.ConservativeRun != "node-b" {
		t.Errorf("conservative %v (%s)", rs.Conservative, rs.ConservativeRun)
	}
	sc, err := ScalingEfficiency(Measurement{"node-1000", 85409}, Measurement{"single-1000", 10750.04}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Round(sc.Pct*100)/100 != 99.31 || sc.SingleRun != "single-1000" || sc.NodeRef != "node-1000" {
		t.Errorf("scaling %+v", sc)
	}
	sc, _ = n.ScalingEfficiency("node-b", Measurement{"single", n.OutputThroughput / 8})
	if math.Abs(sc.Efficiency-1) > 1e-12 || sc.Replicas != 8 {
		t.Errorf("scaling of a node against its own mean replica %+v", sc)
	}
	if _, err := ScalingEfficiency(Measurement{"n", 1}, Measurement{"s", 0}, 8); err == nil {
		t.Error("zero single-replica throughput accepted")
	}
}

func TestNodeStaggeredReplicas(t *testing.T) {
	// Eight replicas, each running 10 s but starting 1 s apart: the node was
	// busy for 17 s. Adding the eight rates says 8 × 1,000 tok/s; the node
	// delivered 80,000 tokens in 17 s.
	var reps []ReplicaRun
	for k := 1; k <= 8; k++ {
		reps = append(reps, replica(k, 8, 100, 100, t0+float64(k-1), t0+float64(k-1)+10))
	}
	n, err := Node(reps, NodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(n.SumOfRates-8000) > 1e-6 {
		t.Errorf("sum of rates %v", n.SumOfRates)
	}
	if math.Abs(n.Window-17) > 1e-6 || math.Abs(n.OutputThroughput-80000.0/17) > 1e-3 {
		t.Errorf("node %v tok/s over %v s, want 80000/17", n.OutputThroughput, n.Window)
	}
	if math.Abs(n.Overstatement-70) > 1e-4 {
		t.Errorf("overstatement %v%%, want 70%%", n.Overstatement)
	}
	// One timestamp moves the node figure: the last completion 1 s later.
	reps[7].Requests[99].Latency += 1
	m, _ := Node(reps, NodeOptions{})
	if math.Abs(m.Window-18) > 1e-6 || m.OutputThroughput >= n.OutputThroughput {
		t.Errorf("after moving a completion: %v s, %v tok/s", m.Window, m.OutputThroughput)
	}
	// One token count moves it too.
	reps[0].Requests[0].OutputTokens = 99
	m2, _ := Node(reps, NodeOptions{})
	if m2.OutputTokens != 79999 || m2.OutputThroughput >= m.OutputThroughput {
		t.Errorf("after changing a token count: %d tokens", m2.OutputTokens)
	}
}

func TestNodeRefusals(t *testing.T) {
	base := func() []ReplicaRun {
		var reps []ReplicaRun
		for k := 1; k <= 4; k++ {
			reps = append(reps, replica(k, 4, 10, 100, t0+float64(k)*0.1, t0+10+float64(k)*0.1))
		}
		return reps
	}
	monotonic := func(reps []ReplicaRun, host string) []ReplicaRun {
		for i := range reps {
			reps[i].Clock, reps[i].Host = benchrun.ClockMonotonic, host
		}
		return reps
	}
	var (
		clockErr  *ReplicaClockError
		numErr    *ReplicaNumberingError
		timingErr *ReplicaTimingError
		failErr   *ReplicaFailuresError
	)
	for _, c := range []struct {
		name    string
		reps    func() []ReplicaRun
		opt     NodeOptions
		target  any
		mention string // the replica or detail the error must name
	}{
		{"monotonic clocks from separate processes", func() []ReplicaRun { return monotonic(base(), "h1") }, NodeOptions{}, &clockErr, "rep1"},
		{"monotonic, one process, but hosts differ", func() []ReplicaRun {
			r := monotonic(base(), "h1")
			r[2].Host = "h2"
			return r
		}, NodeOptions{OneClientProcess: true}, &clockErr, "rep3"},
		{"monotonic, one process, no host", func() []ReplicaRun { return monotonic(base(), "") }, NodeOptions{OneClientProcess: true}, &clockErr, "rep1"},
		{"one monotonic among epoch clocks", func() []ReplicaRun {
			r := base()
			r[1].Clock = benchrun.ClockMonotonic
			return r
		}, NodeOptions{OneClientProcess: true}, &clockErr, "rep2"},
		{"no clock", func() []ReplicaRun {
			r := base()
			r[3].Clock = benchrun.ClockNone
			return r
		}, NodeOptions{}, &clockErr, "rep4"},
		{"windows do not overlap", func() []ReplicaRun {
			r := base()
			r[3] = replica(4, 4, 10, 100, t0+20, t0+30)
			return r
		}, NodeOptions{}, &timingErr, "rep4"},
		{"failed requests", func() []ReplicaRun {
			r := base()
			r[2].Requests[5].Error = "timeout"
			return r
		}, NodeOptions{}, &failErr, "rep3"},
		{"replica 3 of 4 missing", func() []ReplicaRun {
			r := base()
			return append(r[:2], r[3])
		}, NodeOptions{}, &numErr, "replica 3 of 4 missing"},
		{"mixed n", func() []ReplicaRun {
			r := base()
			r[1].Of = 8
			return r
		}, NodeOptions{}, &numErr, "mixed n"},
		{"duplicate replica", func() []ReplicaRun {
			r := base()
			r[1].Replica = 1
			return r
		}, NodeOptions{}, &numErr, "given twice"},
		{"no numbering", func() []ReplicaRun {
			r := base()
			r[0].Replica, r[0].Of = 0, 0
			return r
		}, NodeOptions{}, &numErr, "rep1"},
		{"a request without a send time", func() []ReplicaRun {
			r := base()
			r[1].Requests[3].Start = math.NaN()
			return r
		}, NodeOptions{}, &timingErr, "rep2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Node(c.reps(), c.opt)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.As(err, c.target) || !strings.Contains(err.Error(), c.mention) {
				t.Errorf("error %T %q; want %T naming %q", err, err, c.target, c.mention)
			}
		})
	}
	if _, err := Node(nil, NodeOptions{}); !errors.Is(err, ErrNoReplicas) {
		t.Errorf("empty: %v", err)
	}
	// Allowed cases.
	if _, err := Node(monotonic(base(), "h1"), NodeOptions{OneClientProcess: true}); err != nil {
		t.Errorf("monotonic from one process on one host: %v", err)
	}
	r := base()
	r[2].Requests[5].Error = "timeout"
	n, err := Node(r, NodeOptions{AllowFailures: true})
	if err != nil || n.Failed != 1 || n.Completed != 39 || !n.FailuresAllowed || n.PerReplica[2].Failed != 1 {
		t.Errorf("allowed failures: %v %+v", err, n)
	}
}
