package caveat

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
)

// codeConstants reads every Code* constant of the package from its source,
// so a new code cannot be forgotten in Codes, Params or the docs.
func codeConstants(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s is not a string literal", id.Name)
					}
					out[id.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no Code constants found")
	}
	return out
}

func TestCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Caveat codes\n")
	if !ok {
		t.Fatal(`docs/metrics.md has no "## Caveat codes" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		code := strings.TrimPrefix(line, "| `")
		code = code[:strings.IndexByte(code, '`')]
		rows[code] = line
	}
	consts := codeConstants(t)
	for name, code := range consts {
		if !slices.Contains(Codes, code) {
			t.Errorf("%s (%q) is not in Codes", name, code)
		}
		params, ok := Params[code]
		if !ok {
			t.Errorf("%s (%q) has no Params entry", name, code)
		}
		row, ok := rows[code]
		if !ok {
			t.Errorf("%s (%q) is not documented in docs/metrics.md, section Caveat codes", name, code)
			continue
		}
		for _, p := range params {
			if !strings.Contains(row, "`"+p+"`") {
				t.Errorf("docs/metrics.md: code %q does not document its parameter %q", code, p)
			}
		}
	}
	if len(Codes) != len(consts) {
		t.Errorf("Codes has %d entries, the package declares %d Code constants", len(Codes), len(consts))
	}
	for code := range rows {
		if !slices.Contains(Codes, code) {
			t.Errorf("docs/metrics.md documents %q, which is not a code", code)
		}
	}
}

// checkParams fails when a caveat's parameters are not exactly its code's.
func checkParams(t *testing.T, cs []Caveat) {
	t.Helper()
	for _, c := range cs {
		want, ok := Params[c.Code]
		if !ok {
			t.Errorf("unknown code %q", c.Code)
			continue
		}
		var got []string
		for k := range c.Params {
			got = append(got, k)
		}
		slices.Sort(got)
		w := slices.Sorted(slices.Values(want))
		if !slices.Equal(got, w) {
			t.Errorf("%s: params %v, want %v", c.Code, got, w)
		}
	}
}

func keys(cs []Caveat) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key())
	}
	return out
}

func completeProv() map[string]string {
	return map[string]string{
		"hardware.gpu_model": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "hardware.gpu_count": "1",
		"runtime.engine": "vllm", "runtime.version": "0.25.1",
		"checkpoint.repository": "nvidia/Qwen3-30B-A3B-FP4", "checkpoint.revision": "2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3",
		"checkpoint.precision": "nvfp4", "workload.input_len": "63-66", "workload.output_len": "256",
		"workload.request_count": "2048", "workload.concurrency": "2048", "measurement.client": "vllm bench serve",
		"measurement.date": "2026-08-18", "workload.fixed_output": "true",
	}
}

func TestForRun(t *testing.T) {
	reqs := []benchrun.Request{
		{Start: 0, TTFT: 0.1, Latency: 2, InputTokens: 64, OutputTokens: 256},
		{Start: 0.1, TTFT: 0.1, Latency: 2, InputTokens: 64, OutputTokens: 200},
		{Start: 0.2, Error: "timeout"},
	}
	f := figures.Recompute(reqs, 0, 256)
	prov := completeProv()
	delete(prov, "checkpoint.revision")
	delete(prov, "workload.concurrency")
	got := ForRun("run1", f, prov)
	checkParams(t, got)
	want := []string{
		"fixed_output_length|output_len=256",
		"failures_present|run=run1|failed=1|sent=3",
		"short_outputs|run=run1|short=1|completed=2",
		"provenance_incomplete|run=run1|missing=checkpoint.revision,workload.concurrency|workload.request_rate",
	}
	if !slices.Equal(keys(got), want) {
		t.Errorf("got\n%v\nwant\n%v", keys(got), want)
	}
	clean := figures.Recompute(reqs[:1], 0, 256)
	p := completeProv()
	delete(p, "workload.fixed_output")
	if got := ForRun("run2", clean, p); len(got) != 0 {
		t.Errorf("clean run: %v", keys(got))
	}
}

