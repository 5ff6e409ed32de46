package site

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// siteFiles says which files under a site's folder are regular files
// reached through no symbolic link, as lstatInside would, from one listing
// of each folder: a rebuild checks that every file the previous build's
// record names is still there (10,000 run pages, as many raw files), and
// a look at each file was a system call each, a tenth of a rebuild's time.
// A folder is read once, when a file in it is first asked about; it is
// safe to use from several goroutines.
type siteFiles struct {
	out  string
	mu   sync.Mutex
	dirs map[string]*folderListing // by folder, relative to out, with / ("" for out)
	// reads counts the folders read (for tests).
	reads int
}

// folderListing is one folder's entries and their types; ok is false when
// the folder is not there, is not a folder, or is reached through a
// symbolic link.
type folderListing struct {
	once  sync.Once
	ok    bool
	types map[string]fs.FileMode
}

func newSiteFiles(out string) *siteFiles {
	return &siteFiles{out: out, dirs: map[string]*folderListing{}}
}

// exist says whether every file (relative to out, with /) is a regular
// file reached through no symbolic link.
func (s *siteFiles) exist(files []string) bool {
	for _, f := range files {
		if !s.regular(f) {
			return false
		}
	}
	return true
}

// regular says whether rel is a regular file reached through no symbolic
// link.
func (s *siteFiles) regular(rel string) bool {
	dir, name := path.Split(rel)
	if name == "" {
		return false
	}
	t, ok := s.entry(dir[:max(len(dir)-1, 0)], name)
	return ok && t.IsRegular()
}

// entry is the type of name in folder dir, and whether dir is a folder
// reached through no symbolic link that holds it.
func (s *siteFiles) entry(dir, name string) (fs.FileMode, bool) {
	l := s.listing(dir)
	if !l.ok {
		return 0, false
	}
	t, ok := l.types[name]
	return t, ok
}

// listing is folder dir's listing, read the first time it is asked for.
func (s *siteFiles) listing(dir string) *folderListing {
	s.mu.Lock()
	l := s.dirs[dir]
	if l == nil {
		l = &folderListing{}
		s.dirs[dir] = l
	}
	s.mu.Unlock()
	l.once.Do(func() {
		if dir != "" {
			parent, name := path.Split(dir)
			if t, ok := s.entry(parent[:max(len(parent)-1, 0)], name); !ok || !t.IsDir() {
				return // not there, not a folder, or a symbolic link
			}
		}
		f, err := os.Open(filepath.Join(s.out, filepath.FromSlash(dir)))
		if err != nil {
			return
		}
		defer f.Close()
		ents, err := f.ReadDir(-1) // unsorted: the names are looked up
		if err != nil {
			return
		}
		l.types = make(map[string]fs.FileMode, len(ents))
		for _, e := range ents {
			l.types[e.Name()] = e.Type()
		}
		l.ok = true
		s.mu.Lock()
		s.reads++
		s.mu.Unlock()
	})
	return l
}
