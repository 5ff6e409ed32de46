package aiperf

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
)

// NewCSV returns the parser for AIPerf's summary table,
// profile_export_aiperf.csv: a section of per-request statistics
// ("Metric,avg,min,max,p1,...") and a section of single values
// ("Metric,Value"), values printed with two decimals.
func NewCSV() format.Parser { return aiperfCSV{} }

type aiperfCSV struct{}

const aiperfCSVID = "aiperf-csv"

func (aiperfCSV) ID() string       { return aiperfCSVID }
func (aiperfCSV) Describe() string { return "AIPerf profile_export_aiperf.csv summary" }

// Sniff: the first line is AIPerf's statistics header (avg, min, max, [sum,]
// then p1 upwards; GenAI-Perf's runs from p99 down) or, for a file with single
// values only, "Metric,Value" followed by a row AIPerf names.
func (aiperfCSV) Sniff(name string, head []byte) bool {
	first, rest := aiperfFirstLine(head)
	switch {
	case strings.HasPrefix(first, "Metric,avg,min,max,p1,"), strings.HasPrefix(first, "Metric,avg,min,max,sum,p1,"):
		return true
	case first == "Metric,Value":
		second, _ := aiperfFirstLine(rest)
		row := strings.SplitN(second, ",", 2)[0]
		return slices.Contains([]string{"Benchmark Duration (sec)", "Error Request Count", "Minimum Request Timestamp (ns)"}, row) ||
			strings.HasSuffix(strings.ToLower(name), "_aiperf.csv")
	}
	return false
}

// aiperfFirstLine returns the first line of b (BOM, CR and surrounding
// blanks removed) and what follows it.
func aiperfFirstLine(b []byte) (string, []byte) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	line, rest, _ := bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(line)), rest
}

// Parse reads the table and emits its one run.
func (aiperfCSV) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	t, err := aiperfReadCSV(name, r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	run, err := aiperfCSVRun(name, t, aiperfCSVDialect)
	if err != nil {
		return err
	}
	markPrinted(run, 2)
	return emit(run)
}

// markPrinted records that every stated figure was printed with this many
// decimals, so checks against the records allow for the rounding and a
// full-precision companion file (the JSON) replaces the value.
func markPrinted(run *benchrun.Run, decimals int) {
	for i := range run.Stated {
		run.Stated[i].Printed = decimals
	}
}

// aiperfCSVRow is one row of a statistics table, values as printed.
type aiperfCSVRow struct {
	line   int
	name   string   // "Time to First Token (ms)"
	header string   // "Time to First Token"
	unit   string   // "ms"; "" when the name has none
	stats  []string // statistic of each value: "avg" (also for "Value"), "p99", ...
	cols   []string // each value's column as printed ("Value", "p99")
	values []string
}

// aiperfCSVTable is a summary CSV as read: its statistics rows in order
// and the column order of its statistics header.
type aiperfCSVTable struct {
	rows      []aiperfCSVRow
	statCols  []string // the statistics header after "Metric"
	telemetry bool     // a GPU telemetry section followed (not read)
}

var aiperfUnitSuffix = regexp.MustCompile(`^(.*\S)\s+\(([^()]*)\)$`)

