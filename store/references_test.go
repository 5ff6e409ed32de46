package store

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/provenance"
)

func day(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// nvidiaRef is the reference of the demo campaign as first captured.
func nvidiaRef(t testing.TB) provenance.Reference {
	return provenance.Reference{
		ID: "nvidia-rtx-pro-6000-qwen3-30b-a3b-1000-1000", Figure: "output_throughput", Value: 9938, Unit: "tok/s",
		Source:   "https://developer.nvidia.com/deep-learning-performance-training-inference/ai-inference",
		Title:    "NVIDIA AI inference performance reference",
		Captured: day(t, "2026-08-17"), Checked: day(t, "2026-08-17"), Visible: true,
		Provenance: provenance.Record{
			manifest("hardware.gpu_model", "NVIDIA RTX PRO 6000 Blackwell Server Edition"),
			manifest("runtime.engine", "tensorrt-llm"),
			manifest("runtime.version", "1.1"),
		},
		Line: 12,
	}
}

func putRef(t testing.TB, a *Archive, campaign string, r provenance.Reference) (bool, error) {
	t.Helper()
	tx := begin(t, a)
	changed, err := tx.PutReference(campaign, r)
	if err != nil {
		return changed, err
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return changed, nil
}

// sameValues compares what the archive keeps of a reference (not Line).
func sameValues(a, b provenance.Reference) bool {
	return a.ID == b.ID && a.Figure == b.Figure && a.Value == b.Value && a.Unit == b.Unit && a.Source == b.Source &&
		a.Title == b.Title && a.Notes == b.Notes && a.Captured.Equal(b.Captured) && a.Checked.Equal(b.Checked) &&
		a.Visible == b.Visible && slices.Equal(a.Provenance, b.Provenance)
}

// TestPutReferenceHistory runs one reference through a sequence of
// declarations, each in its own committed transaction.
func TestPutReferenceHistory(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		base := nvidiaRef(t)
		steps := []struct {
			name        string
			edit        func(r *provenance.Reference)
			wantChanged bool
			wantErr     error
			wantChecks  int
			// check looks further at the stored reference after the step.
			check func(t *testing.T, sr *StoredReference)
		}{
			{"first recording", func(r *provenance.Reference) {}, true, nil, 1, nil},
			{"same again is a no-op", func(r *provenance.Reference) {}, false, nil, 1, nil},
			{"provenance in another order is the same", func(r *provenance.Reference) {
				slices.Reverse(r.Provenance)
			}, false, nil, 1, nil},
			{"manifest line does not matter", func(r *provenance.Reference) { r.Line = 99 }, false, nil, 1, nil},
			{"re-check: no longer visible", func(r *provenance.Reference) {
				r.Checked, r.Visible = day(t, "2026-08-20"), false
			}, true, nil, 2, func(t *testing.T, sr *StoredReference) {
				if !sr.Checks[0].Visible || !sr.Checks[0].Checked.Equal(day(t, "2026-08-17")) {
					t.Errorf("first check lost: %+v", sr.Checks[0])
				}
				if sr.Checks[1].Visible || sr.Visible {
					t.Errorf("re-check not current: %+v", sr)
				}
			}},
			{"value corrected on the same day is kept as history", func(r *provenance.Reference) {
				r.Checked, r.Visible, r.Value = day(t, "2026-08-20"), false, 9100
			}, true, nil, 3, func(t *testing.T, sr *StoredReference) {
				if sr.Checks[1].Value != 9938 || sr.Checks[2].Value != 9100 || sr.Value != 9100 {
					t.Errorf("values in history %v, %v, current %v; want 9938, 9100, 9100", sr.Checks[1].Value, sr.Checks[2].Value, sr.Value)
				}
			}},
			{"source change is kept as history", func(r *provenance.Reference) {
				r.Checked, r.Visible, r.Value = day(t, "2026-08-21"), true, 9100
				r.Source = "https://developer.nvidia.com/archive/ai-inference-2026"
			}, true, nil, 4, func(t *testing.T, sr *StoredReference) {
				if sr.Checks[2].Source != base.Source || sr.Source == base.Source {
					t.Errorf("old source not in history, or new one not current: %+v", sr)
				}
			}},
			{"an older re-check is refused", func(r *provenance.Reference) {
				r.Checked, r.Visible = day(t, "2026-08-18"), true
			}, false, ErrStaleReference, 4, func(t *testing.T, sr *StoredReference) {
				if !sr.Checked.Equal(day(t, "2026-08-21")) {
					t.Errorf("current checked = %v after a refused older check", sr.Checked)
				}
			}},
			{"setup change is kept as history", func(r *provenance.Reference) {
				r.Checked, r.Visible, r.Value = day(t, "2026-08-21"), true, 9100
				r.Source = "https://developer.nvidia.com/archive/ai-inference-2026"
				r.Provenance[2] = manifest("runtime.version", "1.2")
			}, true, nil, 5, func(t *testing.T, sr *StoredReference) {
				eff := func(r provenance.Record) string { return r.Effective()["runtime.version"] }
				if eff(sr.Checks[3].Provenance) != "1.1" || eff(sr.Provenance) != "1.2" {
					t.Errorf("runtime.version history %q, current %q", eff(sr.Checks[3].Provenance), eff(sr.Provenance))
				}
			}},
		}
		last := base
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				r := nvidiaRef(t)
				st.edit(&r)
				changed, err := putRef(t, a, "qwen3-batch", r)
				if !errors.Is(err, st.wantErr) || (err != nil && st.wantErr == nil) {
					t.Fatalf("PutReference = %v, want %v", err, st.wantErr)
				}
				if changed != st.wantChanged {
					t.Errorf("changed = %v, want %v", changed, st.wantChanged)
				}
				if changed {
					last = r
				}
				sr, err := a.Reference("qwen3-batch", r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if len(sr.Checks) != st.wantChecks {
					t.Fatalf("%d checks, want %d: %+v", len(sr.Checks), st.wantChecks, sr.Checks)
				}
				if !sameValues(sr.Reference, last) {
					t.Errorf("current values\n got %+v\nwant %+v", sr.Reference, last)
				}
				if sr.Line != 0 {
					t.Errorf("Line = %d, want 0 (not archived)", sr.Line)
				}
				lastCheck := sr.Checks[len(sr.Checks)-1]
				if !sameValues(lastCheck.Reference, sr.Reference) || lastCheck.Seq != len(sr.Checks) {
					t.Errorf("last check %+v differs from the current values %+v", lastCheck, sr.Reference)
				}
				if !sr.UpdatedAt.Equal(lastCheck.RecordedAt) || sr.RecordedAt.After(sr.UpdatedAt) ||
					!sr.RecordedAt.Equal(sr.Checks[0].RecordedAt) {
					t.Errorf("recorded %v, updated %v, checks recorded %v ... %v", sr.RecordedAt, sr.UpdatedAt,
						sr.Checks[0].RecordedAt, lastCheck.RecordedAt)
				}
				if st.check != nil {
					st.check(t, sr)
				}
			})
		}
	})
}

