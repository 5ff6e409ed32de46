package main

import (
	"errors"
	"flag"
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
