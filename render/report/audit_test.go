package report

import (
	htmltemplate "html/template"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/locales"
)

const (
	hostileScript = `<script>alert(1)</script>`
	hostileImg    = `"><img src=x onerror=alert(1)>`
)

// hostileView is an audit whose every text field a template shows carries
// markup, as a narrative, a file name or a raw file's text could.
func hostileView() *audit.Report {
	return &audit.Report{
		AsOf: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		Findings: []audit.Finding{
			{Check: "claims.unbound", Severity: audit.Warn, File: "narrative/" + hostileImg + ".md", Message: "token " + hostileScript,
				Params: map[string]string{"token": hostileScript, "z" + hostileImg: "`x` | y"}},
			{Check: "integrity.blob_hash", Severity: audit.Fail, Run: "0123456789abcdef0123", File: hostileScript + ".json",
				Message: "hash " + hostileImg, Params: map[string]string{"want": "aa", "got": "bb"}},
			{Check: "integrity.blob_hash", Severity: audit.Fail, Run: "fedcba9876543210", Message: "second"},
			{Check: "provenance.incomplete", Severity: audit.Info, Run: "0123456789ab", Message: "missing hardware.gpu_model"},
			{Check: "no.such_check", Severity: audit.Warn, Message: "a check newer than the catalogue"},
		},
		Checks: []audit.CheckInfo{
			{ID: "integrity.blob_hash", Severities: []string{audit.Fail}, Rule: "rule " + hostileImg},
			{ID: "plausibility.tpot", Severities: []string{audit.Fail}},
			{ID: "claims.unbound", Severities: []string{audit.Warn}},
			{ID: "provenance.incomplete", Severities: []string{audit.Info}},
		},
	}
}

