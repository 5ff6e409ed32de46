package capture

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A container on the host network publishes no ports, and Podman,
// containerd and CRI-O are not asked by `docker ps`; but every container's
// process is a process of this host. The kernel says which socket listens
// on the engine's port (/proc/net/tcp and tcp6), which process holds that
// socket (/proc/PID/fd), and which container that process runs in: its
// cgroup path carries the runtime's container id.

// listeningInodes are the inodes of the sockets listening on port, IPv4
// and IPv6, in this network namespace (the host's, which a host-network
// container shares).
func listeningInodes(procDir string, port int) (map[string]bool, error) {
	inodes := map[string]bool{}
	read := 0
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(procDir, "net", name))
		if err != nil {
			continue
		}
		read++
		sc := bufio.NewScanner(f)
		sc.Scan() // the heading
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port && fields[9] != "0" {
				inodes[fields[9]] = true
			}
		}
		f.Close()
	}
	if read == 0 {
		return nil, fmt.Errorf("%s/net/tcp cannot be read", procDir)
	}
	return inodes, nil
}

// listenerPID is the process that holds a socket listening on port. denied
// counts the processes whose descriptors could not be read (another user's,
// when capture does not run as root).
func listenerPID(procDir string, port int) (pid int, denied int, err error) {
	inodes, err := listeningInodes(procDir, port)
	if err != nil {
		return 0, 0, err
	}
	if len(inodes) == 0 {
		return 0, 0, fmt.Errorf("no socket listens on port %d on this host", port)
	}
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join(procDir, e.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			denied++
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err == nil && strings.HasPrefix(target, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] {
				return n, denied, nil
			}
		}
	}
	return 0, denied, fmt.Errorf("a socket listens on port %d, but no process whose descriptors capture may read holds it (%d processes unreadable: run capture as root to see them)", port, denied)
}

// cgroupContainer matches a container id in a cgroup path, by runtime:
// systemd's scope names and the cgroupfs drivers' folders.
var cgroupContainer = []struct {
	runtime string
	re      *regexp.Regexp
}{
	{"docker", regexp.MustCompile(`(?:docker-|/docker/)([0-9a-f]{64})(?:\.scope)?(?:/|$)`)},
	{"podman", regexp.MustCompile(`(?:libpod-|/libpod/)(?:conmon-)?([0-9a-f]{64})(?:\.scope)?(?:/|$)`)},
	{"containerd", regexp.MustCompile(`(?:cri-containerd-|/containerd/)([0-9a-f]{64})(?:\.scope)?(?:/|$)`)},
	{"cri-o", regexp.MustCompile(`crio-([0-9a-f]{64})(?:\.scope)?(?:/|$)`)},
}

// containerOf reads the cgroup of process pid: the runtime and the id of
// the container it runs in, or ok false for a process of the host itself.
func containerOf(procDir string, pid int) (runtime, id string, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return "", "", false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range cgroupContainer {
			if m := c.re.FindStringSubmatch(parts[2]); m != nil {
				return c.runtime, m[1], true, nil
			}
		}
	}
	return "", "", false, nil
}

// runtimeCLI is the command that inspects a runtime's containers.
var runtimeCLI = map[string]string{
	"docker":     "docker",
	"podman":     "podman",
	"containerd": "nerdctl",
	"cri-o":      "crictl",
}
