package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchledger/benchledger/templates"
)

// The site's templates: layout.html.tmpl wraps every page kind's
// "content"; site.css and site.js are copied as they are.
var pageKinds = []string{"root", "index", "runs", "run", "case", "compare", "diff"}

var staticFiles = []string{"site.css", "site.js"}

type templateSet struct {
	pages map[string]*htmltemplate.Template
	files map[string][]byte
	// digest covers every template and static file, so a changed
	// template rebuilds every page.
	digest string
}

// loadTemplates reads the embedded templates, each replaced by the file of
// the same name in dir when dir has one.
func loadTemplates(dir string) (*templateSet, error) {
	read := func(name string) ([]byte, error) {
		if dir != "" {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil {
				return data, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("site: template %s: %w", name, err)
			}
		}
		return templates.Site.ReadFile("site/" + name)
	}
	h := sha256.New()
	ts := &templateSet{pages: map[string]*htmltemplate.Template{}, files: map[string][]byte{}}
	layout, err := read("layout.html.tmpl")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h, "layout\n%s\n", layout)
	funcs := htmltemplate.FuncMap{"code": codeSpans}
	for _, kind := range pageKinds {
		name := kind + ".html.tmpl"
		src, err := read(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\n%s\n", name, src)
		// A misspelt label is an error, not an empty heading.
		t := htmltemplate.New(kind).Funcs(funcs).Option("missingkey=error")
		if kind != "root" {
			if t, err = t.Parse(string(layout)); err != nil {
				return nil, fmt.Errorf("site: layout.html.tmpl: %w", err)
			}
		}
		if t, err = t.New(name).Parse(string(src)); err != nil {
			return nil, fmt.Errorf("site: %s: %w", name, err)
		}
		ts.pages[kind] = t
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
	return ts, nil
}

// execute runs a page kind: the layout around its content, or the root
// page on its own.
func (ts *templateSet) execute(w io.Writer, kind string, data any) error {
	t := ts.pages[kind]
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
	for i, part := range strings.Split(s, "`") {
		esc := htmltemplate.HTMLEscapeString(part)
		if i%2 == 1 {
			sb.WriteString("<code>" + esc + "</code>")
		} else {
			sb.WriteString(esc)
		}
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
