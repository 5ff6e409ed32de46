// Package testshared locates ../shared (the project's reference samples and
// speed baselines) for tests. CI lays it beside the clone; a user's clone has
// none, and tests that need it skip with a message saying so.
package testshared

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the absolute path of the shared folder beside the repository,
// or "" when it is absent. BENCHLEDGER_SHARED overrides the location.
func Root() string {
	if d := os.Getenv("BENCHLEDGER_SHARED"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <repo>/internal/testshared/testshared.go
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	if st, err := os.Stat(filepath.Join(dir, "samples")); err == nil && st.IsDir() {
		abs, _ := filepath.Abs(dir)
		return abs
	}
	return ""
}

// Dir returns <shared>/<rel>, skipping the test when the shared folder is absent.
func Dir(t testing.TB, rel string) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Skip("../shared is absent (not a CI checkout): skipping the test that reads the reference samples")
	}
	return filepath.Join(root, rel)
}

// Samples returns the paths of the files in <shared>/samples/<tool>, skipping
// the test when the shared folder is absent.
func Samples(t testing.TB, tool string) []string {
	t.Helper()
	dir := Dir(t, filepath.Join("samples", tool))
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
