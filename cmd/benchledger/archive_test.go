package main

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchledger/benchledger/store"
)

func sqliteExec(t *testing.T, db string, stmts ...string) {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestArchiveRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := filepath.Join(dir, "r.json")
	writeVLLM(t, f, vllmSpec{n: 5})

	newer := filepath.Join(dir, "newer.db")
	if r := bl(t, "ingest", "--db", newer, f); r.code != 0 {
		t.Fatal(r)
	}
	sqliteExec(t, newer, "PRAGMA user_version = 999")
	for _, args := range [][]string{{"ingest", "--db", newer, f}, {"runs", "--db", newer}} {
		r := bl(t, args...)
		if r.code != 4 || !strings.Contains(r.stderr, "newer") || !strings.Contains(r.stderr, "999") {
			t.Errorf("%v on a newer archive: want exit 4 naming the version: %v", args, r)
		}
	}

	foreign := filepath.Join(dir, "other.db")
	sqliteExec(t, foreign, "CREATE TABLE notes(x TEXT)", "INSERT INTO notes VALUES ('mine')")
	text := filepath.Join(dir, "text.db")
	writeFile(t, text, "this is not a database at all\n")
	for _, db := range []string{foreign, text} {
		r := bl(t, "ingest", "--db", db, f)
		if r.code != 4 || !strings.Contains(r.stderr, "not a benchledger archive") {
			t.Errorf("%s: want exit 4 'not a benchledger archive': %v", db, r)
		}
	}
	// The foreign database was not touched.
	conn, _ := sql.Open("sqlite3", "file:"+foreign+"?mode=ro")
	defer conn.Close()
	var n int
	if err := conn.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&n); err != nil || n != 1 {
		t.Errorf("foreign database changed: %d objects (%v)", n, err)
	}
}

func TestReadOnlyArchive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := filepath.Join(dir, "r.json")
	writeVLLM(t, f, vllmSpec{n: 5})
	db := filepath.Join(dir, "a.db")
	if r := bl(t, "ingest", "--db", db, f); r.code != 0 {
		t.Fatal(r)
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(dir, "s.json")
	writeVLLM(t, g, vllmSpec{n: 6})
	r := bl(t, "ingest", "--db", db, g)
	if r.code == 0 || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("ingest into a read-only archive must be refused clearly: %v", r)
	}
	if r := bl(t, "runs", "--db", db); r.code != 0 || !strings.Contains(r.stdout, "r.json") {
		t.Errorf("reading a read-only archive must work: %v", r)
	}
	// A folder that cannot take the new archive.
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	if r := bl(t, "ingest", "--db", filepath.Join(ro, "new.db"), g); r.code == 0 || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("creating an archive in a read-only folder must be refused clearly: %v", r)
	}
}

// TestConcurrentIngests runs two real processes into one archive at once:
// both must complete, the second waiting for the writer lock.
func TestConcurrentIngests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	const requests = 6000 // per file: each ingest still takes a while, so the writers overlap
	var files [2][]string
	for p := 0; p < 2; p++ {
		for i := 0; i < 3; i++ {
			f := filepath.Join(dir, "p"+string(rune('a'+p))+string(rune('0'+i))+".json")
			writeVLLM(t, f, vllmSpec{n: requests, gaps: 8, seed: float64(p*10+i) * 0.001})
			files[p] = append(files[p], f)
		}
	}
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := commandProcess(t, append([]string{"ingest", "--db", db}, files[p]...)...)
			outs[p], errs[p] = cmd.CombinedOutput()
		}(p)
	}
	wg.Wait()
	for p := 0; p < 2; p++ {
		if errs[p] != nil {
			t.Errorf("ingest %d: %v\n%s", p, errs[p], outs[p])
		}
	}
	if c := counts(t, db); c["runs"] != 6 || c["requests"] != 6*requests {
		t.Errorf("both ingests must complete: %v", c)
	}
}

// bigFile writes a vLLM file large enough that ingesting it takes a while.
func bigFile(t *testing.T, dir string) string {
	f := filepath.Join(dir, "big.json")
	writeVLLM(t, f, vllmSpec{n: 120000, gaps: 24})
	return f
}

