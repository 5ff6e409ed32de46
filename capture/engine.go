package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The response shapes, from the engines' sources:
//   - vLLM (vllm/entrypoints/openai/api_server.py): GET /version →
//     {"version": "0.11.0"}; GET /v1/models → {"object": "list", "data":
//     [{"id", "object": "model", "owned_by": "vllm", "root", "parent",
//     "max_model_len"}]}.
//   - SGLang (python/sglang/srt/entrypoints/http_server.py): GET
//     /get_server_info → the server arguments (dataclasses.asdict of
//     ServerArgs: model_path, revision, tp_size, dp_size, pp_size, ...) with
//     the scheduler's info, "internal_states" and "version"; /v1/models
//     with owned_by "sglang".
//   - TensorRT-LLM (tensorrt_llm/serve/openai_server.py): GET /version →
//     {"version": ...}; /v1/models with owned_by "tensorrt_llm".
type modelList struct {
	Data []modelCard `json:"data"`
}

type modelCard struct {
	ID          string  `json:"id"`
	OwnedBy     string  `json:"owned_by"`
	Root        string  `json:"root"`
	Parent      *string `json:"parent"`
	MaxModelLen *int64  `json:"max_model_len"`
}

var ownerEngine = map[string]string{"vllm": "vllm", "sglang": "sglang", "tensorrt_llm": "tensorrt-llm"}

// maxBody bounds what capture reads of one response.
const maxBody = 8 << 20

// serverClient asks one server, and only it, for JSON.
type serverClient struct {
	ctx   context.Context
	http  http.Client
	base  string // scheme://host[:port][/path], no trailing slash
	token string // sent as a bearer token when set; never written anywhere
}

func newServerClient(ctx context.Context, client *http.Client, base, token string) (*serverClient, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--server %q is not an http:// or https:// URL", base)
	}
	c := &serverClient{ctx: ctx, http: *client, base: u.String(), token: token}
	// Only the given server is contacted: a redirect elsewhere is refused.
	c.http.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if req.URL.Host != u.Host {
			return fmt.Errorf("refusing a redirect from %s to %s", u.Host, req.URL.Host)
		}
		return nil
	}
	return c, nil
}

// get reads base+p into into and returns the address asked.
func (c *serverClient) get(p string, into any) (string, error) {
	addr := c.base + p
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, addr, nil)
	if err != nil {
		return addr, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return addr, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return addr, &statusError{resp.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return addr, err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return addr, fmt.Errorf("not the JSON expected: %w", err)
	}
	return addr, nil
}

// statusError is an answer other than 200 OK.
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

func httpStatus(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.code
	}
	return 0
}

// served is what asking the server settled beyond facts.
type served struct {
	model string // the checkpoint path or repository the engine serves ("" if unsaid)
	// proxy names the service listening on --server when it is not the
	// engine itself (GPUStack): the process on that port is not the
	// engine's, so its container is not the engine's either.
	proxy string
}

