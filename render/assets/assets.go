// Package assets holds the third-party files the reports embed: the ECharts
// library (npm package echarts, Apache-2.0) with its LICENSE and NOTICE.
//
// They are not committed (DESIGN.md: third-party code is never committed):
// `make assets` runs scripts/fetch-echarts.sh, which fetches the pinned
// version from the npm registry, checks the SHA-256 and puts the files into
// echarts/, a git-ignored folder that go:embed reads. A committed placeholder
// keeps the embed pattern matching on a bare clone, so `go build` and
// `go vet` work there; a binary built so reports ErrNoECharts.
package assets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// The pinned release; scripts/fetch-echarts.sh pins the same values (a test
// compares them).
const (
	EChartsVersion = "5.6.0"
	EChartsSHA256  = "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1"
)

// ErrNoECharts says the binary was built without the fetched asset.
var ErrNoECharts = errors.New("ECharts " + EChartsVersion + " is not in this build: charts need `make assets` (scripts/fetch-echarts.sh), then a rebuild")

// The directory form embeds whatever is there: the placeholder README.md
// always, the fetched files when `make assets` ran before the build.
//
//go:embed echarts
var files embed.FS

var echarts = sync.OnceValues(func() ([]byte, error) {
	b, err := files.ReadFile("echarts/echarts.min.js")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoECharts
	}
	if err != nil {
		return nil, err
	}
	// The script checked the hash on fetch; checking again here (≈2 ms,
	// once) catches a file replaced by hand between fetch and build.
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != EChartsSHA256 {
		return nil, fmt.Errorf("embedded echarts.min.js has SHA-256 %s, want %s (ECharts %s): run `make assets` again", got, EChartsSHA256, EChartsVersion)
	}
	return b, nil
})

// ECharts returns the bytes of echarts.min.js, or ErrNoECharts when only the
// placeholder was embedded.
func ECharts() ([]byte, error) { return echarts() }

// License returns ECharts' LICENSE and NOTICE files, which Apache-2.0 asks
// to ship with the library (reports link or append them).
func License() (license, notice []byte, err error) {
	if _, err := ECharts(); err != nil {
		return nil, nil, err
	}
	if license, err = files.ReadFile("echarts/LICENSE"); err != nil {
		return nil, nil, err
	}
	if notice, err = files.ReadFile("echarts/NOTICE"); err != nil {
		return nil, nil, err
	}
	return license, notice, nil
}
