package provenance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/internal/suggest"
	"go.yaml.in/yaml/v3"
)

// ManifestName is the file name the ingest walker looks for in each folder.
const ManifestName = "campaign.yaml"

// Manifest is a parsed campaign.yaml: provenance for the result files in its
// folder and below.
type Manifest struct {
	Path     string // the file as it was named
	Dir      string // folder the files: patterns are relative to
	Campaign string // top-level campaign:, or the folder's base name
	// Defaults apply to every result file under Dir, in file order.
	Defaults []Entry
	// Runs are the per-run overrides, applied in file order after Defaults.
	Runs []RunOverride
	// References are the external figures the campaign compares against,
	// in file order.
	References []Reference
	// Capture is the capture: section, written by benchledger capture or
	// record (nil: none). Its facts apply to every run, before Defaults.
	Capture *Capture
	// Bytes are the file's bytes as read: ingest archives them as a blob,
	// so the provenance a run got from the manifest can be recomputed.
	Bytes []byte
}

// Rel is path as the manifest's files: patterns see it: relative to its
// folder with slashes, or the base name for a file outside it.
func (m *Manifest) Rel(path string) string {
	abs, err := filepath.Abs(path)
	if err == nil {
		if rel, err := filepath.Rel(m.Dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(path)
}

// ParseManifest parses manifest bytes archived from path (the audit
// recomputes provenance from them).
func ParseManifest(path string, data []byte) (*Manifest, error) { return parseManifest(path, data) }

// Reference is one item of references:: a figure that is not ours (a
// vendor's published number), where it was published, when it was taken
// and when it was last seen there.
type Reference struct {
	ID     string // stable id, [a-z0-9._-]+, unique in the manifest
	Figure string // canonical metric name (docs/metrics.md), e.g. output_throughput
	Unit   string // as the source states it, e.g. tok/s
	Source string // http(s) URL of the page that states the figure
	Title  string // optional: what the source is
	Notes  string // optional free text
	Value  float64
	// Captured is the day the figure was taken from the source, Checked the
	// day of the last re-check; both are UTC midnight and Checked is never
	// before Captured.
	Captured, Checked time.Time
	Visible           bool // the figure was still shown at the Checked re-check
	// Provenance is what the reference states about its own setup, with
	// the names and checks of provenance fields; Source FromManifest.
	Provenance Record
	Line       int // line of the item in the manifest, for messages
}

// RunOverride is one item of runs:.
type RunOverride struct {
	Files   string // path.Match pattern, see Matches
	Ordinal int    // only this run of a multi-run file; -1 for every run
	// Match selects runs by what their file says (match: in the item):
	// every key must agree with the run's content (see RunContent.Has).
	Match   map[string]string
	Line    int     // line of the item in the manifest, for messages
	Entries []Entry // Source FromManifest
}

// RunContent is what a manifest's match: can select a run by: its place in
// its file and what the file states about it.
type RunContent struct {
	Ordinal int
	Facts   map[string]string // provenance fields the file states (benchrun.Run.Facts)
	Extra   map[string]string // keys the parser kept as JSON text (benchrun.Run.Extra)
}

// MatchKeys are the match: keys with a meaning of their own; any other key
// names a key of the result itself (a sweep parameter such as
// max_num_seqs, run_number), compared with its value there.
var MatchKeys = map[string]string{
	"request_rate":    "workload.request_rate",
	"max_concurrency": "workload.concurrency",
	"concurrency":     "workload.concurrency",
	"dataset":         "workload.dataset",
	"label":           "measurement.label",
}

// Has reports whether the run's content gives key the value want: numbers
// compare by value ("4" is "4.0"), text exactly.
func (c RunContent) Has(key, want string) bool {
	var got string
	var ok bool
	if field, named := MatchKeys[key]; named {
		got, ok = c.Facts[field]
	} else if got, ok = c.Extra[key]; ok {
		if u, err := strconv.Unquote(got); err == nil {
			got = u
		}
	} else {
		got, ok = c.Facts[key]
	}
	if !ok {
		return false
	}
	got, want = strings.TrimSpace(got), strings.TrimSpace(want)
	if a, err := strconv.ParseFloat(got, 64); err == nil {
		if b, err := strconv.ParseFloat(want, 64); err == nil {
			return a == b
		}
	}
	return got == want
}

// ManifestError is a problem in a manifest, with the line it is on.
type ManifestError struct {
	Path   string
	Line   int // 0 when the problem is not on one line
	Field  string
	Reason string
	Err    error
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Reason)
	}
	return e.Path + ": " + e.Reason
}