// TestKilledIngestLeavesArchiveAsItWas kills a real process mid-file (no
// chance to clean up) and checks the archive holds exactly what it held
// before that file, and still works.
func TestKilledIngestLeavesArchiveAsItWas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	small := filepath.Join(dir, "small.json")
	writeVLLM(t, small, vllmSpec{n: 10})
	if out, err := commandProcess(t, "ingest", "--db", db, small).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := counts(t, db)
	big := bigFile(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		// Empty the write-ahead log, so its growth below shows this
		// process writing (a killed writer leaves its frames behind).
		sqliteExec(t, db, "PRAGMA wal_checkpoint(TRUNCATE)")
		cmd := commandProcess(t, "ingest", "--db", db, big)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the transaction has started writing, then strike.
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if st, err := os.Stat(db + "-wal"); err == nil && st.Size() > 1<<20 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%v: the ingest finished before it could be interrupted (%v); make the file bigger", sig, err)
		}
		if sig == syscall.SIGINT {
			if ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("Ctrl-C: want exit 130 and a message, got %d: %s", ee.ExitCode(), stderr.String())
			}
		}
		if after := counts(t, db); after != nil {
			for k, v := range before {
				if after[k] != v {
					t.Errorf("after %v mid-file: %s went from %d to %d rows", sig, k, v, after[k])
				}
			}
		}
	}
	// The archive is intact and the file can be ingested afterwards.
	sqliteCheck(t, db)
	if out, err := commandProcess(t, "ingest", "--db", db, big).CombinedOutput(); err != nil || !strings.Contains(string(out), "new") {
		t.Fatalf("re-ingest after the interruption: %v\n%s", err, out)
	}
	// A large file (streamed, hashed while parsed) is recognised again.
	before = counts(t, db)
	if out, err := commandProcess(t, "ingest", "--db", db, big).CombinedOutput(); err != nil || !strings.Contains(string(out), "duplicate") {
		t.Fatalf("large duplicate: %v\n%s", err, out)
	}
	if after := counts(t, db); after["blobs"] != before["blobs"] || after["runs"] != before["runs"] {
		t.Errorf("a large duplicate added rows: %v -> %v", before, after)
	}
}

