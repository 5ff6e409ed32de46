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
)

// bindingRE is the {{name}} of a narrative.
var bindingRE = regexp.MustCompile(`\{\{\s*([a-z][a-z0-9_.-]*)\s*\}\}`)

// UnknownBindingError names the unknown bindings of a narrative and lists
// the known ones.
type UnknownBindingError struct {
	File    string
	Unknown []string
	Known   []string
}

func (e *UnknownBindingError) Error() string {
	return fmt.Sprintf("%s: unknown figure name(s) %s; known names: %s", e.File, strings.Join(e.Unknown, ", "), strings.Join(e.Known, ", "))
}

// substitute replaces every {{name}} of text by repl(name, binding); an
// unknown name is an *UnknownBindingError. With cjk (zh, ja: the value as
// shown) a space is put between a value's Latin or digit end and CJK text
// beside it, as GLOSSARY.md writes
// "提升 132%": narratives need not type it.
func substitute(file, text string, b map[string]casestudy.Binding, cjk func(casestudy.Binding) string, repl func(name string, v casestudy.Binding) string) (string, error) {
	var unknown []string
	var out strings.Builder
	last := 0
	for _, ix := range bindingRE.FindAllStringSubmatchIndex(text, -1) {
		name := text[ix[2]:ix[3]]
		out.WriteString(text[last:ix[0]])
		last = ix[1]
		v, ok := b[name]
		if !ok {
			if !slices.Contains(unknown, name) {
				unknown = append(unknown, name)
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
		out.WriteString(repl(name, v))
		if shown != "" && isCJK(after) && !isCJK(lastRune(shown)) {
			out.WriteByte(' ')
		}
	}
	out.WriteString(text[last:])
	if len(unknown) > 0 {
		return "", &UnknownBindingError{File: file, Unknown: unknown, Known: slices.Sorted(maps.Keys(b))}
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