func (e *ManifestError) Unwrap() error { return e.Err }

// LoadManifest reads and checks a manifest. Every value is validated here, so
// a manifest that loads never yields an invalid Entry.
func LoadManifest(p string) (*Manifest, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return parseManifest(p, data)
}

func parseManifest(p string, data []byte) (*Manifest, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Path: p, Dir: filepath.Dir(abs), Bytes: data}
	m.Campaign = filepath.Base(m.Dir)
	mp := &manifestParser{path: p}

	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return m, nil // an empty manifest: campaign name only
		}
		return nil, &ManifestError{Path: p, Line: yamlErrLine(err), Reason: "not valid YAML: " + err.Error(), Err: err}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, mp.errf(extra.Line, "", "more than one YAML document; a manifest is one mapping")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return m, nil
		}
		root = root.Content[0]
	}
	root = resolve(root)
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return m, nil // only comments
	}
	if root.Kind != yaml.MappingNode {
		return nil, mp.errf(root.Line, "", "a manifest is a mapping with the keys campaign, defaults, runs and references")
	}

	// The capture: section is read first wherever it stands: hand-written
	// values elsewhere are checked against it as they are read.
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], resolve(root.Content[i+1]); k.Value == "capture" && !isNull(v) && m.Capture == nil {
			c, err := mp.parseCapture(v)
			if err != nil {
				return nil, err
			}
			m.Capture, mp.capture = c, c
		}
	}
	seenTop := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		if first, dup := seenTop[k.Value]; dup {
			return nil, mp.errf(k.Line, k.Value, "%q given twice (first at line %d)", k.Value, first)
		}
		seenTop[k.Value] = k.Line
		switch k.Value {
		case "campaign":
			val, err := mp.scalar(v, "campaign")
			if err != nil {
				return nil, err
			}
			if val, err = canonical("campaign", val); err != nil {
				return nil, mp.errf(v.Line, "campaign", "%v", err)
			}
			m.Campaign = val
		case "defaults":
			if isNull(v) {
				continue
			}
			es, err := mp.section(v, "defaults")
			if err != nil {
				return nil, err
			}
			m.Defaults = es
		case "runs":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				return nil, mp.errf(v.Line, "runs", "runs must be a list of overrides (- files: ...)")
			}
			for j, item := range v.Content {
				ro, err := mp.run(resolve(item), j)
				if err != nil {
					return nil, err
				}
				m.Runs = append(m.Runs, ro)
			}
		case "capture":
			// read above
		case "references":
			if isNull(v) {
				continue
			}
			refs, err := mp.references(v)
			if err != nil {
				return nil, err
			}
			m.References = refs
		default:
			msg := fmt.Sprintf("unknown top-level key %q (a manifest has campaign, defaults, runs, references and capture)", k.Value)
			if s := suggest.Nearest(k.Value, topKeys); s != "" {
				msg = fmt.Sprintf("unknown top-level key %q; did you mean %q?", k.Value, s)
			} else if isFieldPrefix(k.Value) {
				msg += "; provenance fields go under defaults: or runs:"
			}
			return nil, mp.errf(k.Line, k.Value, "%s", msg)
		}
	}
	return m, nil
}

var topKeys = []string{"campaign", "defaults", "runs", "references", "capture"}

// For returns the manifest's entries for one run: the campaign, the
// defaults, then every matching runs[] override in file order. Record's
// Effective lets a later entry of the same source win, so an override beats
// a default and a later override beats an earlier one.
func (m *Manifest) For(relPath string, ordinal int) Record {
	return m.ForRun(relPath, RunContent{Ordinal: ordinal})
}

