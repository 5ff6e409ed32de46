package casestudy

import (
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// ValueText shows a run's recorded value of a field in l's language
// (locales.FieldText), with the spec's labels of recorded values: a
// free-text value the spec translates ("value:TEXT" labels) is shown in
// the language, unmarked; one it does not is shown as recorded, and the
// second result says it is English on a page of another language. The
// report and the export show values through it.
func ValueText(s *spec.Spec, l locales.Locale, field, v string) (string, bool) {
	if s != nil && locales.FreeTextField(field) {
		if t := s.Label(spec.ValueLabel+v, l.Texts()); t != "" {
			return t, false
		}
	}
	return l.FieldText(field, v)
}
