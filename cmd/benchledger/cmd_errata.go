package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

func errataCommand() *command {
	return newCommand(command{
		name:  "errata",
		args:  "SPEC",
		short: "list a case study's recorded versions and their errata",
		long: `Lists the versions of a case study that benchledger report recorded in the archive, newest
first, each with its date, archive digest and errata: what changed from the version before,
with the old and the new value (docs/casestudy.md, "Versions and errata"). The archive is
only read. --json prints one document with the versions oldest first.`,
	}, runErrata)
}

// errataOptions are errata's flags.
type errataOptions struct {
	db   string
	json bool
}

func (o *errataOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print one JSON document")
}

func runErrata(ctx context.Context, e env, opts errataOptions, args []string) error {
	if len(args) != 1 {
		return usageErrorf("errata takes one case-study spec")
	}
	s, err := spec.Load(args[0])
	if err != nil {
		return err
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	pubs, err := a.Publications(s.ID)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(e.stdout, errataDocument(s.ID, pubs))
	}
	return writeErrata(e.stdout, s.ID, pubs)
}

// errataJSON is the --json document: the versions in order, each erratum
// as recorded (a figure's old and new values as English display strings).
type errataJSON struct {
	CaseID   string             `json:"case_id"`
	Versions []errataVersionDoc `json:"versions"`
}

type errataVersionDoc struct {
	Version    int             `json:"version"`
	RecordedAt time.Time       `json:"recorded_at"`
	Digest     string          `json:"archive_digest"`
	Errata     []erratumRecord `json:"errata"`
}

type erratumRecord struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

func errataDocument(caseID string, pubs []store.Publication) errataJSON {
	doc := errataJSON{CaseID: caseID, Versions: []errataVersionDoc{}}
	for _, p := range pubs {
		v := errataVersionDoc{Version: p.Version, RecordedAt: p.RecordedAt, Digest: p.Digest, Errata: []erratumRecord{}}
		for _, e := range p.Errata {
			v.Errata = append(v.Errata, erratumRecord{Kind: e.Kind, Name: e.Name, Old: e.Old, New: e.New})
		}
		doc.Versions = append(doc.Versions, v)
	}
	return doc
}

// writeErrata prints the versions newest first, as a report's errata
// section lists them, in the report's English wording.
func writeErrata(w io.Writer, caseID string, pubs []store.Publication) error {
	if len(pubs) == 0 {
		fmt.Fprintf(w, "Case study %s has no recorded version: benchledger report records one.\n", caseID)
		return nil
	}
	rp, err := publish.Latest(pubs)
	if err != nil {
		return err
	}
	en := locales.MustMatch("en")
	if len(pubs) == 1 {
		fmt.Fprintf(w, "Case study %s: 1 version\n", caseID)
	} else {
		fmt.Fprintf(w, "Case study %s: %d versions\n", caseID, len(pubs))
	}
	for i, v := range slices.Backward(rp.History) {
		p := pubs[i]
		fmt.Fprintf(w, "\n%s (%s)\n  archive digest %s\n", en.T("errata.version", "version", v.Version, "date", v.Recorded.UTC()),
			v.Recorded.UTC().Format(time.RFC3339), p.Digest)
		if v.Version == 1 {
			fmt.Fprintln(w, "  first version")
		}
		for _, e := range v.Errata {
			fmt.Fprintf(w, "  %s\n", report.ErratumText(en, e))
		}
	}
	return nil
}
