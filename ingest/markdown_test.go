package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/store"
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

// TestMarkdownPageForcedFormat: --format with any of the console ids reads
// the page the same way, each block under its own layout's id.
func TestMarkdownPageForcedFormat(t *testing.T) {
	t.Parallel()
	a, err := store.Open(filepath.Join(t.TempDir(), "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var outs []ingest.Outcome
	err = ingest.Batch(context.Background(), []string{"format/vllmconsole/testdata/mixed_page.md"},
		ingest.Options{Archive: a, ToolVersion: "test", Actor: "test", Format: "sglang-bench-serving-console"},
		func(o ingest.Outcome) { outs = append(outs, o) })
	if err != nil || len(outs) != 3 || outs[0].Format != "vllm-serve-console" || outs[2].Format != "gpustack-console" {
		t.Fatalf("%v %+v", err, outs)
	}
}
