package runview

import "github.com/benchledger/benchledger/provenance"

// CaptureView is one capture document a run was ingested with: the facts
// established on the benchmark host, each with how it was obtained, and
// what could not be established (docs/capture.md).
type CaptureView struct {
	Manifest string           `json:"manifest"` // the manifest file as it was ingested
	TakenAt  string           `json:"taken_at"`
	Clock    string           `json:"clock"`
	Tool     string           `json:"tool"`
	Server   string           `json:"server,omitempty"`
	Facts    []CapturedFact   `json:"facts"`
	Unknown  []UnknownFact    `json:"unknown,omitempty"`
	Record   *RecordedCommand `json:"record,omitempty"`
}

// CapturedFact is one captured value and its source.
type CapturedFact struct {
	Field string `json:"field"`
	Value string `json:"value"`
	How   string `json:"how"`
}

// UnknownFact is a field capture tried and could not establish.
type UnknownFact struct {
	Field string `json:"field"`
	Why   string `json:"why"`
}

// RecordedCommand is the client run benchledger record wrapped.
type RecordedCommand struct {
	Command []string `json:"command"`
	Dir     string   `json:"dir"`
	Started string   `json:"started"`
	Ended   string   `json:"ended"`
	Exit    int      `json:"exit"`
	Log     string   `json:"log"`
	Results []string `json:"results"`
	Changed []string `json:"changed,omitempty"`
}

// Capture turns a manifest's capture: section into its view.
func Capture(manifest string, c *provenance.Capture) CaptureView {
	v := CaptureView{Manifest: manifest, TakenAt: c.TakenAt, Clock: c.Clock, Tool: c.Tool, Server: c.Server, Facts: []CapturedFact{}}
	for _, f := range c.Facts {
		v.Facts = append(v.Facts, CapturedFact{f.Field, f.Value, f.How})
	}
	for _, u := range c.Unknown {
		v.Unknown = append(v.Unknown, UnknownFact{u.Field, u.Why})
	}
	if r := c.Record; r != nil {
		v.Record = &RecordedCommand{Command: r.Command, Dir: r.Dir, Started: r.Started, Ended: r.Ended, Exit: r.Exit, Log: r.Log, Results: r.Results, Changed: r.Changed}
	}
	return v
}
