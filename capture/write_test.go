package capture

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/provenance"
)

// The document capture writes is a manifest: it parses, and applies its
// facts to a run.
func TestWriteReadsBack(t *testing.T) {
	t.Parallel()
	srv, _ := engineServer(t, map[string]string{"/v1/models": "vllm-models.json", "/version": "vllm-version.json"})
	at := time.Date(2026, 12, 2, 6, 30, 0, 0, time.FixedZone("CET", 3600))
	c := Take(context.Background(), Options{
		Server: srv.URL, Tool: "benchledger test",
		Getenv: env(map[string]string{"PATH": stubSMI(t, "telegraf-a100-sxm4-v12.xml")}),
		Now:    func() time.Time { return at },
	})
	var buf bytes.Buffer
	if err := Write(&buf, c, "capture.yaml"); err != nil {
		t.Fatal(err)
	}
	if c.TakenAt != "2026-12-02T05:30:00Z" {
		t.Errorf("TakenAt = %q, want UTC", c.TakenAt)
	}
	m, err := provenance.ParseManifest("capture.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	eff := m.For("run.json", 0).Effective()
	for f, want := range map[string]string{"runtime.engine": "vllm", "hardware.gpu_model": "NVIDIA A100-SXM4-80GB", "checkpoint.revision": "b968826d9c46dd6066d109eabc6255188de91218"} {
		if eff[f] != want {
			t.Errorf("%s = %q, want %q", f, eff[f], want)
		}
	}
	if len(m.Capture.Unknown) == 0 || m.Capture.Unknown[0].Why == "" {
		t.Errorf("unknowns lost: %+v", m.Capture.Unknown)
	}
	if !strings.HasPrefix(buf.String(), "# Provenance captured by benchledger test") {
		t.Errorf("header:\n%s", buf.String())
	}
}

func TestHostFacts(t *testing.T) {
	t.Parallel()
	c := Take(context.Background(), Options{Getenv: env(nil)})
	got := facts(c)
	name, _ := os.Hostname()
	if got["hardware.node"] != name {
		t.Errorf("node = %q, want %q", got["hardware.node"], name)
	}
	if _, err := os.Stat("/proc/cpuinfo"); err == nil && !strings.Contains(got["metadata.host.cpu"], "logical CPUs") {
		t.Errorf("cpu = %q", got["metadata.host.cpu"])
	}
	if _, err := os.Stat("/proc/sys/kernel/osrelease"); err == nil && got["metadata.host.kernel"] == "" {
		t.Error("no kernel")
	}
	if unknowns(c)["runtime.engine"] == "" {
		t.Error("no --server: the engine should be listed unknown")
	}
}
