package capture

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// GPUStack (github.com/gpustack/gpustack) is a cluster manager in front of
// the engines: --server is its proxy, which serves an OpenAI model list of
// its own (owned_by "gpustack", gpustack/routes/openai.py) and says nothing
// there about the engine. Its management API does, to a caller with an API
// key (bearer token):
//   - GET /v2/models?search=NAME (before 2.0: /v1/models) → {"items":
//     [{"id", "name", "source", "huggingface_repo_id", "model_scope_model_id",
//     "local_path", "backend", "backend_version", "backend_parameters",
//     "image_name", "replicas", ...}], "pagination": {...}}
//     (gpustack/schemas/models.py ModelSpecBase, gpustack/schemas/common.py
//     PaginatedList);
//   - GET /v2/model-instances?model_id=ID → items with "state", "worker_id",
//     "worker_name", "gpu_indexes", "backend_version",
//     "api_detected_backend_version" (the version the engine's own API gave
//     GPUStack's worker, gpustack/worker/runtime_metrics_aggregator.py),
//     "restart_count", "distributed_servers.subordinate_workers[]";
//   - GET /v2/gpu-devices → items with "worker_id", "index", "name", "type"
//     ("cuda", ...), "driver_version", "runtime_version", "memory.total"
//     (bytes) (gpustack/schemas/workers.py GPUDeviceInfo);
//   - GET /version (no key) → {"version", "git_commit"}
//     (gpustack/routes/probes.py).
const gpustackOwner = "gpustack"

type gsPage[T any] struct {
	Items      []T `json:"items"`
	Pagination *struct {
		Page      int `json:"page"`
		TotalPage int `json:"totalPage"`
	} `json:"pagination"`
}

type gsModel struct {
	ID                int64    `json:"id"`
	Name              string   `json:"name"`
	Source            string   `json:"source"`
	HuggingFaceRepo   string   `json:"huggingface_repo_id"`
	ModelScopeModel   string   `json:"model_scope_model_id"`
	LocalPath         string   `json:"local_path"`
	Backend           string   `json:"backend"`
	BackendVersion    string   `json:"backend_version"`
	BackendParameters []string `json:"backend_parameters"`
	ImageName         string   `json:"image_name"`
}

type gsInstance struct {
	Name               string  `json:"name"`
	State              string  `json:"state"`
	WorkerID           int64   `json:"worker_id"`
	WorkerName         string  `json:"worker_name"`
	GPUIndexes         []int64 `json:"gpu_indexes"`
	Backend            string  `json:"backend"`
	BackendVersion     string  `json:"backend_version"`
	APIBackendVersion  string  `json:"api_detected_backend_version"`
	RestartCount       int64   `json:"restart_count"`
	DistributedServers *struct {
		Subordinates []struct {
			WorkerID   int64   `json:"worker_id"`
			WorkerName string  `json:"worker_name"`
			GPUIndexes []int64 `json:"gpu_indexes"`
		} `json:"subordinate_workers"`
	} `json:"distributed_servers"`
}

type gsDevice struct {
	WorkerID       int64  `json:"worker_id"`
	Index          *int64 `json:"index"`
	Name           string `json:"name"`
	Type           string `json:"type"`
	DriverVersion  string `json:"driver_version"`
	RuntimeVersion string `json:"runtime_version"`
	Memory         *struct {
		Total *float64 `json:"total"`
	} `json:"memory"`
}

// gpuRef is one GPU of a worker.
type gpuRef struct{ worker, index int64 }