// aiperfReadCSV reads a two-section summary CSV (AIPerf's or GenAI-Perf's).
// A row whose first field is "Metric" starts a section; a telemetry section
// (AIPerf's "Endpoint,GPU_Index,...", GenAI-Perf's "Metric,GPU,...") ends the
// summary.
func aiperfReadCSV(file string, r io.Reader) (*aiperfCSVTable, error) {
	data, err := io.ReadAll(&aiperfLimitReader{r: r, left: aiperfSummaryMax})
	if err != nil {
		if errors.Is(err, aiperfTooLarge) {
			return nil, &format.InputError{File: file, Reason: fmt.Sprintf("%v (%d MiB): not a summary CSV", err, aiperfSummaryMax>>20), Err: err}
		}
		return nil, &format.InputError{File: file, Reason: "reading the file: " + err.Error(), Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if len(data) == 0 {
			return nil, format.Errorf(file, "", "the file is empty")
		}
		return nil, format.Errorf(file, "", "the file holds only whitespace, no table")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, format.Errorf(file, "", "the file holds NUL bytes: not a CSV table")
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	cr.FieldsPerRecord = -1
	t := &aiperfCSVTable{}
	var cols []string
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				// The line the bad record starts on: an open quote runs on.
				line := pe.StartLine
				if line == 0 {
					line = pe.Line
				}
				return nil, &format.InputError{File: file, Place: fmt.Sprintf("line %d", line), Reason: "malformed CSV: " + pe.Err.Error(), Err: err}
			}
			return nil, &format.InputError{File: file, Reason: "malformed CSV: " + err.Error(), Err: err}
		}
		line, _ := cr.FieldPos(0)
		first := strings.TrimSpace(rec[0])
		if first == "Endpoint" || first == "Metric" && len(rec) > 1 && strings.TrimSpace(rec[1]) == "GPU" {
			t.telemetry = true
			break
		}
		if first == "Metric" {
			cols = cols[:0]
			for _, c := range rec[1:] {
				c = strings.TrimSpace(c)
				if c == "" || slices.Contains(cols, c) {
					return nil, format.Errorf(file, fmt.Sprintf("line %d", line), "header column %q is empty or repeated", c)
				}
				cols = append(cols, c)
			}
			if len(cols) == 0 {
				return nil, format.Errorf(file, fmt.Sprintf("line %d", line), "a header row with no columns after \"Metric\"")
			}
			if !(len(cols) == 1 && cols[0] == "Value") {
				t.statCols = slices.Clone(cols)
			}
			continue
		}
		if cols == nil {
			return nil, format.Errorf(file, fmt.Sprintf("line %d", line), "not a summary table: the first row is not a \"Metric,...\" header")
		}
		if len(rec) != len(cols)+1 {
			return nil, format.Errorf(file, fmt.Sprintf("line %d", line), "the row has %d fields, the header %d (a value with a thousands separator must be quoted)", len(rec), len(cols)+1)
		}
		name := strings.TrimSpace(rec[0])
		if name == "" {
			return nil, format.Errorf(file, fmt.Sprintf("line %d", line), "a row without a metric name")
		}
		if seen[name] {
			return nil, format.Errorf(file, fmt.Sprintf("line %d", line), "metric %q appears twice", name)
		}
		seen[name] = true
		row := aiperfCSVRow{line: line, name: name, header: name}
		if m := aiperfUnitSuffix.FindStringSubmatch(name); m != nil {
			row.header, row.unit = m[1], strings.TrimSpace(m[2])
		}
		for i, c := range cols {
			stat := c
			if c == "Value" {
				stat = "avg"
			}
			row.stats = append(row.stats, stat)
			row.cols = append(row.cols, c)
			row.values = append(row.values, strings.TrimSpace(rec[i+1]))
		}
		t.rows = append(t.rows, row)
	}
	if len(t.rows) == 0 {
		return nil, format.Errorf(file, "", "the table has no metric rows")
	}
	return t, nil
}

// aiperfCSVNumber reads a printed value: "12.34", "1,234.56" (GenAI-Perf's
// thousands separators), "" or "N/A" (nothing stated: ok false, err nil).
var aiperfThousands = regexp.MustCompile(`^-?\d{1,3}(,\d{3})+(\.\d+)?$`)

func aiperfCSVNumber(s string) (float64, bool, error) {
	switch s {
	case "", "N/A", "None":
		return 0, false, nil
	}
	if aiperfThousands.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+') {
			return 0, false, fmt.Errorf("%q is not a number", s)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, fmt.Errorf("%q is not a number", s)
	}
	return v, true, nil
}

// aiperfCSVTagAlias maps row names, lowercased with underscores, to the
// tool's metric tags where they differ.
var aiperfCSVTagAlias = map[string]string{
	"total_input_sequence_length":  "total_isl",
	"total_output_sequence_length": "total_osl",
	"minimum_request_timestamp":    "min_request_timestamp",
	"maximum_response_timestamp":   "max_response_timestamp",
}

// aiperfCSVTag turns a row's name into the tool's metric tag: both tools
// print tag.replace("_", " ").title() (AIPerf its own header text, which
// reads the same way).
func aiperfCSVTag(header string) string {
	tag := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(header)), " ", "_")
	if a, ok := aiperfCSVTagAlias[tag]; ok {
		return a
	}
	return tag
}

// aiperfCSVKind says how a dialect's table is read.
type aiperfCSVKind struct {
	id, client, tool string
	// stdPopulation: the std column (when present) is the population
	// deviation for this header layout.
	stdPopulation func(cols []string) bool
	variant       func(cols []string) string
	// companion: the table has AIPerf's Request Count and Benchmark
	// Duration rows, so it gets a companion key; a table without a
	// Request Count row is then not a summary of this tool.
	companion bool
}

