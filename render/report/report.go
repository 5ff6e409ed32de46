// Package report renders an evaluated case study (casestudy.Result) as one
// self-contained HTML file and one GitHub-flavoured Markdown file per
// language, with the charts as static SVG files beside the Markdown.
//
// Both formats come from one locale-formatted view model (model.go) through
// the embedded templates of package templates: html/template for HTML
// (escaping everything from the archive, spec and narrative), text/template
// for Markdown with explicit Markdown escaping. Narratives are Markdown per
// language that name figures as {{name}} (Bindings); the HTML gets them
// through goldmark (GFM + CJK, raw HTML not passed through), every bound
// number wrapped in <span class="fig" data-name data-value>. Output depends
// only on the archive, the spec and its narratives: no clock, no map order.
package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/benchledger/benchledger/caveat"
	htmltemplate "html/template"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/internal/csp"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/assets"
	"github.com/benchledger/benchledger/render/svg"
	"github.com/benchledger/benchledger/spec"
)

// Source is what the renderer reads from the archive besides the Result:
// the provenance of the runs behind it and their per-request records (for
// the charts of distributions, trade-offs and timelines). *store.Archive
// satisfies it.
type Source = casestudy.RunReader

// Formats a report can be written in.
const (
	FormatHTML     = "html"
	FormatMarkdown = "md"
)

// ErrPDF is returned for --format pdf, which this build does not offer.
var ErrPDF = errors.New("pdf: not available in this build")

// Options say what to write where.
type Options struct {
	// Langs are locale tags (en, zh, ja, es-419, es); empty means the
	// spec's languages.
	Langs []string
	// Formats are "html" and/or "md"; empty means both.
	Formats []string
	// Out is the output directory (created when missing).
	Out string
	// Templates, when set, is a directory whose report.html.tmpl,
	// report.md.tmpl, audit.html.tmpl and/or audit.md.tmpl replace the
	// embedded defaults.
	Templates string
	// Audit, when set, is the case study's audit: each language then also
	// gets an audit page (<id>.audit.<lang>.html / .md, per format), and
	// the report an audit line linking to it.
	Audit *audit.Report
	// Publication, when set, is the version this rendering is and the
	// case study's recorded history: the page shows its version line and
	// errata. It comes from the archive, never from the clock, so the same
	// archive still gives the same bytes.
	Publication *publish.Publication
	// Redact, when set, redacts every text derived from provenance (the
	// runs' values and reproduce commands, confounders, caveats, audit
	// messages): docs/redaction.md.
	Redact caveat.Redactor
}

// DefaultFormats are written when Options.Formats is empty.
var DefaultFormats = []string{FormatHTML, FormatMarkdown}

// Render writes every requested language and format into opt.Out and
// returns the written paths in order (per language: html, md, that
// language's charts, then the audit page's html and md when opt.Audit is
// set). Every narrative is checked before anything is written.
func Render(ctx context.Context, res *casestudy.Result, src Source, opt Options) ([]string, error) {
	if res == nil || res.Spec == nil {
		return nil, errors.New("report: no evaluated case study")
	}
	formats := opt.Formats
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	doHTML, doMD := false, false
	for _, f := range formats {
		switch f {
		case FormatHTML:
			doHTML = true
		case FormatMarkdown:
			doMD = true
		case "pdf":
			return nil, ErrPDF
		default:
			return nil, fmt.Errorf("report: unknown format %q (known: html, md)", f)
		}
	}
	langs := opt.Langs
	if len(langs) == 0 {
		langs = res.Spec.Languages
		if len(langs) == 0 {
			langs = spec.DefaultLanguages
		}
	}
	locs, err := locales.MatchExact(langs)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	htmlT, mdT, err := loadTemplates(opt.Templates)
	if err != nil {
		return nil, err
	}
	if doHTML {
		// The HTML charts are drawn here, by ECharts under goja (package
		// svg): say so before any file is written.
		if _, err = assets.ECharts(); err != nil {
			return nil, fmt.Errorf("report: charts need make assets: %w", err)
		}
	}
	b, err := newBuilder(ctx, res, src, opt.Redact)
	if err != nil {
		return nil, err
	}
	b.pub = opt.Publication
	// Check every narrative first: an unknown name is an error before any
	// file is written.
	pages := make([]*page, len(locs))
	for i, l := range locs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := b.page(l)
		if err != nil {
			return nil, err
		}
		pages[i] = p
	}
	var auditR *auditRenderer
	auditPages := make([]*auditPage, len(pages))
	if opt.Audit != nil {
		if auditR, err = newAuditRenderer(redactAudit(opt.Audit, opt.Redact, b.redacted), res.Spec.ID, opt.Templates); err != nil {
			return nil, err
		}
		for i, p := range pages {
			auditPages[i] = auditR.page(p)
		}
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	var written []string
	write := func(name string, data []byte) error {
		p := filepath.Join(opt.Out, name)
		if strings.HasSuffix(name, ".html") {
			data = csp.Apply(data, csp.Standalone)
		}
		if err := atomicfile.Write(p, data); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return written, err
		}
		if doHTML {
			if err := inlineCharts(p); err != nil {
				return written, err
			}
			var buf bytes.Buffer
			if err := htmlT.Execute(&buf, p); err != nil {
				return written, fmt.Errorf("report: %s html: %w", p.Lang, err)
			}
			if err := write(p.base+".html", buf.Bytes()); err != nil {
				return written, err
			}
		}
		if doMD {
			var buf bytes.Buffer
			if err := mdT.Execute(&buf, p); err != nil {
				return written, fmt.Errorf("report: %s markdown: %w", p.Lang, err)
			}
			if err := write(p.base+".md", buf.Bytes()); err != nil {
				return written, err
			}
			if err := os.MkdirAll(filepath.Join(opt.Out, "charts"), 0o755); err != nil {
				return written, err
			}
			for _, c := range p.Charts {
				if err := ctx.Err(); err != nil {
					return written, err
				}
				data, err := svg.RenderWith(c.option, chartWidth, chartHeight, svg.Numbers{Key: p.Lang, Format: p.number})
				if err != nil {
					return written, fmt.Errorf("report: chart %s (%s): %w", c.ID, p.Lang, err)
				}
				if err := write(filepath.FromSlash(c.SVG), data); err != nil {
					return written, err
				}
			}
		}
		if a := auditPages[i]; a != nil {
			if doHTML {
				data, err := auditR.executeHTML(a)
				if err != nil {
					return written, err
				}
				if err := write(a.base+".html", data); err != nil {
					return written, err
				}
			}
			if doMD {
				data, err := auditR.executeMD(a)
				if err != nil {
					return written, err
				}
				if err := write(a.base+".md", data); err != nil {
					return written, err
				}
			}
		}
	}
	return written, nil
}

