package provenance

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/internal/suggest"
)

// Roles are the words role may take (see the Fields doc of "role").
var Roles = []string{"baseline", "tuned", "candidate", "sweep-point", "replica", "repeat", "reference", "other"}

// RoleRank orders roles as a case study reads them (the order of Roles);
// an unknown role comes last.
func RoleRank(role string) int {
	if i := slices.Index(Roles, strings.ToLower(role)); i >= 0 {
		return i
	}
	return len(Roles)
}

// RateOrConcurrency is the name Missing reports when a run states neither
// workload.concurrency nor workload.request_rate (one of them is required).
const RateOrConcurrency = "workload.concurrency|workload.request_rate"

// Contradiction is a field where the raw file's own fact disagrees with the
// value the manifest or --set declares for it.
type Contradiction struct {
	Field         string
	FileValue     string
	DeclaredValue string
	Source        Source // who declared DeclaredValue: FromManifest or FromCLI
	Reason        string
}

func (c Contradiction) String() string {
	return fmt.Sprintf("%s: the file states %q but %s says %q (%s)", c.Field, c.FileValue, sourceName(c.Source), c.DeclaredValue, c.Reason)
}

// Validate checks one entry: a known field name (or a labels./metadata.
// name) and a value of the field's kind.
func Validate(e Entry) error {
	if err := checkName(e.Field); err != nil {
		return err
	}
	_, err := canonical(e.Field, e.Value)
	return err
}

// ParseSet reads one --set key=value into an entry from the command line,
// validated like a manifest value.
func ParseSet(s string) (Entry, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return Entry{}, fmt.Errorf("--set %q: want key=value", s)
	}
	k = strings.TrimSpace(k)
	if k == "" {
		return Entry{}, fmt.Errorf("--set %q: no field name before =", s)
	}
	if err := checkName(k); err != nil {
		return Entry{}, fmt.Errorf("--set %q: %w", s, err)
	}
	val, err := canonical(k, v)
	if err != nil {
		return Entry{}, fmt.Errorf("--set %q: %w", s, err)
	}
	return Entry{Field: k, Value: val, Source: FromCLI}, nil
}

