package aiperf

import (
	"errors"
	"fmt"
	"io"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// aiperfTooLarge is the reading error of a file past aiperfSummaryMax.
var aiperfTooLarge = errors.New("the file is larger than a summary can be")

// aiperfLimitReader fails once more than max bytes have been read.
type aiperfLimitReader struct {
	r    io.Reader
	left int64
}

func (l *aiperfLimitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, aiperfTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, aiperfTooLarge
	}
	return n, err
}

// aiperfTreeSyntax places a decoder error for a summary's tree: a file
// past aiperfSummaryMax is refused as too large (jsonread.Wrapper).
type aiperfTreeSyntax struct{ file string }

func (t aiperfTreeSyntax) Syntax(_ string, err error) error {
	if errors.Is(err, aiperfTooLarge) {
		return &format.InputError{File: t.file, Reason: fmt.Sprintf("%v (%d MiB): not an AIPerf or GenAI-Perf summary", err, aiperfSummaryMax>>20), Err: err}
	}
	return jsonread.Syntax(t.file, "", err)
}

// aiperfReadTree reads a whole small JSON file: one value, nothing after it.
func aiperfReadTree(file string, r io.Reader) (*jsonread.Node, error) {
	d := pyjson.NewDecoder(&aiperfLimitReader{r: r, left: aiperfSummaryMax})
	d.SetMaxDepth(aiperfMaxDepth)
	t := &jsonread.TreeReader{
		Cursor:   jsonread.Cursor{Dec: d, File: file, Wrap: aiperfTreeSyntax{file}},
		MaxNodes: aiperfMaxNodes, TooMany: "not an AIPerf or GenAI-Perf summary",
	}
	first, err := t.Next("")
	if err != nil {
		return nil, err
	}
	if first.Kind == pyjson.EOF {
		if first.Offset == 0 {
			return nil, format.Errorf(file, "", "the file is empty")
		}
		return nil, format.Errorf(file, "", "the file holds only whitespace, no JSON value")
	}
	root, err := t.Value(first)
	if err != nil {
		return nil, err
	}
	end, err := t.Next("")
	if err != nil {
		return nil, err
	}
	if end.Kind != pyjson.EOF {
		return nil, format.Errorf(file, jsonread.Place("", end), "a second JSON value after the first: a summary file holds one object")
	}
	return root, nil
}
