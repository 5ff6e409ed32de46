package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format/sglang"
)

// CheckServerVersions: the servers of one run (a prefill/decode router's
// prefill and decode servers) run different engine versions.
const CheckServerVersions = "provenance.server_versions"

// serverVersions finds a run whose file reports several servers of
// different engine versions (SGLang's server_info for a prefill/decode
// router, kept by the parser in Extra). A run measured across versions
// is not a run of one version, whatever runtime.version says.
func serverVersions(r *benchrun.Run) []Finding {
	raw, ok := r.Extra[sglang.ServerVersionsKey]
	if !ok {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var parts, versions []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		name, _ := kt.(string)
		if v == "" {
			v = "unstated"
		}
		parts = append(parts, name+" "+v)
		if v != "unstated" && !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
	}
	if len(versions) < 2 {
		return nil
	}
	return []Finding{{Check: CheckServerVersions, Severity: Warn,
		Message: fmt.Sprintf("the run's servers run different engine versions (%s): its figures are not those of one version", strings.Join(parts, ", ")),
		Params:  map[string]string{"servers": strings.Join(parts, ", "), "versions": strings.Join(versions, ", ")}, MessageKey: MsgServerVersions}}
}