// ForRun is For with the run's content, for items that select runs by it
// (match:).
func (m *Manifest) ForRun(relPath string, run RunContent) Record {
	rec := Record{{Field: "campaign", Value: m.Campaign, Source: FromManifest}}
	rec = append(rec, m.Capture.entries()...)
	rec = append(rec, m.Defaults...)
	for _, ro := range m.Runs {
		if ro.MatchesRun(relPath, run) {
			rec = append(rec, ro.Entries...)
		}
	}
	return rec
}

// MatchesRun is Matches with the item's match: keys checked against the
// run's content too.
func (ro *RunOverride) MatchesRun(relPath string, run RunContent) bool {
	if !ro.Matches(relPath, run.Ordinal) {
		return false
	}
	for k, v := range ro.Match {
		if !run.Has(k, v) {
			return false
		}
	}
	return true
}

// Matches reports whether the override applies to run ordinal of the file at
// relPath (slash-separated, relative to the manifest's folder). A pattern
// without "/" also matches the base name, so "baseline*.json" finds
// baseline files in any subfolder.
func (ro *RunOverride) Matches(relPath string, ordinal int) bool {
	if ro.Ordinal >= 0 && ro.Ordinal != ordinal {
		return false
	}
	rel := path.Clean(filepath.ToSlash(relPath))
	if ok, _ := path.Match(ro.Files, rel); ok {
		return true
	}
	if !strings.Contains(ro.Files, "/") {
		ok, _ := path.Match(ro.Files, path.Base(rel))
		return ok
	}
	return false
}

