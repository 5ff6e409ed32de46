// Package capture establishes provenance on the benchmark host at the time
// of a run: the GPUs (nvidia-smi), the serving engine (its own HTTP
// endpoints), the checkpoint revision (the Hugging Face cache, or a hash of
// a model folder), the host and the clock. Every fact says how it was
// obtained; what cannot be established is listed as unknown, never guessed.
// The result is a provenance.Capture, written as a manifest that ingest
// accepts (--meta). One file per source; nothing here contacts any address
// but the --server URL.
package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/benchledger/benchledger/provenance"
	"go.yaml.in/yaml/v3"
)

// Options say where to look. Zero values mean the host's own: the process
// environment, the system clock, a 5-second HTTP client.
type Options struct {
	Server string // serving engine base URL ("" = do not ask an engine)
	Model  string // checkpoint: a repository id or a local folder ("" = what the engine reports)
	// ServedModel is the model name the benchmark asks the server for,
	// needed where the server serves several (GPUStack).
	ServedModel string
	// Token is the server's API key, sent as a bearer token to the server
	// and nowhere else, never written ("" = $BENCHLEDGER_SERVER_TOKEN).
	Token   string
	Tool    string // "benchledger <version>", for the document
	Getenv  func(string) string
	Now     func() time.Time
	HTTP    *http.Client
	ProcDir string // /proc, for the kernel and CPU ("" = /proc)
	EtcDir  string // /etc, for os-release ("" = /etc)
}

// TokenEnv names the environment variable that holds the server's API key
// when no other is given.
const TokenEnv = "BENCHLEDGER_SERVER_TOKEN"

func (o *Options) defaults() {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Token == "" {
		o.Token = o.Getenv(TokenEnv)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 5 * time.Second}
	}
	if o.ProcDir == "" {
		o.ProcDir = "/proc"
	}
	if o.EtcDir == "" {
		o.EtcDir = "/etc"
	}
}

// attempted are the fields capture always tries; each ends as a fact or as
// an unknown with the reason.
var attempted = []string{
	"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.driver",
	"runtime.engine", "runtime.version", "runtime.image",
	"checkpoint.repository", "checkpoint.revision",
}

// Take captures what the host and the engine say now.
func Take(ctx context.Context, opts Options) *provenance.Capture {
	opts.defaults()
	b := &builder{c: &provenance.Capture{
		TakenAt: opts.Now().UTC().Format(time.RFC3339Nano),
		Clock:   "system real-time clock (CLOCK_REALTIME, read by Go's time.Now), written in UTC",
		Tool:    opts.Tool,
		Server:  opts.Server,
	}, why: map[string]string{}, conflict: map[string]bool{}}
	// The engine is asked first: whether this host's GPUs and name describe
	// the server depends on what listens at --server.
	var srv served
	if opts.Server != "" {
		srv = engine(ctx, b, opts)
	} else {
		for _, f := range []string{"runtime.engine", "runtime.version"} {
			b.unknown(f, "no --server URL was given, so no engine was asked")
		}
	}
	local := true
	if opts.Server != "" {
		local = serverIsLocal(opts.Server) && srv.proxy == ""
	}
	host(b, opts, local)
	switch {
	case local:
		nvidia(ctx, b, opts.Getenv("PATH"))
	case srv.proxy != "":
		for _, f := range []string{"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.driver"} {
			b.unknown(f, "the server "+opts.Server+" is "+srv.proxy+", which runs the engine on its workers, so this host's GPUs are not known to serve it")
		}
	default:
		for _, f := range []string{"hardware.gpu_model", "hardware.gpu_count", "hardware.gpu_memory_gb", "hardware.driver"} {
			b.unknown(f, "the server "+opts.Server+" is not this host, so this host's GPUs are not the server's")
		}
	}
	checkpoint(b, opts, srv.model, local)
	switch {
	case opts.Server == "":
		b.unknown("runtime.image", "no --server URL was given, so no engine container was looked for")
	case srv.proxy != "":
		b.unknown("runtime.image", "the --server port is "+srv.proxy+"'s, not the engine's, so the container listening there is not the engine's")
	case local:
		container(ctx, b, opts.Getenv("PATH"), opts.ProcDir, opts.Server)
	default:
		b.unknown("runtime.image", "the engine runs on another host, whose containers capture cannot inspect")
	}
	return b.finish()
}

// builder collects facts; a field two sources state differently becomes
// unknown, naming both.
type builder struct {
	c        *provenance.Capture
	why      map[string]string
	conflict map[string]bool
}

func (b *builder) fact(field, value, how string) {
	if value == "" || b.conflict[field] {
		return
	}
	if f, ok := b.c.Fact(field); ok {
		if f.Value != value {
			b.c.Facts = slices.DeleteFunc(b.c.Facts, func(x provenance.Fact) bool { return x.Field == field })
			b.conflict[field] = true
			b.why[field] = fmt.Sprintf("two sources disagree: %q (%s) and %q (%s)", f.Value, f.How, value, how)
		}
		return
	}
	b.c.Facts = append(b.c.Facts, provenance.Fact{Field: field, Value: value, How: how})
	delete(b.why, field)
}

// unknown notes why field is not established, unless a source already
// established it (or said why first).
func (b *builder) unknown(field, why string) {
	if _, ok := b.c.Fact(field); ok {
		return
	}
	if _, ok := b.why[field]; !ok {
		b.why[field] = why
	}
}

func (b *builder) finish() *provenance.Capture {
	for _, f := range attempted {
		if _, ok := b.c.Fact(f); ok {
			continue
		}
		why := b.why[f]
		if why == "" {
			why = "no source capture reads states it"
		}
		b.c.Unknown = append(b.c.Unknown, provenance.Unknown{Field: f, Why: why})
	}
	for f, why := range b.why {
		if !slices.Contains(attempted, f) {
			if _, ok := b.c.Fact(f); !ok {
				b.c.Unknown = append(b.c.Unknown, provenance.Unknown{Field: f, Why: why})
			}
		}
	}
	slices.SortStableFunc(b.c.Unknown, func(x, y provenance.Unknown) int {
		if x.Field < y.Field {
			return -1
		}
		if x.Field > y.Field {
			return 1
		}
		return 0
	})
	return b.c
}

// Write writes c as a manifest that ingest accepts (--meta FILE), after
// checking that it reads back: a capture the parser refuses is never
// written.
func Write(w io.Writer, c *provenance.Capture, name string) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Provenance captured by %s on the benchmark host at %s.\n", c.Tool, c.TakenAt)
	fmt.Fprintf(&buf, "# Ingest with: benchledger ingest --meta %s RESULTS...\n", filepath.Base(name))
	fmt.Fprintf(&buf, "# Fields listed under unknown: may be added by hand under defaults: or runs:;\n")
	fmt.Fprintf(&buf, "# a hand-written value that contradicts a captured fact is an error.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(struct {
		Capture *provenance.Capture `yaml:"capture"`
	}{c}); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if _, err := provenance.ParseManifest(name, buf.Bytes()); err != nil {
		return fmt.Errorf("capture: the document does not read back as a manifest: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
