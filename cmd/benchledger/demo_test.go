package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDemoCampaign runs what `make demo` runs, on a copy of the example
// campaign: the generated files ingest under the shipped campaign.yaml as
// publishable runs, and show on the baseline prints the published 17,961
// output tok/s recomputed from the per-request records. The list of runs
// and the baseline's page are also golden files (testdata/*.demo.stdout).
func TestDemoCampaign(t *testing.T) {
	t.Parallel()
	demo := sharedDemo(t)
	db := demo.db
	dirs := map[string]string{"$DEMO": demo.dir}
	checkGolden(t, "runs.demo.stdout", stable(bl(t, "runs", "--db", db).stdout, dirs))
	ids := map[string]string{}
	for _, role := range []string{"baseline", "tuned"} {
		q := bl(t, "runs", "--db", db, "--campaign", "qwen3-batch", "--role", role, "-q")
		ids[role] = strings.TrimSpace(q.stdout)
		if len(ids[role]) != 12 {
			t.Fatalf("runs -q for %s: %v", role, q)
		}
	}
	want := map[string][]*regexp.Regexp{
		"baseline": {regexp.MustCompile(`output throughput\s+17,961 tok/s`), regexp.MustCompile(`e2el\.median\s+15\.91 s`),
			regexp.MustCompile(`sent 2,048, completed 2,048, failed 0, shorter than the fixed output length: 0`)},
		"tuned": {regexp.MustCompile(`output throughput\s+41,651 tok/s`), regexp.MustCompile(`e2el\.median\s+11\.70 s`)},
	}
	for role, res := range want {
		s := bl(t, "show", "--db", db, ids[role])
		for _, re := range res {
			if !re.MatchString(s.stdout) {
				t.Errorf("%s: show lacks %s:\n%s", role, re, s.stdout)
			}
		}
		if !strings.Contains(s.stdout, "synthetic") || !strings.Contains(s.stdout, "publishable  yes") {
			t.Errorf("%s: the demo runs are labelled synthetic and publishable:\n%s", role, s.stdout)
		}
		checkGolden(t, "show.demo-"+role+".stdout", stable(s.stdout, dirs))
	}
}
