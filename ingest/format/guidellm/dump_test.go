package guidellm_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/guidellm"
	"github.com/benchledger/benchledger/internal/testshared"
)

var update = flag.Bool("update", false, "rewrite the golden dumps under testdata/dumps (review the diff)")

// glDumpParsers are the two parsers of the package; every input is read
// by both, so the one parser's refusals of the other's files are pinned too.
var glDumpParsers = []format.Parser{guidellm.New(), guidellm.NewGPUStack()}

// glDump renders what both parsers make of data: detection, every run
// emitted with every field (floats exact, long Extra values by length and
// hash) and the file's error with its place and reason. Two readings are
// the same exactly when their dumps are.
func glDump(name string, data []byte) string {
	var b strings.Builder
	for _, p := range glDumpParsers {
		fmt.Fprintf(&b, "== %s sniff=%v\n", p.ID(), p.Sniff(name, data[:min(len(data), format.HeadSize)]))
		err := p.Parse(context.Background(), name, bytes.NewReader(data), func(r *benchrun.Run) error {
			glDumpRun(&b, r)
			return nil
		})
		var ie *format.InputError
		switch {
		case err == nil:
		case errors.As(err, &ie):
			fmt.Fprintf(&b, "error: input file=%q place=%q reason=%q\n", ie.File, ie.Place, ie.Reason)
		default:
			fmt.Fprintf(&b, "error: %q\n", err.Error())
		}
	}
	return b.String()
}

func glDumpText(s string) string {
	if len(s) <= 400 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("<%d bytes sha256 %x>", len(s), sha256.Sum256([]byte(s)))
}

func glDumpMap(b *strings.Builder, what string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "  %s %q=%s\n", what, k, glDumpText(m[k]))
	}
}

func glDumpRun(b *strings.Builder, r *benchrun.Run) {
	fmt.Fprintf(b, "run ordinal=%d location=%q rejection=%q companion=%q\n", r.Ordinal, r.Location, r.Rejection, r.Companion)
	fmt.Fprintf(b, "  format=%q variant=%q tool=%q percentiles=%q clock=%q completed=%d failed=%d\n",
		r.Format, r.FormatVariant, r.SourceTool, r.PercentileMethod, r.Clock, r.Completed, r.Failed)
	fmt.Fprintf(b, "  facts=%v extra=%v\n", r.Facts != nil, r.Extra != nil)
	glDumpMap(b, "fact", r.Facts)
	glDumpMap(b, "place", r.FactPlaces)
	for _, s := range r.Stated {
		fmt.Fprintf(b, "  stated %#v\n", s)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "  note %q\n", n)
	}
	glDumpMap(b, "extra", r.Extra)
	fmt.Fprintf(b, "  requests %d has=%v\n", len(r.Requests), r.HasRequests)
	for _, q := range r.Requests {
		fmt.Fprintf(b, "  request %#v\n", q)
	}
	if r.ToolTimes != nil {
		fmt.Fprintf(b, "  tooltimes %#v\n", *r.ToolTimes)
	}
}

// glDumpInputs are the real files of the package's testdata and of
// ../shared/samples, by golden name.
func glDumpInputs(t *testing.T) map[string]string {
	t.Helper()
	inputs := map[string]string{}
	for _, dir := range []string{"testdata/guidellm", "testdata/gpustack"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if !strings.HasSuffix(p, ".md") {
				inputs[filepath.Base(dir)+"-"+filepath.Base(p)] = p
			}
		}
	}
	if root := testshared.Root(); root != "" {
		for _, tool := range []string{"guidellm", "gpustack"} {
			paths, _ := filepath.Glob(filepath.Join(root, "samples", tool, "*"))
			for _, p := range paths {
				inputs["shared-"+filepath.Base(p)] = p
			}
		}
	}
	return inputs
}

// glMutations are damaged copies of data: cut at spread-out offsets, a
// byte replaced, a span deleted or doubled, so the error paths and the
// per-benchmark rejections of every layout are pinned, not only the good
// reading.
func glMutations(data []byte) []struct {
	name string
	data []byte
} {
	var out []struct {
		name string
		data []byte
	}
	add := func(name string, d []byte) {
		out = append(out, struct {
			name string
			data []byte
		}{name, d})
	}
	const steps = 16
	for i := 1; i < steps; i++ {
		at := len(data) * i / steps
		add(fmt.Sprintf("cut@%d", at), slices.Clone(data[:at]))
	}
	repl := []byte{'"', '{', ']', '1', '-', 'x', ':', ',', '\n', ' ', 'e', 'N'}
	for i := 0; i < steps*2; i++ {
		at := (len(data)*i)/(steps*2) + i%7
		if at >= len(data) {
			continue
		}
		c := repl[i%len(repl)]
		d := slices.Clone(data)
		d[at] = c
		add(fmt.Sprintf("set@%d=%q", at, c), d)
	}
	for i := 0; i < steps; i++ {
		at := len(data) * i / steps
		n := 1 + (i*37)%200
		if at+n > len(data) {
			continue
		}
		add(fmt.Sprintf("del@%d+%d", at, n), slices.Concat(data[:at], data[at+n:]))
		add(fmt.Sprintf("dup@%d+%d", at, n), slices.Concat(data[:at+n], data[at:]))
	}
	return out
}