// gpustack settles what GPUStack's management API says about the model
// the benchmark asks for: the engine and its version, the GPUs its running
// instances hold, the checkpoint, the image when one was chosen.
func gpustack(b *builder, c *serverClient, opts Options, list *modelList, listAddr, version, commit, verAddr string) served {
	out := served{proxy: "GPUStack"}
	if version != "" {
		v := version
		if commit != "" {
			v += " (" + commit + ")"
		}
		b.fact("metadata.engine.gpustack_version", v, "GET "+verAddr+": version and git_commit")
	}
	name, why := gsServedModel(list, listAddr, opts.ServedModel)
	if name == "" {
		gsUnknown(b, why)
		return out
	}
	b.fact("metadata.engine.served_model_name", name, "GET "+listAddr+": id (a GPUStack model route)")
	if opts.Token == "" {
		gsUnknown(b, fmt.Sprintf("GET %s: owned_by %q: the server is GPUStack, whose management API needs an API key to say which engine serves %s (%s or --server-token-file)", listAddr, gpustackOwner, name, TokenEnv))
		return out
	}
	// Non-platform owners' routes are published as "owner/name".
	search := name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		search = name[i+1:]
	}
	var models []gsModel
	prefix := "/v2"
	modelsAddr, err := gsList(c, prefix+"/models?search="+url.QueryEscape(search), &models)
	if httpStatus(err) == http.StatusNotFound { // GPUStack before 2.0
		prefix = "/v1"
		modelsAddr, err = gsList(c, prefix+"/models?search="+url.QueryEscape(search), &models)
	}
	if err != nil {
		gsUnknown(b, fmt.Sprintf("GET %s: %v (the API key may not read GPUStack's models)", modelsAddr, err))
		return out
	}
	var m *gsModel
	for i := range models {
		if models[i].Name == search || models[i].Name == name {
			if m != nil {
				gsUnknown(b, fmt.Sprintf("GET %s lists several models named %q", modelsAddr, search))
				return out
			}
			m = &models[i]
		}
	}
	if m == nil {
		gsUnknown(b, fmt.Sprintf("GET %s lists no model named %q (a route to several models, or to another name, is not followed)", modelsAddr, search))
		return out
	}
	how := fmt.Sprintf("GET %s: GPUStack model %q (id %d)", modelsAddr, m.Name, m.ID)

	var instances []gsInstance
	instAddr, err := gsList(c, prefix+"/model-instances?model_id="+strconv.FormatInt(m.ID, 10), &instances)
	running := slices.DeleteFunc(instances, func(i gsInstance) bool { return i.State != "running" })
	if err != nil {
		b.unknown("hardware.gpu_count", fmt.Sprintf("GET %s: %v", instAddr, err))
	} else if len(running) == 0 {
		b.unknown("hardware.gpu_count", fmt.Sprintf("GET %s: no running instance of %q", instAddr, m.Name))
	}
	instHow := fmt.Sprintf("GET %s: %d running instance%s", instAddr, len(running), plural(len(running)))

	engine := strings.ToLower(strings.TrimSpace(cmp.Or(agreed(running, func(i gsInstance) string { return i.Backend }), m.Backend)))
	switch engine {
	case "":
		gsUnknown(b, how+" names no backend")
		return out
	case "custom":
		gsUnknown(b, how+": a custom backend, which GPUStack does not name")
		return out
	}
	b.fact("runtime.engine", engine, fmt.Sprintf("%s: backend %q", how, m.Backend))
	switch {
	case len(running) > 0 && agreed(running, func(i gsInstance) string { return i.APIBackendVersion }) != "":
		b.fact("runtime.version", running[0].APIBackendVersion, instHow+": api_detected_backend_version (what the engine's own API told GPUStack's worker)")
	case len(running) > 0 && agreed(running, func(i gsInstance) string { return i.BackendVersion }) != "":
		b.fact("runtime.version", running[0].BackendVersion, instHow+": backend_version")
	case m.BackendVersion != "":
		b.fact("runtime.version", m.BackendVersion, how+": backend_version (the version asked for; no running instance reported one)")
	default:
		b.unknown("runtime.version", how+": no backend_version (GPUStack's default for the backend, which its API does not name)")
	}
	if m.ImageName != "" {
		b.fact("runtime.image", m.ImageName, how+": image_name")
	} else {
		b.unknown("runtime.image", how+": no image_name (GPUStack's default image for the backend, which its API does not name)")
	}
	if len(m.BackendParameters) > 0 {
		if data, err := json.Marshal(m.BackendParameters); err == nil {
			b.fact("metadata.engine.backend_parameters", string(data), how+": backend_parameters (the arguments given beside GPUStack's own)")
		}
	}
	switch {
	case m.HuggingFaceRepo != "":
		out.model = m.HuggingFaceRepo
		b.fact("checkpoint.repository", m.HuggingFaceRepo, how+": huggingface_repo_id")
	case m.ModelScopeModel != "":
		b.fact("checkpoint.repository", m.ModelScopeModel, how+": model_scope_model_id (ModelScope)")
	case m.LocalPath != "":
		out.model = m.LocalPath
	}
	if len(running) == 0 {
		return out
	}

	var gpus []gpuRef
	workers := map[string]bool{}
	var restarts int64
	for _, in := range running {
		restarts += in.RestartCount
		workers[in.WorkerName] = true
		for _, g := range in.GPUIndexes {
			gpus = append(gpus, gpuRef{in.WorkerID, g})
		}
		if in.DistributedServers != nil {
			for _, s := range in.DistributedServers.Subordinates {
				workers[s.WorkerName] = true
				for _, g := range s.GPUIndexes {
					gpus = append(gpus, gpuRef{s.WorkerID, g})
				}
			}
		}
	}
	b.fact("metadata.engine.replicas", strconv.Itoa(len(running)), instHow)
	b.fact("metadata.engine.instance_restarts", strconv.FormatInt(restarts, 10), instHow+": restart_count, summed")
	if len(workers) == 1 {
		for w := range workers {
			if w != "" {
				b.fact("hardware.node", w, instHow+": worker_name")
			}
		}
	}
	if len(gpus) == 0 {
		b.unknown("hardware.gpu_count", instHow+" hold no GPU (gpu_indexes empty)")
		return out
	}
	b.fact("hardware.gpu_count", strconv.Itoa(len(gpus)), instHow+": gpu_indexes, with subordinate workers', counted")

	var devices []gsDevice
	devAddr, err := gsList(c, prefix+"/gpu-devices", &devices)
	if err != nil {
		b.unknown("hardware.gpu_model", fmt.Sprintf("GET %s: %v", devAddr, err))
		return out
	}
	held := make([]gsDevice, 0, len(gpus))
	for _, g := range gpus {
		i := slices.IndexFunc(devices, func(d gsDevice) bool { return d.WorkerID == g.worker && d.Index != nil && *d.Index == g.index })
		if i < 0 {
			b.unknown("hardware.gpu_model", fmt.Sprintf("GET %s lists no GPU %d of worker %d", devAddr, g.index, g.worker))
			return out
		}
		held = append(held, devices[i])
	}
	devHow := fmt.Sprintf("GET %s: the %d GPU%s the instances hold", devAddr, len(held), plural(len(held)))
	if v := agreed(held, func(d gsDevice) string { return d.Name }); v != "" {
		b.fact("hardware.gpu_model", v, devHow+": name")
	} else {
		b.unknown("hardware.gpu_model", devHow+" differ in name, or state none")
	}
	if v := agreed(held, func(d gsDevice) string {
		if d.Memory == nil || d.Memory.Total == nil || *d.Memory.Total <= 0 {
			return ""
		}
		return strconv.FormatFloat(roundGB(*d.Memory.Total/(1<<30)), 'f', -1, 64)
	}); v != "" {
		b.fact("hardware.gpu_memory_gb", v, devHow+": memory.total ÷ 2³⁰")
	}
	if v := agreed(held, func(d gsDevice) string {
		drv := strings.TrimSpace(d.DriverVersion)
		if drv != "" && d.Type == "cuda" && d.RuntimeVersion != "" {
			drv += " (CUDA " + strings.TrimSpace(d.RuntimeVersion) + ")"
		}
		return drv
	}); v != "" {
		b.fact("hardware.driver", v, devHow+": driver_version (and runtime_version of a cuda device)")
	}
	return out
}

