package site

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/benchledger/benchledger/internal/atomicfile"
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
}

type manifestRun struct {
	Key   string   `json:"key"`
	Files []string `json:"files"`
	Row   runRow   `json:"row"`
}

// readManifest returns the previous build's record, or an empty one when
// there is none or it cannot be read (the build then starts afresh, which
// is always correct, only slower).
func readManifest(dir string) manifest {
	var m manifest
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil || json.Unmarshal(data, &m) != nil {
		return manifest{}
	}
	return m
}

func writeManifest(dir string, m manifest) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, manifestName)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	// Written last: an interrupted build leaves the previous record, so the
	// next build makes again what this one did not finish.
	return atomicfile.Write(path, data)
}
