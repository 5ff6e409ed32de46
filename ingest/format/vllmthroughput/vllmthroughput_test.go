package vllmthroughput_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/ingest/format/vllmthroughput"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
)

const vtFixture = "testdata/throughput_random_1024_256.json"

func TestVLLMThroughputIdentity(t *testing.T) {
	p := vllmthroughput.New()
	if p.ID() != "vllm-throughput-json" || p.Describe() == "" {
		t.Errorf("id %q describe %q", p.ID(), p.Describe())
	}
	if q, ok := registry.ByID("vllm-throughput-json"); !ok || q.ID() != p.ID() {
		t.Errorf("ParserByID: %v %v", q, ok)
	}
}

// TestVLLMThroughputFixture reads our --output-json file, written as
// throughput.py writes it (testdata/README.md).
func TestVLLMThroughputFixture(t *testing.T) {
	data := ingesttest.Read(t, vtFixture)
	if got := ingesttest.Detect(vtFixture, data); got != "vllm-throughput-json" {
		t.Fatalf("detected as %q", got)
	}
	// vLLM's serving parser must not claim it (it is sniffed first).
	if vllmjson.New().Sniff(vtFixture, data) {
		t.Error("vllm-serve-json sniffs the throughput result")
	}
	r := ingesttest.One(t, vllmthroughput.New(), vtFixture, data)
	ingesttest.WantStated(t, r, 0, map[string]float64{
		"duration":               41.903017967000075,
		"request_throughput":     23.864629530682755,
		"total_token_throughput": 30546.725799273925,
	})
	if len(r.Stated) != 3 {
		t.Errorf("stated %+v", r.Stated)
	}
	for _, s := range r.Stated {
		// Offline: no latency figure may appear, and no output-only rate.
		if strings.Contains(s.Metric, ".") || s.Metric == "output_throughput" {
			t.Errorf("stated %s", s.Metric)
		}
	}
	ingesttest.WantFacts(t, r, map[string]string{"measurement.client": "vllm bench throughput", "workload.request_count": "1000",
		"checkpoint.model_id": "", "runtime.engine": "", "measurement.date": ""})
	if r.Completed != -1 || r.Failed != -1 || r.HasRequests || r.Clock != benchrun.ClockNone || r.PercentileMethod != "" ||
		r.Extra["total_num_tokens"] != "1280000" || r.FormatVariant != "--output-json" {
		t.Errorf("run %+v", r)
	}
	for _, n := range []string{"offline run", "records no failures", "tokens_per_second counts prompt and output tokens", "no model, date"} {
		if !ingesttest.HasNote(r, n) {
			t.Errorf("no note %q", n)
		}
	}
	// The rates follow from the counts, as throughput.py computes them.
	if ingesttest.HasNote(r, "disagree") {
		t.Errorf("consistent file noted as inconsistent: %q", r.Notes)
	}
	if math.Abs(23.864629530682755*41.903017967000075-1000) > 1e-9 {
		t.Error("fixture rates are not count / elapsed_time")
	}
}

func TestVLLMThroughputTolerated(t *testing.T) {
	// A fork's extra keys are kept; rates that do not follow from the
	// counts are noted, not refused.
	in := `{"elapsed_time": 10.0, "num_requests": 50, "total_num_tokens": 6400, "extract_tokens": 1200,
	  "requests_per_second": 5.0, "tokens_per_second": 700.0}`
	r := ingesttest.One(t, vllmthroughput.New(), "t.json", []byte(in))
	if r.Extra["extract_tokens"] != "1200" || !ingesttest.HasNote(r, "kept in Extra: extract_tokens") ||
		!ingesttest.HasNote(r, "tokens_per_second is 700 but total_num_tokens / elapsed_time is 640") {
		t.Errorf("extra %v notes %q", r.Extra, r.Notes)
	}
}

