package capture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

// stubDocker is a PATH whose docker answers ps, inspect and image inspect
// with the recorded outputs in testdata/docker.
func stubDocker(t *testing.T) string {
	t.Helper()
	return stubRuntime(t, "docker", "vllm/vllm-openai:v0.11.0")
}

// stubRuntime is a PATH whose cli (docker, podman, nerdctl, crictl)
// answers ps (docker only), `inspect ID` with testdata/CLI/inspect-<first 12
// of ID>.json, and `image inspect` of image with testdata/CLI/repodigests.json.
func stubRuntime(t *testing.T, cli, image string) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("testdata", cli))
	if cli == "nerdctl" { // Docker's layout
		dir, _ = filepath.Abs(filepath.Join("testdata", "docker"))
	}
	return stubTool(t, cli, `case "$1" in
  ps) [ "$2" = --no-trunc ] && cat '`+dir+`/ps.jsonl' ;;
  image) [ "$2 $3 $5" = "inspect --format `+image+`" ] && cat '`+dir+`/repodigests.json' || { echo "Error: No such image: $5" >&2; exit 1; } ;;
  inspect) f='`+dir+`'/inspect-$(printf %.12s "$2").json; [ -f "$f" ] && cat "$f" || { echo "Error: No such container: $2" >&2; exit 1; } ;;
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
			c := Take(context.Background(), Options{Server: tt.server, Getenv: env(map[string]string{"PATH": stubDocker(t)}), HTTP: noNetwork(), ProcDir: t.TempDir()})
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

// fakeProc lays out the parts of /proc that capture reads to find the
// process listening on a port and its container: net/tcp (and an empty
// tcp6) with one listening socket on port, held by process pid through fd
// 7, whose cgroup file reads cgroup; process 1, of the host, holds a
// connection to that port, which is not a listener.
func fakeProc(t *testing.T, port, pid int, cgroup string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const head = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	write("net/tcp", head+
		// An established connection to the port is not a listener.
		fmt.Sprintf("   0: 0100007F:%04X 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 555 1 0000000000000000 20 4 30 10 -1\n", port)+
		fmt.Sprintf("   1: 00000000:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0\n", port)+
		"   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0\n")
	write("net/tcp6", head)
	write("1/cgroup", "0::/init.scope\n")
	write(fmt.Sprintf("%d/cgroup", pid), cgroup)
	for _, l := range []struct{ link, target string }{
		{"1/fd/0", "/dev/null"},
		{"1/fd/1", "socket:[555]"},
		{fmt.Sprintf("%d/fd/3", pid), "socket:[777]"},
		{fmt.Sprintf("%d/fd/7", pid), "socket:[123456]"},
	} {
		p := filepath.Join(dir, l.link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(l.target, p); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestContainerByListener finds the engine's container through the process
// that listens on its port and that process's cgroup: a Docker container
// on the host network (no published port), Podman, CRI-O through crictl; a
// process of the host itself, a runtime whose command is missing, and no
// listener at all are unknown with their reason.
func TestContainerByListener(t *testing.T) {
	t.Parallel()
	const (
		dockerID = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b"
		podmanID = "5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"
		crioID   = "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0"
		digest   = "sha256:0d0c4ea4b7b3f4c2a3e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7"
	)
	tests := []struct {
		name, server, cgroup string
		path                 func(t *testing.T) string
		image, digest        string
		container, started   string
		unknown              string // why runtime.image is unknown
	}{
		{name: "docker host network", server: "http://127.0.0.1:30000",
			cgroup: "0::/system.slice/docker-" + dockerID + ".scope\n",
			path:   func(t *testing.T) string { return stubRuntime(t, "docker", "lmsysorg/sglang:v0.5.4") },
			image:  "lmsysorg/sglang:v0.5.4", container: "sglang-host 1a2b3c4d5e6f", started: "2026-12-02T05:00:01.202020202Z"},
		{name: "docker cgroupfs v1", server: "http://127.0.0.1:30000",
			cgroup: "12:memory:/docker/" + dockerID + "\n11:cpu,cpuacct:/docker/" + dockerID + "\n",
			path:   func(t *testing.T) string { return stubRuntime(t, "docker", "lmsysorg/sglang:v0.5.4") },
			image:  "lmsysorg/sglang:v0.5.4", container: "sglang-host 1a2b3c4d5e6f", started: "2026-12-02T05:00:01.202020202Z"},
		{name: "podman", server: "http://localhost:30000",
			cgroup: "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + podmanID + ".scope/container\n",
			path:   func(t *testing.T) string { return stubRuntime(t, "podman", "docker.io/vllm/vllm-openai:v0.11.0") },
			image:  "docker.io/vllm/vllm-openai:v0.11.0", digest: digest, container: "vllm-podman 5c4d3e2f1a0b", started: "2026-12-02T06:10:00.530440125Z"},
		{name: "cri-o", server: "http://127.0.0.1:30000",
			cgroup: "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/crio-" + crioID + ".scope\n",
			path:   func(t *testing.T) string { return stubRuntime(t, "crictl", "") },
			image:  "docker.io/vllm/vllm-openai:v0.11.0", digest: digest, container: "vllm 9f8e7d6c5b4a", started: "2026-12-02T07:00:02.250000000Z"},
		{name: "host process", server: "http://127.0.0.1:30000",
			cgroup:  "0::/user.slice/user-1000.slice/session-3.scope\n",
			path:    func(t *testing.T) string { return stubRuntime(t, "docker", "x") },
			unknown: "runs in no container"},
		{name: "runtime command missing", server: "http://127.0.0.1:30000",
			cgroup:    "0::/system.slice/containerd.service/kubepods-besteffort-pod1.slice:cri-containerd:" + crioID + "\n0::/k8s.io/cri-containerd-" + crioID + ".scope\n",
			path:      func(t *testing.T) string { return t.TempDir() },
			container: "9f8e7d6c5b4a (containerd)", unknown: "nerdctl is not on PATH"},
		{name: "no listener", server: "http://127.0.0.1:8001",
			cgroup:  "0::/system.slice/docker-" + dockerID + ".scope\n",
			path:    func(t *testing.T) string { return stubRuntime(t, "docker", "x") },
			unknown: "no socket listens on port 8001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proc := fakeProc(t, 30000, 4242, tt.cgroup)
			c := Take(context.Background(), Options{Server: tt.server, Getenv: env(map[string]string{"PATH": tt.path(t)}), HTTP: noNetwork(), ProcDir: proc})
			got, why := facts(c), unknowns(c)
			if got["runtime.image"] != tt.image || got["runtime.image_digest"] != tt.digest {
				t.Errorf("image %q digest %q, want %q %q (why: %q; %q)", got["runtime.image"], got["runtime.image_digest"], tt.image, tt.digest, why["runtime.image"], why["runtime.image_digest"])
			}
			if got["metadata.engine.container"] != tt.container || got["metadata.engine.container_started"] != tt.started {
				t.Errorf("container %q started %q, want %q %q", got["metadata.engine.container"], got["metadata.engine.container_started"], tt.container, tt.started)
			}
			if tt.unknown != "" && !strings.Contains(why["runtime.image"], tt.unknown) {
				t.Errorf("why = %q, want %q", why["runtime.image"], tt.unknown)
			}
			if tt.image != "" && !strings.Contains(howOf(c, "runtime.image"), "process 4242 listens on port 30000") {
				t.Errorf("how runtime.image was found: %q", howOf(c, "runtime.image"))
			}
		})
	}
}

func TestSameRepository(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"docker.io/vllm/vllm-openai", "vllm/vllm-openai", true},
		{"docker.io/library/ubuntu", "ubuntu", true},
		{"nvcr.io/nvidia/tritonserver", "nvidia/tritonserver", false},
		{"localhost:5000/vllm", "localhost:5000/vllm", true},
		{"ghcr.io/a/b", "ghcr.io/a/c", false},
	} {
		if got := sameRepository(tt.a, tt.b); got != tt.want {
			t.Errorf("sameRepository(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

func howOf(c *provenance.Capture, field string) string {
	for _, f := range c.Facts {
		if f.Field == field {
			return f.How
		}
	}
	return ""
}
