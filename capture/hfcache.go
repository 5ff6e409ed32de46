package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// snapshotRE finds a Hugging Face cache snapshot in a path:
// .../models--org--name/snapshots/<commit>.
var snapshotRE = regexp.MustCompile(`models--([^/\\]+?)--([^/\\]+)[/\\]snapshots[/\\]([0-9a-f]{40})(?:[/\\]|$)`)

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// repoIDRE is a Hub repository id, org/name.
var repoIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkpoint establishes the checkpoint repository and revision from
// --model, else from the model the engine reports (engineModel).
func checkpoint(b *builder, opts Options, engineModel string, local bool) {
	model, from := opts.Model, "--model"
	if model == "" {
		model, from = engineModel, "the engine's model"
	}
	if model == "" {
		b.unknown("checkpoint.repository", "no --model was given and no engine reported its model")
		b.unknown("checkpoint.revision", "no --model was given and no engine reported its model")
		return
	}
	if m := snapshotRE.FindStringSubmatch(model); m != nil {
		how := fmt.Sprintf("%s %s is a Hugging Face cache snapshot (models--%s--%s/snapshots/<revision>)", from, model, m[1], m[2])
		b.fact("checkpoint.repository", m[1]+"/"+m[2], how)
		b.fact("checkpoint.revision", m[3], how)
		return
	}
	if st, err := os.Stat(model); err == nil && st.IsDir() && (from == "--model" || local) {
		b.unknown("checkpoint.repository", fmt.Sprintf("%s %s is a local folder, which names no repository", from, model))
		if from != "--model" {
			b.unknown("checkpoint.revision", fmt.Sprintf("the engine serves the local folder %s; pass --model %s to hash its files", model, model))
			return
		}
		sum, n, err := hashFolder(model)
		if err != nil {
			b.unknown("checkpoint.revision", fmt.Sprintf("hashing %s: %v", model, err))
			return
		}
		b.fact("checkpoint.revision", sum, fmt.Sprintf("hash of the %d files in %s: sha256 over the sorted lines \"<sha256>  <size>  <path>\" (no revision is recorded for a local folder)", n, model))
		return
	}
	if !repoIDRE.MatchString(model) {
		b.unknown("checkpoint.repository", fmt.Sprintf("%s %q is neither a repository id (org/name) nor a folder on this host", from, model))
		b.unknown("checkpoint.revision", "the checkpoint is not known")
		return
	}
	b.fact("checkpoint.repository", model, from+" "+model)
	if _, ok := b.c.Fact("checkpoint.revision"); ok {
		return // the engine stated the revision it was started with
	}
	if !local && from != "--model" {
		b.unknown("checkpoint.revision", "the engine runs on another host, whose Hugging Face cache capture cannot read")
		return
	}
	hub, hubHow := hubDir(opts.Getenv)
	if hub == "" {
		b.unknown("checkpoint.revision", "no Hugging Face cache folder: "+hubHow)
		return
	}
	rev, how, why := cacheRevision(hub, model)
	if rev == "" {
		b.unknown("checkpoint.revision", why)
		return
	}
	b.fact("checkpoint.revision", rev, how+" ("+hubHow+")")
}

// hubDir is the Hugging Face hub cache, found as huggingface_hub does:
// HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub,
// else ~/.cache/huggingface/hub.
func hubDir(getenv func(string) string) (dir, how string) {
	switch {
	case getenv("HF_HUB_CACHE") != "":
		return getenv("HF_HUB_CACHE"), "HF_HUB_CACHE"
	case getenv("HF_HOME") != "":
		return filepath.Join(getenv("HF_HOME"), "hub"), "HF_HOME/hub"
	case getenv("XDG_CACHE_HOME") != "":
		return filepath.Join(getenv("XDG_CACHE_HOME"), "huggingface", "hub"), "XDG_CACHE_HOME/huggingface/hub"
	case getenv("HOME") != "":
		return filepath.Join(getenv("HOME"), ".cache", "huggingface", "hub"), "~/.cache/huggingface/hub"
	}
	return "", "none of HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME is set"
}

// cacheRevision reads the revision of repo from the cache: refs/main (what
// an engine started without --revision loads), else the only snapshot.
func cacheRevision(hub, repo string) (rev, how, why string) {
	dir := filepath.Join(hub, "models--"+strings.ReplaceAll(repo, "/", "--"))
	if _, err := os.Stat(dir); err != nil {
		return "", "", fmt.Sprintf("%s is not in the Hugging Face cache %s", repo, hub)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "refs", "main")); err == nil {
		r := strings.TrimSpace(string(data))
		if commitRE.MatchString(r) {
			return r, fmt.Sprintf("Hugging Face cache: %s refs/main (the revision an engine started without --revision loads)", dir), ""
		}
		return "", "", fmt.Sprintf("%s refs/main holds %q, not a commit hash", dir, r)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "snapshots"))
	if err != nil {
		return "", "", fmt.Sprintf("%s has neither refs/main nor snapshots/", dir)
	}
	var snaps []string
	for _, e := range ents {
		if e.IsDir() {
			snaps = append(snaps, e.Name())
		}
	}
	switch len(snaps) {
	case 1:
		return snaps[0], fmt.Sprintf("Hugging Face cache: %s has no refs/main and one snapshot", dir), ""
	case 0:
		return "", "", fmt.Sprintf("%s has no snapshot", dir)
	}
	sort.Strings(snaps)
	return "", "", fmt.Sprintf("%s has no refs/main and %d snapshots (%s); which one the engine loaded is not known", dir, len(snaps), strings.Join(snaps, ", "))
}

// hashFolder digests every regular file under dir (following the symbolic
// links a cache snapshot is made of): sha256 over the sorted lines
// "<sha256>  <size>  <slash path>".
func hashFolder(dir string) (string, int, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		lines = append(lines, fmt.Sprintf("%s  %d  %s\n", hex.EncodeToString(h.Sum(nil)), st.Size(), filepath.ToSlash(rel)))
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	if len(lines) == 0 {
		return "", 0, fmt.Errorf("no files")
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), len(lines), nil
}