// Missing lists the required fields an effective record lacks, sorted. When
// neither workload.concurrency nor workload.request_rate is known it lists
// RateOrConcurrency. An empty list means the provenance is complete.
func Missing(eff map[string]string) []string {
	missing := func(f Field) bool { return f.Required && strings.TrimSpace(eff[f.Name]) == "" }
	noRate := strings.TrimSpace(eff["workload.concurrency"]) == "" && strings.TrimSpace(eff["workload.request_rate"]) == ""
	// Counted first, so the list is made once (it grew field by field for
	// every run a site or an audit reads).
	n := 0
	for _, f := range Fields {
		if missing(f) {
			n++
		}
	}
	if noRate {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for _, f := range Fields {
		if missing(f) {
			out = append(out, f.Name)
		}
	}
	if noRate {
		out = append(out, RateOrConcurrency)
	}
	sort.Strings(out)
	return out
}

// Contradictions compares what the raw file states (FromFile entries) with
// the declared value that takes effect for the same field (the last --set,
// else the last manifest entry). Only the effective declaration is checked:
// a --set that corrects a stale manifest value is not a contradiction. The
// result is sorted by field.
func Contradictions(r Record) []Contradiction {
	fileVals := map[string][]string{}
	declared := map[string]Entry{}
	for _, e := range r {
		if e.Source == FromFile {
			v := strings.TrimSpace(e.Value)
			if !slices.Contains(fileVals[e.Field], v) {
				fileVals[e.Field] = append(fileVals[e.Field], v)
			}
			continue
		}
		if old, ok := declared[e.Field]; !ok || precedence[e.Source] >= precedence[old.Source] {
			declared[e.Field] = e
		}
	}
	var out []Contradiction
	fields := make([]string, 0, len(fileVals))
	for f := range fileVals {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		d, ok := declared[f]
		if !ok || (d.Source == FromAmend && d.Value == "") {
			continue
		}
		dv := strings.TrimSpace(d.Value)
		for _, fv := range fileVals[f] {
			if why := disagree(f, fv, dv); why != "" {
				out = append(out, Contradiction{
					Field: f, FileValue: fv, DeclaredValue: dv, Source: d.Source, Reason: why,
				})
			}
		}
	}

	// The file's model id must name the declared repository, unless the
	// user declared that same model id: that says "this served name or
	// path is that checkpoint", which the file cannot show by itself.
	repo, hasRepo := declared["checkpoint.repository"]
	declID, hasDeclID := declared["checkpoint.model_id"]
	if hasRepo {
		for _, id := range fileVals["checkpoint.model_id"] {
			if hasDeclID && strings.TrimSpace(declID.Value) == id {
				continue
			}
			rv := strings.TrimSpace(repo.Value)
			if !modelMatchesRepo(id, rv) {
				// Reported on the file's field; DeclaredValue is the repository.
				out = append(out, Contradiction{
					Field: "checkpoint.model_id", FileValue: id, DeclaredValue: rv, Source: repo.Source,
					Reason: fmt.Sprintf("the model id does not name the declared checkpoint.repository: neither equal "+
						"nor the same last path element; if it is a served name for that checkpoint, "+
						"declare checkpoint.model_id: %q", id),
				})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func sourceName(s Source) string {
	switch s {
	case FromCLI:
		return "--set"
	case FromManifest:
		return "the manifest"
	case FromAmend:
		return "the correction"
	}
	return string(s)
}

// Fields whose values are numbers: "64" and "64.0" mean the same.
var numericFields = map[string]bool{
	"hardware.gpu_count": true, "hardware.gpu_memory_gb": true,
	"workload.request_count": true, "workload.concurrency": true, "workload.request_rate": true,
	"workload.burstiness": true, "workload.temperature": true, "workload.seed": true,
	"repeat": true,
}

var boolFields = map[string]bool{"synthetic": true, "workload.thinking": true, "workload.fixed_output": true}

// Fields whose spelling is not significant.
var foldFields = map[string]bool{"measurement.client": true, "measurement.clock": true, "role": true, "runtime.engine": true}

// disagree returns why a file value and a declared value of field mean
// different things, or "" when they agree.
func disagree(field, fv, dv string) string {
	if fv == dv {
		return ""
	}
	switch {
	case numericFields[field]:
		a, okA := number(fv)
		b, okB := number(dv)
		if okA && okB {
			if numbersAgree(a, b, fv, dv) {
				return ""
			}
			return "different numbers"
		}
	case boolFields[field]:
		a, errA := strconv.ParseBool(fv)
		b, errB := strconv.ParseBool(dv)
		if errA == nil && errB == nil {
			if a == b {
				return ""
			}
			return "different truth values"
		}
	case foldFields[field]:
		if strings.EqualFold(fv, dv) {
			return ""
		}
	case field == "measurement.date":
		a, okA := civilDay(fv)
		b, okB := civilDay(dv)
		if okA && okB {
			d := a.Sub(b).Hours() / 24
			if math.Abs(d) <= 1 {
				return "" // the file's date is client local time without a zone
			}
			return fmt.Sprintf("%.0f days apart; one day either way is allowed for the time zone", math.Abs(d))
		}
	}
	return "different values"
}

// number parses a value as a number, taking "inf" and "Infinity" (vLLM and
// JSON spellings of an unlimited rate) as +Inf.
func number(s string) (float64, bool) {
	switch strings.ToLower(strings.TrimPrefix(s, "+")) {
	case "inf", "infinity", ".inf":
		return math.Inf(1), true
	}
	if strings.ContainsAny(s, "xXpP_") || strings.EqualFold(s, "nan") {
		return 0, false // no hex or digit separators, not NaN: plain decimals only
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// numbersAgree compares two numbers allowing for the rounding of the less
// precise text: a console block prints 1.50 for a rate of 1.5 and 0.33 for
// 1/3, so a value written with d decimals agrees with anything within half
// a unit of its last decimal.
func numbersAgree(a, b float64, as, bs string) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	tol := max(roundingTol(as), roundingTol(bs))
	return math.Abs(a-b) <= tol+1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func roundingTol(s string) float64 {
	if strings.ContainsAny(s, "eE") {
		return 0
	}
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return 0
	}
	return 0.5 * math.Pow(10, -float64(len(s)-i-1))
}

// civilDay reads the calendar day of a date or timestamp as written (in its
// own zone), in the layouts dates take in result files and manifests.
func civilDay(s string) (time.Time, bool) {
	layouts := []string{
		"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04:05Z07:00", "20060102-150405", "20060102",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), true
		}
	}
	// Epoch seconds, as guidellm and llmperf record them.
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 1e8 && f < 1e11 {
		t := time.Unix(int64(f), 0).UTC()
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), true
	}
	return time.Time{}, false
}

// modelMatchesRepo reports whether a client's model id (a repository id, a
// served name or a local path) names the repository.
func modelMatchesRepo(id, repo string) bool {
	if strings.EqualFold(id, repo) {
		return true
	}
	a, b := lastElem(id), lastElem(repo)
	return a != "" && strings.EqualFold(a, b)
}

// lastElem is the model name at the end of a path or repository id. A
// Hugging Face cache path (.../models--Org--Name/snapshots/<rev>) ends in a
// revision, so the name is taken from its models-- element instead.
func lastElem(s string) string {
	s = strings.Trim(strings.ReplaceAll(s, `\`, "/"), "/")
	parts := strings.Split(s, "/")
	for _, p := range parts {
		if rest, ok := strings.CutPrefix(p, "models--"); ok {
			if i := strings.LastIndex(rest, "--"); i >= 0 {
				return rest[i+2:]
			}
			return rest
		}
	}
	return parts[len(parts)-1]
}

// checkName accepts a schema field or a name under a free prefix.
func checkName(name string) error {
	if _, ok := Lookup(name); ok {
		return nil
	}
	for _, p := range FreePrefixes {
		if rest, ok := strings.CutPrefix(name, p); ok {
			if rest == "" || strings.ContainsAny(rest, " \t\n") {
				return fmt.Errorf("bad field name %q: want %s<key> with no spaces", name, p)
			}
			return nil
		}
		if name+"." == p {
			return fmt.Errorf("%s needs a key: %s<key>", name, p)
		}
	}
	if s := suggestField(name); s != "" {
		return fmt.Errorf("unknown field %q; did you mean %q?", name, s)
	}
	return fmt.Errorf("unknown field %q (see docs/provenance.md for the fields; free-form names go under labels. or metadata.)", name)
}

// suggestField finds the known name a misspelt one was meant to be: a field
// with the same last element ("gpu_model" for hardware.gpu_model), else the
// nearest by edit distance.
func suggestField(name string) string {
	last := name[strings.LastIndexByte(name, '.')+1:]
	var same []string
	for _, f := range Fields {
		if f.Name[strings.LastIndexByte(f.Name, '.')+1:] == last {
			same = append(same, f.Name)
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	names := make([]string, 0, len(Fields))
	for _, f := range Fields {
		names = append(names, f.Name)
	}
	return suggest.Nearest(name, names)
}

var (
	replicaRE = regexp.MustCompile(`^(\d+)\s*/\s*(\d+)$`)
	digestRE  = regexp.MustCompile(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,}$`)
)

// canonical validates a declared value and returns its canonical text:
// trimmed, booleans and enumerations in lower case, whole numbers in
// decimal, an unlimited rate as "inf".
func canonical(field, value string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", fmt.Errorf("%s: empty value (leave the field out if it is unknown)", field)
	}
	bad := func(want string) (string, error) {
		return "", fmt.Errorf("%s: %q is not %s", field, v, want)
	}
	switch field {
	case "hardware.gpu_count", "workload.request_count", "workload.concurrency", "repeat":
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return bad("a positive whole number")
		}
		return strconv.Itoa(n), nil
	case "workload.seed":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad("a whole number")
		}
		return strconv.FormatInt(n, 10), nil
	case "workload.request_rate":
		if f, ok := number(v); ok && math.IsInf(f, 1) {
			return "inf", nil
		}
		if f, ok := number(v); !ok || f <= 0 {
			return bad(`a positive number or "inf"`)
		}
	case "hardware.gpu_memory_gb", "workload.burstiness":
		if f, ok := number(v); !ok || f <= 0 || math.IsInf(f, 0) {
			return bad("a positive number")
		}
	case "workload.temperature":
		if f, ok := number(v); !ok || f < 0 || math.IsInf(f, 0) {
			return bad("a number ≥ 0")
		}
	case "synthetic", "workload.thinking", "workload.fixed_output":
		switch strings.ToLower(v) {
		case "true", "false":
			return strings.ToLower(v), nil
		}
		return bad("true or false")
	case "role":
		if r := strings.ToLower(v); slices.Contains(Roles, r) {
			return r, nil
		}
		return bad("a role (" + strings.Join(Roles, ", ") + ")")
	case "replica":
		m := replicaRE.FindStringSubmatch(v)
		if m == nil {
			return bad(`"k/n" (replica k of n)`)
		}
		k, err1 := strconv.Atoi(m[1])
		n, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || k < 1 || k > n {
			return bad(`"k/n" with 1 ≤ k ≤ n`)
		}
		return fmt.Sprintf("%d/%d", k, n), nil
	case "measurement.date":
		if _, err := time.Parse("2006-01-02", v); err == nil {
			return v, nil
		}
		if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return v, nil
		}
		return bad("a date: YYYY-MM-DD or RFC 3339 (2025-05-13T04:37:51+02:00)")
	case "measurement.clock":
		switch c := strings.ToLower(v); c {
		case "monotonic", "epoch":
			return c, nil
		}
		return bad("monotonic or epoch")
	case "runtime.image_digest":
		if !digestRE.MatchString(v) {
			return bad("an image digest (sha256:<hex>)")
		}
	case "cost.gpu_hour_price":
		if f, ok := number(v); !ok || f <= 0 || math.IsInf(f, 0) {
			return bad("a positive amount (the price of one GPU-hour)")
		}
	case "cost.currency":
		if c := strings.ToUpper(v); currencyRE.MatchString(c) {
			return c, nil
		}
		return bad("an ISO 4217 currency code such as USD")
	case "cost.price_date":
		if _, err := time.Parse("2006-01-02", v); err != nil {
			return bad("the date the price was quoted, YYYY-MM-DD")
		}
	}
	return v, nil
}

// currencyRE is an ISO 4217 code.
var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