func TestVLLMThroughputBadInput(t *testing.T) {
	good := string(ingesttest.Read(t, vtFixture))
	obj := func(kv string) string {
		base := map[string]string{"elapsed_time": "10.0", "num_requests": "50", "total_num_tokens": "6400", "requests_per_second": "5.0", "tokens_per_second": "640.0"}
		k, v, _ := strings.Cut(kv, "=")
		var parts []string
		for _, key := range vllmthroughput.Keys {
			val := base[key]
			if key == k {
				if v == "" {
					continue
				}
				val = v
			}
			parts = append(parts, `"`+key+`": `+val)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	for _, c := range []struct {
		name, in, place, reason string
	}{
		{"empty", "", "", "the file is empty"},
		{"whitespace", "\n\n", "byte 2 (line 3)", "only whitespace"},
		{"truncated", good[:len(good)-30], "byte", "truncated"},
		{"a list", "[" + obj("") + "]", "byte 0 (line 1)", "not a vllm bench throughput result"},
		{"key missing", obj("tokens_per_second="), "object at byte 0", `no "tokens_per_second" key`},
		{"NaN elapsed", obj("elapsed_time=NaN"), `key "elapsed_time"`, "elapsed_time is NaN"},
		{"Infinity rate", obj("requests_per_second=Infinity"), `key "requests_per_second"`, "is Infinity"},
		{"negative rate", obj("tokens_per_second=-1.0"), `key "tokens_per_second"`, "negative"},
		{"string count", obj(`num_requests="50"`), `key "num_requests"`, "expected a number, found string"},
		{"fractional count", obj("num_requests=50.5"), `key "num_requests"`, "whole number"},
		{"zero requests", obj("num_requests=0"), `key "num_requests"`, "run has no requests"},
		{"zero elapsed", obj("elapsed_time=0.0"), `key "elapsed_time"`, "no run took place"},
		{"duplicate key", `{"num_requests": 1, "num_requests": 2}`, "byte", "appears twice"},
		{"trailing value", obj("") + " 1", "byte", "a second JSON value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs, err := ingesttest.Parse(vllmthroughput.New(), "bad.json", []byte(c.in))
			if err == nil {
				t.Fatalf("no error; runs %+v", runs)
			}
			ingesttest.WantInputError(t, err, c.place, c.reason)
		})
	}
}

func TestVLLMThroughputSniffsOnlyItsOwn(t *testing.T) {
	p := vllmthroughput.New()
	for _, s := range []string{``, `{}`, `[{"elapsed_time": 1}]`, `{"elapsed_time": 1.0, "requests_per_second": 1.0}`,
		`{"elapsed_time_ms": 1.0, "num_requests": 1, "requests_per_second": 1.0, "tokens_per_second": 1.0}`,
		`{"date": "20250101-000000", "elapsed_time": 1.0, "num_requests": 1, "requests_per_second": 1.0, "tokens_per_second": 1.0}`} {
		if p.Sniff("x.json", []byte(s)) {
			t.Errorf("sniffed %q", s)
		}
	}
	ingesttest.EachSample(t, func(tool, path string, head []byte) {
		if p.Sniff(path, head) {
			t.Errorf("%s/%s sniffed as vllm bench throughput", tool, filepath.Base(path))
		}
	})
}

func TestVLLMThroughputIngest(t *testing.T) {
	a, outs := ingesttest.Batch(t, vtFixture)
	if len(outs) != 1 || outs[0].Status != ingest.StatusNew || outs[0].Format != "vllm-throughput-json" {
		t.Fatalf("outcomes %+v", outs)
	}
	rec, err := a.Run(outs[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := rec.Run.StatedValue("total_token_throughput"); !ok || s.Value != 30546.725799273925 {
		t.Errorf("archived total_token_throughput %+v", s)
	}
	if rec.Publishable || !slices.Contains(rec.Missing, "checkpoint.repository") {
		t.Errorf("publishable %v missing %v", rec.Publishable, rec.Missing)
	}
	// Its pytorch-benchmark side file is skipped, not read as a second run.
	dir := t.TempDir()
	side := filepath.Join(dir, "throughput.pytorch.json")
	if err := os.WriteFile(side, []byte(`[{"benchmark": {"name": "vLLM benchmark"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := registry.Detect(side, ingesttest.Read(t, side)); d.Parser != nil || d.NotResult == "" {
		t.Errorf("side file detection %+v", d)
	}
}

func FuzzVLLMThroughput(f *testing.F) {
	f.Add(ingesttest.Read(f, vtFixture))
	for _, s := range []string{``, `{}`, `{"elapsed_time": 1e-320, "num_requests": 1, "total_num_tokens": 0, "requests_per_second": 1e308, "tokens_per_second": 0}`,
		`{"elapsed_time": 1, "num_requests": 9007199254740993, "total_num_tokens": 1, "requests_per_second": 1, "tokens_per_second": 1}`} {
		f.Add([]byte(s))
	}
	p := vllmthroughput.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.json", data[:min(len(data), format.HeadSize)])
		runs, err := ingesttest.Parse(p, "fuzz.json", data)
		if err != nil {
			ingesttest.FuzzError(t, err, "fuzz.json")
			return
		}
		for _, r := range runs {
			for _, s := range r.Stated {
				if !benchrun.IsKnown(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
					t.Fatalf("stated %+v", s)
				}
			}
		}
	})
}
