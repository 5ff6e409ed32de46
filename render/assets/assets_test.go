package assets

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"testing"
)

// The Go pins and the fetch script's pins must name the same release.
func TestPinsMatchFetchScript(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fetch-echarts.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"VERSION": EChartsVersion, "SHA256_MIN_JS": EChartsSHA256, "SHA256_SITE_JS": EChartsSiteSHA256} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("fetch-echarts.sh: no %s= line", name)
		}
		if string(m[1]) != want {
			t.Errorf("fetch-echarts.sh %s=%s, Go constant %s", name, m[1], want)
		}
	}
}

func TestECharts(t *testing.T) {
	b, err := ECharts()
	if errors.Is(err, ErrNoECharts) {
		if _, serr := os.Stat("echarts/echarts.min.js"); serr == nil {
			t.Fatal("echarts.min.js is on disk but ECharts() reports it missing")
		}
		t.Skip("ECharts asset absent (placeholder build): run `make assets`")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 500_000 || !bytes.Contains(b[:2048], []byte("Apache")) {
		t.Errorf("echarts.min.js: %d bytes, licence header missing?", len(b))
	}
	site, err := EChartsSite()
	if err != nil {
		t.Fatal(err)
	}
	// The site's build is the smaller one, and defines the global echarts.
	if len(site) >= len(b)*2/3 || !bytes.Contains(site, []byte("var echarts=")) {
		t.Errorf("echarts.site.js: %d bytes (the full build %d), or no global echarts", len(site), len(b))
	}
	lic, notice, err := License()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(lic, []byte("Apache License")) || !bytes.Contains(notice, []byte("Apache ECharts")) {
		t.Error("LICENSE or NOTICE content unexpected")
	}
}

func TestErrNoEChartsSaysWhatToDo(t *testing.T) {
	if !bytes.Contains([]byte(ErrNoECharts.Error()), []byte("make assets")) {
		t.Errorf("ErrNoECharts = %q: should name `make assets`", ErrNoECharts)
	}
}
