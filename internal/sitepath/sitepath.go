// Package sitepath is where the static site puts its pages, in one place:
// render/site writes them there, and export links to them (export may not
// import render/, see internal/archtest), so a workbook's links and the
// site's files cannot drift apart.
//
// Paths are relative to the site's folder and use "/".
package sitepath

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ID is the file-name form of a run or case-study id: the id itself when
// it is a plain name ([A-Za-z0-9._-], not starting with "."), otherwise
// "id-" and 16 hex digits of its SHA-256.
func ID(id string) string {
	if Plain(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "id-" + hex.EncodeToString(sum[:8])
}

// Plain says whether id can name a file as it is.
func Plain(id string) bool {
	return id != "" && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" && !strings.HasPrefix(id, ".")
}

// Run is a run's page relative to its language's folder: run/<id>.html.
func Run(id string) string { return "run/" + id + ".html" }

// Case is a case study's page relative to its language's folder.
func Case(id string) string { return "case/" + ID(id) + ".html" }

// Index is a language's front page relative to its folder.
const Index = "index.html"

// InLang puts a page of a language's folder under the site's folder:
// InLang("ja", Run(id)) is ja/run/<id>.html.
func InLang(lang, rel string) string { return lang + "/" + rel }

// ReportDir is the folder of a case study's rendered reports.
func ReportDir(caseID string) string { return "reports/" + ID(caseID) }

// Report is a case study's HTML report in one language, as report.Render
// names it (<case>.<lang>.html) inside ReportDir.
func Report(caseID, lang string) string {
	return ReportDir(caseID) + "/" + caseID + "." + lang + ".html"
}
