package store

import (
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

func TestZZZstd(t *testing.T) {
	if os.Getenv("EXP") == "" { t.Skip() }
	for _, src := range []string{"gen", "mine"} {
		var data []byte
		if src == "gen" { data, _ = os.ReadFile("/tmp/M.json") } else { data = vllmLikeJSON(256 << 20) }
		for _, opts := range []struct{name string; o []zstd.EOption}{
			{"fastest", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest)}},
			{"fastest-nocrc", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false)}},
			{"fastest-noentropy", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithNoEntropyCompression(true)}},
			{"default", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedDefault)}},
		} {
			enc, _ := zstd.NewWriter(nil, opts.o...)
			for rep := 0; rep < 2; rep++ {
			t0 := time.Now()
			var out int
			dst := make([]byte, 0, DefaultChunkSize+1024)
			for off := 0; off < len(data); off += DefaultChunkSize {
				end := min(off+DefaultChunkSize, len(data))
				dst = enc.EncodeAll(data[off:end], dst[:0])
				out += len(dst)
			}
			d := time.Since(t0)
			t.Logf("%s %s: %v  %.0f MB/s ratio %.2f", src, opts.name, d, float64(len(data))/d.Seconds()/1e6, float64(len(data))/float64(out))
			}
		}
	}
}
