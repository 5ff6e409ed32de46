package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format"
)

// A small file is read whole into one buffer in two reads, its first
// format.HeadSize bytes for detection and then the rest (prepare): the
// archive must hold the whole file, and a file that shrinks between the
// reads is rejected, not archived short.
func TestSmallFileReadAcrossHead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	writeVLLMResult(t, path, 2000, 0)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) <= 2*format.HeadSize || int64(len(body)) > smallFile {
		t.Fatalf("the file has %d bytes: it must be small and span more than two heads", len(body))
	}

	a := openTestArchive(t)
	outs := ingestPaths(t, a, path)
	if len(outs) != 1 || outs[0].Status != StatusNew {
		t.Fatalf("ingest: %+v, want one new run", outs)
	}
	sum := sha256.Sum256(body)
	rc, err := a.OpenBlob(hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatalf("the file's bytes are not archived under its SHA-256: %v", err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("archived %d bytes (%v), the file has %d (or other bytes)", len(got), err, len(body))
	}

	// Shrunk after its head was read: the rest cannot be read whole.
	shrinking := filepath.Join(dir, "shrinking.json")
	writeVLLMResult(t, shrinking, 2000, 0.5)
	real := detect
	t.Cleanup(func() { detect = real })
	detect = func(name string, head []byte) format.Detection {
		if name == shrinking {
			if err := os.Truncate(shrinking, int64(len(head))+10); err != nil {
				t.Error(err)
			}
		}
		return real(name, head)
	}
	outs = ingestPaths(t, a, shrinking)
	if len(outs) != 1 || outs[0].Status != StatusRejected || !strings.Contains(outs[0].Reason, "changed while it was read") {
		t.Errorf("a file shrunk between its reads: %+v, want it rejected as changed", outs)
	}
}
