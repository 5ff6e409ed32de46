package site

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/store"
)

// TestFilesExistChecksEachFolderOnce: filesExist reads a folder on the
// way to many files once per build (10,000 run pages share en/run), not
// each file, and refuses what lstatInside refuses: a file that is not
// there, a path through a file, a folder that is a symbolic link, a file
// that is one.
func TestFilesExistChecksEachFolderOnce(t *testing.T) {
	t.Parallel()
	out, elsewhere := t.TempDir(), t.TempDir()
	for _, f := range []string{"en/run/a.html", "en/run/b.html", "en/index.html"} {
		p := filepath.Join(out, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "c.html"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, "en", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "c.html"), filepath.Join(out, "en", "run", "d.html")); err != nil {
		t.Fatal(err)
	}
	b := &builder{out: out, listed: newSiteFiles(out)}
	if !b.filesExist([]string{"en/run/a.html", "en/run/b.html", "en/index.html"}) {
		t.Fatal("files that are there are not found")
	}
	if !b.filesExist([]string{"en/run/b.html", "en/run/a.html"}) {
		t.Fatal("files found once are not found again")
	}
	if got := b.listed.reads; got != 3 {
		t.Errorf("%d folders read, want 3: the site's, en and en/run, each once", got)
	}
	for _, f := range []string{"en/link/c.html", "en/run/d.html", "en/run/missing.html", "en/run/a.html/x", "en/run", "en/run/"} {
		if b.filesExist([]string{f}) {
			t.Errorf("%s counted as a file of the site", f)
		}
	}
	if _, err := lstatInside(out, "en/link/c.html"); !errors.Is(err, errSymlink) {
		t.Errorf("lstatInside through a link: %v, want errSymlink", err)
	}
	if _, err := lstatInside(out, "en/link"); !errors.Is(err, errSymlink) {
		t.Errorf("lstatInside of the link itself: %v, want errSymlink", err)
	}
}

// TestRowJSON: rowJSON writes json.Marshal's bytes for a row with each
// field set on its own (so a field added to runRow and not to rowJSON
// fails here), with every field set, with text json.Marshal escapes and
// with figures in both of its number notations; a figure that is not
// finite gives nothing, as json.Marshal's error does.
func TestRowJSON(t *testing.T) {
	t.Parallel()
	texts := []string{"a", `<b> & "c" \ d`, "é\u2028\u2029\x00\x7f", "\xff\xfe"}
	floats := []float64{0, 1234.5678, 1e-7, 2e21, -0.5}
	var rows []runRow
	rt := reflect.TypeOf(runRow{})
	var all runRow
	for i := 0; i < rt.NumField(); i++ {
		if !rt.Field(i).IsExported() {
			continue
		}
		for k := range texts {
			var r runRow
			for _, row := range []*runRow{&r, &all} {
				switch v := reflect.ValueOf(row).Elem().Field(i); v.Kind() {
				case reflect.String:
					v.SetString(texts[k])
				case reflect.Int, reflect.Int64:
					v.SetInt(int64(k*7 - 3))
				case reflect.Bool:
					v.SetBool(true)
				case reflect.Pointer:
					f := floats[k]
					v.Set(reflect.ValueOf(&f))
				default:
					t.Fatalf("runRow.%s: a %s, which rowJSON's test does not set", rt.Field(i).Name, v.Kind())
				}
			}
			rows = append(rows, r)
		}
	}
	rows = append(rows, runRow{}, all)
	for _, f := range floats {
		rows = append(rows, runRow{ID: "x", Throughput: &f, MedianLatency: &f})
	}
	for i, r := range rows {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := rowJSON([]byte("prefix"), r); string(got) != "prefix"+string(want) {
			t.Errorf("row %d: got\n%s\nwant\n%s", i, got[6:], want)
		}
	}
	nan := math.NaN()
	if got := rowJSON([]byte("prefix"), runRow{ID: "x", MedianLatency: &nan, LatencySource: "stated"}); string(got) != "prefix" {
		t.Errorf("a NaN figure: got %s", got)
	}
}

