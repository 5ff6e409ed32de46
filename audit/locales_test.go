package audit_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/locales"
)

// TestCheckTitlesInEveryLocale: the audit page titles every check in the
// reader's language, so a check added to audit.Checks() needs a title in
// every catalogue (locales.Message errors on a missing key; the page would
// otherwise fall back to the bare id). The severities a check reports need
// their labels too.
func TestCheckTitlesInEveryLocale(t *testing.T) {
	checks := audit.Checks()
	if len(checks) == 0 {
		t.Fatal("audit.Checks() is empty")
	}
	seen := map[string]bool{}
	for _, c := range checks {
		if seen[c.ID] {
			t.Errorf("check %s listed twice", c.ID)
		}
		seen[c.ID] = true
		if len(c.Severities) == 0 || strings.TrimSpace(c.Rule) == "" {
			t.Errorf("check %s: no severities or no rule", c.ID)
		}
	}
	en := locales.Fallback()
	for _, tag := range locales.Supported() {
		l, err := locales.Match(tag)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range checks {
			title, err := l.Message("audit.check." + c.ID)
			if err != nil {
				t.Errorf("%s: %v", tag, err)
				continue
			}
			if strings.TrimSpace(title) == "" {
				t.Errorf("%s: audit.check.%s is empty", tag, c.ID)
			}
			// zh and ja titles are written in the language, not copied
			// from English.
			if (tag == "zh" || tag == "ja") && (title == en.T("audit.check."+c.ID) || !hasCJK(title)) {
				t.Errorf("%s: audit.check.%s = %q is not translated", tag, c.ID, title)
			}
			// The rule, the tooltip of the check's id, is written in the
			// language too.
			if rule, err := l.Message("audit.rule." + c.ID); err != nil || strings.TrimSpace(rule) == "" {
				t.Errorf("%s: audit.rule.%s: %q %v", tag, c.ID, rule, err)
			} else if tag != "en" && (rule == en.T("audit.rule."+c.ID) || (tag == "zh" || tag == "ja") && !hasCJK(rule)) {
				t.Errorf("%s: audit.rule.%s = %q is not translated", tag, c.ID, rule)
			}
			for _, sev := range c.Severities {
				for _, key := range []string{"audit.severity." + sev, "audit.group." + sev} {
					if s, err := l.Message(key); err != nil || strings.TrimSpace(s) == "" {
						t.Errorf("%s: check %s reports %q, which has no %s (%v)", tag, c.ID, sev, key, err)
					}
				}
				if s, err := l.Message("audit.count."+sev, "count", 2); err != nil || !strings.Contains(s, "2") {
					t.Errorf("%s: audit.count.%s = %q (%v)", tag, sev, s, err)
				}
			}
		}
	}
}

func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}
