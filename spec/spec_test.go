package spec

import (
	"strings"
	"testing"
)

const good = `id: demo
campaign: c1
runs:
  baseline: {role: baseline}
  tuned: {role: tuned}
  node1: {group: node-run-1}
  single: {role: reference}
figures:
  baseline_tput: {of: baseline, metric: output_throughput}
nodes:
  node: {groups: [node1], reference: single}
comparisons:
  tuning: {baseline: baseline, candidate: tuned, metric: output_throughput, intended: [runtime.server_args]}
  vs_ref: {baseline: "ref:nvidia-x", candidate: single, metric: output_throughput}
  node_vs: {baseline: "node:node", candidate: tuned, metric: output_throughput}
headline: [tuning, node]
`

func TestParseGood(t *testing.T) {
	s, err := Parse("cs.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs["node1"]["group"] != "node-run-1" || s.Comparisons["tuning"].Intended[0] != "runtime.server_args" {
		t.Fatalf("parsed %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, edit, want string }{
		{"unknown key", "id: demo\nbogus: 1\n", "bogus"},
		{"unknown selection", strings.Replace(good, "of: baseline,", "of: nosuch,", 1), `no selection named "nosuch"`},
		{"unknown metric", strings.Replace(good, "metric: output_throughput}\nnodes", "metric: speed}\nnodes", 1), `unknown metric "speed"`},
		{"unknown intended field", strings.Replace(good, "runtime.server_args", "runtime.serverargs", 1), "unknown provenance field"},
		{"unknown node", strings.Replace(good, `"node:node"`, `"node:other"`, 1), `no node named "other"`},
		{"headline unknown", strings.Replace(good, "[tuning, node]", "[tuning, nope]", 1), `"nope" is not a figure`},
		{"duplicate name", strings.Replace(good, "  node: {groups", "  tuning: {groups", 1) + "", "also used"},
		{"bad selector value", strings.Replace(good, "{role: tuned}", "{role: winner}", 1), "role"},
		{"empty", "", "empty"},
	}
	for _, c := range cases {
		_, err := Parse("cs.yaml", []byte(c.edit))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "cs.yaml") {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
	}
}
