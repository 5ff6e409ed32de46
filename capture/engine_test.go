package capture

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// engineServer serves recorded responses (testdata/engines) by path on
// 127.0.0.1 and counts what it was asked.
func engineServer(t *testing.T, routes map[string]string) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		file, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", "engines", file))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestEngine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		routes  map[string]string
		want    map[string]string
		unknown map[string]string
	}{
		{"vllm", map[string]string{"/v1/models": "vllm-models.json", "/version": "vllm-version.json"}, map[string]string{
			"runtime.engine":                    "vllm",
			"runtime.version":                   "0.11.0",
			"metadata.engine.max_model_len":     "32768",
			"metadata.engine.served_model_name": "qwen3",
			// root is a cache snapshot path: repository and revision from it
			"checkpoint.repository": "Qwen/Qwen3-8B",
			"checkpoint.revision":   "b968826d9c46dd6066d109eabc6255188de91218",
		}, nil},
		{"sglang", map[string]string{"/v1/models": "sglang-models.json", "/get_server_info": "sglang-server-info.json", "/version": "vllm-version.json"}, map[string]string{
			"runtime.engine":                "sglang",
			"runtime.version":               "0.5.4", // the server info's, not /version's
			"hardware.gpu_count":            "4",     // tp 2 × pp 1 × dp 2, no DP attention
			"checkpoint.repository":         "Qwen/Qwen3-30B-A3B",
			"checkpoint.kv_cache_dtype":     "fp8_e4m3",
			"metadata.engine.max_model_len": "40960",
		}, map[string]string{
			"checkpoint.revision": "is not in the Hugging Face cache",
		}},
		{"tensorrt-llm", map[string]string{"/v1/models": "trtllm-models.json", "/version": "trtllm-version.json"}, map[string]string{
			"runtime.engine":        "tensorrt-llm",
			"runtime.version":       "1.1.0",
			"checkpoint.repository": "nvidia/Llama-3.1-8B-Instruct-FP8",
		}, nil},
		{"unknown server", map[string]string{"/version": "vllm-version.json"}, nil, map[string]string{
			"runtime.engine":  "the server did not identify its engine (GET http://127.0.0.1",
			"runtime.version": "did not identify",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, asked := engineServer(t, tt.routes)
			hub := t.TempDir()
			c := Take(context.Background(), Options{Server: srv.URL, Getenv: env(map[string]string{"HF_HUB_CACHE": hub})})
			checkFacts(t, c, tt.want, tt.unknown)
			for _, p := range *asked {
				switch p {
				case "/v1/models", "/version", "/get_server_info", "/server_info", "/v1-openai/models":
				default:
					t.Errorf("asked the server for %s", p)
				}
			}
			if c.Server != srv.URL {
				t.Errorf("Server = %q", c.Server)
			}
		})
	}
}

func TestEngineServerInfoArgs(t *testing.T) {
	t.Parallel()
	srv, _ := engineServer(t, map[string]string{"/get_server_info": "sglang-server-info.json"})
	c := Take(context.Background(), Options{Server: srv.URL, Getenv: env(nil)})
	args := facts(c)["metadata.engine.server_info"]
	if !strings.Contains(args, `"tp_size":2`) || !strings.Contains(args, `"chunked_prefill_size":8192`) || strings.Contains(args, "internal_states") {
		t.Errorf("server_info = %s", args)
	}
}

// A redirect to another host is refused: only the given server is asked.
func TestEngineNoRedirectElsewhere(t *testing.T) {
	t.Parallel()
	var elsewhere bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere = true }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	c := Take(context.Background(), Options{Server: srv.URL, Getenv: env(nil)})
	if elsewhere {
		t.Error("capture followed a redirect to another host")
	}
	if _, ok := facts(c)["runtime.engine"]; ok {
		t.Error("engine established from a refused redirect")
	}
}

func TestEngineRemoteServer(t *testing.T) {
	t.Parallel()
	// A server that is not this host: its GPUs are not this host's, so
	// nvidia-smi is not asked (the stub would fail the test if it were).
	path := stubTool(t, "nvidia-smi", "echo called >&2; exit 1")
	c := Take(context.Background(), Options{Server: "http://192.0.2.1:1", Getenv: env(map[string]string{"PATH": path}), HTTP: &http.Client{Transport: refuse{}}})
	unk := unknowns(c)
	if !strings.Contains(unk["hardware.gpu_model"], "is not this host") {
		t.Errorf("gpu_model: %q", unk["hardware.gpu_model"])
	}
	if _, ok := facts(c)["hardware.node"]; ok {
		t.Error("hardware.node set for a remote server")
	}
	if facts(c)["measurement.client_host"] == "" {
		t.Error("client host not recorded")
	}
}

// noNetwork is a client whose requests go nowhere.
func noNetwork() *http.Client { return &http.Client{Transport: refuse{}} }

// refuse is a transport that sends nothing anywhere.
type refuse struct{}

func (refuse) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in tests")
}
