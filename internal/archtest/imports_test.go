// Package archtest checks the module's structure: that imports follow the
// data flow, from the archive through the evaluation to the renderers and
// the command line, never back.
package archtest

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/benchledger/benchledger"

// rule: no package under one of From imports a package under one of To.
// Paths are module-relative directories; a rule covers everything below.
type rule struct {
	From, To []string
	Why      string
}

// rules are the directions imports must not take.
var rules = []rule{
	{
		From: []string{"benchrun", "provenance", "store", "ingest", "figures", "caveat", "spec", "locales",
			"casestudy", "audit", "publish", "runview", "export", "redact", "internal/jsonw", "internal/atomicfile"},
		To:  []string{"render", "cmd"},
		Why: "what renderers and the command line show is computed below them: a renderer takes the evaluation's own types",
	},
	{
		From: []string{"render"},
		To:   []string{"cmd"},
		Why:  "the renderers are a library the command line drives",
	},
	{
		From: []string{"render"},
		To:   []string{"ingest"},
		Why:  "a renderer shows what the archive holds; reading result files is the ingest's",
	},
	{
		From: []string{"figures"},
		To:   []string{"store", "ingest", "casestudy", "audit", "publish", "runview", "export", "spec", "caveat", "locales"},
		Why:  "figures is pure computation on plain data: the others read it",
	},
	{
		From: []string{"runview"},
		To:   []string{"audit"},
		Why:  "a run's view and its audit both start from figures.Derive; neither needs the other",
	},
	{
		From: []string{"casestudy", "spec", "caveat"},
		To:   []string{"audit", "publish", "runview", "export"},
		Why:  "the evaluation is what the audit, the history, the run view and the exports read",
	},
}

// under reports whether the module-relative package path p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// violations lists the imports of graph (module-relative package path →
// module-relative imports) that a rule forbids, sorted.
func violations(graph map[string][]string, rules []rule) []string {
	var out []string
	for pkg, imports := range graph {
		for _, r := range rules {
			if !slices.ContainsFunc(r.From, func(d string) bool { return under(pkg, d) }) {
				continue
			}
			for _, imp := range imports {
				if slices.ContainsFunc(r.To, func(d string) bool { return under(imp, d) }) {
					out = append(out, fmt.Sprintf("%s imports %s: %s", pkg, imp, r.Why))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// moduleGraph reads the non-test imports of every package of the module
// rooted at root, keeping the imports within the module.
func moduleGraph(root string) (map[string][]string, error) {
	graph := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var imports []string
		for _, imp := range pkg.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, r)
			}
		}
		graph[filepath.ToSlash(rel)] = imports
		return nil
	})
	return graph, err
}

func TestImportsFollowTheDataFlow(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	graph, err := moduleGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have found the packages the rules are about, or a
	// moved directory would make every rule pass vacuously.
	pkgs := slices.Collect(maps.Keys(graph))
	for _, r := range rules {
		for _, d := range slices.Concat(r.From, r.To) {
			if !slices.ContainsFunc(pkgs, func(p string) bool { return under(p, d) }) {
				t.Errorf("rule names %s, which holds no package", d)
			}
		}
	}
	for _, v := range violations(graph, rules) {
		t.Error(v)
	}
}

// TestViolationsFindsAForbiddenImport: the check itself sees an import
// against the flow, and only that one.
func TestViolationsFindsAForbiddenImport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		graph map[string][]string
		want  int
	}{
		{"audit imports a renderer", map[string][]string{"audit": {"casestudy", "render/report"}}, 1},
		{"a renderer imports audit", map[string][]string{"render/report": {"audit", "casestudy"}}, 0},
		{"figures imports the archive", map[string][]string{"figures": {"benchrun", "store"}}, 1},
		{"a package below a ruled one", map[string][]string{"ingest/vllm": {"render/site"}}, 1},
		{"a renderer imports the ingest side", map[string][]string{"render/site": {"ingest/pyjson"}}, 1},
		{"a name that only starts like one", map[string][]string{"auditx": {"render/report"}, "audit": {"renderer"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := violations(tt.graph, rules); len(got) != tt.want {
				t.Errorf("violations = %q, want %d", got, tt.want)
			}
		})
	}
}
