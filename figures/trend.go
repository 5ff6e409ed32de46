package figures

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SeriesField is the provenance field that puts runs in a named series
// whatever their other fields (a spec or manifest names it).
const SeriesField = "labels.series"

// TrendExcluded are the provenance fields runs of one configuration may
// differ in (definition "trend.outside_range"): the date and the engine
// version, and the container image, whose tag and digest name the version.
var TrendExcluded = []string{"measurement.date", "runtime.version", "runtime.image", "runtime.image_digest"}

// SeriesKey is the configuration a run belongs to: "series:NAME" for a run
// with SeriesField; otherwise every ComparisonFields value but
// TrendExcluded, in field order (numbers compared as numbers, names
// without regard to case, as ProvenanceDiff does).
func SeriesKey(eff map[string]string) string {
	if s := strings.TrimSpace(eff[SeriesField]); s != "" {
		return "series:" + s
	}
	// Written in a buffer on the stack and copied once: a site makes the
	// key of every run.
	var buf [1024]byte
	b := buf[:0]
	for _, f := range ComparisonFields {
		if slices.Contains(TrendExcluded, f) {
			continue
		}
		v := strings.TrimSpace(eff[f])
		if numericFields[f] && v != "" { // "" is no number (and its error an allocation)
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				v = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}
		if foldFields[f] {
			v = strings.ToLower(v)
		}
		b = append(append(b, f...), '=')
		b = append(strconv.AppendQuote(b, v), '\n')
	}
	return string(b)
}

// TrendRun is one run of an archive for trend grouping.
type TrendRun struct {
	RunID string `json:"run_id"`
	// Date is measurement.date (YYYY-MM-DD or RFC 3339: ordered as text,
	// which orders both); EngineVersion is runtime.version.
	Date          string  `json:"date"`
	EngineVersion string  `json:"engine_version"`
	Value         float64 `json:"value"`
	// Provenance is the run's effective provenance (SeriesKey groups by it).
	Provenance map[string]string `json:"-"`
}

// TrendRule: a run is flagged when its value lies outside the min–max of
// the previous Window runs of its series (0: DefaultTrendWindow); a run
// with fewer previous runs is not judged.
type TrendRule struct {
	Window int `json:"window"`
}

// DefaultTrendWindow is the number of previous runs a run is judged
// against.
const DefaultTrendWindow = 3

// TrendPoint is one run of a series in order, judged by the rule.
type TrendPoint struct {
	TrendRun
	// Judged: the run had Window previous runs; Min and Max are theirs.
	Judged bool    `json:"judged"`
	Min    float64 `json:"min,omitempty"`
	Max    float64 `json:"max,omitempty"`
	// Flagged: the value is outside [Min, Max]. Better says which way for
	// the metric (nil when it has none).
	Flagged bool  `json:"flagged"`
	Better  *bool `json:"better,omitempty"`
}

// TrendSeries is the runs of one configuration, ordered by date then
// engine version, with the changes beyond their own spread flagged.
type TrendSeries struct {
	Key    string       `json:"key"`
	Metric string       `json:"metric"`
	Rule   TrendRule    `json:"rule"`
	Points []TrendPoint `json:"points"`
}

// Flagged lists the indices of the flagged points.
func (s TrendSeries) Flagged() []int {
	var out []int
	for i, p := range s.Points {
		if p.Flagged {
			out = append(out, i)
		}
	}
	return out
}

// Trends groups runs by SeriesKey and judges each series of two runs or
// more for metric (its direction from the Catalogue). Runs without a value
// (NaN) are left out. Series are ordered by key.
func Trends(runs []TrendRun, metric string, rule TrendRule) []TrendSeries {
	if rule.Window <= 0 {
		rule.Window = DefaultTrendWindow
	}
	dir := DirectionOf(metric)
	by := map[string][]TrendRun{}
	for _, r := range runs {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			continue
		}
		k := SeriesKey(r.Provenance)
		by[k] = append(by[k], r)
	}
	var out []TrendSeries
	var order []int32
	for _, k := range slices.Sorted(maps.Keys(by)) {
		rs := by[k]
		if len(rs) < 2 {
			continue
		}
		// Sorted by index, stably: the order the runs themselves sorted so
		// would take, without moving them (a site sorts 10,000 runs).
		// The date decides first, and only a tie compares the versions.
		order = order[:0]
		for i := range rs {
			order = append(order, int32(i))
		}
		slices.SortStableFunc(order, func(i, j int32) int {
			a, b := &rs[i], &rs[j]
			if c := strings.Compare(a.Date, b.Date); c != 0 {
				return c
			}
			return cmp.Or(CompareVersions(a.EngineVersion, b.EngineVersion), strings.Compare(a.RunID, b.RunID))
		})
		s := TrendSeries{Key: k, Metric: metric, Rule: rule, Points: make([]TrendPoint, 0, len(rs))}
		for i, o := range order {
			r := rs[o]
			p := TrendPoint{TrendRun: r}
			if i >= rule.Window {
				p.Judged, p.Min, p.Max = true, math.Inf(1), math.Inf(-1)
				for _, q := range order[i-rule.Window : i] {
					p.Min, p.Max = math.Min(p.Min, rs[q].Value), math.Max(p.Max, rs[q].Value)
				}
				if r.Value < p.Min || r.Value > p.Max {
					p.Flagged = true
					ref := p.Max
					if r.Value < p.Min {
						ref = p.Min
					}
					p.Better = Better(ref, r.Value, dir)
				}
			}
			s.Points = append(s.Points, p)
		}
		out = append(out, s)
	}
	return out
}

// CompareVersions orders engine versions: numeric dot-separated parts as
// numbers ("0.10.1" after "0.9.2"), a leading "v" ignored, anything else
// as text; "" first. The parts are the runs of text between '.', '-' and
// '+' (strings.FieldsFunc's, empty ones skipped), read in place: a site
// compares versions tens of thousands of times to order its trends.
func CompareVersions(a, b string) int {
	a, b = strings.TrimPrefix(a, "v"), strings.TrimPrefix(b, "v")
	for {
		var pa, pb string
		pa, a = nextVersionPart(a)
		pb, b = nextVersionPart(b)
		if pa == "" || pb == "" {
			return cmp.Compare(len(pa), len(pb)) // the one with parts left is later
		}
		// Numbers when both parse (the digits are looked at first: a
		// word's failed Atoi was an error allocated).
		c := 2
		if digits(pa) && digits(pb) {
			x, errx := strconv.Atoi(pa)
			y, erry := strconv.Atoi(pb)
			if errx == nil && erry == nil {
				c = cmp.Compare(x, y)
			}
		}
		if c == 2 {
			c = strings.Compare(pa, pb)
		}
		if c != 0 {
			return c
		}
	}
}

// digits says whether s is ASCII digits only: the only parts Atoi can
// read (a sign is a separator).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// nextVersionPart cuts s's first part (see CompareVersions) from the rest;
// "" when there is none.
func nextVersionPart(s string) (part, rest string) {
	i := 0
	for i < len(s) && isVersionSep(rune(s[i])) {
		i++
	}
	j := i
	for j < len(s) && !isVersionSep(rune(s[j])) {
		j++
	}
	return s[i:j], s[j:]
}

func isVersionSep(r rune) bool { return r == '.' || r == '-' || r == '+' }
