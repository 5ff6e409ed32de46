package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
)

// psLine is one line of `docker ps --no-trunc --format '{{json .}}'`.
type psLine struct {
	ID, Image, Names, Ports string
}

// container finds the container the engine at server runs in and records
// its image, the image's digest, its name and when it started. First the
// one running Docker container that publishes the engine's port; failing
// that (a container on the host network publishes none; Podman, containerd
// and CRI-O are not Docker's), the process that listens on the port and the
// container its cgroup names, inspected with that runtime's own command.
func container(ctx context.Context, b *builder, pathEnv, procDir, server string) {
	const field = "runtime.image"
	u, err := url.Parse(server)
	if err != nil || u.Port() == "" {
		b.unknown(field, "the --server URL names no port to find the engine's container by")
		return
	}
	port := u.Port()
	var tried []string
	if bin, ok := lookPath("docker", pathEnv); ok {
		id, how, err := publishedContainer(ctx, bin, port)
		if err == nil {
			inspectContainer(ctx, b, "docker", bin, id, how)
			return
		}
		tried = append(tried, err.Error())
	} else {
		tried = append(tried, "docker is not on PATH")
	}
	n, _ := strconv.Atoi(port)
	pid, _, err := listenerPID(procDir, n)
	if err != nil {
		b.unknown(field, strings.Join(append(tried, err.Error()), "; ")+"; declare runtime.image by hand if the engine runs in a container")
		return
	}
	runtime, id, ok, err := containerOf(procDir, pid)
	switch {
	case err != nil:
		b.unknown(field, fmt.Sprintf("process %d listens on port %s, but its cgroup cannot be read: %v", pid, port, err))
		return
	case !ok:
		b.unknown(field, fmt.Sprintf("process %d listens on port %s and runs in no container (its cgroup names none): the engine runs on the host itself", pid, port))
		return
	}
	how := fmt.Sprintf("process %d listens on port %s (%s/net/tcp) and runs in %s container %s (%s/%d/cgroup)", pid, port, procDir, runtime, shortID(id), procDir, pid)
	cli := runtimeCLI[runtime]
	bin, ok := lookPath(cli, pathEnv)
	if !ok {
		b.fact("metadata.engine.container", shortID(id)+" ("+runtime+")", how)
		b.unknown(field, how+", but "+cli+" is not on PATH to inspect it")
		return
	}
	inspectContainer(ctx, b, cli, bin, id, how)
}

// runTool runs a container runtime's command and returns what it printed.
func runTool(ctx context.Context, cli, bin string, args ...string) ([]byte, error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v%s", cli, strings.Join(args, " "), err, prefixed(": ", firstLine(errOut.String())))
	}
	return out.Bytes(), nil
}

// publishedContainer is the one running Docker container whose published
// ports map port, and how it was found.
func publishedContainer(ctx context.Context, bin, port string) (id, how string, err error) {
	out, err := runTool(ctx, "docker", bin, "ps", "--no-trunc", "--format", "{{json .}}")
	if err != nil {
		return "", "", err
	}
	var match []psLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var p psLine
		if json.Unmarshal(sc.Bytes(), &p) != nil {
			continue
		}
		if publishes(p.Ports, port) {
			match = append(match, p)
		}
	}
	switch len(match) {
	case 0:
		return "", "", fmt.Errorf("no running container publishes port %s (docker ps)", port)
	case 1:
		return match[0].ID, fmt.Sprintf("docker ps: container %s publishes port %s", match[0].Names, port), nil
	default:
		return "", "", fmt.Errorf("%d running containers publish port %s (docker ps)", len(match), port)
	}
}

// inspected is what `docker|podman|nerdctl inspect ID` (a JSON list of one
// object) and `crictl inspect ID` (one object with a status) say of a
// container, in their own names.
type inspected struct {
	// Docker, nerdctl (Docker's layout) and Podman.
	Name      string `json:"Name"`
	ImageName string `json:"ImageName"` // Podman: the image as the user named it
	Config    struct {
		Image string `json:"Image"` // Docker: the image as the user named it
	} `json:"Config"`
	State struct {
		StartedAt string `json:"StartedAt"`
	} `json:"State"`
	// CRI-O and containerd through crictl.
	Status *struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Image struct {
			Image string `json:"image"`
		} `json:"image"`
		ImageRef  string `json:"imageRef"`
		StartedAt string `json:"startedAt"`
	} `json:"status"`
}

