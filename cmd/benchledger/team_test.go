package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchledger/benchledger/internal/pgtest"
	"github.com/benchledger/benchledger/store"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// The team archive (docs/team-archive.md): the same commands on PostgreSQL.

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
	other := vllmFiles(t, dir, "other", 2, func(i int) vllmSpec { return vllmSpec{n: 5000, gaps: 8, seed: float64(i+1) * 0.001} })
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

// TestTeamArchiveBackupRestore runs the backup-and-restore lines of
// docs/team-archive.md against the test server, with its host, user and
// database names made this test's own: pg_dump of an archive, createdb,
// pg_restore, and audit of the restored database, which must say exactly
// what audit of the original says.
func TestTeamArchiveBackupRestore(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	binDir, host, port := pgtest.Client(t)
	mistakesCampaignIn(t, db)
	name := pgtest.DatabaseName(db)
	restored := name + "_restored"
	t.Cleanup(func() { pgtest.DropDatabase(t, restored) })
	restoredURL := strings.Replace(db, "/"+name+"?", "/"+restored+"?", 1)

	doc, err := os.ReadFile("../../docs/team-archive.md")
	if err != nil {
		t.Skipf("docs/team-archive.md: %v", err)
	}
	_, block, ok := strings.Cut(string(doc), "# backup and restore (tested")
	if !ok {
		t.Fatal("docs/team-archive.md has no backup-and-restore block")
	}
	block, _, _ = strings.Cut(block, "```")
	_, block, _ = strings.Cut(block, "\n")
	// The documented names, made the test server's: its socket for the host,
	// its superuser for every role, this test's databases.
	local := strings.NewReplacer(
		"'postgres://benchledger_owner@db.lab.internal/benchledger?sslmode=verify-full'", "'"+db+"'",
		"'postgres://benchledger_owner@db.lab.internal/benchledger_restored?sslmode=verify-full'", "'"+restoredURL+"'",
		"-h db.lab.internal", "-h "+host+" -p "+strconv.Itoa(port),
		"-U postgres", "-U "+pgtest.Superuser, "-U benchledger_owner", "-U "+pgtest.Superuser,
		"-O benchledger_owner", "-O "+pgtest.Superuser,
		" benchledger_restored", " "+restored,
	)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		lines = append(lines, local.Replace(line))
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "benchledger audit ") {
		t.Fatalf("the documented block changed; this test runs pg_dump, createdb, pg_restore, then audit:\n%s", block)
	}
	run := func(line string) (string, int) {
		cmd := exec.Command("bash", "-c", `benchledger() { "$SELF" "$@"; }; `+line)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "SELF="+self, asCommandEnv+"=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if code != 0 && !strings.HasPrefix(line, "benchledger ") {
			t.Fatalf("%s: exit %d\n%s%s", line, code, out.String(), errb.String())
		}
		return out.String(), code
	}
	for _, line := range lines[:3] {
		run(line)
	}
	got, gotCode := run(lines[3])
	want := bl(t, "audit", "--db", db)
	if gotCode != want.code || strings.ReplaceAll(got, restoredURL, "DB") != strings.ReplaceAll(want.stdout, db, "DB") {
		t.Errorf("audit of the restored archive (exit %d):\n%s\nwant (exit %d):\n%s", gotCode, got, want.code, want.stdout)
	}
	if r := bl(t, "runs", "--db", restoredURL, "-q"); r.code != 0 || len(strings.Fields(r.stdout)) != 3 {
		t.Errorf("runs of the restored archive: %v", r)
	}
	// The restored chain is whole, and as long as the original's.
	chainClean(t, restoredURL)
	if a, b := rowCounts(t, db), rowCounts(t, restoredURL); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("rows: original %v, restored %v", a, b)
	}
}

// TestTeamArchiveTLS connects as docs/team-archive.md says a team should
// across machines: sslmode=verify-full against the server's CA. A server
// that takes TCP connections over TLS only serves an ingest and a listing;
// the same URL without TLS is refused by the server, and a certificate
// signed by another CA is refused by the client. Neither refusal is exit 0
// or exit 4 (not an archive): they are errors reaching the database.
func TestTeamArchiveTLS(t *testing.T) {
	t.Parallel()
	db, ca := pgtest.TLSServer(t)
	file := filepath.Join(t.TempDir(), "run.json")
	writeVLLM(t, file, vllmSpec{n: 5})
	if r := bl(t, "ingest", "--db", db, file); r.code != 0 {
		t.Fatalf("ingest over TLS: %v", r)
	}
	if r := bl(t, "runs", "--db", db, "-q"); r.code != 0 || len(strings.Fields(r.stdout)) != 1 {
		t.Fatalf("runs over TLS: %v", r)
	}
	plain := strings.Replace(db, "sslmode=verify-full", "sslmode=disable", 1)
	otherCA := filepath.Join(t.TempDir(), "other-ca.crt")
	writeFile(t, otherCA, pgtest.UnrelatedCA(t))
	wrongCA := strings.Replace(db, url.QueryEscape(ca), url.QueryEscape(otherCA), 1)
	if wrongCA == db {
		t.Fatalf("no sslrootcert to replace in %s", db)
	}
	for _, c := range []struct{ name, db, says string }{
		{"without TLS", plain, "pg_hba.conf"},
		{"another CA", wrongCA, "certificate"},
	} {
		r := bl(t, "runs", "--db", c.db)
		if r.code != exitError || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%s: want exit %d naming %q: %v", c.name, exitError, c.says, r)
		}
	}
}
