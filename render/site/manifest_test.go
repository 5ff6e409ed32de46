package site

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestFilesExistChecksEachFolderOnce: filesExist looks at a folder on the
// way to many files, and a file many runs name (a data shard), once per
// build (10,000 run pages share en/run), and a folder that is a symbolic
// link is refused all the same, whether it is met first or after folders
// already checked.
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
	b := &builder{out: out}
	if !b.filesExist([]string{"en/run/a.html", "en/run/b.html", "en/index.html"}) {
		t.Fatal("files that are there are not found")
	}
	if got := len(b.checked); got != 5 || !b.checked["en"] || !b.checked["en/run"] || !b.checked["en/run/a.html"] {
		t.Errorf("checked: %v, want en, en/run and the three files", b.checked)
	}
	for _, f := range []string{"en/link/c.html", "en/run/missing.html", "en/run/a.html/x"} {
		if b.filesExist([]string{f}) {
			t.Errorf("%s counted as a file of the site", f)
		}
	}
	if b.checked["en/link"] || b.checked["en/link/c.html"] {
		t.Error("a symbolic link was noted as a checked folder")
	}
	// With the folders noted, a link planted at a file's place is still
	// refused (the file itself is always looked at).
	if _, err := lstatInsideDirs(out, "en/link", b.checked); !errors.Is(err, errSymlink) {
		t.Errorf("the link itself: %v, want errSymlink", err)
	}
	if _, err := lstatInside(out, "en/link/c.html"); !errors.Is(err, errSymlink) {
		t.Errorf("without noted folders: %v, want errSymlink", err)
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
