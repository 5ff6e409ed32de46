package jsonread

import "github.com/benchledger/benchledger/internal/jsonw"

// Run.Extra holds a value the parser does not interpret as JSON text, in
// one of two forms, decided here once:
//
//   - the value's bytes as the file wrote them, where the parser streams
//     the value past (Capture): nothing is re-encoded;
//   - otherwise (a value read into a tree, or from YAML) the compact
//     encoding: no spaces, numbers as written (a YAML number in its
//     shortest form; NaN and ±Infinity as Python writes them), strings as encoding/json writes them without HTML
//     escaping (AppendExtraString), which Python's json reads back.
//
// Either way a value longer than ExtraLimit is replaced by OversizeNote of
// its whole length (guidellm's, of the length written when the writing
// stopped: Node.ExtraBounded); a value a TreeReader skipped (Omit) by
// OversizeNote of its size in the file (from YAML, by the note without a
// size).

// AppendExtraString writes s as a string of an Extra value is written.
func AppendExtraString(b []byte, s string) []byte { return jsonw.AppendStringAs(b, s, jsonw.NoHTML) }

// Extra is the Run.Extra text of an encoded value: the text, or the note
// standing for it when it is longer than ExtraLimit.
func Extra(text string) string {
	if len(text) > ExtraLimit {
		return OversizeNote(int64(len(text)))
	}
	return text
}