// TestDirectIngest: a file of 64 MiB or more, ingested while nothing else
// has the archive open, is written into the archive file directly (a
// rollback journal, no write-ahead log: store.BeginLarge), also among
// small files being prepared meanwhile. Killed mid-file it leaves a journal
// that the next command, a reading one, plays back: the archive holds what
// it held, in WAL mode.
func TestDirectIngest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	small := vllmFiles(t, dir, "small", 3, func(i int) vllmSpec { return vllmSpec{n: 200, seed: float64(i) * 0.01} })
	big := filepath.Join(dir, "big.json")
	writeVLLM(t, big, vllmSpec{n: 120000, gaps: 70})
	if st, err := os.Stat(big); err != nil || st.Size() < 64<<20 {
		t.Fatalf("the large file must have 64 MiB or more: %v %v", st.Size(), err)
	}
	if r := bl(t, "ingest", "--db", db, small[0]); r.code != 0 {
		t.Fatal(r)
	}
	before := counts(t, db)

	// Interrupted (Ctrl-C), then killed, once the transaction writes the
	// archive file.
	interrupt := func(sig syscall.Signal) {
		t.Helper()
		cmd := commandProcess(t, "ingest", "--db", db, big)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		st0, _ := os.Stat(db)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			_, jerr := os.Stat(db + "-journal")
			st, err := os.Stat(db)
			if jerr == nil && err == nil && st.Size() > st0.Size()+8<<20 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(sig)
		if _, ok := cmd.Wait().(*exec.ExitError); !ok {
			t.Fatalf("%v: the ingest finished before it could be interrupted; make the file bigger", sig)
		}
	}
	// walHeader reports whether the archive file's header says WAL mode
	// (bytes 18 and 19 are 2), read without SQLite, which would play a
	// journal back.
	walHeader := func() bool {
		head := make([]byte, 20)
		f, err := os.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := io.ReadFull(f, head); err != nil {
			t.Fatal(err)
		}
		return head[18] == 2 && head[19] == 2
	}
	interrupt(syscall.SIGINT)
	if _, err := os.Stat(db + "-journal"); err == nil || !walHeader() {
		t.Errorf("an interrupted direct ingest must roll back and leave the archive in WAL mode (journal left: %v, WAL header: %v)", err == nil, walHeader())
	}
	if after := counts(t, db); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the interrupted ingest left rows: %v, before %v", after, before)
	}
	interrupt(syscall.SIGKILL)
	if _, err := os.Stat(db + "-journal"); err != nil || walHeader() {
		t.Fatalf("a killed direct ingest leaves its rollback journal and the archive out of WAL mode: %v", err)
	}
	// Read-only, the archive cannot be rolled back, and a reading command
	// says why.
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if r := bl(t, "runs", "--db", db); r.code != 1 || !strings.Contains(r.stderr, "interrupted") || !strings.Contains(r.stderr, "no write permission") {
		t.Errorf("runs on a read-only archive whose write was interrupted: want exit 1 and a message saying so\n%v", r)
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	r := bl(t, "runs", "--db", db)
	if r.code != 0 || strings.Count(strings.TrimSpace(r.stdout), "\n") != 1 {
		t.Fatalf("runs after the killed direct ingest: want the header and the one run before it\n%v", r)
	}
	if after := counts(t, db); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the killed ingest left rows: %v, before %v", after, before)
	}
	sqliteCheck(t, db)

	// Among small files: no write-ahead log beyond theirs.
	stop := make(chan struct{})
	largestWAL := make(chan int64)
	go func() {
		var most int64
		for {
			if st, err := os.Stat(db + "-wal"); err == nil {
				most = max(most, st.Size())
			}
			select {
			case <-stop:
				largestWAL <- most
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	r = bl(t, "ingest", "--db", db, small[1], big, small[2])
	close(stop)
	if most := <-largestWAL; most > 8<<20 {
		t.Errorf("the write-ahead log reached %d bytes: the large file went through it", most)
	}
	if r.code != 0 || strings.Count(r.stdout, " new ") != 3 {
		t.Fatalf("ingest of two small files and the large one:\n%v", r)
	}
	var mode string
	conn, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode after the ingest: %q %v", mode, err)
	}
	// The raw file archived is the file (integrity.blob_hash), and the
	// archive is sound. (The generated files' stated figures are not the
	// recomputed ones, which the other checks would say.)
	if r := bl(t, "audit", "--db", db, "--check", "integrity"); r.code != 0 {
		t.Errorf("audit after the direct ingest:\n%v", r)
	}
}

func sqliteCheck(t *testing.T, db string) {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var res string
	if err := conn.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
}

// TestUpgradeIsAnnounced: a command that finds an archive at an older
// schema says, before upgrading it, that it is upgrading it and between
// which versions, once, whether it writes (ingest) or only reads (runs);
// an archive already current or new gets no such note.
func TestUpgradeIsAnnounced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	for i, f := range files {
		writeVLLM(t, f, vllmSpec{n: 8, seed: float64(i)})
	}
	// An archive as version 7 left it: without the request packs.
	older := func(name string) string {
		db := filepath.Join(dir, name)
		if r := bl(t, "ingest", "--db", db, files[0]); r.code != 0 || strings.Contains(r.stderr, "upgrading") {
			t.Fatalf("ingest into a new archive:\n%v", r)
		}
		sqliteExec(t, db, "DROP TABLE request_packs", "PRAGMA user_version = 7")
		return db
	}
	for _, c := range []struct {
		name string
		args func(db string) []string
	}{
		{"ingest", func(db string) []string { return []string{"ingest", "--db", db, files[1]} }},
		{"runs", func(db string) []string { return []string{"runs", "--db", db} }},
	} {
		db := older(c.name + ".db")
		r := bl(t, c.args(db)...)
		a, err := store.Open(db, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("note: upgrading %s from archive schema version 7 to %d\n", db, a.SchemaVersion())
		a.Close()
		if r.code != 0 || strings.Count(r.stderr, "upgrading") != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s on an archive at version 7: want %q once on stderr\n%v", c.name, want, r)
		}
		if r := bl(t, c.args(db)...); strings.Contains(r.stderr, "upgrading") {
			t.Errorf("%s on the upgraded archive says it upgrades again:\n%v", c.name, r)
		}
	}
}