// gsServedModel picks the model the benchmark asks for from GPUStack's
// OpenAI list: the one named by --served-model, or the only one.
func gsServedModel(list *modelList, addr, want string) (string, string) {
	ids := make([]string, 0, len(list.Data))
	for _, d := range list.Data {
		ids = append(ids, d.ID)
	}
	switch {
	case want != "":
		if slices.Contains(ids, want) {
			return want, ""
		}
		return "", fmt.Sprintf("GET %s lists no model %q (it lists %s)", addr, want, strings.Join(ids, ", "))
	case len(ids) == 1:
		return ids[0], ""
	}
	return "", fmt.Sprintf("GET %s lists %d models (%s); say which one the benchmark asks for with --served-model", addr, len(ids), strings.Join(ids, ", "))
}

// gsUnknown says why the engine behind GPUStack is not known.
func gsUnknown(b *builder, why string) {
	b.unknown("runtime.engine", why)
	b.unknown("runtime.version", why)
}

// gsList reads every page of a GPUStack list into items (at most 50
// pages of 100).
func gsList[T any](c *serverClient, p string, items *[]T) (string, error) {
	sep := "?"
	if strings.Contains(p, "?") {
		sep = "&"
	}
	first := ""
	for page := 1; page <= 50; page++ {
		var pg gsPage[T]
		addr, err := c.get(fmt.Sprintf("%s%spage=%d&perPage=100", p, sep, page), &pg)
		if first == "" {
			first = addr
		}
		if err != nil {
			return first, err
		}
		if pg.Pagination == nil && pg.Items == nil {
			return first, fmt.Errorf("not a GPUStack list (no items)")
		}
		*items = append(*items, pg.Items...)
		if pg.Pagination == nil || page >= pg.Pagination.TotalPage {
			return first, nil
		}
	}
	return first, fmt.Errorf("more than 50 pages")
}

// agreed is the value every element gives, or "" when they differ or give
// none.
func agreed[T any](xs []T, f func(T) string) string {
	if v, ok := same(xs, f); ok {
		return v
	}
	return ""
}
