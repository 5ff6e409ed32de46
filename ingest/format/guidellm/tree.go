package guidellm

import (
	"fmt"

	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// guidellm and GPUStack reports are read into jsonread's tree one benchmark
// at a time (a guidellm report's per-request samples are converted as they
// stream past instead), so a benchmark's many small summaries can be looked
// up by path without a Go struct per report generation: the layout changed
// with every guidellm release and unknown keys must be kept, not rejected.

// glMaxNodes bounds one tree: a benchmark summary has a few thousand values,
// a GPUStack record a few more, and a hostile file (YAML aliases expand)
// must not make the reader build millions.
const glMaxNodes = 1 << 20

// glTooLarge is the reason of a tree past glMaxNodes.
func glTooLarge(place string) string {
	return fmt.Sprintf("the value starting at %s holds more than %d items: too large to read as one report part", place, glMaxNodes)
}

// glTree is the reader of the reports' trees over d (nil for YAML): a key
// an object repeats is kept (its first value is the one read), a number
// beyond float64's range is malformed, the keys in omit are skipped, and
// decoder errors are passed on as they are, for glSyntax to place.
func glTree(file string, d *pyjson.Decoder, omit map[string]bool) *jsonread.TreeReader {
	return &jsonread.TreeReader{Cursor: jsonread.Cursor{Dec: d, File: file, Wrap: jsonread.Raw},
		MaxNodes: glMaxNodes, TooLarge: glTooLarge, Repeats: true, Ranged: true, Omit: omit}
}

// glSyntax turns a decoder error a glTree passed on into an InputError;
// any other error is returned as it is.
func glSyntax(file string, err error) error {
	return jsonread.Placed(err, func(err error) error { return jsonread.Syntax(file, "", err) })
}
