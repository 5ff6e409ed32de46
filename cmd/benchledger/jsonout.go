package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// jsonSchemaVersion is the schema_version of a --json object document whose
// type does not state its own (DESIGN.md: every JSON object document
// carries schema_version). A document whose shape changes incompatibly
// states its next version itself.
const jsonSchemaVersion = 1

// snakeCaseSchemaVersion is the version of the documents whose keys were
// Go field names before snake_case: figures, compare and show --json.
const snakeCaseSchemaVersion = 2

// writeJSON prints a --json document, indented by two spaces and ending in
// a newline: the one way every command prints JSON. An object document
// that does not carry schema_version (its type is another package's) gets
// it as its first key; one that does (audit's, ingest's) is printed as it
// is. An array (runs --json) is printed as it is.
func writeJSON(w io.Writer, doc any) error { return writeJSONAs(w, jsonSchemaVersion, doc) }

// writeJSONAs is writeJSON for a document whose own schema is at version v
// (figures, compare and show --json are at 2: their keys became
// snake_case).
func writeJSONAs(w io.Writer, v int, doc any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if len(b) > 1 && b[0] == '{' && !hasTopLevelKey(b, "schema_version") {
		head := []byte(`{"schema_version":` + strconv.Itoa(v))
		if b[1] != '}' {
			head = append(head, ',')
		}
		b = append(head, b[1:]...)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// hasTopLevelKey reports whether the JSON object doc has the key at its top
// level (not in a nested object).
func hasTopLevelKey(doc []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		if k == key {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}