// engine asks the server at base what it is.
func engine(ctx context.Context, b *builder, opts Options) served {
	c, err := newServerClient(ctx, opts.HTTP, opts.Server, opts.Token)
	if err != nil {
		b.unknown("runtime.engine", err.Error())
		b.unknown("runtime.version", "no engine was asked")
		return served{}
	}
	get := c.get

	var models modelList
	modelsAddr, modelsErr := get("/v1/models", &models)
	var info map[string]any
	infoAddr, infoErr := get("/get_server_info", &info)
	if infoErr != nil {
		infoAddr, infoErr = get("/server_info", &info) // newer SGLang
	}
	var ver struct {
		Version   string `json:"version"`
		GitCommit string `json:"git_commit"` // GPUStack's /version has it; the engines' do not
	}
	verAddr, verErr := get("/version", &ver)

	// GPUStack answers the OpenAI model list itself (owned_by "gpustack"),
	// at /v1 since 2.0 and at /v1-openai before (where /v1/models is its
	// management list).
	if modelsErr != nil || len(models.Data) == 0 {
		var legacy modelList
		if addr, err := get("/v1-openai/models", &legacy); err == nil && ownedBy(&legacy, gpustackOwner) {
			models, modelsAddr, modelsErr = legacy, addr, nil
		}
	}
	if modelsErr == nil && ownedBy(&models, gpustackOwner) {
		return gpustack(b, c, opts, &models, modelsAddr, ver.Version, ver.GitCommit, verAddr)
	}

	// Which engine: SGLang's server info names it unmistakably (model_path
	// beside a version); otherwise the model list's owner.
	name, how := "", ""
	if infoErr == nil && str(info["model_path"]) != "" && str(info["version"]) != "" {
		name, how = "sglang", "GET "+infoAddr+": server arguments with model_path and version (SGLang's shape)"
	}
	base0 := baseModel(&models)
	if modelsErr == nil && base0 >= 0 {
		owner := models.Data[base0].OwnedBy
		if e, ok := ownerEngine[owner]; ok && (name == "" || name == e) {
			if name == "" {
				name, how = e, fmt.Sprintf("GET %s: owned_by %q", modelsAddr, owner)
			}
		}
	}
	if name == "" {
		why := "the server did not identify its engine"
		if modelsErr != nil {
			why += fmt.Sprintf(" (GET %s: %v)", modelsAddr, modelsErr)
		}
		if code := httpStatus(modelsErr); (code == http.StatusUnauthorized || code == http.StatusForbidden) && verErr == nil && ver.GitCommit != "" {
			why += fmt.Sprintf("; GET %s has git_commit, as GPUStack's does: give its API key (%s or --server-token-file)", verAddr, TokenEnv)
		}
		b.unknown("runtime.engine", why)
		b.unknown("runtime.version", why)
		return served{}
	}
	b.fact("runtime.engine", name, how)

	model := ""
	if name == "sglang" {
		b.fact("runtime.version", str(info["version"]), "GET "+infoAddr+": version")
		model = str(info["model_path"])
		sglangDetails(b, info, infoAddr)
	} else if verErr == nil && ver.Version != "" {
		b.fact("runtime.version", ver.Version, "GET "+verAddr+": version")
	} else {
		b.unknown("runtime.version", fmt.Sprintf("GET %s: %v", verAddr, errOr(verErr, "no version")))
	}
	if modelsErr == nil && base0 >= 0 {
		m := models.Data[base0]
		b.fact("metadata.engine.served_model_name", m.ID, "GET "+modelsAddr+": id")
		if m.MaxModelLen != nil {
			b.fact("metadata.engine.max_model_len", strconv.FormatInt(*m.MaxModelLen, 10), "GET "+modelsAddr+": max_model_len")
		}
		if model == "" {
			model = m.Root
			if model == "" {
				model = m.ID
			}
		}
	} else if modelsErr == nil && len(models.Data) > 0 {
		b.unknown("checkpoint.repository", "GET "+modelsAddr+" lists several base models")
	}
	return served{model: model}
}

// ownedBy reports whether any model of the list has this owner.
func ownedBy(m *modelList, owner string) bool {
	return slices.ContainsFunc(m.Data, func(d modelCard) bool { return d.OwnedBy == owner })
}

// baseModel is the index of the one model that is not an adapter of
// another, or -1.
func baseModel(m *modelList) int {
	idx := -1
	for i, d := range m.Data {
		if d.Parent != nil && *d.Parent != "" {
			continue
		}
		if idx >= 0 {
			return -1
		}
		idx = i
	}
	return idx
}

// sglangDetails records what SGLang's server arguments settle: the GPUs
// the engine spans, the requested revision and KV-cache dtype, and the
// arguments themselves.
func sglangDetails(b *builder, info map[string]any, addr string) {
	how := "GET " + addr
	tp, okT := whole(info["tp_size"])
	pp, okP := whole(info["pp_size"])
	dp, okD := whole(info["dp_size"])
	if okT {
		if !okP {
			pp = 1
		}
		n, expr := tp*pp, "tp_size × pp_size"
		// With DP attention the dp ranks share the tp GPUs; otherwise each
		// data-parallel replica has its own tp × pp GPUs.
		if okD && dp > 1 && info["enable_dp_attention"] != true {
			n, expr = n*dp, "tp_size × pp_size × dp_size"
		}
		b.fact("hardware.gpu_count", strconv.FormatInt(n, 10), fmt.Sprintf("%s: %s (%d × %d%s)", how, expr, tp, pp, dpText(expr, dp)))
	}
	if r := str(info["revision"]); r != "" {
		b.fact("checkpoint.revision", r, how+": revision (the server's --revision)")
	}
	if kv := str(info["kv_cache_dtype"]); kv != "" && kv != "auto" {
		b.fact("checkpoint.kv_cache_dtype", kv, how+": kv_cache_dtype")
	}
	for _, k := range []string{"dtype", "quantization", "context_length"} {
		if v := str(info[k]); v != "" && v != "auto" {
			b.fact("metadata.engine."+k, v, how+": "+k)
		}
	}
	args := map[string]any{}
	for k, v := range info {
		if k != "internal_states" && k != "version" {
			args[k] = v
		}
	}
	// json.Marshal writes a map's keys sorted: the same arguments give the
	// same text.
	if data, err := json.Marshal(args); err == nil && len(args) > 0 {
		b.fact("metadata.engine.server_info", string(data), how+": the server arguments as the engine reports them (internal_states left out)")
	}
}

func dpText(expr string, dp int64) string {
	if strings.Contains(expr, "dp_size") {
		return " × " + strconv.FormatInt(dp, 10)
	}
	return ""
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func whole(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f < 1 || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

func errOr(err error, s string) error {
	if err != nil {
		return err
	}
	return errors.New(s)
}
