package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rev1, rev2 = "2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3", "b968826d9c46dd6066d109eabc6255188de91218"

// cacheTree lays out a Hugging Face hub cache as huggingface_hub does:
// models--org--name/{refs/main, snapshots/<sha>/..., blobs/}.
func cacheTree(t *testing.T, repo string, refMain string, snaps ...string) string {
	t.Helper()
	hub := t.TempDir()
	dir := filepath.Join(hub, "models--"+strings.ReplaceAll(repo, "/", "--"))
	for _, s := range snaps {
		if err := os.MkdirAll(filepath.Join(dir, "snapshots", s), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "snapshots", s, "config.json"), []byte(`{"model_type":"qwen3"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if refMain != "" {
		os.MkdirAll(filepath.Join(dir, "refs"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "refs", "main"), []byte(refMain), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hub
}

func TestCheckpointFromCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		refMain  string
		snaps    []string
		want     string // revision; "" = unknown
		whyOrHow string
	}{
		{"refs/main", rev1, []string{rev1, rev2}, rev1, "refs/main"},
		{"one snapshot", "", []string{rev2}, rev2, "no refs/main and one snapshot"},
		{"two snapshots", "", []string{rev1, rev2}, "", "no refs/main and 2 snapshots"},
		{"bad ref", "main-branch\n", nil, "", "not a commit hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hub := cacheTree(t, "Qwen/Qwen3-8B", tt.refMain, tt.snaps...)
			c := Take(context.Background(), Options{Model: "Qwen/Qwen3-8B", Getenv: env(map[string]string{"HF_HOME": filepath.Dir(hub) + "/x"})})
			if got := facts(c)["checkpoint.revision"]; got != "" {
				t.Fatalf("HF_HOME points elsewhere, yet revision %q", got)
			}
			c = Take(context.Background(), Options{Model: "Qwen/Qwen3-8B", Getenv: env(map[string]string{"HF_HUB_CACHE": hub})})
			got := facts(c)
			if got["checkpoint.repository"] != "Qwen/Qwen3-8B" {
				t.Errorf("repository = %q", got["checkpoint.repository"])
			}
			if got["checkpoint.revision"] != tt.want {
				t.Errorf("revision = %q, want %q", got["checkpoint.revision"], tt.want)
			}
			text := unknowns(c)["checkpoint.revision"]
			if f, ok := c.Fact("checkpoint.revision"); ok {
				text = f.How
			}
			if !strings.Contains(text, tt.whyOrHow) {
				t.Errorf("how/why = %q, want %q", text, tt.whyOrHow)
			}
		})
	}
}

func TestCheckpointFolderHash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.json", `{"model_type":"qwen3"}`)
	write("weights/model-00001.safetensors", "weights")
	take := func() string {
		c := Take(context.Background(), Options{Model: dir, Getenv: env(nil)})
		if _, ok := facts(c)["checkpoint.repository"]; ok {
			t.Error("a local folder named a repository")
		}
		return facts(c)["checkpoint.revision"]
	}
	first := take()
	if !strings.HasPrefix(first, "sha256:") || len(first) != 71 {
		t.Fatalf("revision = %q", first)
	}
	if again := take(); again != first {
		t.Errorf("hash not stable: %q then %q", first, again)
	}
	write("weights/model-00001.safetensors", "weightz")
	if changed := take(); changed == first {
		t.Error("changing a weight file left the hash unchanged")
	}
}

func TestCheckpointSnapshotPath(t *testing.T) {
	t.Parallel()
	p := "/data/hub/models--nvidia--Qwen3-30B-A3B-FP4/snapshots/" + rev1 + "/"
	c := Take(context.Background(), Options{Model: p, Getenv: env(nil)})
	got := facts(c)
	if got["checkpoint.repository"] != "nvidia/Qwen3-30B-A3B-FP4" || got["checkpoint.revision"] != rev1 {
		t.Errorf("facts = %v", got)
	}
}