// renderAudit renders one language's audit page with the embedded
// templates, beside a report page whose title is hostile too.
func renderAudit(t *testing.T, v *audit.Report, tag string) (a *auditPage, html, md string) {
	t.Helper()
	p := &page{base: "cs." + tag, Lang: tag, Title: "Title " + hostileScript, DigestText: "digest"}
	for _, s := range []string{"en", "zh", "ja", "es-419"} {
		p.Switcher = append(p.Switcher, link{Tag: s, Name: locales.MustMatch(s).Name(), Current: s == tag})
	}
	r, err := newAuditRenderer(v, "cs", "")
	if err != nil {
		t.Fatal(err)
	}
	a = r.page(p)
	if p.Audit == nil || p.Audit.Href != "cs.audit."+tag+".html" {
		t.Fatalf("report page not linked to its audit page: %+v", p.Audit)
	}
	h, err := r.executeHTML(a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.executeMD(a)
	if err != nil {
		t.Fatal(err)
	}
	return a, string(h), string(m)
}

func TestAuditPageEscapesHostileText(t *testing.T) {
	_, html, md := renderAudit(t, hostileView(), "en")
	for _, bad := range []string{"<script", "<img", "onerror=alert(1)>"} {
		if i := strings.Index(html, bad); i >= 0 {
			t.Errorf("html holds raw %q: ...%s...", bad, html[max(0, i-60):min(len(html), i+60)])
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;"} {
		if !strings.Contains(html, want) {
			t.Errorf("html does not show %q as text", want)
		}
	}
	// Outside code spans, Markdown shows markup escaped; inside them (file
	// names, parameters) it is literal text by Markdown's own rules, and a
	// backtick in a value cannot close the span early.
	noCode := regexp.MustCompile("`` .*? ``|`[^`]*`").ReplaceAllString(md, "")
	if m := regexp.MustCompile(`(^|[^\\])<(script|img)`).FindString(noCode); m != "" {
		t.Errorf("markdown holds raw %q outside code spans:\n%s", m, md)
	}
	if !strings.Contains(md, `token \<script\>alert(1)\</script\>`) {
		t.Errorf("markdown does not show the hostile message escaped:\n%s", md)
	}
	if !strings.Contains(md, "`` z\"><img src=x onerror=alert(1)> = `x` \\| y ``") {
		t.Errorf("markdown parameter with a backtick is not one code span:\n%s", md)
	}
}

func TestAuditPageContent(t *testing.T) {
	v := hostileView()
	for _, tag := range []string{"en", "zh", "ja", "es", "es-419"} {
		l := locales.MustMatch(tag)
		a, html, md := renderAudit(t, v, tag)
		// Two findings of one check: one check failed, two failures.
		verdict := l.T("audit.verdict.fail", "count", 1)
		if a.Verdict != verdict || !strings.Contains(html, `id="verdict-text">`+verdict+`<`) || !strings.Contains(md, "**"+verdict+"**") {
			t.Errorf("%s: verdict %q, want %q", tag, a.Verdict, verdict)
		}
		for sev, n := range map[string]int{"fail": 2, "warn": 2, "info": 1} {
			if !strings.Contains(html, `data-severity="`+sev+`" data-count="`+strconv.Itoa(n)+`"`) {
				t.Errorf("%s: no %s count of %d", tag, sev, n)
			}
			if !strings.Contains(html, l.T("audit.count."+sev, "count", n)) {
				t.Errorf("%s: count text of %s missing", tag, sev)
			}
		}
		// Groups in severity order, each finding with its check's title.
		iFail, iWarn, iInfo := strings.Index(html, `<h2 id="fail">`), strings.Index(html, `<h2 id="warn">`), strings.Index(html, `<h2 id="info">`)
		if iFail < 0 || iWarn < iFail || iInfo < iWarn {
			t.Errorf("%s: severity groups out of order (%d, %d, %d)", tag, iFail, iWarn, iInfo)
		}
		if got := strings.Count(html, `<li class="finding`); got != len(v.Findings) {
			t.Errorf("%s: %d findings shown, want %d", tag, got, len(v.Findings))
		}
		title := l.T("audit.check.integrity.blob_hash")
		if !strings.Contains(html, "<h3>"+title+" <code>integrity.blob_hash</code></h3>") {
			t.Errorf("%s: finding heading lacks the localised title %q", tag, title)
		}
		// Parameters are listed with the language's list separator ("、"
		// beside CJK text, never an ASCII comma).
		if sep := l.T("format.list_sep"); !strings.Contains(md, "`want = aa`"+sep+"`") && !strings.Contains(md, "`got = bb`"+sep+"`") {
			t.Errorf("%s: parameters not joined by %q", tag, sep)
		}
		// A check's rule, the tooltip of its id, is in the page's language;
		// only a rule the catalogue lacks (a newer check) is English, marked.
		rule := l.T("audit.rule.plausibility.tpot")
		if !strings.Contains(html, `<code title="`+htmltemplate.HTMLEscapeString(rule)+`">plausibility.tpot</code>`) {
			t.Errorf("%s: the tpot check's tooltip is not the catalogue's rule %q", tag, rule)
		}
		if en := locales.MustMatch("en").T("audit.rule.plausibility.tpot"); tag != "en" && rule == en {
			t.Errorf("%s: audit.rule.plausibility.tpot is the English sentence", tag)
		}
		// An id the catalogue lacks shows as itself, not as a [!key] marker.
		if strings.Contains(html, "[!") || !strings.Contains(html, "<h3>no.such_check <code>no.such_check</code>") {
			t.Errorf("%s: unknown check id not shown as itself", tag)
		}
		// The message is in the page's language; on other pages than
		// English, the English original follows, marked as English.
		if tag == "en" {
			if !strings.Contains(html, `<dt>`+l.T("audit.field.message")+`</dt><dd class="message">second</dd>`) || strings.Contains(html, `class="original"`) {
				t.Errorf("%s: the English message is not the finding's message", tag)
			}
		} else if !strings.Contains(html, `<dt>`+l.T("audit.original_message")+`</dt><dd class="original" lang="en">second</dd>`) ||
			strings.Contains(html, `<dd class="message">second</dd>`) {
			t.Errorf("%s: message not localised, or its English original not marked lang=en under its label", tag)
		}
		// Markdown labels take the page's colon ("**信息**：", not "**信息**: ").
		if want := "- **" + l.T("audit.field.message") + "**" + l.T("format.colon"); !strings.Contains(md, want) {
			t.Errorf("%s: Markdown finding label not followed by the locale's colon %q", tag, want)
		}
		// Run ids shortened to 12 characters; parameters sorted, key = value.
		if !strings.Contains(html, "<code>0123456789ab</code>") || strings.Contains(html, "0123456789abcdef") {
			t.Errorf("%s: run id not shortened", tag)
		}
		if i, j := strings.Index(html, "<code>got = bb</code>"), strings.Index(html, "<code>want = aa</code>"); i < 0 || j < i {
			t.Errorf("%s: parameters not shown sorted as key = value", tag)
		}
		// Every check that ran is in the table, passed or not, plus the
		// unknown one a finding names.
		for _, id := range []string{"integrity.blob_hash", "plausibility.tpot", "claims.unbound", "provenance.incomplete", "no.such_check"} {
			if !strings.Contains(html, `<tr id="check-`+id+`"`) {
				t.Errorf("%s: checks table lacks %s", tag, id)
			}
		}
		if !strings.Contains(html, `<tr id="check-plausibility.tpot" class="pass"><td>`+l.T("audit.check.plausibility.tpot")+`</td>`) ||
			!strings.Contains(html, `<td class="result">`+l.T("audit.passed")+`</td>`) {
			t.Errorf("%s: a check without findings is not shown as passed", tag)
		}
		// Back to the report, and to the other languages' audit pages.
		if !strings.Contains(html, `id="back" href="cs.`+tag+`.html"`) || !strings.Contains(md, "](cs."+tag+".md)") {
			t.Errorf("%s: no link back to the report", tag)
		}
		for _, o := range []string{"en", "zh", "ja", "es-419"} {
			if o != tag && !strings.Contains(html, `href="cs.audit.`+o+`.html"`) {
				t.Errorf("%s: no link to the %s audit page", tag, o)
			}
		}
		date, err := l.DateString("2026-09-01")
		if err != nil {
			t.Fatal(err)
		}
		if want := l.T("audit.as_of", "date", date); a.AsOf != want || !strings.Contains(html, want) {
			t.Errorf("%s: as-of %q, want %q", tag, a.AsOf, want)
		}
		if strings.Contains(html, "<script") || strings.Contains(html, "http") {
			t.Errorf("%s: the audit page loads or runs something", tag)
		}
	}
}

func TestAuditPagePassAndEmpty(t *testing.T) {
	v := &audit.Report{Checks: []audit.CheckInfo{{ID: "integrity.sqlite", Severities: []string{audit.Fail}}}}
	for _, tag := range []string{"en", "ja"} {
		l := locales.MustMatch(tag)
		a, html, _ := renderAudit(t, v, tag)
		if a.Failed || a.Verdict != l.T("audit.verdict.pass") || !strings.Contains(html, `class="verdict pass"`) {
			t.Errorf("%s: verdict %q for an audit without findings", tag, a.Verdict)
		}
		if !strings.Contains(html, l.T("audit.none")) || !strings.Contains(html, l.T("audit.as_of_none")) {
			t.Errorf("%s: an empty audit does not say so, or claims an as-of date", tag)
		}
	}
}

func TestAuditReportRejectsUnknownSeverity(t *testing.T) {
	v := &audit.Report{Findings: []audit.Finding{{Check: "x.y", Severity: "error", Message: "m"}}}
	if _, err := newAuditRenderer(v, "cs", ""); err == nil || !strings.Contains(err.Error(), `"error"`) {
		t.Errorf("unknown severity: err = %v", err)
	}
}

// TestAuditMessagesLocalised: every message key a finding may carry has a
// sentence in every language, filled from the finding's parameters (a
// placeholder the parameters lack is an error), with field names, metrics,
// dates and the comparison in the page's language; a finding without a
// key gets a sentence naming its check, never the English text alone.
func TestAuditMessagesLocalised(t *testing.T) {
	t.Parallel()
	stated := map[string]string{"metric": "tpot.mean", "stated": "0.02", "recomputed": "0.03", "unit": "s", "tolerance": "0.001",
		"tolerance_basis": "relative 1e-3", "definition": "mean of (E2E − TTFT) / (output − 1)", "basis": "records"}
	definition := maps.Clone(stated)
	maps.Copy(definition, map[string]string{"our_definition": "a", "tool_definition": "b", "difference": "0.01", "difference_pct": "50", "tool_value": "0.02"})
	params := map[string]map[string]string{
		audit.MsgUnbound:              {"line": "37", "token": "1.1", "field": "narrative.zh", "lang": "zh"},
		audit.MsgUnboundNoKind:        {"line": "3", "token": "5 ms", "kind": "ms"},
		audit.MsgUnboundEquals:        {"line": "4", "token": "132%", "equals": "tuning.pct", "binding": "tuning.pct.unsigned"},
		audit.MsgClaimsText:           {"line": "5", "token": "135%", "nearest": "tuning.pct", "shown": "+131.9%"},
		audit.MsgConfoundedHidden:     {"comparison": "tuning", "confounders": "hardware.node,runtime.version", "metric": "output_throughput", "pct": "+8.17%"},
		audit.MsgConfoundedDisclosed:  {"comparison": "tuning", "confounders": "hardware.node", "metric": "output_throughput", "pct": "+8.17%"},
		audit.MsgIntendedUnchanged:    {"comparison": "tuning", "intended_unchanged": "runtime.server_args", "metric": "output_throughput", "pct": "+1%"},
		audit.MsgPercentileMethods:    {"comparison": "tuning", "baseline_method": "linear", "candidate_method": "nearest-rank"},
		audit.MsgClocksDiffer:         {"comparison": "tuning", "clocks": "differ"},
		audit.MsgReferenceNotVisible:  {"reference": "ref-1", "source": "https://example.org/", "captured": "2026-08-17", "checked": "2026-08-20"},
		audit.CheckNonStreamed:        {"equal": "190", "requests": "200"},
		audit.CheckOutputLength:       {"short": "3", "completed": "200", "requested": "256"},
		audit.CheckSuccessRate:        {"completed": "90", "failed": "10", "rate": "0.9"},
		audit.CheckCorrected:          {"field": "hardware.node", "value": "x"},
		audit.CheckDeclaredMeasured:   {"field": "workload.concurrency", "declared": "64", "measured": "32"},
		audit.CheckProvenanceComplete: {"missing": "hardware.gpu_model,runtime.version"},
		audit.MsgReferenceStale:       {"reference": "ref-1", "source": "https://example.org/", "checked": "2026-01-02", "age_days": "200", "max_age_days": "180"},
		// The checks whose messages read more than one way (audit/messages.go).
		audit.MsgSQLite:                   {"pragma": "integrity_check"},
		audit.MsgChainBroken:              {"kind": "", "ref": ""},
		audit.MsgChainChanged:             {"kind": "run", "ref": "ab12"},
		audit.MsgChainMissing:             {"kind": "blob", "ref": "ab12"},
		audit.MsgChainUnrecorded:          {"kind": "run", "ref": "ab12"},
		audit.MsgChainTriggers:            {"kind": "", "ref": "runs_no_update"},
		audit.MsgChainPublishable:         {"kind": "run", "ref": "ab12"},
		audit.MsgChainUnstarted:           {"kind": "", "ref": ""},
		audit.MsgBlobHash:                 {"blob": "ab12"},
		audit.MsgBlobHashCompanion:        {"blob": "ab12", "format": "guidellm", "companion": "true"},
		audit.MsgRecordsParse:             {"blob": "ab12", "format": "vllm"},
		audit.MsgRecordsNoRun:             {"blob": "ab12", "ordinal": "2"},
		audit.MsgRecordsCompanionParse:    {"blob": "ab12", "format": "guidellm", "companion": "true"},
		audit.MsgRecordsCompanionNoRun:    {"blob": "ab12", "format": "guidellm", "companion": "true"},
		audit.MsgRecordsCompanionMismatch: {"blob": "ab12", "format": "guidellm", "companion": "true"},
		audit.MsgRecordsDiffer:            {"blob": "ab12", "field": "request 3 TTFT", "stored": "0.5", "raw": "0.6", "request": "3"},
		audit.MsgRecordsPackUnreadable:    {"error": "not a packed list of requests: ends early"},
		audit.MsgRecordsPackCount:         {"packed": "30000", "archived": "40000"},
		audit.MsgRecordsPackDiffer:        {"idx": "5", "field": "ttft"},
		audit.MsgStated:                   stated,
		audit.MsgDefinitionAgrees:         definition,
		audit.MsgDefinitionBounded:        definition,
		audit.MsgWindowAgrees:             {"metric": "duration", "stated": "20", "recomputed": "21", "unit": "s", "difference": "-1", "our_definition": "a", "tool_definition": "b", "window_start": "1", "window_end": "21"},
		audit.MsgWindowBounded:            {"metric": "duration", "stated": "20", "recomputed": "21", "unit": "s", "difference": "-1", "our_definition": "a", "tool_definition": "b", "max_latency": "3"},
		audit.MsgTPOT:                     stated,
		audit.MsgDurationWindow:           {"stated": "20", "window": "21"},
		audit.MsgDurationThroughput:       {"stated": "100", "recomputed": "90", "definition": "total_output_tokens / duration", "tolerance": "0.1"},
		audit.MsgImpossibleStated:         {"metric": "ttft.mean", "key": "mean_ttft_ms", "value": "-1", "unit": "s", "reason": "negative"},
		audit.MsgPeakOverTotal:            {"peak": "500", "total_output_tokens": "400", "total_basis": "stated total_output_tokens"},
		audit.MsgPeakUnderMean:            {"peak": "50", "mean": "100", "mean_basis": "stated output throughput", "floor": "99"},
		audit.MsgNonFinite:                {"metric": "ttft.mean", "value": "NaN"},
		audit.MsgNonFiniteExtra:           {"key": "mean_itl_ms", "value": "NaN"},
		audit.MsgZeroStated:               {"metric": "tpot.mean", "completed": "100"},
		audit.MsgZeroRecords:              {"series": "TTFT", "requests": "100"},
		audit.MsgOfferedRate:              {"achieved": "5", "offered": "10", "basis": "completed / window"},
		audit.MsgOfferedRateConcurrency:   {"achieved": "5", "offered": "10", "basis": "completed / window", "concurrency": "8"},
		audit.MsgEngineNamed:              {"field": "runtime.server_args", "named": "sglang", "engine": "vllm", "value": "python -m sglang"},
		audit.MsgEngineBackend:            {"field": "measurement.backend", "named": "sglang", "engine": "vllm"},
		audit.MsgEngineImage:              {"field": "runtime.image", "image_version": "0.9.0", "version": "0.10.0"},
		audit.MsgEngineTextUnused:         {"field": "narrative.zh", "lang": "zh", "line": "4", "engine": "sglang", "used": "vllm"},
		audit.MsgEngineTextVersion:        {"field": "narrative.zh", "lang": "zh", "line": "4", "engine": "vllm", "used": "vllm", "version": "0.9", "versions": "0.25.1"},
		audit.MsgServerVersions:           {"servers": "a 0.9, b 0.10", "versions": "0.9, 0.10"},
		audit.MsgRecomputedEvent:          {"event": "7"},
		audit.MsgRecomputedManifest:       {"field": "manifest", "event": "7", "blob": "ab12"},
		audit.MsgRecomputedManifestP:      {"field": "manifest", "event": "7", "blob": "ab12"},
		audit.MsgRecomputedCorrection:     {"field": "hardware.node", "stored": `"a"`, "recomputed": `"b"`, "correction": "2"},
		audit.MsgRecomputedState:          {"field": "hardware.node", "source": "manifest", "stored": `"a"`, "recomputed": `"b"`},
		audit.MsgRecomputedListed:         {"field": "runs.engine", "stored": "vllm", "recomputed": "sglang"},
		audit.MsgRecomputedPublish:        {"field": "publishable", "stored": "true", "recomputed": "false"},
		audit.MsgLoadBound:                {"offered": "10", "achieved_min": "9.9", "metric": "output_throughput"},
		audit.MsgClaimUnknownFigure:       {"claim": "0", "figure": "tuning.pctx", "stated": "132", "unit": "%", "lang": "en", "known": "tuning.pct"},
		audit.MsgClaimDate:                {"claim": "0", "figure": "captured", "stated": "1", "unit": "", "lang": "en", "definition": "d"},
		audit.MsgClaimUnit:                {"claim": "0", "figure": "tuning.pct", "stated": "132", "unit": "ms", "lang": "en", "definition": "d", "figure_unit": "%"},
		audit.MsgClaimValue:               {"claim": "0", "figure": "tuning.pct", "stated": "135", "unit": "%", "lang": "en", "definition": "d", "decimals": "0", "computed": "131.9", "shown": "+132%"},
	}
	for _, key := range audit.MessageKeys {
		if _, ok := params[key]; !ok {
			t.Errorf("message key %s has no parameters in this test", key)
		}
	}
	label := func(n string) string { return "<" + n + " label>" }
	for _, tag := range []string{"zh", "ja", "es", "es-419"} {
		l := locales.MustMatch(tag)
		for _, key := range audit.MessageKeys {
			f := audit.Finding{Check: "comparison.confounded", File: "run.json", Message: "English text", Params: params[key], MessageKey: key}
			got, own := auditMessage(l, f, label)
			if !own || got == f.Message || strings.Contains(got, "{") && !strings.Contains(got, "{{") || strings.Contains(got, "[!") {
				t.Errorf("%s: %s rendered as %q", tag, key, got)
			}
			if c := params[key]["comparison"]; c != "" && !strings.Contains(got, label(c)) {
				t.Errorf("%s: %s does not name the comparison by its label: %q", tag, key, got)
			}
			for _, raw := range []string{"hardware.node", "output_throughput", "2026-08-17", "runtime.server_args"} {
				if strings.Contains(got, raw) {
					t.Errorf("%s: %s shows the machine text %q: %q", tag, key, raw, got)
				}
			}
		}
		got, own := auditMessage(l, audit.Finding{Check: "plausibility.tpot", Message: "English text"}, label)
		if own || !strings.Contains(got, l.T("audit.check.plausibility.tpot")) {
			t.Errorf("%s: a finding without a key reads %q", tag, got)
		}
	}
	// Measured values in the page's digits (a decimal comma in es-AR), and
	// what the hash chain links by its name in the language.
	ar := locales.MustMatch("es-AR")
	if got, _ := auditMessage(ar, audit.Finding{Check: audit.CheckStated, Params: params[audit.MsgStated], MessageKey: audit.MsgStated}, label); !strings.Contains(got, "0,02 s") || strings.Contains(got, "0.02") {
		t.Errorf("es-AR: %q, want the stated 0.02 as 0,02", got)
	}
	zh := locales.MustMatch("zh")
	if got, _ := auditMessage(zh, audit.Finding{Check: "integrity.changed", Params: params[audit.MsgChainChanged], MessageKey: audit.MsgChainChanged}, label); !strings.Contains(got, zh.T("audit.msg.kind.run")) || strings.Contains(got, "run ") {
		t.Errorf("zh: %q, want the chain's run named in Chinese", got)
	}
	// Counts of requests grouped as the page groups numbers.
	if got, _ := auditMessage(zh, audit.Finding{Check: audit.CheckRecords, Params: params[audit.MsgRecordsPackCount], MessageKey: audit.MsgRecordsPackCount}, label); !strings.Contains(got, "30,000 个请求") || !strings.Contains(got, "40,000 个") {
		t.Errorf("zh: %q, want the pack's 30,000 requests and the archive's 40,000 grouped", got)
	}
	en := locales.MustMatch("en")
	// The English catalogue has every sentence too, with no placeholder
	// the finding's parameters lack (the CLI's text is the page's, but a
	// reader of the catalogue reviews them side by side).
	for _, key := range audit.MessageKeys {
		args := locales.Args{"file": "run.json"}
		for k, v := range params[key] {
			args[k] = v
		}
		if _, err := en.MessageSubset("audit.msg."+key, args); err != nil {
			t.Errorf("en: %v", err)
		}
	}
	if got, _ := auditMessage(en, audit.Finding{Check: "x", Message: "English text", MessageKey: audit.MsgUnbound, Params: params[audit.MsgUnbound]}, label); got != "English text" {
		t.Errorf("en: %q, want the CLI's English text", got)
	}
}

// TestAuditMessagesReadAsTheReport: a finding's sentence writes what the
// report writes (issue 18, one term per language): units as the language
// does (token/s, トークン/秒, tokens/s; a rate of 1 in the singular in
// Spanish), engines by name, a text of the spec by what it is, versions
// once each, and measured values to the digits a reader needs — six
// significant ones, more where two values would otherwise read alike.
func TestAuditMessagesReadAsTheReport(t *testing.T) {
	label := func(n string) string { return n }
	find := func(key string, params map[string]string) audit.Finding {
		return audit.Finding{Check: "x", Message: "English text", MessageKey: key, Params: params}
	}
	stated := find(audit.MsgStated, map[string]string{"metric": "total_token_throughput", "stated": "2973.42", "recomputed": "2800.4372906587273",
		"unit": "tok/s", "tolerance": "0.00297342", "basis": "b", "definition": "d", "tolerance_basis": "relative 1e-06"})
	close := find(audit.MsgStated, map[string]string{"metric": "output_throughput", "stated": "17961.2", "recomputed": "17961.2181",
		"unit": "tok/s", "tolerance": "0.0179612", "basis": "b", "definition": "d", "tolerance_basis": "relative 1e-06"})
	peak := find(audit.MsgPeakOverTotal, map[string]string{"peak": "500", "total_output_tokens": "400", "total_basis": "stated total_output_tokens"})
	load := find(audit.MsgLoadBound, map[string]string{"offered": "1", "achieved_min": "1.0127607859023744", "metric": "output_throughput"})
	named := find(audit.MsgEngineNamed, map[string]string{"field": "runtime.server_args", "named": "sglang", "engine": "vllm", "value": "x"})
	version := find(audit.MsgEngineTextVersion, map[string]string{"field": "narrative.en", "lang": "en", "line": "11", "engine": "vllm",
		"used": "vllm", "version": "0.9.2", "versions": "0.11.0,0.11.0,0.11.0,0.10.1"})
	engineRE := regexp.MustCompile(`\b(vllm|sglang)\b`)
	for _, tag := range []string{"zh", "ja", "es-419"} {
		l := locales.MustMatch(tag)
		msg := func(f audit.Finding) string {
			got, own := auditMessage(l, f, label)
			if !own {
				t.Fatalf("%s: %s has no sentence", tag, f.MessageKey)
			}
			return got
		}
		for _, f := range []audit.Finding{stated, close, peak} {
			got := msg(f)
			if strings.Contains(got, "tok/s") || !strings.Contains(got, l.Cells().UnitLabel("tok/s")) {
				t.Errorf("%s: %q, want the unit as the report writes it (%s)", tag, got, l.Cells().UnitLabel("tok/s"))
			}
		}
		// Japanese runs a unit of kana into its particle (トークン/秒で).
		if got := msg(stated); tag == "ja" && strings.Contains(got, l.Cells().UnitLabel("tok/s")+" ") {
			t.Errorf("ja: %q, a space between the unit and its particle", got)
		}
		if got := msg(stated); !strings.Contains(got, l.Number(2800.44, 2)) || strings.Contains(got, "2800.437") || strings.Contains(got, "2,800.437") {
			t.Errorf("%s: %q, want the recomputed value to six significant digits", tag, got)
		}
		if got := msg(close); !strings.Contains(got, l.Number(17961.2, 1)+" ") || !strings.Contains(got, l.Number(17961.22, 2)) {
			t.Errorf("%s: %q, want the stated and recomputed values apart (17,961.2 and 17,961.22)", tag, got)
		}
		got := msg(load)
		if strings.Contains(got, "req/s") || !strings.Contains(got, l.Quantity(1, -1, "req/s")) || !strings.Contains(got, l.Quantity(1.01276, -1, "req/s")) {
			t.Errorf("%s: %q, want the rates with their unit (%s)", tag, got, l.Quantity(1, -1, "req/s"))
		}
		for _, f := range []audit.Finding{named, version} {
			if got := msg(f); engineRE.MatchString(got) || !strings.Contains(got, "vLLM") {
				t.Errorf("%s: %q, want the engines by name (vLLM, SGLang)", tag, got)
			}
		}
		got = msg(version)
		if strings.Contains(got, "narrative.en") || !strings.Contains(got, l.T("audit.text.narrative", "lang", "en")) || strings.Count(got, "0.11.0") != 1 {
			t.Errorf("%s: %q, want the narrative named in the language and each version once", tag, got)
		}
	}
	if got, _ := auditMessage(locales.MustMatch("es-419"), load, label); !strings.Contains(got, "1 solicitud/s") {
		t.Errorf("es-419: %q, want a rate of 1 in the singular", got)
	}
}

// TestPercentileNames: a chart's caption names the percentiles it marks
// as the language's tables name them (zh P50, as "TTFT P99"; en p50).
func TestPercentileNames(t *testing.T) {
	for tag, want := range map[string]string{"zh": "p50 p90 p99.9", "en": "p50 p90 p99.9", "ja": "p50 p90 p99.9"} {
		l := locales.MustMatch(tag)
		if got := strings.Join(percentileNames(l, []float64{50, 90, 99.9}), " "); got != want {
			t.Errorf("%s: %q, want %q", tag, got, want)
		}
		if p99 := l.Figure("ttft.p99"); !strings.Contains(p99, percentileNames(l, []float64{99})[0]) {
			t.Errorf("%s: the table says %q, the caption %q", tag, p99, percentileNames(l, []float64{99})[0])
		}
	}
}
