package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"github.com/benchledger/benchledger/internal/pgtest"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/benchledger/benchledger/internal/browser"
	"github.com/benchledger/benchledger/internal/democampaign"
)

// The fixtures below are made once per test binary, on first use, in a
// folder TestMain removes: generating and ingesting the 94 MB demo campaign
// costs about ten seconds of CPU, which every test of the demo used to pay.

// asCommandEnv makes the test binary act as the benchledger command (main,
// not the tests): the tests that need a separate process (concurrent
// writers, a kill mid-file) run it so, instead of building the command.
const asCommandEnv = "BENCHLEDGER_TEST_BINARY_IS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommandEnv) == "1" {
		main()
		os.Exit(0)
	}
	// The tests often wait (on the shared fixture, on a child process, on
	// the chart renderer's lock): four at a time keep two cores busy where
	// GOMAXPROCS of them left one idle. -parallel, when given, wins.
	pgtest.Parallel(4)
	// The pages the tests open (and the reports they print) are tabs of
	// one Chromium, not a browser each (browser.Share).
	stopBrowser := browser.Share()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
		// Every test runs: build the demos (and print the workbooks) at
		// once, beside the tests that do not need them, rather than when
		// the first test that does blocks its slot waiting for it.
		go demoOnce()
		go smallDemoOnce()
		go printedWorkbooksOnce()
	}
	code := m.Run()
	stopBrowser()
	pgtest.Stop()
	if sharedRoot != "" {
		os.RemoveAll(sharedRoot)
	}
	os.Exit(code)
}

var (
	sharedOnce sync.Once
	sharedRoot string
	sharedErr  error
)

// sharedDir is a new folder for a fixture the tests share (t.TempDir is the
// test's own and goes with it).
func sharedDir(name string) (string, error) {
	sharedOnce.Do(func() { sharedRoot, sharedErr = os.MkdirTemp("", "benchledger-fixtures") })
	if sharedErr != nil {
		return "", sharedErr
	}
	dir := filepath.Join(sharedRoot, name)
	return dir, os.MkdirAll(dir, 0o755)
}

// demoFixture is the example campaign generated and ingested with its
// shipped campaign.yaml: what `make demo` makes.
type demoFixture struct {
	dir string // the campaign folder: result files, campaign.yaml, casestudy.yaml, narrative/
	db  string // its archive, one file (the WAL checkpointed into it)
}

// spec is the case study's spec in the shared folder.
func (d *demoFixture) spec() string { return filepath.Join(d.dir, "casestudy.yaml") }

// specFiles are the files of the demo folder that are not results: what a
// test that edits the case study copies.
var specFiles = []string{"campaign.yaml", "casestudy.yaml", "narrative"}

var demoOnce = sync.OnceValues(func() (*demoFixture, error) {
	return makeDemo("demo", democampaign.Generate, nil)
})

// smallDemoOnce is the demo in miniature (democampaign.GenerateSmall): the
// same files, spec, narratives and manifest (its counts scaled), a
// sixteenth of the requests. It is for the tests whose subject is what the
// tool does with a campaign of the demo's shape (pages, audits, copies),
// not the demo's published numbers.
var smallDemoOnce = sync.OnceValues(func() (*demoFixture, error) {
	return makeDemo("small-demo", democampaign.GenerateSmall, democampaign.SmallManifest)
})

// makeDemo generates a campaign into a shared folder, copies the demo's
// spec files beside it (campaign.yaml through manifest, when given) and
// ingests it.
func makeDemo(name string, generate func(string) ([]string, error), manifest func([]byte) []byte) (*demoFixture, error) {
	root, err := sharedDir(name)
	if err != nil {
		return nil, err
	}
	d := &demoFixture{dir: filepath.Join(root, "qwen3-batch"), db: filepath.Join(root, "demo.db")}
	if _, err := generate(d.dir); err != nil {
		return nil, err
	}
	src := filepath.Join("..", "..", "results", "qwen3-batch")
	for _, f := range specFiles {
		if err := copyTree(filepath.Join(src, f), filepath.Join(d.dir, f)); err != nil {
			return nil, err
		}
	}
	if manifest != nil {
		p := filepath.Join(d.dir, "campaign.yaml")
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, manifest(b), 0o644); err != nil {
			return nil, err
		}
	}
	if r := runCommand("ingest", "--db", d.db, d.dir); r.code != 0 || strings.Contains(r.stderr, "warning") {
		return nil, fmt.Errorf("%s ingest must be clean and publishable: %v", name, r)
	}
	return d, checkpoint(d.db)
}