// FindManifest returns the nearest campaign.yaml in dir or its parents, not
// above stopAt. An empty stopAt searches up to the filesystem root; a dir
// outside stopAt is searched alone, so a walk never picks up a stray
// manifest from an unrelated tree.
func FindManifest(dir, stopAt string) (string, bool) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	stop := "" // "" never equals d: only the root ends the search
	if stopAt != "" {
		stop = d
		if s, err := filepath.Abs(stopAt); err == nil && within(d, s) {
			stop = s
		}
	}
	for {
		p := filepath.Join(d, ManifestName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
		if d == stop {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func within(d, root string) bool {
	rel, err := filepath.Rel(root, d)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

type manifestParser struct {
	path    string
	capture *Capture // the manifest's capture: section, read first
}

func (mp *manifestParser) errf(line int, field, format string, args ...any) *ManifestError {
	return &ManifestError{Path: mp.path, Line: line, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// section flattens a defaults: mapping (or the field part of a runs item)
// into entries, one per leaf, checking names, values and duplicates.
func (mp *manifestParser) section(n *yaml.Node, where string) ([]Entry, error) {
	if n.Kind != yaml.MappingNode {
		return nil, mp.errf(n.Line, where, "%s must be a mapping of provenance fields", where)
	}
	var out []Entry
	lines := map[string]int{}
	if err := mp.flatten(n, "", nil, &out, lines); err != nil {
		return nil, err
	}
	if where != "provenance" { // a reference's setup is not the campaign's
		if err := mp.checkAgainstCapture(mp.capture, out, lines, where); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// flatten walks nested mappings, joining keys with "." so that
// hardware: {gpu_model: X} and hardware.gpu_model: X mean the same. skip
// names keys of n handled by the caller (files, ordinal in a runs item).
func (mp *manifestParser) flatten(n *yaml.Node, prefix string, skip map[string]bool, out *[]Entry, lines map[string]int) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Tag == "!!merge" {
			return mp.errf(k.Line, "", "YAML merge keys (<<) are not supported; put shared values in defaults:")
		}
		if skip[k.Value] {
			continue
		}
		key := strings.TrimSpace(k.Value)
		if key == "" || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
			return mp.errf(k.Line, key, "bad field name %q", k.Value)
		}
		name := prefix + key
		if v.Kind == yaml.MappingNode {
			if _, ok := Lookup(name); ok {
				return mp.errf(v.Line, name, "%s takes one value, not a mapping", name)
			}
			if err := mp.flatten(v, name+".", nil, out, lines); err != nil {
				return err
			}
			continue
		}
		if name == "campaign" {
			return mp.errf(k.Line, name, "set the campaign with the top-level campaign: key")
		}
		if err := checkName(name); err != nil {
			return mp.errf(k.Line, name, "%v", err)
		}
		val, err := mp.leaf(v, name)
		if err != nil {
			return err
		}
		if val, err = canonical(name, val); err != nil {
			return mp.errf(v.Line, name, "%v", err)
		}
		if first, dup := lines[name]; dup {
			return mp.errf(k.Line, name, "%s given twice (first at line %d)", name, first)
		}
		lines[name] = k.Line
		*out = append(*out, Entry{Field: name, Value: val, Source: FromManifest})
	}
	return nil
}

// leaf turns a value node into text. Lists are refused except for
// runtime.server_args, whose natural YAML form is a list of arguments.
func (mp *manifestParser) leaf(v *yaml.Node, name string) (string, error) {
	if v.Kind == yaml.SequenceNode {
		if name != "runtime.server_args" {
			return "", mp.errf(v.Line, name, "%s takes one value, not a list", name)
		}
		args := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			s, err := mp.scalar(resolve(item), name)
			if err != nil {
				return "", err
			}
			args = append(args, shellQuote(s))
		}
		if len(args) == 0 {
			return "", mp.errf(v.Line, name, "%s: empty value", name)
		}
		return strings.Join(args, " "), nil
	}
	return mp.scalar(v, name)
}

// scalar returns a scalar's canonical text: booleans as true/false, integers
// in decimal, everything else as written (so version: 0.10 stays "0.10",
// not the float 0.1), trimmed. Null and empty values are errors: a field
// that is not known should be left out, not written empty.
func (mp *manifestParser) scalar(v *yaml.Node, name string) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", mp.errf(v.Line, name, "%s takes one value", name)
	}
	if v.Tag == "!!null" {
		return "", mp.errf(v.Line, name, "%s has no value (leave the field out if it is unknown)", name)
	}
	s := strings.TrimSpace(v.Value)
	switch v.Tag {
	case "!!bool":
		var b bool
		if err := v.Decode(&b); err == nil {
			s = strconv.FormatBool(b)
		}
	case "!!int":
		var i int64
		if err := v.Decode(&i); err == nil {
			s = strconv.FormatInt(i, 10)
		}
	case "!!float":
		switch strings.ToLower(s) {
		case ".inf", "+.inf":
			s = "inf"
		case "-.inf":
			s = "-inf"
		case ".nan":
			s = "nan"
		}
	}
	if s == "" {
		return "", mp.errf(v.Line, name, "%s: empty value", name)
	}
	return s, nil
}

func (mp *manifestParser) run(n *yaml.Node, idx int) (RunOverride, error) {
	ro := RunOverride{Ordinal: -1, Line: n.Line}
	where := fmt.Sprintf("runs[%d]", idx)
	if n.Kind != yaml.MappingNode {
		return ro, mp.errf(n.Line, where, "%s must be a mapping with files: and provenance fields", where)
	}
	hasFiles := false
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Value == "files" || k.Value == "ordinal" || k.Value == "match" {
			if first, dup := seen[k.Value]; dup {
				return ro, mp.errf(k.Line, k.Value, "%s given twice (first at line %d)", k.Value, first)
			}
			seen[k.Value] = k.Line
		}
		switch k.Value {
		case "files":
			s, err := mp.scalar(v, where+".files")
			if err != nil {
				return ro, err
			}
			pat := path.Clean(s)
			if _, err := path.Match(pat, ""); err != nil || strings.HasPrefix(pat, "../") || pat == ".." {
				return ro, mp.errf(v.Line, "files", "files: bad pattern %q (path.Match syntax, relative to the manifest folder)", s)
			}
			ro.Files, hasFiles = pat, true
		case "ordinal":
			s, err := mp.scalar(v, where+".ordinal")
			if err != nil {
				return ro, err
			}
			o, err := strconv.Atoi(s)
			if err != nil || o < 0 {
				return ro, mp.errf(v.Line, "ordinal", "ordinal: %q is not a run number (0 for a file's first run)", s)
			}
			ro.Ordinal = o
		case "match":
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return ro, mp.errf(v.Line, "match", "match: must map what the file says to a value, e.g. {request_rate: 4} or {max_num_seqs: 64}")
			}
			ro.Match = map[string]string{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				mk, mv := v.Content[j], resolve(v.Content[j+1])
				if mv.Kind != yaml.ScalarNode {
					return ro, mp.errf(mv.Line, "match."+mk.Value, "match.%s: must be a single value", mk.Value)
				}
				ro.Match[mk.Value] = mv.Value
			}
		}
	}
	if !hasFiles {
		return ro, mp.errf(n.Line, where, "%s has no files: pattern", where)
	}
	lines := map[string]int{}
	if err := mp.flatten(n, "", map[string]bool{"files": true, "ordinal": true, "match": true}, &ro.Entries, lines); err != nil {
		return ro, err
	}
	if err := mp.checkAgainstCapture(mp.capture, ro.Entries, lines, where); err != nil {
		return ro, err
	}
	return ro, nil
}