// inspectContainer records the container id's image, name, start and the
// image's digest, as the runtime's command cli (at bin) reports them.
func inspectContainer(ctx context.Context, b *builder, cli, bin, id, how string) {
	const field = "runtime.image"
	out, err := runTool(ctx, cli, bin, "inspect", id)
	if err != nil {
		b.fact("metadata.engine.container", shortID(id), how)
		b.unknown(field, how+"; "+err.Error())
		return
	}
	var c inspected
	trimmed := bytes.TrimSpace(out)
	if bytes.HasPrefix(trimmed, []byte("[")) {
		var list []inspected
		if err := json.Unmarshal(trimmed, &list); err != nil || len(list) != 1 {
			b.unknown(field, fmt.Sprintf("%s; %s inspect %s printed no list of one container", how, cli, shortID(id)))
			return
		}
		c = list[0]
	} else if err := json.Unmarshal(trimmed, &c); err != nil {
		b.unknown(field, fmt.Sprintf("%s; %s inspect %s printed no JSON object", how, cli, shortID(id)))
		return
	}
	inspect := cli + " inspect " + shortID(id)
	name, image, imageKey, started, startedKey := strings.TrimPrefix(c.Name, "/"), c.Config.Image, "Config.Image", c.State.StartedAt, "State.StartedAt"
	if image == "" && c.ImageName != "" {
		image, imageKey = c.ImageName, "ImageName"
	}
	if c.Status != nil {
		name, image, imageKey, started, startedKey = c.Status.Metadata.Name, c.Status.Image.Image, "status.image.image", c.Status.StartedAt, "status.startedAt"
	}
	b.fact("metadata.engine.container", strings.TrimSpace(name+" "+shortID(id)), how)
	// When the container started: record compares it before and after the
	// run, so an engine restarted in between shows as a change.
	b.fact("metadata.engine.container_started", started, inspect+": "+startedKey)
	if image == "" {
		b.unknown(field, how+"; "+inspect+" names no image")
		return
	}
	b.fact(field, image, how+"; "+inspect+": "+imageKey)
	if c.Status != nil {
		// crictl names the image by its digest reference when the image was
		// pulled by one: repository@sha256:…
		if _, dg, ok := strings.Cut(c.Status.ImageRef, "@"); ok && strings.HasPrefix(dg, "sha256:") {
			b.fact("runtime.image_digest", dg, inspect+": status.imageRef "+c.Status.ImageRef)
		} else {
			b.unknown("runtime.image_digest", inspect+": status.imageRef "+strconv.Quote(c.Status.ImageRef)+" is no repository digest")
		}
		return
	}
	imageDigest(ctx, b, cli, bin, image)
}

// imageDigest records the repository digest of image, from the runtime's
// `image inspect` (Docker, Podman and nerdctl print RepoDigests alike).
func imageDigest(ctx context.Context, b *builder, cli, bin, image string) {
	out, err := runTool(ctx, cli, bin, "image", "inspect", "--format", "{{json .RepoDigests}}", image)
	if err != nil {
		b.unknown("runtime.image_digest", err.Error())
		return
	}
	var digests []string
	if err := json.Unmarshal(bytes.TrimSpace(out), &digests); err != nil {
		b.unknown("runtime.image_digest", cli+" image inspect printed no RepoDigests list")
		return
	}
	repo := image
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	for _, d := range digests {
		// Podman names images in full (docker.io/library/…); Docker as the
		// user wrote them.
		if r, dg, ok := strings.Cut(d, "@"); ok && sameRepository(r, repo) {
			b.fact("runtime.image_digest", dg, cli+" image inspect "+image+": RepoDigests "+d)
			return
		}
	}
	b.unknown("runtime.image_digest", cli+" image inspect "+image+": no RepoDigests entry for "+repo+" (an image built locally has none)")
}

// sameRepository compares two image repositories, the registry docker.io
// and its library/ namespace being implied when not written.
func sameRepository(a, b string) bool {
	full := func(r string) string {
		first, _, hasSlash := strings.Cut(r, "/")
		if !hasSlash || !strings.ContainsAny(first, ".:") && first != "localhost" {
			if !hasSlash {
				r = "library/" + r
			}
			r = "docker.io/" + r
		}
		return r
	}
	return full(a) == full(b)
}

// publishes reports whether a docker ps Ports column maps a host port:
// "0.0.0.0:8000->8000/tcp, :::8000->8000/tcp".
func publishes(ports, port string) bool {
	for _, p := range strings.Split(ports, ",") {
		host, _, ok := strings.Cut(strings.TrimSpace(p), "->")
		if ok && strings.HasSuffix(host, ":"+port) {
			return true
		}
	}
	return false
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
