package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/export"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/redact"
	"github.com/benchledger/benchledger/store"
)

func exportCommand() *command {
	return newCommand(command{
		name:  "export",
		args:  "[SPEC]",
		short: "export a case study or runs as a localised xlsx workbook and/or CSV files",
		long: `Writes the numbers sales engineers size deployments with, from the archive, as an xlsx
workbook (--xlsx FILE) and/or RFC 4180 CSV files (--csv DIR, one per table). The
workbook opens on a cover sheet (which case study, its version or "draft", the audit
verdict, the archive digest, the number of runs, links to the report and the site);
--no-audit skips the audit, and the cover says the case study was not audited.

With a case-study spec: sheets Summary (the headline comparisons: baseline, candidate,
absolute and % change, ratio, confounders), Runs, Comparisons, Sweeps (with a native
chart of throughput against median latency), Node (replicas, common window, scaling
efficiency), Caveats (codes with their sentences), Provenance (every field, its value and
source). Without a spec: the runs the filters or --run select (all by default) with Runs,
Caveats, Provenance and Requests (every per-request record, streamed; --requests=false
leaves it out). With a spec, --requests adds the Requests sheet.

Sheet names, headers and caveat sentences are in --lang (en, zh, ja, es, es-419).
Numbers are stored as numbers with locale-neutral formats, so each spreadsheet shows
them in its reader's style; units are in the headers; times are UTC. Header rows are
frozen, every sheet has an autofilter, and text that a spreadsheet could read as a
formula (starting with = + - @, a tab or a carriage return) is prefixed with an
apostrophe. --redact hashes host names and IP addresses, and drops environment values,
internal paths and token-like strings before anything is written (docs/redaction.md);
--base-url links each run id to its page of the static site (BASE/<lang>/run/ID.html).
CSV files start with a UTF-8 byte-order mark (--bom=false leaves it out); --csv-dialect
excel-es (or excel-<any locale>) writes ';' between fields and a decimal comma where that
locale's spreadsheets expect them; --sep and --decimal set them one by one.
The files are written whole or not at all (mode 0644 under the umask). Prints the
written paths.`,
	}, runExport)
}

// exportOptions are export's flags.
type exportOptions struct {
	allowDirs                             runList
	db, xlsx, csvDir, lang, salt, baseURL string
	dialect, sep, decimal                 string
	bom, redact, noAudit                  bool
	requests                              setBool // its default depends on whether a spec is given
	asOf                                  asOfDate
	runs                                  runList
	filter                                store.Filter
}

func (o *exportOptions) addFlags(fs *flag.FlagSet, e env) {
	allowDirFlag(fs, &o.allowDirs)
	dbFlag(fs, e, &o.db)
	fs.StringVar(&o.xlsx, "xlsx", "", "write the workbook to this file")
	fs.StringVar(&o.csvDir, "csv", "", "write one CSV file per table into this folder")
	fs.BoolVar(&o.noAudit, "no-audit", false, "do not audit the case study: the cover sheet says it was not audited")
	fs.BoolVar(&o.bom, "bom", true, "start each CSV file with a UTF-8 byte-order mark, without which Excel misreads accents and CJK text; --bom=false leaves it out")
	fs.StringVar(&o.dialect, "csv-dialect", "rfc4180", "CSV separators: rfc4180 (, and .) or excel-<locale>, what a spreadsheet in that locale reads (excel-es, excel-es-AR, excel-de: ; and a decimal comma)")
	fs.StringVar(&o.sep, "sep", "", "CSV field separator (one character, or \\t), overriding --csv-dialect's")
	fs.StringVar(&o.decimal, "decimal", "", "CSV decimal separator (. or ,), overriding --csv-dialect's")
	fs.StringVar(&o.lang, "lang", "en", "language of sheet names, headers and caveats: en, zh, ja, es, es-419")
	fs.BoolVar(&o.redact, "redact", false, "hash host names and IP addresses, drop environment values, internal paths and token-like strings")
	fs.StringVar(&o.salt, "redact-salt", "", "with --redact: key of the hashes, so two exports name one host alike (default: random per export)")
	fs.StringVar(&o.baseURL, "base-url", "", "link run ids to BASE/<lang>/run/ID.html, the run pages of the static site")
	fs.Var(&o.requests, "requests", "add the per-request records (Requests sheet / requests.csv); the default without a spec, --requests=false leaves them out")
	asOfFlag(fs, &o.asOf, false)
	fs.Var(&o.runs, "run", "export this run (id or unique prefix); repeatable")
	filterFlags(fs, &o.filter)
}

