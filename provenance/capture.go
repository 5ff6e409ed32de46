package provenance

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Capture is a manifest's capture: section: what `benchledger capture` (or
// `record`) established on the benchmark host, each fact with how it was
// obtained, and what it could not establish. One type serves the writer
// (package capture marshals it) and the reader (the manifest parser), so the
// document has one definition.
type Capture struct {
	TakenAt string `yaml:"taken_at" json:"taken_at"`                 // RFC 3339, UTC
	Clock   string `yaml:"clock" json:"clock"`                       // which clock TakenAt was read from
	Tool    string `yaml:"tool" json:"tool"`                         // benchledger and its version
	Server  string `yaml:"server,omitempty" json:"server,omitempty"` // the --server URL asked, if any
	Facts   []Fact `yaml:"facts" json:"facts"`
	// Unknown lists fields capture tried and could not establish, with why:
	// said, never guessed.
	Unknown []Unknown `yaml:"unknown,omitempty" json:"unknown,omitempty"`
	// Record is set by `benchledger record`: the client run the capture
	// brackets.
	Record *Recorded `yaml:"record,omitempty" json:"record,omitempty"`
}

// Fact is one established provenance value and how it was obtained.
type Fact struct {
	Field string `yaml:"field" json:"field"`
	Value string `yaml:"value" json:"value"`
	How   string `yaml:"how" json:"how"`
	Line  int    `yaml:"-" json:"-"` // in the manifest, when parsed
}

// Unknown is a field capture could not establish.
type Unknown struct {
	Field string `yaml:"field" json:"field"`
	Why   string `yaml:"why" json:"why"`
}

// Recorded is the benchmark client run that `benchledger record` wrapped.
type Recorded struct {
	Command  []string `yaml:"command" json:"command"` // argv exactly as run
	Dir      string   `yaml:"dir" json:"dir"`         // working folder
	Started  string   `yaml:"started" json:"started"` // RFC 3339, UTC
	Ended    string   `yaml:"ended" json:"ended"`
	Exit     int      `yaml:"exit" json:"exit"`       // exit status (-1: killed by a signal)
	Log      string   `yaml:"log" json:"log"`         // sha256 of the console output, archived as a blob
	Results  []string `yaml:"results" json:"results"` // result files found, relative to Dir
	Changed  []string `yaml:"changed,omitempty" json:"changed,omitempty"`
	Captured string   `yaml:"captured,omitempty" json:"captured,omitempty"` // "before and after"
}

// Fact returns the captured fact of field, if any.
func (c *Capture) Fact(field string) (Fact, bool) {
	if c == nil {
		return Fact{}, false
	}
	for _, f := range c.Facts {
		if f.Field == field {
			return f, true
		}
	}
	return Fact{}, false
}

// parseCapture reads a capture: section: its facts are checked like any
// manifest value (known field names, valid values, no field twice).
func (mp *manifestParser) parseCapture(n *yaml.Node) (*Capture, error) {
	if n.Kind != yaml.MappingNode {
		return nil, mp.errf(n.Line, "capture", "capture must be a mapping (written by benchledger capture)")
	}
	var c Capture
	if err := n.Decode(&c); err != nil {
		return nil, mp.errf(n.Line, "capture", "capture: %v", err)
	}
	known := map[string]bool{"taken_at": true, "clock": true, "tool": true, "server": true, "facts": true, "unknown": true, "record": true}
	var factNodes []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !known[k.Value] {
			return nil, mp.errf(k.Line, "capture."+k.Value, "unknown key %q in capture: (it has taken_at, clock, tool, server, facts, unknown, record)", k.Value)
		}
		if k.Value == "facts" {
			if v := resolve(n.Content[i+1]); v.Kind == yaml.SequenceNode {
				factNodes = v.Content
			}
		}
	}
	seen := map[string]int{}
	for i := range c.Facts {
		f := &c.Facts[i]
		if i < len(factNodes) {
			f.Line = factNodes[i].Line
		}
		if err := checkName(f.Field); err != nil {
			return nil, mp.errf(f.Line, f.Field, "captured fact: %v", err)
		}
		if strings.TrimSpace(f.How) == "" {
			return nil, mp.errf(f.Line, f.Field, "captured fact %s says not how it was obtained (how:)", f.Field)
		}
		val, err := canonical(f.Field, f.Value)
		if err != nil {
			return nil, mp.errf(f.Line, f.Field, "captured fact: %v", err)
		}
		f.Value = val
		if first, dup := seen[f.Field]; dup {
			return nil, mp.errf(f.Line, f.Field, "captured fact %s given twice (first at line %d)", f.Field, first)
		}
		seen[f.Field] = f.Line
	}
	return &c, nil
}

// checkAgainstCapture refuses a hand-written value that disagrees with a
// captured one: the capture was taken on the host at the time of the run, so
// a different hand-typed value is a mistake to resolve, not to rank.
// Values that mean the same (64 and 64.0) agree, as for contradictions.
func (mp *manifestParser) checkAgainstCapture(c *Capture, entries []Entry, lines map[string]int, where string) error {
	for _, e := range entries {
		f, ok := c.Fact(e.Field)
		if !ok {
			continue
		}
		if why := disagree(e.Field, f.Value, strings.TrimSpace(e.Value)); why != "" {
			return mp.errf(lines[e.Field], e.Field, "%s: %s %q contradicts the captured value %q (line %d, %s): %s; remove the hand-written value or capture again",
				where, e.Field, e.Value, f.Value, f.Line, f.How, why)
		}
	}
	return nil
}

// CheckSet refuses --set values that disagree with the manifest's captured
// facts, by the same rule as a hand-written manifest value.
func (m *Manifest) CheckSet(set []Entry) error {
	if m == nil || m.Capture == nil {
		return nil
	}
	for _, e := range set {
		f, ok := m.Capture.Fact(e.Field)
		if !ok {
			continue
		}
		if why := disagree(e.Field, f.Value, strings.TrimSpace(e.Value)); why != "" {
			return fmt.Errorf("--set %s=%s contradicts the value captured in %s (line %d, %s: %q): %s",
				e.Field, e.Value, m.Path, f.Line, f.How, f.Value, why)
		}
	}
	return nil
}

// captureEntries are the captured facts as manifest entries. They come
// first in For, so a hand-written value (which must agree) never differs.
func (c *Capture) entries() []Entry {
	if c == nil {
		return nil
	}
	out := make([]Entry, 0, len(c.Facts))
	for _, f := range c.Facts {
		out = append(out, Entry{Field: f.Field, Value: f.Value, Source: FromManifest})
	}
	return out
}
