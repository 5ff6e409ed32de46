package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
)

// psLine is one line of `docker ps --no-trunc --format '{{json .}}'`.
type psLine struct {
	ID, Image, Names, Ports string
}

// container finds the running container that publishes the engine's port
// and records its image and the image's digest. A container on the host
// network shows no ports, so it cannot be told from another: unknown.
func container(ctx context.Context, b *builder, pathEnv, server string) {
	const field = "runtime.image"
	bin, ok := lookPath("docker", pathEnv)
	if !ok {
		b.unknown(field, "docker is not on PATH, so no container was inspected; declare runtime.image by hand if the engine runs in one")
		return
	}
	u, err := url.Parse(server)
	if err != nil || u.Port() == "" {
		b.unknown(field, "the --server URL names no port to find the engine's container by")
		return
	}
	port := u.Port()
	run := func(args ...string) ([]byte, error) {
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("docker %s: %v%s", strings.Join(args, " "), err, prefixed(": ", firstLine(errOut.String())))
		}
		return out.Bytes(), nil
	}
	out, err := run("ps", "--no-trunc", "--format", "{{json .}}")
	if err != nil {
		b.unknown(field, err.Error())
		return
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
		b.unknown(field, "no running container publishes port "+port+" (docker ps; a container on the host network shows no ports)")
		return
	case 1:
	default:
		b.unknown(field, fmt.Sprintf("%d running containers publish port %s (docker ps)", len(match), port))
		return
	}
	c := match[0]
	how := fmt.Sprintf("docker ps: container %s publishes port %s", c.Names, port)
	b.fact(field, c.Image, how+"; its Image")
	b.fact("metadata.engine.container", c.Names+" "+shortID(c.ID), how)
	// When the container started: record compares it before and after the
	// run, so an engine restarted in between shows as a change.
	if out, err := run("inspect", "--format", "{{.State.StartedAt}}", c.ID); err == nil {
		if at := strings.TrimSpace(string(out)); at != "" {
			b.fact("metadata.engine.container_started", at, "docker inspect "+shortID(c.ID)+": State.StartedAt")
		}
	}
	out, err = run("image", "inspect", "--format", "{{json .RepoDigests}}", c.Image)
	if err != nil {
		b.unknown("runtime.image_digest", err.Error())
		return
	}
	var digests []string
	if err := json.Unmarshal(bytes.TrimSpace(out), &digests); err != nil {
		b.unknown("runtime.image_digest", "docker image inspect printed no RepoDigests list")
		return
	}
	repo := c.Image
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	for _, d := range digests {
		if r, dg, ok := strings.Cut(d, "@"); ok && r == repo {
			b.fact("runtime.image_digest", dg, "docker image inspect "+c.Image+": RepoDigests "+d)
			return
		}
	}
	b.unknown("runtime.image_digest", "docker image inspect "+c.Image+": no RepoDigests entry for "+repo+" (an image built locally has none)")
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