// glEdgeInputs are small inputs for the paths real files do not take:
// YAML values of every kind, omitted values, numbers out of range, repeated
// keys, trees past the value budget.
func glEdgeInputs() map[string]string {
	bench := func(extra string) string {
		return `{"type_": "generative_benchmark", "duration": 10.0, "metrics": {"request_totals": {"successful": 2, "errored": 0, "incomplete": 0, "total": 2}` + extra + `}}`
	}
	req := `{"request_start_time": 1767225600.0, "request_end_time": 1767225600.5, "request_latency": 0.5, "output_tokens": 3, "prompt_tokens": 4, "time_to_first_token_ms": 10.0, "prompt": "hello", "output": [1,2,{"a": "b"}]}`
	big := strings.Repeat(`"x",`, 20000)
	return map[string]string{
		"json-ok.json":          `{"metadata": {"guidellm_version": "0.5.0", "version": 1, "pdf": [1,2,3]}, "benchmarks": [` + bench(`, "pdf": {"a": 1}, "x": [1e308, -0, NaN, Infinity, -Infinity]`) + `]}`,
		"json-requests.json":    `{"benchmarks": [` + bench("") + `], "zzz": 1}`,
		"json-samples.json":     `{"benchmarks": [{"type_": "generative_benchmark", "duration": 1, "requests": {"successful": [` + req + `,` + req + `], "errored": [], "incomplete": [], "total": null, "prompt": "p"}, "metrics": {"request_totals": {"successful": 2, "errored": 0, "incomplete": 0}}}]}`,
		"json-bad-sample.json":  `{"benchmarks": [{"type_": "generative_benchmark", "requests": {"successful": [{"request_start_time": -1}, 3]}, "metrics": {"request_totals": {"successful": 2, "errored": 0, "incomplete": 0}}}]}`,
		"json-range.json":       `{"benchmarks": [` + bench(`, "x": 1e999`) + `]}`,
		"json-range2.json":      `{"benchmarks": [` + bench("") + `], "metadata": {"a": -1e400}}`,
		"json-repeat.json":      `{"benchmarks": [` + bench(`, "x": 1, "x": 2`) + `]}`,
		"json-repeat-top.json":  `{"benchmarks": [], "benchmarks": []}`,
		"json-kinds.json":       `{"benchmarks": [1, "s", null, true, [], {}]}`,
		"json-meta-list.json":   `{"metadata": [], "benchmarks": [` + bench("") + `]}`,
		"json-big-extra.json":   `{"benchmarks": [` + bench(`, "big": [`+big+`1]`) + `]}`,
		"json-second.json":      `{"benchmarks": [` + bench("") + `]} {}`,
		"json-array.json":       `[1, 2]`,
		"json-ws.json":          "   \n ",
		"json-bom.json":         "\xef\xbb\xbf" + `{"benchmarks": [` + bench("") + `]}`,
		"json-omit-null.json":   `{"benchmarks": [` + bench(`, "pdf": null, "cumulative_distribution_function": "s"`) + `]}`,
		"json-deep.json":        `{"benchmarks": [` + bench(`, "d": `+strings.Repeat("[", 600)+strings.Repeat("]", 600)) + `]}`,
		"json-synthetic.json":   `{"args": {"data": ["{\"prompt_tokens\": 256, \"output_tokens\": 128}", "prompt_tokens=1,output_tokens=2"]}, "benchmarks": [` + bench("") + `]}`,
		"json-synthetic2.json":  `{"args": {"data": ["{\"prompt_tokens\": 1e999, \"output_tokens\": 128}"]}, "benchmarks": [` + bench("") + `]}`,
		"yaml-kinds.yaml":       "benchmarks:\n- type_: generative_benchmark\n  duration: 1.0e1\n  x: [1, 1.0, 0x1F, .nan, .inf, -.inf, true, null, ~, yes, 2020-01-01, 1_000, 1000000, -0.0, '7']\n  prompt: {a: 1}\n  pdf: null\n  metrics: {request_totals: {successful: 2.0, errored: 0, incomplete: 0, total: 3}}\n",
		"yaml-nan.yaml":         "benchmarks:\n- type_: generative_benchmark\n  duration: .nan\n  metrics: {request_totals: {successful: .inf, errored: 0, incomplete: 0}}\n",
		"yaml-neg.yaml":         "benchmarks:\n- type_: generative_benchmark\n  duration: -1.50\n  metrics: {request_totals: {successful: 1, errored: 0, incomplete: 0}}\n",
		"yaml-alias.yaml":       "metadata: &m {guidellm_version: '0.5'}\nargs: *m\nbenchmarks:\n- &b {type_: generative_benchmark, metrics: {request_totals: {successful: 1, errored: 0, incomplete: 0}}}\n- *b\n",
		"yaml-bomb.yaml":        "a: &a [" + strings.Repeat("x,", 200) + "x]\nb: &b [" + strings.Repeat("*a,", 200) + "*a]\nc: &c [" + strings.Repeat("*b,", 200) + "*b]\nbenchmarks: []\n",
		"yaml-key.yaml":         "benchmarks:\n- {[1]: 2}\n",
		"yaml-empty.yaml":       "# nothing\n",
		"yaml-scalar.yaml":      "benchmarks: 3\n",
		"yaml-samples.yaml":     "benchmarks:\n- type_: generative_benchmark\n  requests: {successful: [{request_start_time: 1767225600, request_end_time: 1767225601, output_tokens: 2.5}]}\n  metrics: {request_totals: {successful: 1, errored: 0, incomplete: 0}}\n",
		"gpustack-kinds.json":   `{"model_instance_name": "m", "request_successful": 3, "request_errored": 0, "request_incomplete": 0, "snapshot": {"instances": {"m": {"backend": "vLLM", "backend_version": 1.5, "gpu_indexes": [0, 1]}}, "gpus": {"prompt": {"name": "X"}}}}`,
		"gpustack-gpus.json":    `{"model_instance_name": "m", "request_successful": 3, "snapshot": {"gpus": {"a": {"name": "X", "driver_version": 5}, "b": {"name": "Y"}}, "workers": {"w": {"os": {"name": "u", "version": 22.04}}}}}`,
		"gpustack-raw.json":     `{"model_instance_name": "m", "request_successful": 2, "raw_metrics": {"benchmarks": [` + bench("") + `]}, "snapshot": null}`,
		"gpustack-export.yaml":  "benchmarks:\n- model_instance_name: m\n  request_successful: 1.0\n  request_errored: 0\n  request_incomplete: 0\n  time_to_first_token_mean: .nan\n  created_at: 2026-01-01\n  snapshot: {instances: {m: {backend: vLLM, backend_version: 0.8}}, gpus: {g: {name: X}}}\n",
		"gpustack-rawlist.json": `{"model_instance_name": "m", "raw_metrics": [1], "snapshot": {}}`,
		"gpustack-range.json":   `{"model_instance_name": "m", "request_successful": 1e999}`,
	}
}

