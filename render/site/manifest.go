package site

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/internal/jsonw"
)

// manifestName is the build record kept beside the pages.
const manifestName = ".benchledger-site.json"

// manifest is what a build leaves for the next one: per run, the key its
// pages were made under, the files they are and the runs-table row (so an
// unchanged run need not be read again); and every file of the site.
type manifest struct {
	Format int                    `json:"format"`
	Runs   map[string]manifestRun `json:"runs"`
	Files  []string               `json:"files"`
	// Reports maps a case study to the key its rendered reports were made
	// under.
	Reports map[string]string `json:"reports,omitempty"`
	// Pages maps a page made from many runs' rows (a trend page), by its
	// file, to the key it was made under (builder.trendKey): an unchanged
	// one is not made again.
	Pages map[string]string `json:"pages,omitempty"`
}

type manifestRun struct {
	Key   string   `json:"key"`
	Files []string `json:"files"`
	Row   runRow   `json:"row"`
	// MAC is an HMAC-SHA256, under the archive's site key
	// (store.Archive.SiteKey), of the key, the files and the row: the
	// manifest lies in a folder anyone may edit, and a row is only reused
	// when the archive vouches for it.
	MAC string `json:"mac"`
}

// rowMAC is the MAC a manifestRun carries: of the text
// fmt.Sprintf("key %s\nfiles %q\nrow %s\n", m.Key, m.Files, rowJSON(m.Row)),
// written here without fmt (a rebuild checks 10,000 of them) into a
// buffer and a MAC used again.
func rowMAC(siteKey []byte, m manifestRun) string {
	st := macStates.Get().(*macState)
	defer macStates.Put(st)
	if st.h == nil || !bytes.Equal(st.key, siteKey) {
		st.key, st.h = bytes.Clone(siteKey), hmac.New(sha256.New, siteKey)
	}
	b := append(st.buf[:0], "key "...)
	b = append(b, m.Key...)
	b = append(b, "\nfiles ["...)
	for i, f := range m.Files {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendQuote(b, f)
	}
	b = append(b, "]\nrow "...)
	b = append(rowJSON(b, m.Row), '\n')
	st.buf = b
	st.h.Reset()
	st.h.Write(b)
	var sum [sha256.Size]byte
	return hex.EncodeToString(st.h.Sum(sum[:0]))
}

// macState is rowMAC's MAC and buffer, for one goroutine at a time.
type macState struct {
	key, buf []byte
	h        hash.Hash
}

var macStates = sync.Pool{New: func() any { return &macState{buf: make([]byte, 0, 1024)} }}

// rowJSON appends json.Marshal(r) to b, byte for byte, without reflection:
// a rebuild checks the MAC of every run's row, and json.Marshal was most
// of that. A value json.Marshal refuses (a figure that is not finite)
// gives what json.Marshal's error left: nothing.
func rowJSON(b []byte, r runRow) []byte {
	start := len(b)
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, r.ID)
	for _, f := range rowTexts(&r) {
		if *f.value != "" {
			b = jsonw.AppendString(append(append(append(b, ',', '"'), f.name...), '"', ':'), *f.value)
		}
	}
	b = strconv.AppendInt(append(b, `,"requests":`...), r.Requests, 10)
	var err error
	for _, f := range [...]struct {
		name   string
		value  *float64
		source string
		srcKey string
	}{{"throughput", r.Throughput, r.ThroughputSource, "throughput_source"}, {"median_latency", r.MedianLatency, r.LatencySource, "latency_source"}} {
		if f.value != nil && err == nil {
			b, err = jsonw.AppendFloat(append(append(append(b, ',', '"'), f.name...), '"', ':'), *f.value)
		}
		if f.source != "" {
			b = jsonw.AppendString(append(append(append(b, ',', '"'), f.srcKey...), '"', ':'), f.source)
		}
	}
	if err != nil {
		return b[:start]
	}
	b = strconv.AppendBool(append(b, `,"publishable":`...), r.Publishable)
	b = strconv.AppendInt(append(b, `,"fails":`...), int64(r.Fails), 10)
	b = strconv.AppendInt(append(b, `,"warns":`...), int64(r.Warns), 10)
	return append(b, '}')
}

// rowTexts are a row's text fields after its id, in the order rowJSON
// writes them (each only when set), by their JSON names.
func rowTexts(r *runRow) [15]struct {
	name  string
	value *string
} {
	return [...]struct {
		name  string
		value *string
	}{{"campaign", &r.Campaign}, {"role", &r.Role}, {"model", &r.Model},
		{"engine", &r.Engine}, {"version", &r.Version}, {"gpu", &r.GPU}, {"date", &r.Date}, {"workload", &r.Workload},
		{"group", &r.Group}, {"sweep", &r.Sweep}, {"replica", &r.Replica}, {"repeat", &r.Repeat},
		{"concurrency", &r.Concurrency}, {"rate", &r.Rate}, {"series", &r.Series}}
}

// verified says whether the archive made m: its MAC checks out.
func verified(siteKey []byte, m manifestRun) bool {
	want := rowMAC(siteKey, m)
	return hmac.Equal([]byte(want), []byte(m.MAC))
}