// referenceKeys are the keys of a references: item; the first eight are
// required.
var referenceKeys = []string{"id", "figure", "value", "unit", "source", "captured", "checked", "visible", "title", "provenance", "notes"}

const requiredReferenceKeys = 8

var referenceIDRE = regexp.MustCompile(`^[a-z0-9._-]+$`)

// ValidReferenceID reports whether id has the form of a reference id:
// lower-case letters, digits, ".", "_" and "-".
func ValidReferenceID(id string) bool { return referenceIDRE.MatchString(id) }

// ValidReferenceSource reports whether s is an absolute http(s) URL with a
// host: the place a reviewer goes to re-check the figure.
func ValidReferenceSource(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

func (mp *manifestParser) references(n *yaml.Node) ([]Reference, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, mp.errf(n.Line, "references", "references must be a list of external figures (- id: ...)")
	}
	var out []Reference
	ids := map[string]int{}
	for i, item := range n.Content {
		r, err := mp.reference(resolve(item), i, ids)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// reference reads one references: item. ids holds the ids seen so far with
// their lines, to refuse a repeated id.
func (mp *manifestParser) reference(n *yaml.Node, idx int, ids map[string]int) (Reference, error) {
	r := Reference{Line: n.Line}
	label := fmt.Sprintf("references[%d]", idx)
	if n.Kind != yaml.MappingNode {
		return r, mp.errf(n.Line, label, "%s must be a mapping with id, figure, value, unit, source, captured, checked and visible", label)
	}
	// First pass: key names and repeats, and the id, so that every later
	// message names the reference.
	keyLines := map[string]int{}
	values := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Tag == "!!merge" {
			return r, mp.errf(k.Line, "", "YAML merge keys (<<) are not supported in references:")
		}
		if first, dup := keyLines[k.Value]; dup {
			return r, mp.errf(k.Line, k.Value, "%s: %s given twice (first at line %d)", label, k.Value, first)
		}
		keyLines[k.Value] = k.Line
		if !slices.Contains(referenceKeys, k.Value) {
			msg := fmt.Sprintf("%s: unknown key %q (a reference has %s)", label, k.Value, strings.Join(referenceKeys, ", "))
			if s := suggest.Nearest(k.Value, referenceKeys); s != "" {
				msg = fmt.Sprintf("%s: unknown key %q; did you mean %q?", label, k.Value, s)
			} else if isFieldPrefix(k.Value) {
				msg += "; what the reference states about its setup goes under provenance:"
			}
			return r, mp.errf(k.Line, k.Value, "%s", msg)
		}
		values[k.Value] = v
	}
	if v := values["id"]; v != nil {
		id, err := mp.scalar(v, "id")
		if err != nil {
			return r, err
		}
		if !ValidReferenceID(id) {
			return r, mp.errf(v.Line, "id", "%s: id %q: use lower-case letters, digits, \".\", \"_\" and \"-\"", label, id)
		}
		if first, dup := ids[id]; dup {
			return r, mp.errf(v.Line, "id", "reference id %q given twice (first at line %d)", id, first)
		}
		ids[id] = v.Line
		r.ID = id
		label = fmt.Sprintf("reference %q", id)
	}
	for _, key := range referenceKeys[:requiredReferenceKeys] {
		if values[key] == nil {
			return r, mp.errf(n.Line, key, "%s has no %s:", label, key)
		}
	}

	var err error
	text := func(key string) string {
		if err != nil || values[key] == nil {
			return ""
		}
		var s string
		s, err = mp.scalar(values[key], key)
		return s
	}
	date := func(key string) time.Time {
		s := text(key)
		if err != nil || s == "" {
			return time.Time{}
		}
		t, perr := time.Parse("2006-01-02", s)
		if perr != nil {
			err = mp.errf(values[key].Line, key, "%s: %s: %q is not a date (YYYY-MM-DD)", label, key, s)
		}
		return t.UTC()
	}
	r.Figure = text("figure")
	r.Unit = text("unit")
	r.Source = text("source")
	r.Title = text("title")
	r.Notes = text("notes")
	r.Captured = date("captured")
	r.Checked = date("checked")
	visible := text("visible")
	if err != nil {
		return r, err
	}
	if strings.ContainsAny(r.Figure, " \t\n") {
		return r, mp.errf(values["figure"].Line, "figure", "%s: figure %q: a metric name has no spaces (docs/metrics.md), e.g. output_throughput", label, r.Figure)
	}
	if !ValidReferenceSource(r.Source) {
		return r, mp.errf(values["source"].Line, "source", "%s: source %q is not an http(s) URL", label, r.Source)
	}
	switch strings.ToLower(visible) {
	case "true":
		r.Visible = true
	case "false":
	default:
		return r, mp.errf(values["visible"].Line, "visible", "%s: visible: %q is not true or false", label, visible)
	}
	if r.Checked.Before(r.Captured) {
		return r, mp.errf(values["checked"].Line, "checked", "%s: checked %s is before captured %s",
			label, r.Checked.Format(time.DateOnly), r.Captured.Format(time.DateOnly))
	}
	if r.Value, err = mp.number(values["value"], label); err != nil {
		return r, err
	}
	if v := values["provenance"]; v != nil && !isNull(v) {
		if r.Provenance, err = mp.section(v, "provenance"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// number reads a reference's value: a YAML number, finite. A quoted number
// is refused: "9,938" or "9938 tok/s" would be guesses.
func (mp *manifestParser) number(v *yaml.Node, label string) (float64, error) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") {
		return 0, mp.errf(v.Line, "value", "%s: value %q is not a number (write it plain, e.g. 9938; the unit goes in unit:)", label, v.Value)
	}
	var f float64
	if err := v.Decode(&f); err != nil {
		return 0, mp.errf(v.Line, "value", "%s: value %q is not a number", label, v.Value)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, mp.errf(v.Line, "value", "%s: value %q is not a finite number", label, v.Value)
	}
	return f, nil
}

// isFieldPrefix reports whether name is a field or the start of one
// ("hardware"), to point a misplaced key at defaults:.
func isFieldPrefix(name string) bool {
	for _, f := range Fields {
		if f.Name == name || strings.HasPrefix(f.Name, name+".") {
			return true
		}
	}
	for _, p := range FreePrefixes {
		if strings.HasPrefix(name+".", p) {
			return true
		}
	}
	return false
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// yamlErrLine pulls "line N" out of a yaml.v3 syntax error, which carries
// the line only in its text.
func yamlErrLine(err error) int {
	s := err.Error()
	i := strings.Index(s, "line ")
	if i < 0 {
		return 0
	}
	j := i + len("line ")
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	n, _ := strconv.Atoi(s[j:k])
	return n
}

// shellQuote quotes one server argument for a POSIX shell when it needs it,
// so a joined list reads back as the same arguments.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~{}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
