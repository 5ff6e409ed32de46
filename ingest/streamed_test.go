package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/store"
)

// midReadFormat is the test format (companionTestFormat) for files ending
// in .blmid, whose parse calls midRead once, after its first read.
type midReadFormat struct{ companionTestFormat }

var midRead func()

func (midReadFormat) Sniff(name string, _ []byte) bool { return strings.HasSuffix(name, ".blmid") }

func (m midReadFormat) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	return m.companionTestFormat.Parse(ctx, name, &hookReader{r: r}, emit)
}

type hookReader struct {
	r    io.Reader
	done bool
}

func (h *hookReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if !h.done && midRead != nil {
		h.done = true
		midRead()
	}
	return n, err
}

func init() {
	real := detect
	detect = func(name string, head []byte) format.Detection {
		if (midReadFormat{}).Sniff(name, head) {
			return format.Detection{Parser: midReadFormat{}}
		}
		return real(name, head)
	}
}

// streamedBody is a file of the mid-read format of about 200 KB, one run
// of 3 requests; salt makes its bytes differ, and files of different
// size have different sizes.
func streamedBody(salt, size byte) []byte {
	var b strings.Builder
	b.WriteString("model=m/x\nrequests=3\n")
	for i := 0; b.Len() < 200<<10; i++ {
		fmt.Fprintf(&b, "pad%d=%s\n", i, strings.Repeat(string('a'+salt), 60))
	}
	b.WriteString("end=" + strings.Repeat("z", int(size)) + "\n")
	return []byte(b.String())
}

// TestStreamedFileRead checks the large-file path (storeStreamed, a file
// read once while parsed and stored): a new file, the same bytes again (a
// duplicate, found by the hash beside the parse), the same bytes archived
// by another writer while this one waited for the lock (a duplicate,
// found when the blob is closed), and a file changed or replaced while it
// was read (rejected, nothing archived).
func TestStreamedFileRead(t *testing.T) {
	defer func(n int64) { smallFile = n }(smallFile)
	smallFile = 1 << 10
	defer func() { midRead = nil }()

	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	a, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	write := func(name string, body []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := func(what string, outs []Outcome, st Status) Outcome {
		t.Helper()
		if len(outs) != 1 || outs[0].Status != st {
			t.Fatalf("%s: %+v, want one %s", what, outs, st)
		}
		return outs[0]
	}
	first := write("first.blmid", streamedBody(0, 0))
	o := one("new", ingestPaths(t, a, first), StatusNew)
	if d := one("again", ingestPaths(t, a, first), StatusDuplicate); d.RunID != o.RunID {
		t.Errorf("duplicate of run %s reported as %s", o.RunID, d.RunID)
	}

	// Each file below has a size no archived file has, so no hash is
	// made beside the parse: the one read must see the change.
	// Changed in place while read (same size, other bytes, a later
	// modification time).
	changing := write("changing.blmid", streamedBody(1, 1))
	midRead = func() {
		if err := os.WriteFile(changing, streamedBody(2, 1), 0o644); err != nil {
			t.Error(err)
		}
		later := time.Now().Add(time.Minute)
		os.Chtimes(changing, later, later)
	}
	if r := one("changed in place", ingestPaths(t, a, changing), StatusRejected); !strings.Contains(r.Reason, "changed while it was read") {
		t.Errorf("changed in place: %q", r.Reason)
	}
	// Replaced by another file of the same size and modification time.
	replaced := write("replaced.blmid", streamedBody(3, 3))
	st, err := os.Stat(replaced)
	if err != nil {
		t.Fatal(err)
	}
	midRead = func() {
		other := write("other.blmid", streamedBody(4, 3))
		os.Chtimes(other, st.ModTime(), st.ModTime())
		if err := os.Rename(other, replaced); err != nil {
			t.Error(err)
		}
	}
	if r := one("replaced", ingestPaths(t, a, replaced), StatusRejected); !strings.Contains(r.Reason, "changed while it was read") {
		t.Errorf("replaced: %q", r.Reason)
	}
	midRead = nil
	if runs, err := a.ListRuns(store.Filter{}); err != nil || len(runs) != 1 {
		t.Errorf("after the rejections: %d runs (%v), want the first file's", len(runs), err)
	}

	// Archived by another writer while this ingest waited for the lock:
	// no blob of this size was archived when the ingest began, so it
	// learns of the duplicate only when it closes the blob.
	meanwhile := streamedBody(5, 5)
	path := write("meanwhile.blmid", meanwhile)
	other, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	holder, err := other.Begin(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(meanwhile)
	waited := make(chan struct{})
	stored := make(chan error, 1)
	go func() {
		<-waited
		if _, err := holder.PutBytes(meanwhile, path); err != nil {
			stored <- err
			return
		}
		stored <- holder.Commit()
	}()
	var outs []Outcome
	waitOnce := func() {
		select {
		case <-waited:
		default:
			close(waited)
		}
	}
	err = Batch(context.Background(), []string{path}, Options{Archive: a, ToolVersion: "test", Actor: "test", OnWait: waitOnce},
		func(o Outcome) { outs = append(outs, o) })
	if err != nil {
		t.Fatal(err)
	}
	if err := <-stored; err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Status != StatusDuplicate {
			t.Errorf("archived meanwhile: %+v, want nothing but duplicates (the other writer archived the bytes, not runs)", o)
		}
	}
	if ok, err := a.HasBlob(hex.EncodeToString(sum[:])); err != nil || !ok {
		t.Errorf("the other writer's blob: %v %v", ok, err)
	}
	if runs, err := a.ListRuns(store.Filter{}); err != nil || len(runs) != 1 {
		t.Errorf("archived meanwhile: %d runs (%v), want the first file's", len(runs), err)
	}
}
