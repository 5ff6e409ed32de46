package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

func amendCommand() *command {
	return newCommand(command{
		name:  "amend",
		args:  "RUN",
		short: "correct an archived run's provenance, with a reason, keeping the history",
		long: `Records a correction of one run's provenance as an append-only event: who, when, the value
in effect before, the new value and the reason. What ingest archived is kept; the corrected
value takes effect over it, and show, the site, reports and audit mark the field as corrected
(docs/provenance.md, "Corrections"). --unset leaves a declared field without a value. A value
the raw file itself contradicts is refused: the file is the evidence. A correction that
changes a published figure gives an erratum at the next report --publish.
RUN is a run id, a unique prefix of one, or an old id of the run.`,
	}, runAmend)
}

// amendOptions are amend's flags.
type amendOptions struct {
	db     string
	json   bool
	reason string
	set    provenance.Record
	unset  []string
}

func (o *amendOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print one JSON document")
	fs.StringVar(&o.reason, "reason", "", "why the archived value is wrong (required)")
	fs.Func("set", "corrected provenance `field=value` (repeatable)", func(s string) error {
		en, err := provenance.ParseSet(s)
		if err != nil {
			return err
		}
		o.set = append(o.set, en)
		return nil
	})
	fs.Func("unset", "leave a declared provenance `field` without a value (repeatable)", func(s string) error {
		o.unset = append(o.unset, s)
		return nil
	})
}

// amendJSON is amend's --json document.
type amendJSON struct {
	ID          string           `json:"id"`
	Corrections []correctionJSON `json:"corrections"`
	Publishable bool             `json:"publishable"`
	Missing     []string         `json:"missing"`
}

// correctionJSON is one correction as --json documents show it; old or new
// is null when the field had, or has, no value in effect.
type correctionJSON struct {
	Field  string  `json:"field"`
	Old    *string `json:"old"`
	New    *string `json:"new"`
	Reason string  `json:"reason"`
	Actor  string  `json:"actor"`
	At     string  `json:"at"`
}

func correctionDoc(c store.Correction) correctionJSON {
	d := correctionJSON{Field: c.Field, Reason: c.Reason, Actor: c.Actor, At: c.At.UTC().Format(time.RFC3339)}
	if c.HadOld {
		d.Old = &c.Old
	}
	if !c.Unset {
		d.New = &c.New
	}
	return d
}

func runAmend(ctx context.Context, e env, opts amendOptions, args []string) error {
	if len(args) != 1 {
		return usageErrorf("amend takes exactly one run id")
	}
	a, err := store.Open(opts.db, writing(e, store.Options{}))
	if err != nil {
		return err
	}
	defer a.Close()
	res, err := ingest.Amend(ctx, a, ingest.Amendment{Run: args[0], Set: opts.set, Unset: opts.unset, Reason: opts.reason,
		Actor: osUser(), ToolVersion: toolVersion()})
	var ae *ingest.AmendError
	switch {
	case errors.As(err, &ae):
		return usageErrorf("run %s: %s", args[0], ae.Reason)
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous):
		return usageErrorf("%v", err)
	case err != nil:
		return err
	}
	if opts.json {
		doc := amendJSON{ID: res.RunID, Publishable: res.Publishable, Missing: res.Missing, Corrections: []correctionJSON{}}
		if doc.Missing == nil {
			doc.Missing = []string{}
		}
		for _, c := range res.Corrections {
			doc.Corrections = append(doc.Corrections, correctionDoc(c))
		}
		return writeJSON(e.stdout, doc)
	}
	for _, c := range res.Corrections {
		fmt.Fprintf(e.stdout, "%s\tcorrected\t%s\t%s -> %s\n", res.RunID, c.Field, correctionValue(c.Old, c.HadOld), correctionValue(c.New, !c.Unset))
	}
	if !res.Publishable {
		fmt.Fprintf(e.stderr, "warning: run %s is not publishable; missing: %v\n", res.RunID, res.Missing)
	}
	return nil
}

func correctionValue(v string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return fmt.Sprintf("%q", v)
}
