package guidellm_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/guidellm"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
)

// BenchmarkParse reads the package's real files: a JSON sweep with request
// samples, a YAML report and a GPUStack record.
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		name, path string
		p          format.Parser
	}{
		{"json-samples", "testdata/guidellm/sweep_v07_samples.json", guidellm.New()},
		{"json-args", "testdata/guidellm/args_v04.json", guidellm.New()},
		{"yaml", "testdata/guidellm/report_v07.yaml", guidellm.New()},
		{"gpustack-json", "testdata/gpustack/record_single.json", guidellm.NewGPUStack()},
	} {
		data := ingesttest.Read(b, c.path)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				err := c.p.Parse(context.Background(), c.path, bytes.NewReader(data), func(*benchrun.Run) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