func runExport(ctx context.Context, e env, opts exportOptions, args []string) error {
	switch {
	case len(args) > 1:
		return usageErrorf("export takes at most one case-study spec")
	case opts.xlsx == "" && opts.csvDir == "":
		return usageErrorf("say where to write: --xlsx FILE and/or --csv DIR")
	case len(args) == 1 && (filtered(opts.filter) || len(opts.runs) > 0):
		return usageErrorf("a case study exports its own runs: give a spec or run filters, not both")
	case opts.salt != "" && !opts.redact:
		return usageErrorf("--redact-salt needs --redact")
	}
	if err := checkFilter(opts.filter); err != nil {
		return err
	}
	csvOpt, err := csvOptions(opts)
	if err != nil {
		return err
	}
	if l, err := locales.Match(opts.lang); err != nil || !sameLanguage(opts.lang, l.Tag()) {
		return usageErrorf("--lang %q: supported: %s", opts.lang, strings.Join(locales.Supported(), ", "))
	}
	if opts.baseURL != "" {
		if u, err := url.Parse(opts.baseURL); err != nil || u.Scheme == "" || u.Host == "" && u.Scheme != "file" {
			return usageErrorf("--base-url %q is not an absolute URL", opts.baseURL)
		}
	}
	// Without a spec the export is the runs themselves, records
	// included unless --requests=false; a case study's are optional.
	withRequests := opts.requests.or(len(args) == 0)
	opt := export.Options{Lang: opts.lang, Requests: withRequests, BaseURL: opts.baseURL, Exported: time.Now().UTC()}
	var red *redact.Redactor
	if opts.redact {
		key := []byte(opts.salt)
		if len(key) == 0 {
			key = make([]byte, 16)
			if _, err := rand.Read(key); err != nil {
				return err
			}
		}
		red = redact.New(redact.Options{Salt: key})
		opt.Redact = red
	}
	title := "benchledger export"
	if len(args) == 1 {
		res, a, err := evaluateSpec(ctx, e, opts.db, args[0], opts.asOf, opts.allowDirs)
		if err != nil {
			return err
		}
		defer a.Close()
		opt.Result, opt.RunIDs = res, res.RunIDs
		// The cover sheet says what the site says of this case study: its
		// audit (as the report's, as of --as-of) and its current version.
		if !opts.noAudit {
			if opt.Audit, err = audit.CaseStudyReport(ctx, a, res, opts.asOf.Day()); err != nil {
				return err
			}
		}
		if opt.Publication, err = publish.Current(a, res); err != nil {
			return err
		}
		if t := res.Spec.Title[opts.lang]; t != "" {
			title = t
		} else if t := res.Spec.Title["en"]; t != "" {
			title = t
		}
		return writeExport(ctx, e, a, opt, title, opts.xlsx, opts.csvDir, csvOpt, red)
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	if len(opts.runs) > 0 {
		for _, r := range opts.runs {
			id, err := a.ResolveRunID(r)
			if err != nil {
				return err
			}
			opt.RunIDs = append(opt.RunIDs, id)
		}
	} else {
		list, err := a.ListRuns(opts.filter)
		if err != nil {
			return err
		}
		for _, s := range list {
			opt.RunIDs = append(opt.RunIDs, s.ID)
		}
	}
	if len(opt.RunIDs) == 0 {
		return fmt.Errorf("no runs to export (the archive is empty or the filters select none)")
	}
	return writeExport(ctx, e, a, opt, title, opts.xlsx, opts.csvDir, csvOpt, red)
}

// writeExport builds the tables once and writes them; a streamed requests
// table is read from the archive again for each output.
func writeExport(ctx context.Context, e env, a *store.Archive, opt export.Options, title, xlsxPath, csvDir string, csvOpt export.CSVOptions, red *redact.Redactor) error {
	wb, err := export.Build(ctx, a, opt)
	if err != nil {
		return err
	}
	// The redaction summary counts one pass over the data (the second
	// output redacts the same values again).
	var counts map[string]int
	if xlsxPath != "" {
		if dir := filepath.Dir(xlsxPath); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		xo := export.XLSXOptions{Title: title, Modified: opt.Exported}
		if res := opt.Result; res != nil {
			xo.Subject = res.Spec.ID
			// Created is when this version was recorded; a draft, or an
			// export of runs, is created now.
			if p := opt.Publication; p != nil && !p.Draft && !p.Recorded.IsZero() {
				xo.Created = p.Recorded
			}
		}
		if xo.Created.IsZero() {
			xo.Created = opt.Exported
		}
		if err := export.WriteXLSXFile(xlsxPath, wb, xo); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, xlsxPath)
		if red != nil {
			counts = red.Counts()
		}
	}
	if csvDir != "" {
		paths, err := export.WriteCSV(csvDir, wb, csvOpt)
		if err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintln(e.stdout, p)
		}
	}
	if red != nil {
		if counts == nil {
			counts = red.Counts()
		}
		var parts []string
		for k, n := range counts {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, k))
			}
		}
		sort.Strings(parts)
		if len(parts) == 0 {
			parts = []string{"nothing matched"}
		}
		fmt.Fprintf(e.stderr, "redacted: %s\n", strings.Join(parts, ", "))
	}
	return nil
}

// csvOptions reads --bom, --csv-dialect, --sep and --decimal.
func csvOptions(opts exportOptions) (export.CSVOptions, error) {
	sep, dec, err := export.CSVDialect(opts.dialect)
	if err != nil {
		return export.CSVOptions{}, usageErrorf("--csv-dialect: %v", err)
	}
	one := func(flag, v string) (rune, error) {
		if v == `\t` {
			return '\t', nil
		}
		r := []rune(v)
		if len(r) != 1 {
			return 0, usageErrorf("%s %q: want one character", flag, v)
		}
		return r[0], nil
	}
	if opts.sep != "" {
		if sep, err = one("--sep", opts.sep); err != nil {
			return export.CSVOptions{}, err
		}
	}
	if opts.decimal != "" {
		if dec, err = one("--decimal", opts.decimal); err != nil {
			return export.CSVOptions{}, err
		}
	}
	o := export.CSVOptions{BOM: opts.bom, Sep: sep, Decimal: dec}
	if err := o.Check(); err != nil {
		return o, usageErrorf("%v", err)
	}
	return o, nil
}

// sameLanguage: the matched locale is in the language asked for (es-MX
// served by es-419 is; a tag the matcher only maps to its fallback is not).
func sameLanguage(asked, served string) bool {
	a, err1 := language.Parse(asked)
	b, err2 := language.Parse(served)
	if err1 != nil || err2 != nil {
		return false
	}
	ab, _ := a.Base()
	bb, _ := b.Base()
	return ab == bb
}
