package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// directBlob is large enough that a direct transaction spills pages into
// the archive file (SQLite's page cache is 2 MB) and so holds the
// exclusive lock until it ends.
const directBlob = 8 << 20

// journalMode reads the archive's journal mode from a connection of its
// own, as another process would see it.
func journalMode(t *testing.T, path string) string {
	t.Helper()
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return strings.ToLower(mode)
}

func beginLarge(t *testing.T, a *Archive, size int) *Tx {
	t.Helper()
	tx, err := a.BeginLarge(context.Background(), nil, int64(size))
	if err != nil {
		t.Fatalf("BeginLarge: %v", err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestBeginLarge: a transaction storing a large blob writes the archive
// file directly (a rollback journal, no write-ahead log) only when it is
// large enough and nothing else has the archive open; the archive is in
// WAL mode again once it ends, committed or rolled back, and holds what it
// would have held either way.
func TestBeginLarge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		size       int
		otherOpen  bool // another Archive has the file open
		commit     bool
		wantDirect bool
		// provisional: the blob's hash is learnt from its bytes, and its
		// chunks renamed at the end (BlobWriter.Close), as an ingest of
		// a large file does.
		provisional bool
	}{
		{name: "alone", size: directBlob, commit: true, wantDirect: true},
		{name: "alone, hash learnt", size: directBlob, commit: true, wantDirect: true, provisional: true},
		{name: "another connection open, hash learnt", size: directBlob, otherOpen: true, commit: true, provisional: true},
		{name: "alone, rolled back", size: directBlob, wantDirect: true},
		{name: "small", size: 1000, commit: true},
		{name: "another connection open", size: directBlob, otherOpen: true, commit: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := tempArchivePath(t)
			a := openArchive(t, path, Options{})
			a.directFrom = 4 << 20
			var other *Archive
			if c.otherOpen {
				other = openArchive(t, path, Options{ReadOnly: true})
				if _, err := other.HasBlob(strings.Repeat("0", 64)); err != nil {
					t.Fatal(err)
				}
			}
			data := randomBytes(c.size, uint64(c.size))
			tx := beginLarge(t, a, len(data))
			if tx.direct != c.wantDirect {
				t.Fatalf("direct = %v, want %v", tx.direct, c.wantDirect)
			}
			var sha string
			if c.provisional {
				sha = learnBlob(t, tx, data, "large")
			} else {
				sha = writeBlob(t, tx, data, "large")
			}
			if got := fileExists(path + "-journal"); got != c.wantDirect {
				t.Errorf("during the transaction: rollback journal present %v, want %v", got, c.wantDirect)
			}
			if c.wantDirect {
				if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
					t.Errorf("a direct transaction wrote %d bytes of write-ahead log", st.Size())
				}
			}
			end := tx.Rollback
			if c.commit {
				end = tx.Commit
			}
			if err := end(); err != nil {
				t.Fatal(err)
			}
			if got := journalMode(t, path); got != "wal" {
				t.Errorf("journal mode after the transaction: %q, want wal", got)
			}
			if fileExists(path + "-journal") {
				t.Error("the rollback journal outlived the transaction")
			}
			readers := []*Archive{a, openArchive(t, path, Options{ReadOnly: true})}
			if other != nil {
				readers = append(readers, other)
			}
			for _, r := range readers {
				if !c.commit {
					if ok, err := r.HasBlob(sha); ok || err != nil {
						t.Errorf("a rolled back blob: found %v, %v", ok, err)
					}
				} else if got := readBlob(t, r, sha); string(got) != string(data) {
					t.Errorf("blob read back: %d bytes, differing", len(got))
				}
			}
			// The archive goes on as usual.
			tx = begin(t, a)
			writeBlob(t, tx, []byte("after"), "after")
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			var check string
			if err := rawDB(t, path).QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
				t.Errorf("integrity_check: %q %v", check, err)
			}
		})
	}
}