// TestDumps pins what the parsers make of every real file, its damaged
// copies and the edge inputs, against golden dumps (go test -update
// rewrites them): the readings must not change when the code does.
func TestDumps(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, golden, got string) {
		t.Helper()
		path := filepath.Join("testdata", "dumps", golden)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if string(want) != got {
			wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
			for i := range min(len(wl), len(gl)) {
				if wl[i] != gl[i] {
					t.Fatalf("%s differs at line %d:\nwant %s\n got %s", path, i+1, wl[i], gl[i])
				}
			}
			t.Fatalf("%s differs in length: %d lines, want %d", path, len(gl), len(wl))
		}
	}
	inputs := glDumpInputs(t)
	if testshared.Root() == "" {
		t.Log("../shared is absent: the dumps of its samples are not checked")
	}
	for golden, path := range inputs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(golden, func(t *testing.T) {
			t.Parallel()
			check(t, golden+".txt", glDump(filepath.Base(path), data))
			var sums strings.Builder
			for _, m := range glMutations(data) {
				fmt.Fprintf(&sums, "%s %x\n", m.name, sha256.Sum256([]byte(glDump("m.json", m.data))))
			}
			check(t, golden+".mutations", sums.String())
		})
	}
	var edges strings.Builder
	names := []string{}
	for name := range glEdgeInputs() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&edges, "### %s\n%s", name, glDump(name, []byte(glEdgeInputs()[name])))
	}
	check(t, "edges.txt", edges.String())
}