var aiperfCSVDialect = aiperfCSVKind{
	id: aiperfCSVID, client: aiperfClient, tool: aiperfClient,
	// The early layout (no p10 column) was checked against the records of
	// the 2025-10 sample; later AIPerf documents a sample deviation.
	stdPopulation: func(cols []string) bool { return !slices.Contains(cols, "p10") },
	variant: func(cols []string) string {
		if len(cols) == 0 {
			return "single values only"
		}
		if slices.Contains(cols, "p10") {
			return "two sections, statistics with p10"
		}
		return "two sections, early statistics (no p10)"
	},
	companion: true,
}

// aiperfCSVRun builds the run of a summary CSV.
func aiperfCSVRun(file string, t *aiperfCSVTable, k aiperfCSVKind) (*benchrun.Run, error) {
	run := &benchrun.Run{
		Location:         fmt.Sprintf("line %d", t.rows[0].line),
		Format:           k.id,
		FormatVariant:    k.variant(t.statCols),
		SourceTool:       k.tool,
		PercentileMethod: "linear",
		Facts:            map[string]string{"measurement.client": k.client},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}
	f := newAIPerfFigures(file, run)
	f.stateStd = k.stdPopulation(t.statCols)
	minReq := math.NaN()
	var latency []string
	for _, row := range t.rows {
		tag := aiperfCSVTag(row.header)
		place := fmt.Sprintf("line %d", row.line)
		mapped := false
		for i, stat := range row.stats {
			v, ok, err := aiperfCSVNumber(row.values[i])
			if err != nil {
				return nil, format.Errorf(file, place, "%s %s: %v", row.name, stat, err)
			}
			if !ok {
				continue
			}
			if tag == "min_request_timestamp" && stat == "avg" {
				if div, ok := aiperfUnitDivisor("s", row.unit); ok {
					minReq = v / div * 1e9
				}
			}
			m, err := f.add(place, tag, stat, row.unit, v, row.name+" "+row.cols[i])
			if err != nil {
				return nil, err
			}
			mapped = mapped || m
		}
		if _, ok := aiperfLatency[tag]; ok && mapped {
			latency = append(latency, tag)
		}
		if !mapped {
			cells := map[string]string{}
			for i, stat := range row.stats {
				cells[stat] = row.values[i]
			}
			text, _ := json.Marshal(cells) // sorted keys: deterministic
			run.Extra[row.name] = string(text)
		}
	}
	run.Stated = aiperfDedupStated(run.Stated)
	_, answerOnly := run.Extra["Total Output Tokens (tokens)"]
	aiperfSummaryNotes(run, f, latency, false,
		"std is not stated: this table layout (with p10) comes from AIPerf versions that document std as the sample standard deviation, the archive's std is the population deviation", answerOnly)
	run.Notes = append(run.Notes, "values are printed with two decimals: stated figures carry that rounding")
	if t.telemetry {
		run.Notes = append(run.Notes, "the GPU telemetry section after the summary is kept in the raw bytes only")
	}
	if run.Completed < 0 && k.companion {
		return nil, format.Errorf(file, "", "not a %s summary: no Request Count row", k.tool)
	}
	if run.Failed < 0 && k.companion {
		run.Notes = append(run.Notes, "failed is unknown: AIPerf prints an Error Request Count row only when requests failed, but the table alone cannot show that none did")
	}
	if run.Completed == 0 && run.Failed <= 0 {
		return nil, format.Errorf(file, "", "run has no requests: Request Count is 0 and no request failed")
	}
	if date, ok := aiperfEpochDate(minReq); ok {
		run.Facts["measurement.date"] = date
		run.Notes = append(run.Notes, "measurement.date is the first request's send time (Minimum Request Timestamp, epoch ns) in UTC")
	}
	if k.companion {
		aiperfCompanionNote(run, f.requests, f.errors, f.osl, f.duration)
	}
	return run, nil
}

// aiperfDedupStated keeps the first of stated figures with one name (a
// table whose single-value section repeats a statistic of the first).
func aiperfDedupStated(in []benchrun.Stated) []benchrun.Stated {
	out := in[:0]
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s.Metric] {
			seen[s.Metric] = true
			out = append(out, s)
		}
	}
	return out
}

// Invocation: see aiperfRecords.Invocation.
func (aiperfCSV) Invocation(path string) (string, bool) {
	return format.StemInvocation(path, "_aiperf.csv")
}