func TestForRepeats(t *testing.T) {
	one, _ := figures.Repeats([]figures.Measurement{{RunID: "tuned", Value: 41651}}, figures.HigherIsBetter)
	got := ForRepeats("output_throughput", one)
	checkParams(t, got)
	if !slices.Equal(keys(got), []string{"single_measurement|figure=output_throughput|run=tuned"}) {
		t.Errorf("n=1: %v", keys(got))
	}
	two, _ := figures.Repeats([]figures.Measurement{{RunID: "a", Value: 362812}, {RunID: "b", Value: 361679}}, figures.HigherIsBetter)
	got = ForRepeats("node.output_throughput", two)
	checkParams(t, got)
	if !slices.Equal(keys(got), []string{"too_few_samples|figure=node.output_throughput|n=2|need=6|purpose=confidence_interval"}) {
		t.Errorf("n=2: %v", keys(got))
	}
}

func TestForComparisonPublishedReference(t *testing.T) {
	local := map[string]string{"hardware.gpu_model": "RTX PRO 6000", "hardware.node": "lab-node-1",
		"runtime.engine": "tensorrt-llm", "runtime.version": "1.3.0rc24", "workload.input_len": "1000", "workload.output_len": "1000"}
	refProv := map[string]string{"hardware.gpu_model": "RTX PRO 6000", "hardware.node": "nvidia-host",
		"runtime.engine": "tensorrt-llm", "runtime.version": "1.1", "workload.input_len": "1000", "workload.output_len": "1000"}
	ref := figures.ExternalReference{ID: "nvidia-9938", Unit: "tok/s/GPU", Value: 9938, Visible: false,
		Captured: time.Date(2026, 8, 17, 0, 0, 0, 0, time.UTC), Checked: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Provenance: refProv}
	c, err := figures.Compare(figures.ReferenceSide(ref), figures.Side{RunID: "pubspec", Value: 10750.04, Unit: "tok/s/GPU", Provenance: local},
		figures.ComparisonSpec{Metric: "output_throughput"})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	got := ForComparison(c, opt)
	checkParams(t, got)
	want := []string{
		"single_measurement|figure=output_throughput|run=pubspec",
		"hardware_differs|field=hardware.node|baseline=nvidia-host|candidate=lab-node-1",
		"runtime_differs|field=runtime.version|baseline=1.1|candidate=1.3.0rc24",
		"external_reference_not_visible|id=nvidia-9938|checked=2026-11-02",
	}
	if !slices.Equal(keys(got), want) {
		t.Errorf("got\n%v\nwant\n%v", keys(got), want)
	}
	// Half a year after the re-check the reference is stale as well.
	opt.Now = time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	got = ForComparison(c, opt)
	checkParams(t, got)
	if !slices.Contains(keys(got), "external_reference_stale|id=nvidia-9938|checked=2026-11-02|age_days=211|max_days=180") {
		t.Errorf("no staleness: %v", keys(got))
	}
	opt.MaxReferenceAgeDays = 365
	if slices.ContainsFunc(ForComparison(c, opt), func(c Caveat) bool { return c.Code == CodeReferenceStale }) {
		t.Error("stale within a 365-day limit")
	}
}

func TestForComparisonRuns(t *testing.T) {
	base := map[string]string{"runtime.version": "0.25.1", "workload.concurrency": "256", "checkpoint.precision": "nvfp4",
		"workload.request_count": "2048", "measurement.client": "vllm bench serve", "workload.output_len": "256"}
	cand := map[string]string{"runtime.version": "0.25.1", "workload.request_rate": "40", "checkpoint.precision": "fp8",
		"workload.request_count": "1000", "measurement.client": "guidellm", "workload.output_len": "256", "runtime.server_args": "--x"}
	c, _ := figures.Compare(
		figures.Side{RunID: "b", Value: 1.2, Unit: "s", Provenance: base, PercentileMethod: "linear", Clock: benchrun.ClockMonotonic, Values: []float64{1.2, 1.25, 1.22}},
		figures.Side{RunID: "c", Value: 1.1, Unit: "s", Provenance: cand, PercentileMethod: "nearest-rank", Clock: benchrun.ClockEpoch, Values: []float64{1.1, 1.15, 1.12}},
		figures.ComparisonSpec{Metric: "e2el.median", Intended: []string{"checkpoint.revision"}})
	got := ForComparison(c, Options{})
	checkParams(t, got)
	want := []string{
		"too_few_samples|figure=e2el.median|n=3|need=4|purpose=comparison",
		"difference_not_significant|figure=e2el.median|p=0.1|alpha=0.05",
		"precision_differs|field=checkpoint.precision|baseline=nvfp4|candidate=fp8",
		"request_count_differs|field=workload.request_count|baseline=2048|candidate=1000",
		"load_mode_differs|field=workload.load_mode|baseline=concurrency|candidate=request_rate",
		"client_differs|field=measurement.client|baseline=vllm bench serve|candidate=guidellm",
		"held_fixed_unverified|field=runtime.server_args|baseline=|candidate=--x",
		"held_fixed_unverified|field=workload.concurrency|baseline=256|candidate=",
		"held_fixed_unverified|field=workload.request_rate|baseline=|candidate=40",
		"intended_unchanged|field=checkpoint.revision",
		"percentile_method_differs|baseline_method=linear|candidate_method=nearest-rank",
		"clocks_not_comparable|runs=b,c",
	}
	if !slices.Equal(keys(got), want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(keys(got), "\n"), strings.Join(want, "\n"))
	}
}