func TestPutReferenceRefusals(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		tests := []struct {
			name     string
			campaign string
			edit     func(r *provenance.Reference)
			want     string
		}{
			{"no campaign", "", func(r *provenance.Reference) {}, "no campaign"},
			{"bad id", "c", func(r *provenance.Reference) { r.ID = "Has Space" }, "not a reference id"},
			{"no figure", "c", func(r *provenance.Reference) { r.Figure = " " }, "no figure"},
			{"no unit", "c", func(r *provenance.Reference) { r.Unit = "" }, "no unit"},
			{"NaN", "c", func(r *provenance.Reference) { r.Value = math.NaN() }, "not a finite number"},
			{"infinite", "c", func(r *provenance.Reference) { r.Value = math.Inf(1) }, "not a finite number"},
			{"ftp source", "c", func(r *provenance.Reference) { r.Source = "ftp://example.com/x" }, "not an http(s) URL"},
			{"no dates", "c", func(r *provenance.Reference) { r.Captured = time.Time{} }, "no captured or checked date"},
			{"checked before captured", "c", func(r *provenance.Reference) { r.Checked = day(t, "2026-08-01") }, "before captured"},
			{"unknown provenance field", "c", func(r *provenance.Reference) {
				r.Provenance = append(r.Provenance, manifest("hardware.gpu_modle", "x"))
			}, "unknown field"},
			{"bad provenance value", "c", func(r *provenance.Reference) {
				r.Provenance = append(r.Provenance, manifest("hardware.gpu_count", "0"))
			}, "positive whole number"},
			{"conflicting provenance", "c", func(r *provenance.Reference) {
				r.Provenance = append(r.Provenance, manifest("runtime.engine", "vllm"))
			}, "given twice"},
		}
		a := openArchive(t, e.path(t), Options{})
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := nvidiaRef(t)
				tc.edit(&r)
				tx := begin(t, a)
				changed, err := tx.PutReference(tc.campaign, r)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("PutReference = %v, want an error with %q", err, tc.want)
				}
				if changed {
					t.Error("changed = true on a refusal")
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			})
		}
		if refs, err := a.References(""); err != nil || len(refs) != 0 {
			t.Errorf("after refusals the archive holds %+v, %v", refs, err)
		}
	})
}

