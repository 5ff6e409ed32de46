package site

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The diff page reads runs from data files, one per shard of run ids (the
// first two characters): a script line per run, benchledgerRun({...});.
// 256 files instead of one per run keep a big site's file count down; a
// rebuild rewrites only the shards of the runs it made again, keeping the
// lines of the others.

const dataLinePrefix = `benchledgerRun({"id":"`

// shardOf names the data file of a run id, relative to the site's folder.
func shardOf(id string) string {
	k := id
	if len(k) > 2 {
		k = k[:2]
	}
	return "data/runs-" + k + ".js"
}

// addDataLine records a run's line for its shard.
func (b *builder) addDataLine(id string, line []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	shard := shardOf(id)
	if b.dataLines[shard] == nil {
		b.dataLines[shard] = map[string][]byte{}
	}
	b.dataLines[shard][id] = line
}

// writeData writes the shards that have new lines, keeping from the earlier
// build the lines of runs that still exist and were not made again; every
// shard of a run in the archive is part of the site.
func (b *builder) writeData(exists map[string]bool, fresh bool) error {
	shards := map[string]bool{}
	for id := range exists {
		shards[shardOf(id)] = true
	}
	// One buffer for every shard: a shard is written out before the next
	// is made (the 256 of 10,000 runs are 26 MB, each made in a buffer of
	// its own were as many megabytes the build allocated and faulted in).
	var buf bytes.Buffer
	for shard := range shards {
		lines := b.dataLines[shard]
		if lines == nil {
			b.keepFile(shard) // unchanged
			continue
		}
		if !fresh {
			if err := readDataLines(filepath.Join(b.out, filepath.FromSlash(shard)), func(id string, line []byte) {
				if _, ok := lines[id]; !ok && exists[id] {
					lines[id] = line
				}
			}); err != nil {
				return err
			}
		}
		ids := make([]string, 0, len(lines))
		for id := range lines {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		n := 0
		for _, line := range lines {
			n += len(line) + 1
		}
		buf.Reset()
		buf.Grow(n) // at most one allocation, not a doubling per line
		for _, id := range ids {
			buf.Write(lines[id])
			buf.WriteByte('\n')
		}
		if err := b.write(shard, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// readDataLines calls fn for each run line of a data file; a missing file
// has none.
func readDataLines(path string, fn func(id string, line []byte)) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, dataLinePrefix)
		if !ok {
			continue
		}
		id, _, ok := strings.Cut(rest, `"`)
		if ok {
			fn(id, []byte(line))
		}
	}
	return sc.Err()
}
