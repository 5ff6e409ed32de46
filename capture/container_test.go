package capture

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// stubDocker is a PATH whose docker answers ps and image inspect with the
// recorded outputs in testdata/docker.
func stubDocker(t *testing.T) string {
	t.Helper()
	ps, _ := filepath.Abs(filepath.Join("testdata", "docker", "ps.jsonl"))
	dg, _ := filepath.Abs(filepath.Join("testdata", "docker", "repodigests.json"))
	return stubTool(t, "docker", `case "$1 $2" in
  "ps --no-trunc") cat '`+ps+`' ;;
  "image inspect") [ "$5" = vllm/vllm-openai:v0.11.0 ] && cat '`+dg+`' || { echo "Error: No such image: $5" >&2; exit 1; } ;;
  "inspect --format") echo 2026-12-02T05:58:13.120455378Z ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac`)
}

func TestContainer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		server  string
		image   string
		digest  string
		unknown string // why runtime.image is unknown
	}{
		{"http://127.0.0.1:8000", "vllm/vllm-openai:v0.11.0", "sha256:0d0c4ea4b7b3f4c2a3e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7", ""},
		{"http://localhost:30000", "", "", "no running container publishes port 30000"},
		{"http://127.0.0.1", "", "", "names no port"},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			t.Parallel()
			c := Take(context.Background(), Options{Server: tt.server, Getenv: env(map[string]string{"PATH": stubDocker(t)}), HTTP: noNetwork()})
			got := facts(c)
			if tt.image != "" && (got["metadata.engine.container"] != "vllm-qwen3 3f2a9c1d8e7b" || got["metadata.engine.container_started"] != "2026-12-02T05:58:13.120455378Z") {
				t.Errorf("container %q started %q", got["metadata.engine.container"], got["metadata.engine.container_started"])
			}
			if got["runtime.image"] != tt.image || got["runtime.image_digest"] != tt.digest {
				t.Errorf("image %q digest %q, want %q %q", got["runtime.image"], got["runtime.image_digest"], tt.image, tt.digest)
			}
			if tt.unknown != "" && !strings.Contains(unknowns(c)["runtime.image"], tt.unknown) {
				t.Errorf("why = %q, want %q", unknowns(c)["runtime.image"], tt.unknown)
			}
		})
	}
}

func TestPublishes(t *testing.T) {
	t.Parallel()
	for ports, want := range map[string]bool{
		"0.0.0.0:8000->8000/tcp, [::]:8000->8000/tcp": true,
		"0.0.0.0:18000->8000/tcp":                     false, // host port 18000
		"8000/tcp":                                    false, // exposed, not published
		"":                                            false,
	} {
		if got := publishes(ports, "8000"); got != want {
			t.Errorf("publishes(%q) = %v", ports, got)
		}
	}
}