func TestReferencesRead(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		r := nvidiaRef(t)
		other := nvidiaRef(t)
		other.ID, other.Provenance, other.Title = "a-first", nil, ""

		tx := begin(t, a)
		for _, put := range []struct {
			campaign string
			r        provenance.Reference
		}{{"qwen3-batch", r}, {"qwen3-batch", other}, {"another", r}} {
			if _, err := tx.PutReference(put.campaign, put.r); err != nil {
				t.Fatal(err)
			}
		}
		// The transaction sees its own writes.
		if sr, err := tx.Reference("another", r.ID); err != nil || len(sr.Checks) != 1 {
			t.Fatalf("Tx.Reference = %+v, %v", sr, err)
		}
		if _, err := tx.Reference("another", "a-first"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Tx.Reference of a missing one = %v, want ErrNotFound", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		// A rolled-back reference leaves nothing.
		tx = begin(t, a)
		rolled := nvidiaRef(t)
		rolled.ID = "rolled-back"
		if _, err := tx.PutReference("qwen3-batch", rolled); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		a.Close()

		ro := openArchive(t, path, Options{ReadOnly: true})
		tests := []struct {
			campaign string
			want     []string // campaign/id
		}{
			{"qwen3-batch", []string{"qwen3-batch/a-first", "qwen3-batch/" + r.ID}},
			{"another", []string{"another/" + r.ID}},
			{"", []string{"another/" + r.ID, "qwen3-batch/a-first", "qwen3-batch/" + r.ID}},
			{"none", nil},
		}
		for _, tc := range tests {
			refs, err := ro.References(tc.campaign)
			if err != nil {
				t.Fatalf("References(%q): %v", tc.campaign, err)
			}
			var got []string
			for _, sr := range refs {
				got = append(got, sr.Campaign+"/"+sr.ID)
				if len(sr.Checks) != 1 {
					t.Errorf("%s/%s: %d checks, want 1", sr.Campaign, sr.ID, len(sr.Checks))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("References(%q) = %v, want %v", tc.campaign, got, tc.want)
			}
		}
		sr, err := ro.Reference("qwen3-batch", r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !sameValues(sr.Reference, r) || sr.Campaign != "qwen3-batch" {
			t.Errorf("read back\n got %+v\nwant %+v", sr.Reference, r)
		}
		for _, id := range []string{"rolled-back", "missing"} {
			if _, err := ro.Reference("qwen3-batch", id); !errors.Is(err, ErrNotFound) {
				t.Errorf("Reference(%s) = %v, want ErrNotFound", id, err)
			}
		}
	})
}

func TestReferenceHistoryIsAppendOnly(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		r := nvidiaRef(t)
		if _, err := putRef(t, a, "qwen3-batch", r); err != nil {
			t.Fatal(err)
		}
		db := e.raw(t, path)
		for _, tc := range []struct{ stmt, want string }{
			{"UPDATE reference_checks SET value = 1", "append-only: UPDATE refused"},
			{"UPDATE reference_checks SET visible = 0 WHERE seq = 1", "append-only: UPDATE refused"},
			{"DELETE FROM reference_checks", "append-only: DELETE refused"},
			{`DELETE FROM "references"`, "DELETE refused"},
			{`UPDATE "references" SET id = 'forged'`, "cannot change"},
			{`UPDATE "references" SET campaign = 'other'`, "cannot change"},
		} {
			_, err := db.Exec(tc.stmt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want %q", tc.stmt, err, tc.want)
			}
		}
		sr, err := a.Reference("qwen3-batch", r.ID)
		if err != nil || len(sr.Checks) != 1 || sr.Checks[0].Value != 9938 || !sr.Checks[0].Visible {
			t.Fatalf("after tampering attempts: %+v, %v", sr, err)
		}
	})
}
