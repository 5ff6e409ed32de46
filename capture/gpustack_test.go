package capture

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const gsKey = "gpustack-test-key-5f1c"

// gpustackServer answers like a GPUStack server (testdata/gpustack): every
// path but /version needs the API key. legacy lays the API out as before
// 2.0 (/v1 management, /v1-openai OpenAI list). It records every request
// and the Authorization header of each.
func gpustackServer(t *testing.T, legacy bool) (*httptest.Server, *[]string) {
	t.Helper()
	srv, log, _ := gpustackServerEdit(t, legacy)
	return srv, log
}

// gpustackServerEdit is gpustackServer with a hook that may change a
// response body before it is sent (path, body) → body.
func gpustackServerEdit(t *testing.T, legacy bool) (*httptest.Server, *[]string, *func(string, []byte) []byte) {
	t.Helper()
	routes := map[string]string{
		"/version":              "version.json",
		"/v1/models":            "openai-models.json",
		"/v2/models":            "models.json",
		"/v2/model-instances":   "model-instances.json",
		"/v2/gpu-devices":       "gpu-devices.json",
		"/v1-openai/models":     "openai-models.json", // 2.x keeps the legacy alias
		"/get_server_info":      "",
		"/server_info":          "",
		"/v1/model-instances":   "",
		"/v1/gpu-devices":       "",
		"/v2/unknown-elsewhere": "",
	}
	if legacy {
		routes["/v1/models"] = "models.json"
		routes["/v1/model-instances"] = "model-instances.json"
		routes["/v1/gpu-devices"] = "gpu-devices.json"
		delete(routes, "/v2/models")
		delete(routes, "/v2/model-instances")
		delete(routes, "/v2/gpu-devices")
	}
	var mu sync.Mutex
	var log []string
	edit := func(_ string, b []byte) []byte { return b }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.URL.Path+" auth="+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path != "/version" && r.Header.Get("Authorization") != "Bearer "+gsKey {
			http.Error(w, `{"code":401,"reason":"Unauthorized","message":"Invalid authentication credentials"}`, http.StatusUnauthorized)
			return
		}
		file := routes[r.URL.Path]
		if file == "" {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", "gpustack", file))
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		data = edit(r.URL.Path, data)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &log, &edit
}

func TestGPUStack(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"runtime.engine":                     "vllm",
		"runtime.version":                    "0.11.0", // api_detected_backend_version; the model's backend_version is null
		"checkpoint.repository":              "Qwen/Qwen3-30B-A3B",
		"hardware.gpu_count":                 "4", // 2 + 1 + a subordinate's 1; the instance in error left out
		"hardware.gpu_model":                 "NVIDIA H100 80GB HBM3",
		"hardware.gpu_memory_gb":             "79.6",
		"hardware.driver":                    "570.124.06 (CUDA 12.8)",
		"metadata.engine.served_model_name":  "qwen3-30b-a3b",
		"metadata.engine.replicas":           "2",
		"metadata.engine.instance_restarts":  "1",
		"metadata.engine.backend_parameters": `["--max-num-seqs=512","--enable-prefix-caching"]`,
		"metadata.engine.gpustack_version":   "v2.2.3 (1cfcbbf)",
	}
	for _, legacy := range []bool{false, true} {
		name := "2.x"
		if legacy {
			name = "before 2.0"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, log := gpustackServer(t, legacy)
			c := Take(context.Background(), Options{Server: srv.URL, ServedModel: "qwen3-30b-a3b", Getenv: env(map[string]string{
				TokenEnv: gsKey, "HF_HUB_CACHE": t.TempDir(), "PATH": t.TempDir(),
			})})
			checkFacts(t, c, want, map[string]string{
				// GPUStack's default image is not in its API; the port is GPUStack's
				"runtime.image": "no image_name",
			})
			if _, ok := facts(c)["hardware.node"]; ok {
				t.Error("hardware.node set for instances on three workers")
			}
			if !strings.Contains(facts(c)["runtime.version"], "0.11.0") {
				t.Fatal("no version")
			}
			var doc bytes.Buffer
			if err := Write(&doc, c, "capture.yaml"); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(doc.String(), gsKey) {
				t.Error("the API key is in the capture document")
			}
			for _, l := range *log {
				if !strings.HasSuffix(l, "auth=Bearer "+gsKey) {
					t.Errorf("request without the key: %s", l)
				}
			}
		})
	}
}

func TestGPUStackWithoutWhatItNeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, served, key string
		unknown           map[string]string
	}{
		{"no key", "qwen3-30b-a3b", "", map[string]string{
			"runtime.engine":  "has git_commit, as GPUStack's does: give its API key (" + TokenEnv,
			"runtime.version": "HTTP 401",
		}},
		{"wrong key", "qwen3-30b-a3b", "not-the-key", map[string]string{"runtime.engine": "HTTP 401"}},
		{"several models, none named", "", gsKey, map[string]string{
			"runtime.engine": "lists 2 models (qwen3-30b-a3b, bge-m3); say which one the benchmark asks for with --served-model",
		}},
		{"a model it does not serve", "llama-3", gsKey, map[string]string{"runtime.engine": `lists no model "llama-3" (it lists qwen3-30b-a3b, bge-m3)`}},
		{"served but not in the management list", "bge-m3", gsKey, map[string]string{"runtime.engine": `lists no model named "bge-m3"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := gpustackServer(t, false)
			c := Take(context.Background(), Options{Server: srv.URL, ServedModel: tt.served, Token: tt.key, Getenv: env(map[string]string{"HF_HUB_CACHE": t.TempDir(), "PATH": t.TempDir()})})
			checkFacts(t, c, nil, tt.unknown)
			if _, ok := facts(c)["hardware.gpu_count"]; ok {
				t.Error("gpu_count established without GPUStack's model")
			}
		})
	}
}

// An instance that restarts during a recorded run changes its
// restart_count: Bracket says so instead of keeping the value from before.
func TestGPUStackRestartDuringRun(t *testing.T) {
	t.Parallel()
	srv, _, edit := gpustackServerEdit(t, false)
	opts := Options{Server: srv.URL, ServedModel: "qwen3-30b-a3b", Token: gsKey, Getenv: env(map[string]string{"HF_HUB_CACHE": t.TempDir(), "PATH": t.TempDir()})}
	before := Take(context.Background(), opts)
	*edit = func(p string, b []byte) []byte {
		if p == "/v2/model-instances" {
			return bytes.Replace(b, []byte(`"restart_count":1`), []byte(`"restart_count":2`), 1)
		}
		return b
	}
	after := Take(context.Background(), opts)
	doc := Bracket(before, after)
	checkFacts(t, doc, map[string]string{"runtime.engine": "vllm", "hardware.gpu_count": "4"}, map[string]string{
		"metadata.engine.instance_restarts": `changed during the run: "1" before`,
	})
}
