package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
)

// RunRecord is one archived run with everything the archive knows of it.
type RunRecord struct {
	ID         string // benchrun.ContentID(Run) of the run's richest file; PutRun fills it when empty
	BlobSHA256 string // the raw file the run was read from
	FileName   string // the file's path as given at ingest
	// Run round-trips whole. Its Facts are kept as provenance entries with
	// source "file" and read back from them.
	Run *benchrun.Run
	// Provenance holds every entry of every source. Read back ordered by
	// field, then source (file, manifest, cli).
	Provenance  provenance.Record
	Publishable bool
	Missing     []string  // required provenance fields still absent
	IngestedAt  time.Time // UTC; PutRun uses the current time when zero
	// Invocation names the tool invocation that wrote the run's files (the
	// absolute folder and the stem of their names); companion files are
	// joined only when theirs is the same. "" when the format has none.
	Invocation string
}

// RunSummary is a run as `benchledger runs` lists it. Campaign to Date are
// the run's effective provenance (see PutRun).
type RunSummary struct {
	ID            string    `json:"id"`
	Campaign      string    `json:"campaign"`
	Role          string    `json:"role"`
	Model         string    `json:"model"`
	Engine        string    `json:"engine"`
	EngineVersion string    `json:"engine_version"`
	GPU           string    `json:"gpu"`
	Date          string    `json:"date"`
	Format        string    `json:"format"`
	Publishable   bool      `json:"publishable"`
	FileName      string    `json:"file"`
	RequestCount  int64     `json:"request_count"` // -1 unknown
	BlobSHA256    string    `json:"blob_sha256"`
	IngestedAt    time.Time `json:"ingested_at"`
}

// Filter selects runs. Empty fields select everything.
type Filter struct {
	// Case-insensitive substring matches.
	Campaign, Model, Engine, GPU string
	// Role matches exactly, ignoring case.
	Role string
	// Since and Until bound the measurement date, inclusive, compared on
	// the date text's prefix: "2025-10-09", "2025-10" and "2025" all work.
	// Runs without a date are left out when either is set.
	Since, Until string
}

// Event is one entry of the archive's append-only history.
type Event struct {
	ID          int64     // assigned by the archive
	At          time.Time // UTC; AppendEvent uses the current time when zero
	Actor       string    // OS user; AppendEvent fills it when empty
	ToolVersion string    // benchledger version; AppendEvent uses the build's when empty
	Action      string    // "ingest", "provenance-completed", ...
	RunID       string    // "" when the event concerns no single run
	BlobSHA256  string    // "" when the event concerns no blob
	Detail      string    // JSON text, or ""
}

// summaryColumns are the runs columns denormalised from provenance.
type summaryColumns struct {
	campaign, role, model, engine, engineVersion, gpu, date string
}

// summarize derives the listing columns from effective provenance.
// ListingOf is the listing columns (Campaign to Date) of a run whose
// provenance in effect is eff: what the archive writes to them, for audit
// to recompute.
func ListingOf(eff map[string]string) RunSummary {
	c := summarize(eff)
	return RunSummary{Campaign: c.campaign, Role: c.role, Model: c.model, Engine: c.engine,
		EngineVersion: c.engineVersion, GPU: c.gpu, Date: c.date}
}

func summarize(eff map[string]string) summaryColumns {
	model := eff["checkpoint.repository"]
	if model == "" {
		model = eff["checkpoint.model_id"]
	}
	gpu := eff["hardware.gpu_model"]
	if n, err := strconv.Atoi(strings.TrimSpace(eff["hardware.gpu_count"])); err == nil && n > 1 && gpu != "" {
		gpu = fmt.Sprintf("%d x %s", n, gpu)
	}
	return summaryColumns{
		campaign:      eff["campaign"],
		role:          eff["role"],
		model:         model,
		engine:        eff["runtime.engine"],
		engineVersion: eff["runtime.version"],
		gpu:           gpu,
		date:          eff["measurement.date"],
	}
}

// timeLayout is RFC 3339 with fixed-width nanoseconds, so stored times sort
// as text and read back exactly.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}

var sourceRank = map[provenance.Source]int{provenance.FromFile: 0, provenance.FromManifest: 1, provenance.FromCLI: 2}

func validSource(s provenance.Source) bool {
	_, ok := sourceRank[s]
	return ok
}
