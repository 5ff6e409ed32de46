// Package assets holds the third-party files benchledger embeds: the
// ECharts library (npm package echarts, Apache-2.0) with its LICENSE and
// NOTICE, in its full build (which package svg runs to draw charts) and in
// the site's smaller build (EChartsSite).
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

// EChartsSiteSHA256 pins the site's smaller build of the same release
// (echarts.site.js, built by scripts/fetch-echarts.sh from
// scripts/echarts-site.js with esbuild; the script pins it too).
const EChartsSiteSHA256 = "21a2f0b31691145f22c6c84da40f1367ba6904e1775519262ae3778c40a26429"

// ErrNoECharts says the binary was built without the fetched asset.
var ErrNoECharts = errors.New("ECharts " + EChartsVersion + " is not in this build: charts need `make assets` (scripts/fetch-echarts.sh), then a rebuild")

// The directory form embeds whatever is there: the placeholder README.md
// always, the fetched files when `make assets` ran before the build.
//
//go:embed echarts
var files embed.FS

var (
	echarts     = sync.OnceValues(func() ([]byte, error) { return pinned("echarts.min.js", EChartsSHA256) })
	echartsSite = sync.OnceValues(func() ([]byte, error) { return pinned("echarts.site.js", EChartsSiteSHA256) })
)

// pinned reads a fetched file and checks its hash.
func pinned(name, want string) ([]byte, error) {
	b, err := files.ReadFile("echarts/" + name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoECharts
	}
	if err != nil {
		return nil, err
	}
	// The script checked the hash on fetch; checking again here (≈2 ms,
	// once) catches a file replaced by hand between fetch and build.
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("embedded %s has SHA-256 %s, want %s (ECharts %s): run `make assets` again", name, got, want, EChartsVersion)
	}
	return b, nil
}

// ECharts returns the bytes of echarts.min.js, ECharts' full build (what
// the SVG renderer runs), or ErrNoECharts when only the placeholder was
// embedded.
func ECharts() ([]byte, error) { return echarts() }

// EChartsSite returns the site's build of ECharts: only the chart types
// and components benchledger's charts use (scripts/echarts-site.js), with
// the SVG renderer; about 0.6 MB against the full build's 1 MB. Or
// ErrNoECharts.
func EChartsSite() ([]byte, error) { return echartsSite() }

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
