package runview

import "github.com/benchledger/benchledger/provenance"

// CaptureView is one capture document a run was ingested with: the facts
// established on the benchmark host, each with how it was obtained, what
// could not be established, and the client run record wrapped
// (docs/capture.md). The document's own type, with the manifest it came in.
type CaptureView struct {
	Manifest string `json:"manifest"` // the manifest file as it was ingested
	provenance.Capture
}

// Capture turns a manifest's capture: section into its view.
func Capture(manifest string, c *provenance.Capture) CaptureView {
	v := CaptureView{Manifest: manifest, Capture: *c}
	if v.Facts == nil {
		v.Facts = []provenance.Fact{}
	}
	return v
}