func TestForSweep(t *testing.T) {
	s, err := figures.Sweep([]figures.SweepPoint{
		{RunID: "c256", Param: 256, Throughput: 41651, MedianLatency: 11.70},
		{RunID: "c512", Param: 512, Throughput: 45941, MedianLatency: 20.04},
		{RunID: "c1024", Param: 1024, Throughput: 46359.06, MedianLatency: 29.85},
	}, figures.DefaultSaturationRule)
	if err != nil {
		t.Fatal(err)
	}
	got := ForSweep(s, Options{})
	checkParams(t, got)
	if !slices.Equal(keys(got), []string{"saturation_latency|median_s=20.04|threshold_s=10|param=512"}) {
		t.Errorf("%v", keys(got))
	}
	if got := ForSweep(s, Options{InteractiveLatency: 30}); len(got) != 0 {
		t.Errorf("30 s threshold: %v", keys(got))
	}
	s, _ = figures.Sweep([]figures.SweepPoint{{RunID: "a", Param: 1, Throughput: 100, MedianLatency: 1}, {RunID: "b", Param: 2, Throughput: 190, MedianLatency: 1.1}}, figures.DefaultSaturationRule)
	got = ForSweep(s, Options{})
	checkParams(t, got)
	if !slices.Equal(keys(got), []string{"saturation_not_found|param=2"}) {
		t.Errorf("%v", keys(got))
	}
}

func TestForNode(t *testing.T) {
	var reps []figures.ReplicaRun
	for k := 1; k <= 2; k++ {
		r := figures.ReplicaRun{RunID: "r" + strconv.Itoa(k), Clock: benchrun.ClockEpoch, Replica: k, Of: 2}
		for i := range 4 {
			r.Requests = append(r.Requests, benchrun.Request{Index: i, Start: 1e9 + float64(i), Latency: 5, OutputTokens: 256})
		}
		reps = append(reps, r)
	}
	reps[1].Requests[2].Error = "reset"
	reps[0].Requests[1].OutputTokens = 100
	n, err := figures.Node(reps, figures.NodeOptions{AllowFailures: true, FixedOutput: 256})
	if err != nil {
		t.Fatal(err)
	}
	got := ForNode(n)
	checkParams(t, got)
	want := []string{"failures_present|run=r2|failed=1|sent=4", "short_outputs|run=r1|short=1|completed=4"}
	if !slices.Equal(keys(got), want) {
		t.Errorf("%v", keys(got))
	}
}

func TestSortDeterministic(t *testing.T) {
	in := []Caveat{
		New(CodeRuntimeDiffers, "field", "runtime.version", "baseline", "1", "candidate", "2"),
		New(CodeSingleMeasurement, "figure", "x", "run", "b"),
		New(CodeRuntimeDiffers, "field", "runtime.image", "baseline", "a", "candidate", "b"),
		New(CodeSingleMeasurement, "figure", "x", "run", "a"),
		New(CodeSingleMeasurement, "figure", "x", "run", "b"),
	}
	want := []string{
		"single_measurement|figure=x|run=a", "single_measurement|figure=x|run=b",
		"runtime_differs|field=runtime.image|baseline=a|candidate=b", "runtime_differs|field=runtime.version|baseline=1|candidate=2",
	}
	for range 5 {
		if got := keys(Sort(in)); !slices.Equal(got, want) {
			t.Fatalf("%v", got)
		}
		slices.Reverse(in)
	}
}