const chartWidth, chartHeight = 800, 450

// inlineCharts draws p's charts as the SVG the Markdown report links (the
// same drawing, kept by svg.RenderWith for the Markdown that follows) and
// places each in the HTML page, which thus carries no charting library
// (docs/casestudy.md, "Charts in the HTML report").
func inlineCharts(p *page) error {
	for i := range p.Charts {
		c := &p.Charts[i]
		data, err := svg.RenderWith(c.option, chartWidth, chartHeight, svg.Numbers{Key: p.Lang, Format: p.number})
		if err != nil {
			return fmt.Errorf("report: chart %s (%s): %w", c.ID, p.Lang, err)
		}
		if data, err = svg.Inline(data, strconv.Itoa(i)); err != nil {
			return fmt.Errorf("report: chart %s (%s): %w", c.ID, p.Lang, err)
		}
		c.Drawn = htmltemplate.HTML(data)
	}
	return nil
}

// mdEscape escapes text from data (labels, values, sentences) so Markdown
// shows it as written: no emphasis, links, HTML or headings from it.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '&', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell is mdEscape for a table cell, with a number kept on the line of
// the unit or counter after it (nbspUnit).
func mdCell(s string) string { return mdEscape(nbspUnit(s)) }

// numberUnitRE is a space between a number (or a percentage) and the word
// after it: "17,961 tokens/s", "15.91 秒", "2,048 条".
var numberUnitRE = regexp.MustCompile(`([0-9%]) (\p{L})`)

// nbspUnit joins a number to its unit with a no-break space (U+00A0), so a
// Markdown viewer never ends a line between them ("15.91 / segundos").
// Markdown has no markup for it (the HTML report keeps each bound number
// and table number in a white-space: nowrap box instead).
func nbspUnit(s string) string { return numberUnitRE.ReplaceAllString(s, "$1\u00a0$2") }

// mdCode writes s as a code span (inside a table the pipe stays escaped).
func mdCode(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ", "|", `\|`).Replace(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || len(fence) > 1 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// redactAudit is rep with every finding's message, file and parameters
// redacted: the provenance values the redactor changed (pairs: old, new,
// ...) replaced wherever quoted, the rest as text (nil r: rep itself).
func redactAudit(rep *audit.Report, r caveat.Redactor, pairs []string) *audit.Report {
	if r == nil || rep == nil {
		return rep
	}
	// Longest first, so a value is not replaced inside a longer one.
	type pair struct{ old, new string }
	ps := make([]pair, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	sort.Slice(ps, func(i, j int) bool { return len(ps[i].old) > len(ps[j].old) })
	var args []string
	for _, p := range ps {
		args = append(args, p.old, p.new)
	}
	known := strings.NewReplacer(args...)
	text := func(s string) string { return r.Text(known.Replace(s)) }
	out := *rep
	out.Findings = make([]audit.Finding, len(rep.Findings))
	for i, f := range rep.Findings {
		f.Message, f.File = text(f.Message), text(f.File)
		if len(f.Params) > 0 {
			ps := make(map[string]string, len(f.Params))
			for k, v := range f.Params {
				ps[k] = text(v)
			}
			f.Params = ps
		}
		out.Findings[i] = f
	}
	return &out
}
