package capture

import (
	"bufio"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// host records the machine capture runs on. When the engine is on this
// host, it is the serving node; otherwise it is where the client runs.
func host(b *builder, opts Options, local bool) {
	name, err := os.Hostname()
	if err == nil && name != "" {
		if local {
			b.fact("hardware.node", name, "os.Hostname on the host capture ran on, which serves the engine")
		} else {
			b.fact("measurement.client_host", name, "os.Hostname on the host capture ran on; the engine is at "+opts.Server)
		}
	}
	if pretty := osRelease(filepath.Join(opts.EtcDir, "os-release")); pretty != "" {
		b.fact("metadata.host.os", pretty, "PRETTY_NAME in "+filepath.Join(opts.EtcDir, "os-release"))
	} else {
		b.fact("metadata.host.os", runtime.GOOS, "Go's runtime.GOOS (no os-release file)")
	}
	if k, err := os.ReadFile(filepath.Join(opts.ProcDir, "sys", "kernel", "osrelease")); err == nil && strings.TrimSpace(string(k)) != "" {
		b.fact("metadata.host.kernel", strings.TrimSpace(string(k)), filepath.Join(opts.ProcDir, "sys/kernel/osrelease"))
	}
	if model, n := cpuInfo(filepath.Join(opts.ProcDir, "cpuinfo")); model != "" {
		b.fact("metadata.host.cpu", model+" × "+strconv.Itoa(n)+" logical CPUs", filepath.Join(opts.ProcDir, "cpuinfo")+": model name, processor entries")
	}
	b.fact("metadata.host.arch", runtime.GOARCH, "Go's runtime.GOARCH")
}

func osRelease(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

func cpuInfo(path string) (model string, n int) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	return model, n
}

// serverIsLocal reports whether the engine URL names this host: a
// loopback address, localhost, or this host's name. Only then do this
// host's GPUs describe the server.
func serverIsLocal(server string) bool {
	u, err := url.Parse(server)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	name, err := os.Hostname()
	return err == nil && strings.EqualFold(h, name)
}
