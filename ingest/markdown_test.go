package ingest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
)

// TestMarkdownPageNamedOrWalked: a Markdown page pasting result blocks
// ingests one run per block when it is named, and a folder walk skips it
// as notes.
func TestMarkdownPageNamedOrWalked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	if err := os.WriteFile(page, ingesttest.Read(t, "format/vllmconsole/testdata/mixed_page.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, outs := ingesttest.Batch(t, page)
	if len(outs) != 3 {
		t.Fatalf("named: %d outcomes %+v", len(outs), outs)
	}
	for i, want := range []string{"vllm-serve-console", "sglang-bench-serving-console", "gpustack-console"} {
		if o := outs[i]; o.Status != ingest.StatusNew || o.Format != want || o.Ordinal != i {
			t.Errorf("named: outcome %d %+v, want a new %s run", i, o, want)
		}
	}
	_, outs = ingesttest.Batch(t, dir)
	if len(outs) != 1 || outs[0].Status != ingest.StatusSkipped {
		t.Errorf("walked: %+v, want the page skipped", outs)
	}
}
