package benchrun

import (
	"fmt"
	"slices"
	"sort"
)

// MergeCompanion completes dst, a run read from one file, with src, the
// same run as another of its files describes it (Run.Companion): src's
// per-request records when dst has none, the counts dst does not know, the
// stated figures, file facts, extra keys and notes dst lacks. It returns
// what was added, one short phrase each ("per-request records", "stated
// ttft.p99", "fact checkpoint.model_id"); the ingest records them and the
// audit repeats the merge on the raw files. A fact both files state with
// different values is an error: the files do not describe one run.
func MergeCompanion(dst, src *Run) ([]string, error) {
	for k, v := range src.Facts {
		if old, ok := dst.Facts[k]; ok && old != v {
			return nil, fmt.Errorf("the files disagree on %s (%q and %q), so they do not describe one run", k, old, v)
		}
	}
	var added []string
	if !dst.HasRequests && src.HasRequests {
		dst.Requests, dst.HasRequests = src.Requests, true
		// The records' times are on the clock of the file that holds them.
		dst.Clock = src.Clock
		added = append(added, "per-request records")
	}
	if dst.Completed < 0 && src.Completed >= 0 {
		dst.Completed = src.Completed
		added = append(added, "completed count")
	}
	if dst.Failed < 0 && src.Failed >= 0 {
		dst.Failed = src.Failed
		added = append(added, "failed count")
	}
	if dst.PercentileMethod == "" && src.PercentileMethod != "" {
		dst.PercentileMethod = src.PercentileMethod
	}
	for _, s := range src.Stated {
		i := slices.IndexFunc(dst.Stated, func(d Stated) bool { return d.Metric == s.Metric })
		switch {
		case i < 0:
			dst.Stated = append(dst.Stated, s)
			added = append(added, "stated "+s.Metric)
		case dst.Stated[i].Printed > 0 && s.Printed == 0:
			// The same figure in full precision (AIPerf's JSON after its
			// CSV): keep the precise one, whichever file came first.
			dst.Stated[i] = s
			added = append(added, "full-precision "+s.Metric)
		}
	}
	keys := make([]string, 0, len(src.Facts))
	for k := range src.Facts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := dst.Facts[k]; !ok {
			if dst.Facts == nil {
				dst.Facts = map[string]string{}
			}
			dst.Facts[k] = src.Facts[k]
			added = append(added, "fact "+k)
		}
	}
	for k, v := range src.Extra {
		if _, ok := dst.Extra[k]; !ok {
			if dst.Extra == nil {
				dst.Extra = map[string]string{}
			}
			dst.Extra[k] = v
		}
	}
	for _, n := range src.Notes {
		if !slices.Contains(dst.Notes, n) {
			dst.Notes = append(dst.Notes, n)
		}
	}
	return added, nil
}