// TestRowMACText: rowMAC is the HMAC of the text fmt wrote for it before
// (key, files quoted with %q, row as rowJSON), whatever the files hold,
// with a MAC used again across keys.
func TestRowMACText(t *testing.T) {
	t.Parallel()
	lat := 0.25
	row := runRow{ID: "abc", Campaign: `c "q" <x>`, MedianLatency: &lat, Fails: 1}
	for _, key := range [][]byte{[]byte("k1"), []byte("another key"), []byte("k1")} {
		for _, files := range [][]string{nil, {}, {"en/run/abc.html"}, {"raw/0f", "a b\"\\\t\u00e9\u2028\xff", "data/runs-ab.js"}} {
			m := manifestRun{Key: "0123abcd", Files: files, Row: row}
			h := hmac.New(sha256.New, key)
			fmt.Fprintf(h, "key %s\nfiles %q\nrow %s\n", m.Key, m.Files, rowJSON(nil, m.Row))
			if got, want := rowMAC(key, m), hex.EncodeToString(h.Sum(nil)); got != want {
				t.Errorf("key %q, files %q: rowMAC %s, want %s", key, files, got, want)
			}
		}
	}
}

// TestManifestJSON: manifestJSON writes json.Marshal's bytes for records
// empty and full, with text json.Marshal escapes in every place, and
// refuses, as json.Marshal does, a row whose figure is not finite.
func TestManifestJSON(t *testing.T) {
	t.Parallel()
	odd := `<a> & "b" \ é` + "\u2028\x00\xff"
	tput := 1234.5678
	full := manifest{Format: 3, Runs: map[string]manifestRun{
		"b2":  {Key: "k2", Files: []string{"en/run/b2.html", odd}, Row: runRow{ID: "b2", Campaign: odd, Throughput: &tput, ThroughputSource: "recomputed"}, MAC: "m2"},
		"a1":  {Key: "k1", Row: runRow{ID: "a1"}, MAC: "m1"},
		odd:   {Key: odd, Files: []string{}, Row: runRow{ID: odd, Publishable: true, Fails: 2, Warns: 1}, MAC: odd},
		"a10": {},
	}, Files: []string{"index.html", odd}, Reports: map[string]string{"cs": "rk", odd: odd}, Pages: map[string]string{"en/trend/x.html": "pk", "a": odd}}
	for i, m := range []manifest{{}, {Format: 3, Runs: map[string]manifestRun{}, Files: []string{}, Reports: map[string]string{}, Pages: map[string]string{}}, full} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := manifestJSON(m)
		if err != nil || string(got) != string(want) {
			t.Errorf("record %d: got (%v)\n%s\nwant\n%s", i, err, got, want)
		}
	}
	nan := math.NaN()
	bad := manifest{Runs: map[string]manifestRun{"x": {Row: runRow{ID: "x", Throughput: &nan}}}}
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("json.Marshal took a NaN")
	}
	if got, err := manifestJSON(bad); err == nil {
		t.Errorf("a NaN figure: got %s, want an error", got)
	}
}

