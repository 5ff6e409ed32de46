package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.html")
	for _, content := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "b"), []byte("x")); err == nil {
		t.Error("a missing folder is not an error")
	}
}

func TestWriteFromAndWith(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := WriteFrom(p, strings.NewReader("from a reader\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "from a reader\n" {
		t.Errorf("WriteFrom wrote %q", got)
	}
	if err := WriteWith(p, func(w io.Writer) error {
		_, err := io.WriteString(w, "from a writer\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "from a writer\n" {
		t.Errorf("WriteWith wrote %q", got)
	}
}

// failingReader gives some bytes, then fails.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestFailedWriteLeavesNothing: a write that fails half way leaves no
// partial file and no temporary file, keeps an existing file as it was,
// and returns the failure as it is.
func TestFailedWriteLeavesNothing(t *testing.T) {
	t.Parallel()
	boom := errors.New("archive went away")
	half := bytes.Repeat([]byte("half a page "), 10_000)
	writers := []struct {
		name  string
		write func(path string) error
	}{
		{"WriteWith", func(p string) error {
			return WriteWith(p, func(w io.Writer) error {
				if _, err := w.Write(half); err != nil {
					return err
				}
				return boom
			})
		}},
		{"WriteFrom", func(p string) error { return WriteFrom(p, &failingReader{half, boom}) }},
		{"Batch.WriteFrom", func(p string) error { return Batch{}.WriteFrom(p, &failingReader{half, boom}) }},
		{"Batch.WriteFrom fresh", func(p string) error { return Batch{Fresh: true}.WriteFrom(p, &failingReader{half, boom}) }},
	}
	for _, w := range writers {
		for _, existing := range []bool{false, true} {
			dir := t.TempDir()
			p := filepath.Join(dir, "out.csv")
			if existing {
				if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.write(p); err != boom {
				t.Errorf("%s (existing %t): err = %v, want the fill's error as it is", w.name, existing, err)
			}
			got, err := os.ReadFile(p)
			switch {
			case existing && string(got) != "old":
				t.Errorf("%s: the existing file became %d bytes", w.name, len(got))
			case !existing && !errors.Is(err, os.ErrNotExist):
				t.Errorf("%s: a failed write left a file of %d bytes (%v)", w.name, len(got), err)
			}
			if names := list(t, dir); len(names) != btoi(existing) {
				t.Errorf("%s (existing %t): files left: %v", w.name, existing, names)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func list(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestReplaceIsAtomic: until the new file is complete, path still holds
// the old one; then it is a new file renamed over it, so a reader that had
// the old one open goes on reading the old bytes whole.
func TestReplaceIsAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "report.html")
	if err := os.WriteFile(p, []byte("old page"), 0o644); err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	before, _ := os.Stat(p)
	err = WriteWith(p, func(w io.Writer) error {
		if _, err := io.WriteString(w, "new page, half"); err != nil {
			return err
		}
		if got, _ := os.ReadFile(p); string(got) != "old page" {
			t.Errorf("during the write, the path holds %q", got)
		}
		names := list(t, dir)
		if len(names) != 2 || !strings.HasPrefix(names[0], ".report.html.tmp-") {
			t.Errorf("during the write, the folder holds %v, want the page and .report.html.tmp-*", names)
		}
		_, err := io.WriteString(w, " and whole")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new page, half and whole" {
		t.Errorf("after the write, the path holds %q", got)
	}
	if old, _ := io.ReadAll(reader); string(old) != "old page" {
		t.Errorf("a reader of the old file read %q", old)
	}
	if after, _ := os.Stat(p); os.SameFile(before, after) {
		t.Error("the file was rewritten in place, not replaced")
	}
	if names := list(t, dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}

func TestBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := filepath.Join(dir, "en", "run", "a.html")
	var b Batch
	steps := []struct {
		data      string
		wrote     bool
		sameInode bool // the file is the one the step before left
	}{
		{"first", true, false},  // new, in a folder that is not there yet
		{"first", false, true},  // the same bytes: left alone
		{"second", true, false}, // other bytes: replaced whole
	}
	var prev os.FileInfo
	for i, s := range steps {
		wrote, err := b.Write(page, []byte(s.data))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if wrote != s.wrote {
			t.Errorf("step %d: wrote = %t, want %t", i, wrote, s.wrote)
		}
		if got, _ := os.ReadFile(page); string(got) != s.data {
			t.Errorf("step %d: file holds %q, want %q", i, got, s.data)
		}
		fi, err := os.Stat(page)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && os.SameFile(prev, fi) != s.sameInode {
			t.Errorf("step %d: same file as before = %t, want %t", i, !s.sameInode, s.sameInode)
		}
		prev = fi
	}
	if names := list(t, filepath.Dir(page)); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}

	// A fresh tree is written without looking at what is there.
	fresh := Batch{Fresh: true}
	for _, data := range []string{"one", "one"} {
		if wrote, err := fresh.Write(filepath.Join(dir, "new", "x.html"), []byte(data)); err != nil || !wrote {
			t.Errorf("fresh write: %t, %v", wrote, err)
		}
	}
	if err := (Batch{}).WriteFrom(filepath.Join(dir, "raw", "ab12", "r.json"), strings.NewReader("raw")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "raw", "ab12", "r.json")); string(got) != "raw" {
		t.Errorf("WriteFrom wrote %q", got)
	}
}

// benchPages writes n pages of size bytes with write.
func benchPages(b *testing.B, write func(path string, data []byte) error) {
	page := bytes.Repeat([]byte("<tr><td>x</td></tr>\n"), 1000) // 20 KB, a run page's size
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		for i := range 200 {
			if err := write(filepath.Join(dir, "p"+string(rune('a'+i%26))+string(rune('a'+i/26))+".html"), page); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The cost a site build would pay per page with a synced, renamed write
// (BenchmarkWrite) against the batch's new file (BenchmarkBatchFresh) and
// replaced file (BenchmarkBatchReplace), 200 pages per op.
func BenchmarkWrite(b *testing.B) { benchPages(b, Write) }

func BenchmarkBatchFresh(b *testing.B) {
	benchPages(b, func(p string, d []byte) error { _, err := Batch{Fresh: true}.Write(p, d); return err })
}

func BenchmarkBatchReplace(b *testing.B) {
	benchPages(b, func(p string, d []byte) error {
		return Batch{}.replace(p, func(w io.Writer) error { _, err := w.Write(d); return err })
	})
}