// readManifest returns the previous build's record, or an empty one when
// there is none or it cannot be read (the build then starts afresh, which
// is always correct, only slower). A record naming a file outside the
// folder (absolute, "..", a backslash, not clean) is not trusted at all:
// the build starts afresh, removes nothing, and says why in the error.
func readManifest(dir string) (manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return manifest{}, nil
	}
	m, ok := decodeManifest(data)
	if !ok && json.Unmarshal(data, &m) != nil {
		return manifest{}, nil
	}
	check := func(f string) error {
		if !siteRel(f) {
			return fmt.Errorf("%s names %q, which is not a file inside the site's folder; the record is ignored and nothing is removed", filepath.Join(dir, manifestName), f)
		}
		return nil
	}
	for _, f := range m.Files {
		if err := check(f); err != nil {
			return manifest{}, err
		}
	}
	for _, r := range m.Runs {
		for _, f := range r.Files {
			if err := check(f); err != nil {
				return manifest{}, err
			}
		}
	}
	return m, nil
}

// siteRel says whether f can name a file the site wrote: relative, with
// slashes, clean, no "..", no backslash or NUL, not the manifest itself.
func siteRel(f string) bool {
	if f == "" || f == manifestName || strings.HasPrefix(f, "/") || strings.ContainsAny(f, "\\\x00:") || path.Clean(f) != f || filepath.IsAbs(f) {
		return false
	}
	for _, part := range strings.Split(f, "/") {
		if part == ".." || part == "." || part == "" {
			return false
		}
	}
	return true
}

// lstatInside is os.Lstat of rel under dir, refusing a path that passes
// through a symbolic link on the way (a planted link to a folder outside
// would otherwise be followed).
func lstatInside(dir, rel string) (fs.FileInfo, error) {
	parts := strings.Split(rel, "/")
	p := dir
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %w", p, errSymlink)
		}
		if i == len(parts)-1 {
			return fi, nil
		}
	}
	return nil, fs.ErrNotExist
}

// removeOldRaw removes a format-1 build's raw files (raw/<sha256>/<name>)
// and their emptied folders before this build writes raw/<sha256> files.
func removeOldRaw(dir string, files []string) error {
	for _, f := range files {
		sha, name, ok := strings.Cut(strings.TrimPrefix(f, "raw/"), "/")
		if !strings.HasPrefix(f, "raw/") || !ok || strings.Contains(name, "/") {
			continue
		}
		if _, err := removeInside(dir, f); err != nil {
			return err
		}
		if fi, err := lstatInside(dir, "raw/"+sha); err == nil && fi.IsDir() {
			os.Remove(filepath.Join(dir, "raw", sha)) // fails, harmlessly, when not empty
		}
	}
	return nil
}

var errSymlink = errors.New("a symbolic link, not followed")

// removeInside removes the regular file rel under dir, and nothing that is
// reached through a symbolic link: it reports whether a file went.
func removeInside(dir, rel string) (bool, error) {
	fi, err := lstatInside(dir, rel)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errSymlink) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, nil
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// writeManifest writes the build record, data (manifestJSON's), unless
// the file already holds it.
func writeManifest(dir string, data []byte) error {
	path := filepath.Join(dir, manifestName)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	// Written last: an interrupted build leaves the previous record, so the
	// next build makes again what this one did not finish.
	return atomicfile.Write(path, data)
}

// manifestJSON is json.Marshal(m), byte for byte (TestManifestJSON),
// without reflection: the record of 10,000 runs is 6 MB, and a rebuild
// writes it again whenever a run changed. It is manifestHead, then
// appendManifestTail.
func manifestJSON(m manifest) ([]byte, error) {
	b, err := manifestHead(m.Format, m.Runs)
	if err != nil {
		return nil, err
	}
	return appendManifestTail(b, m), nil
}

// manifestHead is the start of manifestJSON(m) for a record of this
// format and runs: everything up to its list of files, which a build
// knows only at its end. The runs are most of the record, and are known
// once the run pages are made, so a build writes them beside its other
// pages. The buffer has room for the rest: each run's files listed again
// and a few hundred more.
func manifestHead(format int, runs map[string]manifestRun) ([]byte, error) {
	n := 64 << 10
	for id, r := range runs {
		n += len(id) + len(r.Key) + len(r.MAC) + 512
		for _, f := range r.Files {
			n += 2 * (len(f) + 3) // here and in the record's files
		}
	}
	b := make([]byte, 0, n+n/8)
	b = strconv.AppendInt(append(b, `{"format":`...), int64(format), 10)
	b = append(b, `,"runs":`...)
	if runs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '{')
	for i, id := range slices.Sorted(maps.Keys(runs)) {
		if i > 0 {
			b = append(b, ',')
		}
		r := runs[id]
		b = append(jsonw.AppendString(b, id), ':')
		b = jsonw.AppendString(append(b, `{"key":`...), r.Key)
		b = jsonw.AppendStrings(append(b, `,"files":`...), r.Files)
		b = append(b, `,"row":`...)
		start := len(b)
		if b = rowJSON(b, r.Row); len(b) == start {
			return nil, fmt.Errorf("site: run %s: its row has a figure JSON cannot hold", id)
		}
		b = append(jsonw.AppendString(append(b, `,"mac":`...), r.MAC), '}')
	}
	return append(b, '}'), nil
}

// appendManifestTail appends the rest of manifestJSON(m) to its head: the
// files, the reports and the pages.
func appendManifestTail(b []byte, m manifest) []byte {
	b = jsonw.AppendStrings(append(b, `,"files":`...), m.Files)
	for _, kv := range [...]struct {
		name string
		m    map[string]string
	}{{"reports", m.Reports}, {"pages", m.Pages}} {
		if len(kv.m) == 0 {
			continue // omitempty
		}
		b = append(append(append(b, `,"`...), kv.name...), `":{`...)
		for i, k := range slices.Sorted(maps.Keys(kv.m)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(append(jsonw.AppendString(b, k), ':'), kv.m[k])
		}
		b = append(b, '}')
	}
	return append(b, '}')
}