// TestDecodeManifest: decodeManifest reads what manifestJSON writes as
// json.Unmarshal does, field for field (escapes, every kind of string,
// empty and missing lists and maps, figures in both notations), and gives
// up on what it does not know, where json.Unmarshal reads the record
// (readManifest then reads it so).
func TestDecodeManifest(t *testing.T) {
	t.Parallel()
	odd := `<a> & "b" \ é / ` + "\u2028\u2029\x00\x01\t\n\r\x7f\ufffd漢字"
	var recs []manifest
	recs = append(recs, manifest{}, manifest{Format: 3, Runs: map[string]manifestRun{}, Files: []string{}})
	full := manifest{Format: 3, Runs: map[string]manifestRun{}, Files: []string{"index.html", odd},
		Reports: map[string]string{"cs": "rk", odd: odd}, Pages: map[string]string{"en/trend/x.html": "pk", "a": odd}}
	for i, f := range []float64{0, 1234.5678, 1e-7, 2e21, -0.5, 123456789012345680000} {
		f2 := f * 3
		row := runRow{ID: strconv.Itoa(i), Throughput: &f, MedianLatency: &f2, ThroughputSource: "recomputed", LatencySource: "stated",
			Requests: int64(i) - 1, Publishable: i%2 == 0, Fails: i, Warns: 2 * i}
		if i == 1 {
			row.Campaign, row.Role, row.Model, row.Engine, row.Version, row.GPU, row.Date, row.Workload = odd, odd, "m", "e", "v", "g", "d", "w"
			row.Group, row.Sweep, row.Replica, row.Repeat, row.Concurrency, row.Rate, row.Series = "gr", "1", "1/3", "2", "64", "inf", "s"
		}
		if i == 2 {
			row.Throughput, row.ThroughputSource = nil, ""
		}
		files := []string{"en/run/" + row.ID + ".html", odd}
		if i == 3 {
			files = nil
		}
		full.Runs[row.ID] = manifestRun{Key: "k" + row.ID, Files: files, Row: row, MAC: odd}
	}
	full.Runs[odd] = manifestRun{}
	recs = append(recs, full)
	for i, m := range recs {
		data, err := manifestJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		var want manifest
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := decodeManifest(data)
		if !ok {
			t.Errorf("record %d: not read\n%s", i, data)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("record %d: read\n%+v\njson.Unmarshal reads\n%+v", i, got, want)
		}
	}
	// Escapes json.Marshal does not write but json.Unmarshal reads: a
	// surrogate pair, a lone surrogate, \/, \b, \f, upper-case hex.
	canonical, _ := manifestJSON(manifest{Format: 3, Runs: map[string]manifestRun{"a": {Key: "k", Row: runRow{ID: "a"}}}, Files: []string{"x"}})
	for _, esc := range []string{`\ud83d\ude00`, `\ud83d`, `a\ude00b`, `\/\b\f\u00E9`} {
		data := strings.Replace(string(canonical), `"files":["x"]`, `"files":["`+esc+`"]`, 1)
		var want manifest
		if err := json.Unmarshal([]byte(data), &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := decodeManifest([]byte(data)); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %v %q, json.Unmarshal reads %q", esc, ok, got.Files, want.Files)
		}
	}
	// Other forms json.Unmarshal reads (or refuses): decodeManifest gives
	// up on each, and readManifest reads what json.Unmarshal reads.
	for _, other := range []string{
		strings.Replace(string(canonical), `{"format":3,`, `{ "format": 3,`, 1),
		strings.Replace(string(canonical), `"files":["x"]`, `"files":["\x"]`, 1),
		strings.Replace(string(canonical), `"files":["x"]`, `"files":["\u12G4"]`, 1),
		strings.Replace(string(canonical), `"files":["x"]`, "\"files\":[\"\xff\"]", 1),
		strings.Replace(string(canonical), `"requests":0`, `"requests":+1`, 1),
		strings.Replace(string(canonical), `"requests":0`, `"requests":01`, 1),
		strings.Replace(string(canonical), `"requests":0`, `"requests":1.5`, 1),
		strings.Replace(string(canonical), `"format":3`, `"Format":3`, 1),
		`{"runs":{},"format":3,"files":[]}`,
		string(canonical) + " ",
		string(canonical[:len(canonical)-1]),
	} {
		if _, ok := decodeManifest([]byte(other)); ok {
			t.Errorf("read a form manifestJSON does not write: %s", other)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, manifestName), []byte(other), 0o644); err != nil {
			t.Fatal(err)
		}
		var want manifest
		if json.Unmarshal([]byte(other), &want) != nil {
			want = manifest{}
		}
		if got, _ := readManifest(dir); !reflect.DeepEqual(got, want) {
			t.Errorf("readManifest of %s: %+v, want json.Unmarshal's %+v", other, got, want)
		}
	}
}

// TestRunKeyText: runKey is the SHA-256 of the text fmt wrote for it
// before: the build's part, the run, its stamp, whether publishable, its
// blob, and a line per comparison that names it.
func TestRunKeyText(t *testing.T) {
	t.Parallel()
	b := &builder{pagesKeyBytes: []byte("format 3\ntool x\n"), cmpLinks: map[string][]cmpRef{"r2": {{Case: "c", Name: "n1"}, {Case: "c d", Name: "é"}}}}
	b.pagesKeyOnce.Do(func() {})
	for _, s := range []store.RunSummary{{ID: "r1", BlobSHA256: "ab"}, {ID: "r2", Publishable: true, BlobSHA256: "cd"}} {
		h := sha256.New()
		h.Write(b.pagesKeyBytes)
		fmt.Fprintf(h, "run %s\nstamp %s\npublishable %t\nblob %s\n", s.ID, "7 2026-01-01 c3", s.Publishable, s.BlobSHA256)
		for _, c := range b.cmpLinks[s.ID] {
			fmt.Fprintf(h, "comparison %s %s\n", c.Case, c.Name)
		}
		if got, want := b.runKey(s, "7 2026-01-01 c3"), hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("run %s: key %s, want %s", s.ID, got, want)
		}
	}
}
