// Package runview lays out one archived run for a reader: provenance with
// its sources, completion, summary figures recomputed beside the stated
// ones with their definitions, stated-figure checks and caveats. The show
// command prints it as text or JSON; the site renders it as a page.
package runview

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// Figure is one summary figure: recomputed and as the source stated it.
type Figure struct {
	Metric     string   `json:"metric"`
	Unit       string   `json:"unit"`
	Recomputed *float64 `json:"recomputed,omitempty"`
	Stated     *float64 `json:"stated,omitempty"`
	SourceKey  string   `json:"source_key,omitempty"`
	Definition string   `json:"definition,omitempty"`
	// Impossible, when set, says why the stated value cannot be a
	// measurement (figures.ImpossibleStated): it is shown so, never as fine.
	Impossible string `json:"impossible,omitempty"`
}

type ProvenanceRow struct {
	Field  string `json:"field"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

type View struct {
	ID               string          `json:"id"`
	File             string          `json:"file"`
	Ordinal          int             `json:"ordinal"`
	Location         string          `json:"location,omitempty"`
	SHA256           string          `json:"sha256"`
	Format           string          `json:"format"`
	FormatVariant    string          `json:"format_variant,omitempty"`
	SourceTool       string          `json:"source_tool,omitempty"`
	PercentileMethod string          `json:"percentile_method,omitempty"`
	Clock            string          `json:"clock"`
	IngestedAt       string          `json:"ingested_at"`
	Publishable      bool            `json:"publishable"`
	Missing          []string        `json:"missing"`
	Provenance       []ProvenanceRow `json:"provenance"`
	Completion       struct {
		Sent      int64 `json:"sent"`      // -1 unknown
		Completed int64 `json:"completed"` // -1 unknown
		Failed    int64 `json:"failed"`    // -1 unknown
		Short     int64 `json:"short"`     // -1 unknown or not a fixed-length workload
	} `json:"completion"`
	WindowBasis string       `json:"window_basis"`
	Figures     []Figure     `json:"figures"`
	History     []HistoryRow `json:"history"`
	// Corrections are the run's provenance corrections (benchledger amend),
	// in the order recorded; the provenance rows of source "amend" are the
	// values they put in effect.
	Corrections []CorrectionRow `json:"corrections,omitempty"`
	// Captures are the capture documents (benchledger capture or record)
	// of the manifests the run was ingested with, in ingest order.
	Captures []CaptureView `json:"captures,omitempty"`
	// StatedChecks compare each figure the source tool stated with its
	// recomputation; Caveats are the codes the run's own data raises.
	StatedChecks []figures.StatedCheck `json:"stated_checks,omitempty"`
	// Impossible lists the stated figures no run can produce (audit check
	// plausibility.stated).
	Impossible []figures.Impossible `json:"impossible,omitempty"`
	Caveats    []caveat.Caveat      `json:"caveats"`
	Extra      []string             `json:"extra_keys,omitempty"`
	Notes      []string             `json:"notes,omitempty"`
}

// ProvenanceGroup is one line of show's provenance table: a field's value
// and every source that stated it (file and manifest often agree).
type ProvenanceGroup struct {
	Field   string `json:"field"`
	Value   string `json:"value"`
	Sources string `json:"sources"`
}

func GroupProvenance(rows []ProvenanceRow) []ProvenanceGroup {
	var out []ProvenanceGroup
	if len(rows) > 0 {
		out = make([]ProvenanceGroup, 0, len(rows)) // at most one a row
	}
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].Field == r.Field && out[n-1].Value == r.Value {
			out[n-1].Sources += ", " + r.Source
			continue
		}
		out = append(out, ProvenanceGroup{r.Field, r.Value, r.Source})
	}
	return out
}

// CorrectionRow is one provenance correction; Old or New is nil when the
// field had, or has, no value in effect.
type CorrectionRow struct {
	At     string  `json:"at"`
	Actor  string  `json:"actor"`
	Field  string  `json:"field"`
	Old    *string `json:"old"`
	New    *string `json:"new"`
	Reason string  `json:"reason"`
}

// HistoryRow is one archive event about the run.
type HistoryRow struct {
	At          string `json:"at"`
	Action      string `json:"action"`
	Actor       string `json:"actor"`
	ToolVersion string `json:"tool_version"`
	Detail      string `json:"detail,omitempty"`
}

// FinitePtr is &v for a finite v, nil for NaN or ±Inf (unknown, shown as "-").
func FinitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Build lays out an archived run with its records reqs.
func Build(rec *store.RunRecord, reqs []benchrun.Request) *View {
	return BuildWith(rec, reqs, figures.Derive(rec.Run, reqs, provenance.Record(rec.Provenance).Effective()))
}

// BuildWith is Build with what the caller derived from the run already
// (figures.Derive over the same records).
func BuildWith(rec *store.RunRecord, reqs []benchrun.Request, d *figures.Derived) *View {
	r := rec.Run
	v := &View{ID: rec.ID, File: rec.FileName, Ordinal: r.Ordinal, Location: r.Location, SHA256: rec.BlobSHA256,
		Format: r.Format, FormatVariant: r.FormatVariant, SourceTool: r.SourceTool, PercentileMethod: r.PercentileMethod,
		Clock: string(r.Clock), IngestedAt: rec.IngestedAt.UTC().Format(time.RFC3339), Publishable: rec.Publishable,
		Missing: rec.Missing, Notes: r.Notes}
	if v.Missing == nil {
		v.Missing = []string{}
	}
	if v.Clock == "" {
		v.Clock = "none"
	}
	if len(rec.Provenance) > 0 {
		v.Provenance = make([]ProvenanceRow, 0, len(rec.Provenance))
	}
	for _, p := range rec.Provenance {
		v.Provenance = append(v.Provenance, ProvenanceRow{p.Field, p.Value, string(p.Source)})
	}
	// A stable sort's order is the one order of a stable sort: slices'
	// without sort.SliceStable's reflection.
	slices.SortStableFunc(v.Provenance, func(a, b ProvenanceRow) int { return strings.Compare(a.Field, b.Field) })
	if len(r.Extra) > 0 {
		v.Extra = make([]string, 0, len(r.Extra))
	}
	for k := range r.Extra {
		v.Extra = append(v.Extra, k)
	}
	slices.Sort(v.Extra)

	eff := d.Effective
	v.Completion.Sent, v.Completion.Completed, v.Completion.Failed, v.Completion.Short = r.RequestCount(), r.Completed, r.Failed, -1
	f := d.Figures
	if ff := f; ff != nil {
		v.StatedChecks = d.Stated.Checks
		v.Caveats = caveat.ForRun(rec.ID, *ff, eff) // in caveat.Sort's order
		v.Completion.Sent, v.Completion.Completed, v.Completion.Failed = int64(ff.Sent), int64(ff.Completed), int64(ff.Failed)
		v.Completion.Short = int64(ff.Short)
		v.WindowBasis = ff.WindowBasis
	} else {
		v.WindowBasis = "no per-request records: stated figures only"
	}
	v.Impossible = d.Impossible
	// impossible is why a metric's stated value is impossible: the first
	// reason given for it ("" when none).
	impossible := func(metric string) string {
		for _, i := range v.Impossible {
			if i.Metric == metric && i.Reason != "" {
				return i.Reason
			}
		}
		return ""
	}
	// The figures of the catalogue a run's view shows, recomputed beside
	// the stated ones; a row with neither is left out.
	// The rows' values, in one array: FinitePtr's, without an allocation
	// for each. It is made with room for two values a row and never
	// grows, so the pointers into it stay valid.
	sms := summaryMetrics()
	// Each row's stated figure (1 + its place in r.Stated, 0 for none),
	// found in one pass over the run's instead of a search of them for
	// every row of the catalogue; the first of a name, as StatedValue
	// finds it, is written last.
	statedOf := make([]int, len(sms))
	idx := summaryIndex()
	for i := len(r.Stated) - 1; i >= 0; i-- {
		if k, ok := idx[r.Stated[i].Metric]; ok {
			statedOf[k] = i + 1
		}
	}
	values := make([]float64, 0, 2*len(sms))
	finite := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		values = append(values, x)
		return &values[len(values)-1]
	}
	for k, sm := range sms {
		name, m := sm.name, sm.m
		row := Figure{Metric: name, Unit: sm.unit, Definition: m.Metric.Formula, Impossible: impossible(name)}
		if i := statedOf[k]; i > 0 {
			s := r.Stated[i-1]
			row.Stated, row.SourceKey = finite(s.Value), s.SourceKey
		}
		if f != nil {
			row.Recomputed = finite(m.Of(f))
		}
		if row.Recomputed != nil || row.Stated != nil {
			if v.Figures == nil {
				v.Figures = make([]Figure, 0, len(sms)) // one allocation; still nil without rows
			}
			v.Figures = append(v.Figures, row)
		}
	}
	return v
}

// summaryMetric is one of figures.SummaryNames, parsed.
type summaryMetric struct {
	name, unit string
	m          figures.MetricName
}

// summaryIndex is each summary metric's place in summaryMetrics (the
// catalogue names each once: TestSummaryIndex).
var summaryIndex = sync.OnceValue(func() map[string]int {
	idx := map[string]int{}
	for k, sm := range summaryMetrics() {
		idx[sm.name] = k
	}
	return idx
})

// summaryMetrics are figures.SummaryNames parsed once: every run's view
// walks them (a site of 10,000 runs made and parsed them 10,000 times).
var summaryMetrics = sync.OnceValue(func() []summaryMetric {
	var out []summaryMetric
	for _, name := range figures.SummaryNames() {
		m, _ := figures.ParseMetric(name)
		out = append(out, summaryMetric{name: name, unit: m.Unit(), m: m})
	}
	return out
})
