package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gcSetters are the runtime/debug functions that change the garbage
// collector's settings for the whole process.
var gcSetters = map[string]bool{"SetGCPercent": true, "SetMemoryLimit": true}

// gcOwner is the one package that may call them: the program's main, which
// knows which command the process runs (cmd/benchledger/gc.go). A library
// that changed them would change them for every later command and test in
// the same process; libraries take a hook in their options instead.
const gcOwner = "cmd/benchledger"

// gcCalls lists the calls to gcSetters in one Go source, as "file:line name".
func gcCalls(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "runtime/debug" {
			local = "debug"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil, nil
	}
	var calls []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || !gcSetters[sel.Sel.Name] {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
			calls = append(calls, fset.Position(sel.Pos()).String()+" "+sel.Sel.Name)
		}
		return true
	})
	return calls, nil
}

func TestOnlyMainSetsTheCollector(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seenOwner := false
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		calls, err := gcCalls(fset, path, nil)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if filepath.ToSlash(rel) == gcOwner {
			seenOwner = seenOwner || len(calls) > 0
			return nil
		}
		for _, c := range calls {
			t.Errorf("%s: only %s chooses the collector's settings; take a hook in the package's options", c, gcOwner)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The owner does set them: a moved main would make the rule vacuous.
	if !seenOwner {
		t.Errorf("%s sets no collector setting: the rule checks nothing", gcOwner)
	}
}

// TestGCCallsFindsASetter: the check sees a call under any import name, and
// not a function of the same name from elsewhere.
func TestGCCallsFindsASetter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		want      int
	}{
		{"default name", "package p\nimport \"runtime/debug\"\nfunc f() { defer debug.SetGCPercent(debug.SetGCPercent(200)) }\n", 2},
		{"renamed", "package p\nimport rd \"runtime/debug\"\nfunc f() { rd.SetMemoryLimit(1) }\n", 1},
		{"other package", "package p\nimport debug \"example.com/debug\"\nfunc f() { debug.SetGCPercent(1) }\n", 0},
		{"reading only", "package p\nimport \"runtime/debug\"\nfunc f() { debug.FreeOSMemory() }\n", 0},
	} {
		calls, err := gcCalls(token.NewFileSet(), c.name+".go", c.src)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != c.want {
			t.Errorf("%s: found %v, want %d calls", c.name, calls, c.want)
		}
	}
}
