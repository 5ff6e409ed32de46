package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/benchledger/benchledger/internal/escape"
	"github.com/benchledger/benchledger/templates"
)

// The site's templates: layout.html.tmpl wraps every page kind's
// "content"; site.css and site.js are copied as they are.
var pageKinds = []string{"root", "index", "runs", "run", "case", "compare", "diff", "trends", "trend"}

var staticFiles = []string{"site.css", "site.js"}

type templateSet struct {
	layout  string
	sources map[string]string // page kind -> source
	files   map[string][]byte
	// digest covers every template and static file, so a changed
	// template rebuilds every page.
	digest string
	// goRun says that the layout and run templates are those
	// writeRunHTML writes (runhtml.go).
	goRun bool
	// embedded says, by page kind, that its template and the layout are
	// the embedded files (none replaced by --templates).
	embedded map[string]bool

	mu     sync.Mutex
	parsed map[string]map[string]*htmltemplate.Template // language -> kind (and fixed parts) -> template
}

// loadTemplates reads the embedded templates, each replaced by the file of
// the same name in dir when dir has one (templates.SiteFiles, the overlay
// the report's loaders read too), and parses them once to report a mistake
// before any page is made. They are read, not parsed from the overlay
// (ParseFS): each page kind is parsed again per language with its labels
// put in (parse).
func loadTemplates(dir string) (*templateSet, error) {
	fsys := templates.SiteFiles(dir)
	read := func(name string) ([]byte, error) {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("site: template %s: %w", name, err)
		}
		return data, nil
	}
	h := sha256.New()
	ts := &templateSet{sources: map[string]string{}, files: map[string][]byte{}, parsed: map[string]map[string]*htmltemplate.Template{},
		embedded: map[string]bool{}}
	layout, err := read("layout.html.tmpl")
	if err != nil {
		return nil, err
	}
	base := templates.SiteFiles("")
	isEmbedded := func(name string, data []byte) bool {
		orig, err := fs.ReadFile(base, name)
		return err == nil && bytes.Equal(orig, data)
	}
	layoutEmbedded := isEmbedded("layout.html.tmpl", layout)
	ts.layout = string(layout)
	fmt.Fprintf(h, "layout\n%s\n", layout)
	for _, kind := range pageKinds {
		name := kind + ".html.tmpl"
		src, err := read(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\n%s\n", name, src)
		ts.sources[kind] = string(src)
		ts.embedded[kind] = layoutEmbedded && isEmbedded(name, src)
		if _, err := ts.parse(kind, nil, nil); err != nil {
			return nil, err
		}
	}
	for _, name := range staticFiles {
		data, err := read(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\n%s\n", name, data)
		ts.files[name] = data
	}
	ts.digest = hex.EncodeToString(h.Sum(nil))
	ts.goRun = runTemplatesSum(ts.layout, ts.sources["run"]) == runTemplatesDigest
	return ts, nil
}

// labelAction is a template action that only writes a label:
// {{.P.L.key}} or {{$.P.L.key}}.
var labelAction = regexp.MustCompile(`\{\{\s*\$?\.P\.L\.([A-Za-z0-9_]+)\s*\}\}`)

// pageAction is a template action that only writes a part of the page
// that is the same on every page of a kind in a language: {{.P.Root}},
// {{.P.Home}}, {{.P.Lang}}, {{.P.Footer}} (or with $).
var pageAction = regexp.MustCompile(`\{\{\s*\$?\.P\.(Root|Home|Lang|Footer)\s*\}\}`)

// safeToken is what Root, Home and Lang hold ("../", "es-419"): text that
// needs no escaping in any context the templates use it in.
var safeToken = regexp.MustCompile(`^[A-Za-z0-9./-]*$`)

// fixedParts are the values pageAction expands for a page.
type fixedParts struct{ root, home, lang, footer string }

// parse parses a page kind (inside the layout) for one language. Each
// label action is first replaced by the label's text, escaped: a run page
// has dozens, and html/template runs its escaper through reflection for
// each one on every page. The text is the same in every HTML context the
// templates put a label in (element content, quoted attribute). The page's
// fixed parts (links up to the site's folders, the language, the footer)
// are expanded the same way when they are given.
func (ts *templateSet) parse(kind string, labels map[string]string, fixed *fixedParts) (*htmltemplate.Template, error) {
	expand := func(src string) string {
		if labels == nil {
			return src
		}
		src = labelAction.ReplaceAllStringFunc(src, func(action string) string {
			text, ok := labels[labelAction.FindStringSubmatch(action)[1]]
			if !ok {
				return action // left to fail at execution (missingkey=error)
			}
			return strings.ReplaceAll(escape.HTML(text), "{", "&#123;")
		})
		if fixed == nil {
			return src
		}
		return pageAction.ReplaceAllStringFunc(src, func(action string) string {
			switch pageAction.FindStringSubmatch(action)[1] {
			case "Root":
				return fixed.root
			case "Home":
				return fixed.home
			case "Lang":
				return fixed.lang
			}
			return strings.ReplaceAll(escape.HTML(fixed.footer), "{", "&#123;")
		})
	}
	name := kind + ".html.tmpl"
	// A misspelt label is an error, not an empty heading.
	t := htmltemplate.New(kind).Funcs(htmltemplate.FuncMap{"code": codeSpans}).Option("missingkey=error")
	var err error
	if kind != "root" {
		if t, err = t.Parse(expand(ts.layout)); err != nil {
			return nil, fmt.Errorf("site: layout.html.tmpl: %w", err)
		}
	}
	if t, err = t.New(name).Parse(expand(ts.sources[kind])); err != nil {
		return nil, fmt.Errorf("site: %s: %w", name, err)
	}
	return t, nil
}

// execute runs a page kind for a language whose labels are given: the
// layout around its content, or the root page on its own. p is the page's
// shared part (nil for the root page).
func (ts *templateSet) execute(w io.Writer, lang string, labels map[string]string, p *Page, kind string, data any) error {
	var fixed *fixedParts
	key := kind
	if p != nil && safeToken.MatchString(p.Root) && safeToken.MatchString(p.Home) && safeToken.MatchString(p.Lang) {
		fixed = &fixedParts{root: p.Root, home: p.Home, lang: p.Lang, footer: p.Footer}
		key = kind + "\x00" + p.Root + "\x00" + p.Home + "\x00" + p.Lang + "\x00" + p.Footer
	}
	ts.mu.Lock()
	t := ts.parsed[lang][key]
	if t == nil {
		var err error
		if t, err = ts.parse(kind, labels, fixed); err != nil {
			ts.mu.Unlock()
			return err
		}
		if ts.parsed[lang] == nil {
			ts.parsed[lang] = map[string]*htmltemplate.Template{}
		}
		ts.parsed[lang][key] = t
	}
	ts.mu.Unlock()
	name := "layout"
	if kind == "root" {
		name = kind + ".html.tmpl"
	}
	if err := t.ExecuteTemplate(w, name, data); err != nil {
		return fmt.Errorf("site: %s page: %w", kind, err)
	}
	return nil
}

func (ts *templateSet) static(name string) ([]byte, error) {
	data, ok := ts.files[name]
	if !ok {
		return nil, fmt.Errorf("site: no static file %s", name)
	}
	return data, nil
}

// codeSpans shows `backquoted` parts of a catalogue message as code; the
// rest is text, escaped.
func codeSpans(s string) htmltemplate.HTML {
	var sb strings.Builder
	sb.Grow(len(s) + 13*strings.Count(s, "`")/2) // the tags; more if escaped
	for i := 0; ; i++ {
		part, rest, more := strings.Cut(s, "`")
		if i%2 == 1 {
			sb.WriteString("<code>")
			escape.WriteHTMLTo(&sb, part)
			sb.WriteString("</code>")
		} else {
			escape.WriteHTMLTo(&sb, part)
		}
		if !more {
			break
		}
		s = rest
	}
	return htmltemplate.HTML(sb.String())
}

// jsonMarshal encodes v with <, >, & escaped (safe inside a script).
func jsonMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
