package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/benchledger/benchledger/capture"
	"github.com/benchledger/benchledger/internal/atomicfile"
)

func captureCommand() *command {
	return newCommand(command{
		name:  "capture",
		short: "write the provenance this host and its serving engine establish, each fact with how it was obtained",
		long: `Run on the benchmark host, at the time of the run. Establishes what it can: the GPUs
(nvidia-smi -q -x: model, count, memory, driver and CUDA, MIG mode, power limit,
clocks; AMD: amd-smi static, else rocm-smi, as JSON), the serving engine from its
own endpoints (--server URL: vLLM /version and /v1/models, SGLang /get_server_info,
TensorRT-LLM /version; behind GPUStack, its management API, which needs an API key:
--server-token-file, and --served-model where it serves several models), the
engine's container image and digest (docker ps, docker image inspect), the
checkpoint revision (a Hugging Face cache snapshot or refs/main, or a hash of the
files of a --model folder), the host name, OS, kernel and CPU, and the time and
clock. Each fact says how it was obtained; what cannot be established
is listed under unknown, never guessed. Only the --server URL is contacted.

Writes a manifest (docs/capture.md) to stdout, or to -o FILE (whole or not at all):
ingest it with 'benchledger ingest --meta FILE'. It is archived with the runs it
describes, and 'show' prints each captured fact with how it was obtained. A --set or
hand-written value that contradicts a captured fact is an error.`,
	}, runCapture)
}

// captureOptions are capture's flags.
type captureOptions struct {
	out string
	engineFlags
}

func (o *captureOptions) addFlags(fs *flag.FlagSet, e env) {
	fs.StringVar(&o.out, "o", "", "write to this file instead of stdout")
	o.engineFlags.addFlags(fs, "the serving engine's base `URL` (http://127.0.0.1:8000); the only address contacted")
}

// engineFlags say which server to ask and how; capture and record share
// them.
type engineFlags struct {
	server, model, servedModel, tokenFile string
}

func (o *engineFlags) addFlags(fs *flag.FlagSet, serverUsage string) {
	fs.StringVar(&o.server, "server", "", serverUsage)
	fs.StringVar(&o.model, "model", "", "the checkpoint: a repository id (looked up in the Hugging Face cache) or a local folder (its files are hashed); default: what the engine reports")
	fs.StringVar(&o.servedModel, "served-model", "", "the model `name` the benchmark asks the server for, where it serves several (GPUStack)")
	fs.StringVar(&o.tokenFile, "server-token-file", "", "read the server's API key from this `file` (default: $"+capture.TokenEnv+"); sent to --server only, never written")
}

// options turns the flags into capture options, reading the API key.
func (o *engineFlags) options(e env) (capture.Options, error) {
	opts := capture.Options{Server: o.server, Model: o.model, ServedModel: o.servedModel, Tool: "benchledger " + toolVersion(), Getenv: e.getenv}
	if o.tokenFile != "" {
		data, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return opts, usageErrorf("--server-token-file: %v", err)
		}
		opts.Token = strings.TrimSpace(string(data))
		if opts.Token == "" || strings.ContainsAny(opts.Token, "\r\n") {
			return opts, usageErrorf("--server-token-file %s: not one line holding the key", o.tokenFile)
		}
	}
	return opts, nil
}

func runCapture(ctx context.Context, e env, opts captureOptions, args []string) error {
	if len(args) != 0 {
		return usageErrorf("capture takes no arguments (did you mean 'benchledger record -- COMMAND'?)")
	}
	copts, err := opts.options(e)
	if err != nil {
		return err
	}
	c := capture.Take(ctx, copts)
	name := opts.out
	if name == "" {
		name = "capture.yaml"
	}
	write := func(w io.Writer) error { return capture.Write(w, c, name) }
	if opts.out == "" {
		return write(e.stdout)
	}
	if err := atomicfile.WriteWith(opts.out, write); err != nil {
		return fmt.Errorf("%s: %w", opts.out, err)
	}
	fmt.Fprintf(e.stderr, "%s: %d facts captured, %d unknown\n", opts.out, len(c.Facts), len(c.Unknown))
	return nil
}
