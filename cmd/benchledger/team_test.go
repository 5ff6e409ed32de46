package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchledger/benchledger/internal/pgtest"
	"github.com/benchledger/benchledger/store"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// The team archive (docs/postgres.md): the same commands on PostgreSQL.

// chainClean checks that audit's tamper evidence finds nothing: the
// synthetic files' own figures are audit's other checks' business.
func chainClean(t *testing.T, db string) {
	t.Helper()
	a, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if rep, err := a.VerifyChain(context.Background()); err != nil || len(rep.Problems) != 0 || rep.Links == 0 {
		t.Errorf("the chain of %s: %d links, %+v, %v", db, rep.Links, rep.Problems, err)
	}
}

// openRawEngine opens an archive (file or postgres:// URL) with no help from the
// store, as another client would.
func openRawEngine(t *testing.T, db string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite3", "file:"+db+"?mode=ro"
	if store.IsPostgres(db) {
		driver, dsn = "pgx", db
	}
	conn, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// rawConn is openRawEngine for the rest of the test.
func rawConn(t *testing.T, db string) *sql.DB {
	t.Helper()
	conn := openRawEngine(t, db)
	t.Cleanup(func() { conn.Close() })
	return conn
}

func rowCounts(t *testing.T, db string) map[string]int {
	t.Helper()
	conn := openRawEngine(t, db)
	defer conn.Close()
	out := map[string]int{}
	for _, table := range []string{"blobs", "blob_chunks", "runs", "requests", "provenance", "events", "chain"} {
		var n int
		if err := conn.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatalf("counting %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// TestArchiveCopyRoundTrip copies the (small) demo archive onto PostgreSQL and back
// into a new file: audit says the same of all three, a draft report renders
// the same bytes from each, and every raw file is byte-identical.
func TestArchiveCopyRoundTrip(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	pg := pgtest.NewDatabase(t)
	back := filepath.Join(t.TempDir(), "back.db")
	for _, hop := range [][2]string{{d.db, pg}, {pg, back}} {
		if r := bl(t, "archive", "copy", hop[0], hop[1]); r.code != 0 || !strings.Contains(r.stderr, "copied") {
			t.Fatalf("archive copy %s %s: %v", hop[0], hop[1], r)
		}
	}
	type rendering struct {
		audit string
		files map[string][]byte
	}
	var want rendering
	for i, db := range []string{d.db, pg, back} {
		var got rendering
		a := bl(t, "audit", "--json", "--db", db, d.spec())
		got.audit = strings.ReplaceAll(a.stdout, db, "ARCHIVE")
		out := t.TempDir()
		// The audit is compared above; the report's bytes without it.
		if r := bl(t, "report", "--no-audit", "--db", db, "--out", out, "--lang", "en,zh", "--format", "md", d.spec()); r.code != 0 {
			t.Fatalf("report from %s: %v", db, r)
		}
		got.files = map[string][]byte{}
		filepath.WalkDir(out, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				b, _ := os.ReadFile(p)
				got.files[strings.TrimPrefix(p, out)] = b
			}
			return err
		})
		if i == 0 {
			want = got
			if len(want.files) == 0 || !strings.Contains(want.audit, `"findings"`) {
				t.Fatalf("nothing to compare: %d files, audit %.200s", len(want.files), want.audit)
			}
			continue
		}
		if got.audit != want.audit {
			t.Errorf("audit of %s differs from the original's:\n%.2000s\nwant\n%.2000s", db, got.audit, want.audit)
		}
		for name, b := range want.files {
			if !bytes.Equal(got.files[name], b) {
				t.Errorf("report file %s from %s differs from the original's", name, db)
			}
		}
	}
	orig, err := store.Open(d.db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	sizes, _ := orig.BlobSizes()
	for _, db := range []string{pg, back} {
		c, err := store.Open(db, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		for sha := range sizes {
			if a, b := blobBytes(t, orig, sha), blobBytes(t, c, sha); !bytes.Equal(a, b) {
				t.Errorf("raw file %s differs in %s", sha, db)
			}
		}
		c.Close()
	}
}

func blobBytes(t *testing.T, a *store.Archive, sha string) []byte {
	t.Helper()
	r, err := a.OpenBlob(sha)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPostgresConcurrentIngests races six real processes ingesting the same
// file into one PostgreSQL archive: one run and five duplicates, every
// process exit 0; and two processes with different files both complete.
func TestPostgresConcurrentIngests(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	dir := t.TempDir()
	same := filepath.Join(dir, "same.json")
	writeVLLM(t, same, vllmSpec{n: 5000, gaps: 8})
	var other []string
	for i := range 2 {
		f := filepath.Join(dir, "other"+string(rune('0'+i))+".json")
		writeVLLM(t, f, vllmSpec{n: 5000, gaps: 8, seed: float64(i+1) * 0.001})
		other = append(other, f)
	}
	jobs := [][]string{}
	for range 6 {
		jobs = append(jobs, []string{same})
	}
	for _, f := range other {
		jobs = append(jobs, []string{f})
	}
	outs := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, files := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := commandProcess(t, append([]string{"ingest", "--db", db}, files...)...).CombinedOutput()
			outs[i], errs[i] = string(b), err
		}()
	}
	wg.Wait()
	news, dups := 0, 0
	for i := range jobs {
		if errs[i] != nil {
			t.Errorf("ingest %d: %v\n%s", i, errs[i], outs[i])
		}
		for _, m := range idLine.FindAllStringSubmatch(outs[i], -1) {
			if strings.HasSuffix(m[4], "same.json") {
				switch m[2] {
				case "new":
					news++
				case "duplicate":
					dups++
				}
			}
		}
	}
	if news != 1 || dups != 5 {
		t.Errorf("the same file six times at once: %d new, %d duplicates; want 1 and 5", news, dups)
	}
	if c := rowCounts(t, db); c["runs"] != 3 || c["blobs"] != 3 || c["requests"] != 3*5000 {
		t.Errorf("rows after the race: %v", c)
	}
	chainClean(t, db)
}

// TestPostgresKilledIngest kills a real ingest with SIGKILL while its
// transaction is open: the archive holds what it held before, and the
// file ingests afterwards.
func TestPostgresKilledIngest(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	writeVLLM(t, small, vllmSpec{n: 10})
	if out, err := commandProcess(t, "ingest", "--db", db, small).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := rowCounts(t, db)
	big := filepath.Join(dir, "big.json")
	writeVLLM(t, big, vllmSpec{n: 100000, gaps: 40})
	cmd := commandProcess(t, "ingest", "--db", db, big)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Strike once the ingest holds the write lock and has written rows
	// (its transaction's requests are not visible, its lock is).
	conn := rawConn(t, db)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var held bool
		conn.QueryRow(`SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, store.ApplicationID).Scan(&held)
		if held {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	if _, ok := cmd.Wait().(*exec.ExitError); !ok {
		t.Fatal("the ingest finished before it could be killed; make the file bigger")
	}
	// The server ends the dead client's transaction when it sees the
	// connection gone.
	var after map[string]int
	for time.Now().Before(deadline) {
		after = rowCounts(t, db)
		var open int
		conn.QueryRow(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1`, store.ApplicationID).Scan(&open)
		if open == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("after SIGKILL mid-file: %s went from %d to %d rows", k, v, after[k])
		}
	}
	if out, err := commandProcess(t, "ingest", "--db", db, big).CombinedOutput(); err != nil || !strings.Contains(string(out), "new") {
		t.Fatalf("re-ingest after the kill: %v\n%s", err, out)
	}
	chainClean(t, db)
}