// TestOpenWaitsForDirectWrite: opening an archive that a direct
// transaction holds locked, for reading or for writing, says it waits
// (OnBusy, once) and succeeds once the transaction has committed, seeing
// what it wrote.
func TestOpenWaitsForDirectWrite(t *testing.T) {
	t.Parallel()
	for _, opt := range []Options{{ReadOnly: true}, {}} {
		t.Run(map[bool]string{true: "read-only", false: "writing"}[opt.ReadOnly], func(t *testing.T) {
			t.Parallel()
			path := tempArchivePath(t)
			a := openArchive(t, path, Options{})
			a.directFrom = 0
			data := randomBytes(directBlob, 7)
			tx := beginLarge(t, a, len(data))
			if !tx.direct {
				t.Fatal("not direct")
			}
			sha := writeBlob(t, tx, data, "large")

			var busy atomic.Int32
			opt.OnBusy = func(string) { busy.Add(1) }
			var committed atomic.Bool
			opened := make(chan error, 1)
			go func() {
				b, err := Open(path, opt)
				if err == nil {
					if !committed.Load() {
						err = errors.New("Open returned while the direct transaction was open")
					} else if ok, herr := b.HasBlob(sha); herr != nil || !ok {
						err = errors.Join(errors.New("the blob committed meanwhile is not seen"), herr)
					}
					b.Close()
				}
				opened <- err
			}()
			deadline := time.Now().Add(20 * time.Second)
			for busy.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if busy.Load() == 0 {
				t.Fatal("Open did not say it was waiting")
			}
			committed.Store(true)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := <-opened; err != nil {
				t.Fatal(err)
			}
			if n := busy.Load(); n != 1 {
				t.Errorf("OnBusy called %d times, want 1", n)
			}
		})
	}
}

// killDirectEnv makes the test binary a process that starts a direct
// transaction in the archive it names, writes a large blob and exits
// without ending the transaction, as a killed ingest would.
const killDirectEnv = "BENCHLEDGER_STORE_TEST_KILL_DIRECT"

func killDirect(path string) {
	a, err := Open(path, Options{})
	if err != nil {
		panic(err)
	}
	a.directFrom = 0
	tx, err := a.BeginLarge(context.Background(), nil, directBlob)
	if err != nil || !tx.direct {
		panic(errors.Join(errors.New("no direct transaction"), err))
	}
	data := randomBytes(directBlob, 9)
	bw, err := tx.NewBlob("", int64(len(data)), "killed")
	if err != nil {
		panic(err)
	}
	bw.Write(data)
	if err := bw.Close(); err != nil {
		panic(err)
	}
	os.Exit(3)
}

// TestKilledDirectWrite: a process killed in a direct transaction leaves
// a rollback journal that a read-only Open cannot play back
// (ErrInterrupted, saying what to do); opening for writing plays it back:
// the archive holds what it held before, in WAL mode, and reads again.
func TestKilledDirectWrite(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	a := openArchive(t, path, Options{})
	tx := begin(t, a)
	before := writeBlob(t, tx, []byte("before"), "before")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	a.Close()

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), killDirectEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("the process to kill: %v\n%s", err, out)
	}
	if !fileExists(path + "-journal") {
		t.Fatal("no rollback journal left behind")
	}

	_, err = Open(path, Options{ReadOnly: true})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), path) {
		t.Fatalf("read-only Open of an interrupted archive: %v, want ErrInterrupted naming it", err)
	}
	w := openArchive(t, path, Options{})
	w.Close()
	if fileExists(path + "-journal") {
		t.Error("opening for writing left the journal")
	}
	if got := journalMode(t, path); got != "wal" {
		t.Errorf("journal mode: %q, want wal", got)
	}
	r := openArchive(t, path, Options{ReadOnly: true})
	var blobs int
	if err := r.r.QueryRow("SELECT count(*) FROM blobs").Scan(&blobs); err != nil || blobs != 1 {
		t.Errorf("blobs after the interrupted write: %d (%v), want 1", blobs, err)
	}
	if ok, err := r.HasBlob(before); err != nil || !ok {
		t.Errorf("the blob committed before: %v %v", ok, err)
	}
	var check string
	if err := r.r.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
}
