package main

import (
	"crypto/hmac"
	"crypto/sha256"

	"errors"
	"flag"
	"github.com/benchledger/benchledger/redact"
	"github.com/benchledger/benchledger/store"
	"strconv"
	"strings"
	"time"
)

// The flag types several commands share.

// asOfDate is --as-of: the day against which dates are judged (the age of
// external references, for caveats and the audit), written YYYY-MM-DD.
//
// The flag has one meaning when given. When it is not, the day is the zero
// time, and what that means is a property of the command, chosen when the
// flag is bound (todayWhenUnset):
//
//   - figures, report, export and site promise output that does not depend
//     on the day they run, so without --as-of they judge no ages (caveats
//     raise no staleness, a report's audit page says reference ages were
//     not judged);
//   - audit is a check made now, so without --as-of it judges ages as of
//     today (audit.Options reads a zero AsOf as now).
type asOfDate struct {
	text           string
	day            time.Time
	todayWhenUnset bool
}

// asOfFlag binds --as-of to d with the help of the command's kind (the
// back-quoted word names the value in the help's flag list).
func asOfFlag(fs *flag.FlagSet, d *asOfDate, todayWhenUnset bool) {
	d.todayWhenUnset = todayWhenUnset
	usage := "judge the age of external references on this date (`YYYY-MM-DD`); without it no staleness is judged, so the output does not depend on today's date"
	if todayWhenUnset {
		usage = "judge dates (reference age, caveats) as of this day, `YYYY-MM-DD`; default today"
	}
	fs.Var(d, "as-of", usage)
}

func (d *asOfDate) String() string { return d.text }

// Set keeps the text; check, after parsing, refuses one that is not a date
// with the command's own usage message (a Set error would print the flag
// package's instead, with the whole usage).
func (d *asOfDate) Set(s string) error {
	d.text = s
	d.day = time.Time{}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		d.day = t
	}
	return nil
}

func (d *asOfDate) check() error {
	if d.text != "" && d.day.IsZero() {
		return usageErrorf("--as-of %q is not a date (YYYY-MM-DD)", d.text)
	}
	return nil
}

// Day is the given day, or the zero time when --as-of was not given (then
// see todayWhenUnset).
func (d asOfDate) Day() time.Time { return d.day }

// checkFlags runs the checks that flag values leave until the command line
// is parsed (asOfDate's).
func checkFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if c, ok := f.Value.(interface{ check() error }); ok && err == nil {
			err = c.check()
		}
	})
	return err
}

// runList is a repeatable string flag (--run ID --run ID).
type runList []string

func (r *runList) String() string     { return strings.Join(*r, ",") }
func (r *runList) Set(v string) error { *r = append(*r, v); return nil }

// setBool is a boolean flag that also knows whether it was given, for a
// default that depends on the other arguments (export's --requests).
type setBool struct {
	value, given bool
}

func (b *setBool) IsBoolFlag() bool { return true }
func (b *setBool) String() string   { return strconv.FormatBool(b.value) }

func (b *setBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("parse error") // the flag package's own word for it
	}
	b.value, b.given = v, true
	return nil
}

// or is the flag's value when given, def otherwise.
func (b setBool) or(def bool) bool {
	if b.given {
		return b.value
	}
	return def
}

// allowDirFlag binds --allow-dir, repeatable: a folder besides the spec's
// own that the files a spec names (narratives) may resolve into.
func allowDirFlag(fs *flag.FlagSet, dirs *runList) {
	fs.Var(dirs, "allow-dir", "a folder, besides the spec's own, that the spec's narratives may be in (repeatable; `DIR`)")
}

// redactOptions are --redact and --redact-salt, on report, site and trace
// (export has its own, whose default salt is random per export).
type redactOptions struct {
	on   bool
	salt string
}

func (r *redactOptions) addFlags(fs *flag.FlagSet) {
	fs.BoolVar(&r.on, "redact", false, "redact what provenance says of hosts, addresses, paths, secrets and people in everything written (docs/redaction.md)")
	fs.StringVar(&r.salt, "redact-salt", "", "with --redact: key of the host hashes (default: one kept in the archive, so the same archive gives the same bytes)")
}

func (r *redactOptions) check() error {
	if r.salt != "" && !r.on {
		return usageErrorf("--redact-salt needs --redact")
	}
	return nil
}

// redactor is the one redactor of a command (nil without --redact). Its
// default salt is derived from the archive's own secret, so outputs are
// deterministic per archive and the hashes cannot be looked up elsewhere.
func (r *redactOptions) redactor(a *store.Archive) (*redact.Redactor, error) {
	if !r.on {
		return nil, nil
	}
	salt := []byte(r.salt)
	if len(salt) == 0 {
		key, err := a.SiteKey()
		if err != nil {
			return nil, err
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte("benchledger redact salt"))
		salt = m.Sum(nil)
	}
	return redact.New(redact.Options{Salt: salt}), nil
}
