package democampaign

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// SmallDivisor is how many times fewer requests every run of the small
// campaign has than the demo's run of the same file.
const SmallDivisor = 16

// GenerateSmall writes the small campaign into dir: the demo in miniature,
// for tests of what the tool does with a campaign of this shape (pages,
// audits, copies) where the published numbers are not the point. Every file
// of the demo is there, with the same roles, groups and trace groups, and
// SmallDivisor times fewer requests (and fewer bytes). Its engine is the
// demo's with SmallDivisor times fewer sequence slots, token budget and
// fixed step cost, so a run plays out like the demo's at 1/SmallDivisor of
// its time: the targets keep their throughputs and divide their latencies
// (the trace groups' figures are what their engines give). The figures are
// near the demo's, not held to its rounding. Its manifest
// is the demo's campaign.yaml through SmallManifest.
func GenerateSmall(dir string) ([]string, error) {
	var js []job
	for _, sp := range specs {
		sp.Client, sp.Server, sp.Target = smallClient(sp.Client), smallServer(sp.Server), smallTarget(sp.Target)
		js = append(js, job{files: []string{sp.File}, build: func() ([][]byte, error) {
			b, err := build(sp, false)
			return [][]byte{b}, err
		}})
	}
	for _, g := range traceGroups {
		g.Client, g.Server, g.Target = smallClient(g.Client), smallServer(g.Server), smallTarget(g.Target)
		g.Header.MaxConcurrency = g.Client.MaxConcurrency
		g.Target = naturalTarget(g)
		var files []string
		for _, r := range g.Runs {
			files = append(files, r.File)
		}
		js = append(js, job{files: files, build: func() ([][]byte, error) { return buildGroup(g, false) }})
	}
	return generate(dir, js)
}

func smallClient(c Client) Client {
	c.Requests /= SmallDivisor
	c.MaxConcurrency /= SmallDivisor
	return c
}

func smallServer(s Server) Server {
	s.MaxNumSeqs /= SmallDivisor
	s.MaxBatchedTokens /= SmallDivisor
	s.StepBase /= SmallDivisor
	return s
}

func smallTarget(t Target) Target {
	t.MedianE2EL /= SmallDivisor
	t.MeanE2EL /= SmallDivisor
	return t
}

// naturalTarget is the throughput (and a single run's latency statistic)
// the group's engine gives as simulated, unscaled in time (a single run at
// the fit's fastest dispatch): a trace group's scaled targets can fall out
// of reach (the 1,000/1,000 prefill, cut into a sixteenth of the token
// budget, does not shrink in proportion).
func naturalTarget(g TraceGroup) Target {
	t := g.Target
	if len(g.Runs) == 1 {
		run := g.Runs[0]
		sp := RunSpec{File: run.File, Seed: run.Seed, Client: g.Client, Server: g.onGPU(run.GPU), Target: t}
		tr := simulate(&sp, dispatchMin)
		s := measure(tr, warp{origin: tr.send[0], pivot: tr.send[0], a: 1, b: 1})
		t.OutputThroughput = float64(g.Client.Requests*g.Client.OutputLen) / s.window
		if t.MeanE2EL > 0 {
			t.MeanE2EL = s.mean
		} else {
			t.MedianE2EL = s.median
		}
		return t
	}
	first, last := math.Inf(1), math.Inf(-1)
	for _, r := range g.Runs {
		sp := RunSpec{File: r.File, Seed: r.Seed, Client: g.Client, Server: g.onGPU(r.GPU)}
		tr := simulate(&sp, g.Dispatch)
		for j, rc := range tr.recv {
			first = math.Min(first, r.Offset+tr.send[j])
			last = math.Max(last, r.Offset+rc[len(rc)-1])
		}
	}
	t.OutputThroughput = float64(len(g.Runs)*g.Client.Requests*g.Client.OutputLen) / (last - first)
	return t
}

// countRE is a count of requests in campaign.yaml: a run's request count,
// its client's concurrency, a queued-requests sweep value.
var countRE = regexp.MustCompile(`\b(request_count|concurrency|sweep: \{value): (\d+)\b`)

// SmallManifest is the demo's campaign.yaml for the small campaign: every
// request count, concurrency and sweep value divided by SmallDivisor, the
// rest as it is.
func SmallManifest(manifest []byte) []byte {
	return countRE.ReplaceAllFunc(manifest, func(m []byte) []byte {
		sub := countRE.FindSubmatch(m)
		n, _ := strconv.Atoi(string(sub[2]))
		return fmt.Appendf(nil, "%s: %d", sub[1], n/SmallDivisor)
	})
}
