package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/internal/suggest"
)

// bindingRE is the {{name}} of a narrative, with an optional precision
// (":0"; casestudy.Lookup reads it and the .approx, .unsigned modifiers).
var bindingRE = regexp.MustCompile(`\{\{\s*([a-z][a-z0-9_.-]*(?::[^{}\s]*)?)\s*\}\}`)

// UnknownBindingError names the unknown bindings of a text, each where it
// first stands and with the known name it was likely meant to be, and lists
// the known ones. It is the writer's mistake, not the tool's.
type UnknownBindingError struct {
	File    string // a narrative's path, or the spec's key ("title.en")
	Unknown []UnknownBinding
	Known   []string
}

// UnknownBinding is one unknown {{name}} of a text.
type UnknownBinding struct {
	Name       string
	Line       int    // in File, from 1
	Suggestion string // the likely intended known name, or ""
}

func (e *UnknownBindingError) Error() string {
	var b strings.Builder
	for i, u := range e.Unknown {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s:%d: unknown figure name {{%s}}", e.File, u.Line, u.Name)
		if u.Suggestion != "" {
			fmt.Fprintf(&b, "; did you mean {{%s}}?", u.Suggestion)
		}
	}
	fmt.Fprintf(&b, "\nknown names: %s", strings.Join(e.Known, ", "))
	return b.String()
}

// substitute replaces every {{name}} of text by repl(name, binding), name
// without its precision and binding with it applied; an unknown name is an
// *UnknownBindingError. With cjk (zh, ja: the value as
// shown) a space is put between a value's Latin or digit end and CJK text
// beside it, as GLOSSARY.md writes
// "提升 132%": narratives need not type it.
func substitute(file, text string, b map[string]casestudy.Binding, cjk func(casestudy.Binding) string, repl func(name string, v casestudy.Binding) string) (string, error) {
	var unknown []UnknownBinding
	var out strings.Builder
	last := 0
	for _, ix := range bindingRE.FindAllStringSubmatchIndex(text, -1) {
		name := text[ix[2]:ix[3]]
		out.WriteString(text[last:ix[0]])
		last = ix[1]
		v, base, ok := casestudy.Lookup(b, name)
		if !ok {
			if !slices.ContainsFunc(unknown, func(u UnknownBinding) bool { return u.Name == name }) {
				unknown = append(unknown, UnknownBinding{Name: name, Line: 1 + strings.Count(text[:ix[0]], "\n")})
			}
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(text[:ix[0]])
		after, _ := utf8.DecodeRuneInString(text[ix[1]:])
		var shown string
		if cjk != nil {
			shown = cjk(v)
		}
		if shown != "" && isCJK(before) && !isCJK(firstRune(shown)) {
			out.WriteByte(' ')
		}
		out.WriteString(repl(base, v))
		if shown != "" && isCJK(after) && !isCJK(lastRune(shown)) {
			out.WriteByte(' ')
		}
	}
	out.WriteString(text[last:])
	if len(unknown) > 0 {
		known := slices.Sorted(maps.Keys(b))
		for i := range unknown {
			unknown[i].Suggestion = suggest.Nearest(unknown[i].Name, known)
		}
		return "", &UnknownBindingError{File: file, Unknown: unknown, Known: known}
	}
	return out.String(), nil
}

// isCJK: a Han, Hiragana or Katakana character (a bound value always
// starts and ends with a digit, sign or unit, so a CJK neighbour wants a
// space).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
