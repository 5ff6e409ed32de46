package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// TestPublishedFiguresFromDemo rebuilds every figure of the published case
// (../shared/facts/qwen3-batch-case.md) from the archived demo runs, through
// the same command a user runs.
func TestPublishedFiguresFromDemo(t *testing.T) {
	t.Parallel()
	demo := sharedDemo(t)
	db, specPath := demo.db, demo.spec()
	r := bl(t, "figures", "--db", db, "--json", specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	type side struct{ Value float64 }
	type cmp struct {
		Comparison struct {
			Baseline, Candidate side
			Change              struct{ Pct, Ratio float64 }
			Confounders         []struct{ Field string }
		}
		Caveats []struct{ Code string }
	}
	var res struct {
		Comparisons map[string]cmp
		Sweeps      map[string]struct {
			Result struct {
				Levels []struct {
					Param, Throughput float64
					MedianLatency     float64 `json:"median_latency"`
				}
				Steps []struct {
					ThroughputGainPct float64 `json:"throughput_gain_pct"`
				}
				Saturation      int
				SaturationFound bool `json:"saturation_found"`
			}
		}
		Nodes map[string]struct {
			Runs []struct {
				Window                  float64
				OutputThroughput        float64 `json:"output_throughput"`
				Sent, Completed, Failed int
				Short                   int
				OutputTokens            int64 `json:"output_tokens"`
			}
			Conservative int
			Throughput   struct{ Value float64 }
			Scaling      *struct {
				Pct       float64
				SingleRun string `json:"single_run"`
				Single    float64
			}
		}
		Figures map[string]struct{ Value float64 }
		Digest  string `json:"archive_digest"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want float64, decimals int) {
		t.Helper()
		if round(got, decimals) != want {
			t.Errorf("%s = %v (%.*f), want %v", what, got, decimals, got, want)
		}
	}
	st := res.Comparisons["scheduler_tuning"].Comparison
	check("baseline output tok/s", st.Baseline.Value, 17961, 0)
	check("tuned output tok/s", st.Candidate.Value, 41651, 0)
	check("tuning % change", st.Change.Pct, 131.9, 1)
	check("tuning ratio", st.Change.Ratio, 2.32, 2)
	if len(st.Confounders) != 0 {
		t.Errorf("the controlled comparison has confounders: %+v", st.Confounders)
	}
	ml := res.Comparisons["median_latency"].Comparison
	check("baseline median latency", ml.Baseline.Value, 15.91, 2)
	check("tuned median latency", ml.Candidate.Value, 11.70, 2)

	sw := res.Sweeps["saturation"].Result
	if !sw.SaturationFound || sw.Saturation < 0 || sw.Saturation+1 >= len(sw.Levels) {
		t.Fatalf("saturation point not detected: %+v", sw)
	}
	base, next := sw.Levels[sw.Saturation], sw.Levels[sw.Saturation+1]
	check("saturation step throughput gain %", sw.Steps[sw.Saturation].ThroughputGainPct, 0.91, 2)
	check("median latency at the saturation point", base.MedianLatency, 20.04, 2)
	check("median latency one step further", next.MedianLatency, 29.85, 2)
	check("saturation repeats, conservative", res.Figures["saturation_throughput"].Value, 45941, 0)

	node := res.Nodes["node"]
	check("node output tok/s (conservative)", node.Throughput.Value, 361679, 0)
	if len(node.Runs) != 2 {
		t.Fatalf("node runs: %d", len(node.Runs))
	}
	check("node run 1", node.Runs[0].OutputThroughput, 362812, 0)
	cons := node.Runs[node.Conservative]
	check("common window", cons.Window, 23.19, 2)
	if cons.Sent != 32768 || cons.Completed != 32768 || cons.Failed != 0 || cons.OutputTokens != 8388608 || cons.Short != 0 {
		t.Errorf("node completion: %+v", cons)
	}
	pn := res.Nodes["public_node"]
	check("1,000/1,000 node", pn.Throughput.Value, 85409, 0)
	if pn.Scaling == nil || pn.Scaling.SingleRun == "" {
		t.Fatalf("scaling efficiency must name its single-replica reference run: %+v", pn.Scaling)
	}
	check("scaling efficiency %", pn.Scaling.Pct, 99.31, 2)
	check("single-GPU reference", pn.Scaling.Single, 10750.04, 2)

	nv := res.Comparisons["nvidia_reference"]
	check("vs external reference %", nv.Comparison.Change.Pct, 8.17, 2)
	conf := map[string]bool{}
	for _, c := range nv.Comparison.Confounders {
		conf[c.Field] = true
	}
	if !conf["runtime.version"] || !conf["hardware.node"] || len(conf) != 2 {
		t.Errorf("confounders %v, want runtime.version and hardware.node", conf)
	}
	codes := map[string]bool{}
	for _, c := range nv.Caveats {
		codes[c.Code] = true
	}
	if !codes["external_reference_not_visible"] {
		t.Errorf("the reference that is no longer visible must carry its caveat: %v", nv.Caveats)
	}
	if len(res.Digest) != 64 {
		t.Errorf("archive digest %q", res.Digest)
	}

	// The text form prints the headline with its caveat codes.
	txt := bl(t, "figures", "--db", db, specPath)
	for _, want := range []string{"+131.90% (2.32x)", "361,679 tok/s over a common 23.19 s window", "99.31%", "saturation point", "runtime_differs", "single_measurement"} {
		if !strings.Contains(txt.stdout, want) {
			t.Errorf("figures text lacks %q", want)
		}
	}
}
