package provenance

import (
	"reflect"
	"testing"
)

func TestLaterDeclaredProvenance(t *testing.T) {
	t.Parallel()
	run := Record{
		{Field: "checkpoint.model_id", Value: "a/b", Source: FromFile},
		{Field: "hardware.gpu_model", Value: "H100", Source: FromManifest},
		{Field: "runtime.version", Value: "0.1", Source: FromAmend},
	}
	declared := Record{
		{Field: "hardware.gpu_model", Value: "H200", Source: FromManifest}, // a pair the run has
		{Field: "checkpoint.model_id", Value: "a/b", Source: FromManifest}, // only a file entry: absent
		{Field: "runtime.version", Value: "0.2", Source: FromManifest},     // only a correction: absent
		{Field: "runtime.version", Value: "0.3", Source: FromManifest},     // the pair again: the first counts
		{Field: "runtime.version", Value: "0.4", Source: FromCLI},
	}
	wantAbsent := Record{declared[1], declared[2], declared[4]}
	if got := run.Absent(declared); !reflect.DeepEqual(got, wantAbsent) {
		t.Errorf("Absent = %v, want %v", got, wantAbsent)
	}
	added, conflicts := run.Gaps(declared)
	// In effect of declared: gpu H200 (conflicts with H100), model a/b
	// (the run's is a file entry: a gap), version 0.4 from --set.
	wantAdded := Record{declared[1], declared[4]}
	if !reflect.DeepEqual(added, wantAdded) {
		t.Errorf("Gaps added %v, want %v", added, wantAdded)
	}
	if want := []Conflict{{Field: "hardware.gpu_model", Stored: "H100", Declared: "H200"}}; !reflect.DeepEqual(conflicts, want) {
		t.Errorf("Gaps conflicts %v, want %v", conflicts, want)
	}
}
