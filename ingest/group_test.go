package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/store"
)

// groupFolder writes n small vLLM files (f00.json …) into a new folder,
// file dup a copy of file 3, and a manifest that contradicts the model of
// file bad: small files are written in groups of transactions (batch.go),
// so these meet inside one.
func groupFolder(t *testing.T, n, dup, bad int) (dir string, shas []string) {
	t.Helper()
	dir = t.TempDir()
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("f%02d.json", i))
		if i == dup {
			data, err := os.ReadFile(filepath.Join(dir, "f03.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			writeVLLMResult(t, path, 4, float64(i)*0.01)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		shas = append(shas, hex.EncodeToString(sum[:]))
	}
	manifest := fmt.Sprintf("campaign: groups\nruns:\n  - files: f%02d.json\n    checkpoint.model_id: another/model\n", bad)
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, shas
}

// TestGroupedFilesEachAllOrNothing: files written in one group of
// transactions still succeed or fail one by one. A file refused after its
// raw bytes were stored (its run contradicts the manifest) leaves nothing,
// the files around it are archived, and a file with the same bytes as one
// earlier in the group is a duplicate of it.
func TestGroupedFilesEachAllOrNothing(t *testing.T) {
	t.Parallel()
	const n, dup, bad = 12, 9, 6
	dir, shas := groupFolder(t, n, dup, bad)
	a := openTestArchive(t)
	outs := ingestPaths(t, a, dir)
	var statuses []Status
	for _, o := range outs {
		statuses = append(statuses, o.Status)
	}
	want := []Status{StatusSkipped} // the manifest
	for i := range n {
		switch i {
		case dup:
			want = append(want, StatusDuplicate)
		case bad:
			want = append(want, StatusRejected)
		default:
			want = append(want, StatusNew)
		}
	}
	if !slices.Equal(statuses, want) {
		t.Fatalf("outcomes %v, want %v: %+v", statuses, want, outs)
	}
	for i, sha := range shas {
		has, err := a.HasBlob(sha)
		if err != nil {
			t.Fatal(err)
		}
		if has == (i == bad) {
			t.Errorf("file %d: blob archived = %v", i, has)
		}
	}
	runs, err := a.ListRuns(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != n-2 {
		t.Errorf("%d runs archived, want %d", len(runs), n-2)
	}
	if o := outs[1+dup]; o.RunID != outs[1+3].RunID {
		t.Errorf("the copy of file 3 is %+v, want a duplicate of run %s", o, outs[1+3].RunID)
	}
	rep, err := a.VerifyChain(context.Background())
	if err != nil || len(rep.Problems) > 0 {
		t.Errorf("chain: %v %v", rep.Problems, err)
	}
}

// TestInterruptedGroupKeepsWhatItReported: an ingest interrupted between
// files of a group keeps the files written before the interruption, and
// what it reported is exactly what the archive holds.
func TestInterruptedGroupKeepsWhatItReported(t *testing.T) {
	t.Parallel()
	dir, _ := groupFolder(t, 12, -1, -1)
	a := openTestArchive(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reported []string
	written := 0
	err := Batch(ctx, []string{dir}, Options{Archive: a, ToolVersion: "test", Actor: "test",
		OnFile: func(n, total int, path string) {
			if n == 6 {
				cancel()
			} else if n < 6 {
				written++
			}
		}}, func(o Outcome) {
		if o.Status == StatusNew {
			reported = append(reported, o.RunID)
		}
	})
	if err == nil || err.Error() != context.Canceled.Error() {
		t.Fatalf("Batch: %v, want only %v", err, context.Canceled)
	}
	runs, err := a.ListRuns(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var archived []string
	for _, r := range runs {
		archived = append(archived, r.ID)
	}
	slices.Sort(reported)
	slices.Sort(archived)
	if !slices.Equal(reported, archived) || len(reported) < written-1 {
		t.Errorf("reported %v, archived %v; want the same, the %d files before the interruption (less the manifest)", reported, archived, written)
	}
}

// TestPreparedAheadBounded: while the writer is slow, the files prepared
// ahead of it stay within aheadBytes: here two files' worth, so when the
// writer is at file n, at most two files after it have been read (two
// when file n is the small manifest).
func TestPreparedAheadBounded(t *testing.T) {
	const n = 12
	dir, _ := groupFolder(t, n, -1, -1)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var largest int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			largest = max(largest, info.Size())
		}
	}
	defer func(b int64, d func(string, []byte) format.Detection) { aheadBytes, detect = b, d }(aheadBytes, detect)
	aheadBytes = 2 * largest
	var read atomic.Int64
	detect = func(path string, head []byte) format.Detection {
		read.Add(1)
		return registry.Detect(path, head)
	}
	a := openTestArchive(t)
	worst := int64(0)
	err = Batch(context.Background(), []string{dir}, Options{Archive: a, OnFile: func(i, _ int, _ string) {
		if i == 1 {
			time.Sleep(50 * time.Millisecond) // the others would all be read by now
		}
		worst = max(worst, read.Load()-int64(i))
	}}, func(Outcome) {})
	if err != nil {
		t.Fatal(err)
	}
	if worst > 2 {
		t.Errorf("%d files were read ahead of the one being written, want at most 2", worst)
	}
	if got := read.Load(); got != int64(len(entries)) {
		t.Errorf("%d files read, want %d", got, len(entries))
	}
}
