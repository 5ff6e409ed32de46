package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/trace"
	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/provenance"
)

func traceCommand() *command {
	return newCommand(command{
		name:  "trace",
		args:  "RUN",
		short: "write an archived run's per-request records as a benchledger trace (the interchange format)",
		long: `Writes one archived run, whatever tool measured it, in the project's own per-request
JSON Lines format (docs/trace-format.md): a header with what the run's provenance says
about the client and workload, then one line per request. Ingesting the trace gives the
same records, so the trace is how runs move between archives and tools. The run must have
per-request records with send times (a clock). Writes to stdout, or to -o FILE (whole or
not at all).`,
	}, runTrace)
}

// traceOptions are trace's flags.
type traceOptions struct {
	redact  redactOptions
	db, out string
}

func (o *traceOptions) addFlags(fs *flag.FlagSet, e env) {
	o.redact.addFlags(fs)
	dbFlag(fs, e, &o.db)
	fs.StringVar(&o.out, "o", "", "write to this file instead of stdout")
}

func runTrace(ctx context.Context, e env, opts traceOptions, args []string) error {
	if err := opts.redact.check(); err != nil {
		return err
	}
	if len(args) != 1 {
		return usageErrorf("trace takes one run id")
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	rec, err := a.Run(args[0])
	if err != nil {
		return err
	}
	run := rec.Run
	switch {
	case !run.HasRequests || len(run.Requests) == 0:
		return fmt.Errorf("run %s (%s) has no per-request records: a trace is per-request", rec.ID, rec.FileName)
	case run.Clock != benchrun.ClockEpoch && run.Clock != benchrun.ClockMonotonic:
		return fmt.Errorf("run %s (%s) has no send times on a known clock: a trace needs them", rec.ID, rec.FileName)
	}
	eff := provenance.Record(rec.Provenance).Effective()
	red, err := opts.redact.redactor(a)
	if err != nil {
		return err
	}
	if red != nil {
		for k, v := range eff {
			eff[k] = red.Field(k, v)
		}
		for i := range run.Requests {
			run.Requests[i].Error = red.Text(run.Requests[i].Error)
		}
	}
	h := traceHeader(run, eff)
	if opts.out == "" {
		return trace.Write(e.stdout, h, run.Requests)
	}
	err = atomicfile.WriteWith(opts.out, func(w io.Writer) error {
		if err := trace.Write(w, h, run.Requests); err != nil {
			return fmt.Errorf("run %s: %w", rec.ID, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, opts.out)
	return nil
}

// traceHeader states in the trace header what the run's provenance says of
// its client and workload (the header keys are provenance fields,
// docs/trace-format.md), so a re-ingested trace carries them as file facts.
func traceHeader(run *benchrun.Run, eff map[string]string) trace.Header {
	h := trace.Header{Clock: run.Clock, Client: eff["measurement.client"], ClientVersion: eff["measurement.client_version"],
		Host: eff["measurement.client_host"], ModelID: eff["checkpoint.model_id"], Tokenizer: eff["checkpoint.tokenizer"],
		Label: eff["measurement.label"], Dataset: eff["workload.dataset"], Date: eff["measurement.date"]}
	sourceDate := ""
	// A trace's date is a day or an RFC 3339 time; a client's local time
	// without a zone (vLLM's) keeps its day, and its full text as metadata.
	if d := h.Date; d != "" && !isDate(d) {
		if _, err := time.Parse(time.RFC3339, d); err != nil {
			h.Date = ""
			if len(d) >= 10 && isDate(d[:10]) {
				h.Date = d[:10]
			}
			sourceDate = d
		}
	}
	if h.Client == "" {
		h.Client = run.SourceTool
	}
	if h.Client == "" {
		h.Client = run.Format
	}
	atoi := func(f string) int {
		n, err := strconv.Atoi(eff[f])
		if err != nil || n < 1 {
			return 0
		}
		return n
	}
	h.MaxConcurrency = atoi("workload.concurrency")
	h.RequestedInputTokens = atoi("workload.input_len")
	h.RequestedOutputTokens = atoi("workload.output_len")
	switch v := eff["workload.request_rate"]; {
	case v == "inf":
		h.RequestRate = math.Inf(1)
	case v != "":
		if x, err := strconv.ParseFloat(v, 64); err == nil && x > 0 && !math.IsInf(x, 0) {
			h.RequestRate = x
		}
	}
	if v, ok := eff["workload.fixed_output"]; ok && (v == "true" || v == "false") {
		b := v == "true"
		h.FixedOutput = &b
	}
	if v, err := strconv.ParseFloat(eff["workload.temperature"], 64); err == nil && v >= 0 {
		h.Temperature = &v
	}
	if v, err := strconv.ParseInt(eff["workload.seed"], 10, 64); err == nil {
		h.Seed = &v
	}
	for k, v := range eff {
		if m, ok := strings.CutPrefix(k, "metadata."); ok {
			if h.Metadata == nil {
				h.Metadata = map[string]string{}
			}
			h.Metadata[m] = v
		}
	}
	if sourceDate != "" {
		if h.Metadata == nil {
			h.Metadata = map[string]string{}
		}
		h.Metadata["source_date"] = sourceDate
	}
	return h
}