// sharedDemo is the demo fixture itself, for tests that only read it (they
// may run in parallel); a test that writes to the archive or the case
// study takes demoArchive's copies instead.
func sharedDemo(t testing.TB) *demoFixture {
	t.Helper()
	return fixture(t, demoOnce)
}

// smallDemo is the small demo fixture, for tests that only read it.
func smallDemo(t testing.TB) *demoFixture {
	t.Helper()
	return fixture(t, smallDemoOnce)
}

// fixture is what once made, or the test fails with its error.
func fixture(t testing.TB, once func() (*demoFixture, error)) *demoFixture {
	t.Helper()
	d, err := once()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// viewedDemo is the demo of the tests that take screenshots: the real one
// when they are kept for a person to look at ($BENCHLEDGER_SCREENSHOTS),
// else the small one (what they check does not depend on the numbers).
func viewedDemo(t testing.TB) *demoFixture {
	t.Helper()
	if os.Getenv("BENCHLEDGER_SCREENSHOTS") != "" {
		return sharedDemo(t)
	}
	return smallDemo(t)
}

// smallDemoArchive is demoArchive for the small demo.
func smallDemoArchive(t *testing.T) (db, spec string) {
	t.Helper()
	d := smallDemo(t)
	return copyArchive(t, d.db), specCopy(t, d)
}

// demoArchive is a private copy of the demo archive and of the case study's
// folder (spec, manifest and narratives; the result files stay in the
// shared folder, where the archive names them): the test may change either.
func demoArchive(t *testing.T) (db, spec string) {
	t.Helper()
	d := sharedDemo(t)
	return copyArchive(t, d.db), demoSpecCopy(t)
}

// demoSpecCopy is a private copy of the demo case study's folder, for a
// test that edits the spec or its narratives but only reads the archive.
func demoSpecCopy(t *testing.T) string {
	t.Helper()
	return specCopy(t, sharedDemo(t))
}

// specCopy is a private copy of a demo fixture's case study folder.
func specCopy(t *testing.T, d *demoFixture) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "qwen3-batch")
	for _, f := range specFiles {
		if err := copyTree(filepath.Join(d.dir, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "casestudy.yaml")
}

// copyArchive copies an archive file so that the test may change it; the
// source must have no write-ahead log left (see checkpoint).
func copyArchive(t *testing.T, src string) string {
	t.Helper()
	if st, err := os.Stat(src + "-wal"); err == nil && st.Size() > 0 {
		t.Fatalf("%s has a write-ahead log: checkpoint it before copying", src)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// checkpoint moves an archive's write-ahead log into its file, so that the
// file alone is the archive (to copy or share read-only).
func checkpoint(db string) error {
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=rw")
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// copyTree copies a file or a folder with everything in it.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	_, err = io.Copy(out, in)
	return err
}

// hostileDemoArchive is a copy of the small demo's archive whose runs all
// carry the hostile text as their hardware.driver (added by ingesting the
// same files again with --set, as a user completing provenance would).
func hostileDemoArchive(t *testing.T, hostile string) string {
	t.Helper()
	d := smallDemo(t)
	db := copyArchive(t, d.db)
	if r := bl(t, "ingest", "--db", db, "--set", "hardware.driver="+hostile, d.dir); r.code != 0 || !strings.Contains(r.stdout, "completed") {
		t.Fatal(r)
	}
	return db
}
