package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// snakeKey is a --json key: snake_case (DESIGN.md, "Settled details").
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// dataMaps are the members whose keys are data, not schema: provenance
// field names ("hardware.gpu_model"), a finding's or caveat's parameters,
// a tool's own keys kept in Extra, figures by binding name.
var dataMaps = map[string]bool{"provenance": true, "params": true, "extra": true, "effective": true, "sources": true,
	"figures": true, "nodes": true, "comparisons": true, "sweeps": true, "selections": true, "stated": true, "counts": true}

// TestJSONSnakeCase: every --json document has snake_case keys at every
// depth (outside the data maps above) and, when it is an object,
// schema_version.
func TestJSONSnakeCase(t *testing.T) {
	t.Parallel()
	db, specPath := mistakesCampaign(t)
	ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)
	extra := filepath.Join(t.TempDir(), "extra.json")
	writeVLLM(t, extra, vllmSpec{n: 10, seed: 3})
	for _, args := range [][]string{
		{"ingest", extra},
		{"amend", ids[0], "--set", "hardware.gpu_count=2", "--reason", "a test of the JSON keys"},
		{"runs"},
		{"show", ids[0]},
		{"compare", ids[0], ids[1]},
		{"compare", "--metric", "output_throughput", ids[0], ids[1]},
		{"figures", specPath},
		{"audit", "--as-of", "2026-11-29", specPath},
		{"errata", specPath},
	} {
		r := bl(t, append([]string{args[0], "--db", db, "--json"}, args[1:]...)...)
		if r.code != 0 && r.code != exitProblems {
			t.Errorf("%v: %v", args, r)
			continue
		}
		var doc any
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Errorf("%v: not JSON: %v", args, err)
			continue
		}
		if obj, ok := doc.(map[string]any); ok {
			want := float64(jsonSchemaVersion)
			if args[0] == "figures" || args[0] == "compare" || args[0] == "show" {
				want = snakeCaseSchemaVersion
			}
			if obj["schema_version"] != want {
				t.Errorf("%v: schema_version %v, want %v", args, obj["schema_version"], want)
			}
		}
		var bad []string
		walkKeys(doc, "", func(path, key string) {
			if !snakeKey.MatchString(key) {
				bad = append(bad, path+key)
			}
		})
		if len(bad) > 0 {
			t.Errorf("%v: keys not in snake_case: %s", args, strings.Join(firstN(bad, 12), ", "))
		}
	}
}

// walkKeys calls fn for every object key of v, except inside data maps,
// whose values it still walks (a map of objects has schema keys inside).
func walkKeys(v any, path string, fn func(path, key string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			fn(path, k)
			if dataMaps[k] {
				if m, ok := child.(map[string]any); ok {
					for dk, dv := range m {
						walkKeys(dv, path+k+"."+dk+".", fn)
					}
					continue
				}
			}
			walkKeys(child, path+k+".", fn)
		}
	case []any:
		for _, child := range x {
			walkKeys(child, path+"[].", fn)
		}
	}
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}
