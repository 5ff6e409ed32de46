package redact

import (
	"regexp"
	"strings"
)

// The secret rules run first in Text: each drops a value outright, before
// the later rules could hash or shorten its parts.

// secretFlagWords are the words of a command-line flag or a key whose value
// is a secret: --api-key, --password, --hf-token, aws_secret_access_key,
// AccountKey. Plural "tokens" is a count (--max-num-batched-tokens), and a
// bare "key" is not enough (--kv-cache-dtype, "key": "value"): it needs a
// word before it that makes it a credential.
var secretFlagWords = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "passphrase": true,
	"secret": true, "token": true, "apikey": true, "credential": true, "credentials": true,
	"auth": true, "authorization": true, "signature": true, "sig": true,
}

var keyQualifiers = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "account": true,
	"session": true, "client": true, "master": true, "encryption": true, "subscription": true, "x": true,
}

// secretKey says whether a flag or key name (without dashes) names a secret.
func secretKey(name string) bool {
	words := keyWords(name)
	for i, w := range words {
		if secretFlagWords[w] {
			return true
		}
		if w == "key" && i > 0 && keyQualifiers[words[i-1]] {
			return true
		}
	}
	return false
}

const secretValue = `("[^"]*"|'[^']*'|[^\s"'&;,|` + stopCJK + `]+)`

var (
	// --api-key=x, --api-key x, -password x.
	secretFlagRe = regexp.MustCompile(`(?:^|[\s"'(])(--?[A-Za-z][A-Za-z0-9_-]*)(=|[ \t]+)` + secretValue)
	// password=x, aws_secret_access_key=x, "api_key": "x", ?api_key=x&,
	// AccountKey=x; (a key and = or :, then the value).
	secretKVRe = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)("?[ \t]*[=:][ \t]*)("[^"]*"|'[^']*'|[^\s"'&;,|/?#` + stopCJK + `][^\s"'&;,|?#` + stopCJK + `]*)`)
	// Authorization: Basic dXNlcjpwYXNz, Token abc..., and a bare "Basic x".
	authRe = regexp.MustCompile(`(?i)\b(basic|bearer|token|digest)[ \t]+([A-Za-z0-9._~+/=-]{8,})`)
	// A PEM private key, whole.
	pemRe = regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`)
	// e-mail addresses and user@host.
	emailRe    = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*`)
	webhookRe  = regexp.MustCompile(`(?i)(/(?:services|webhooks?|hooks|triggers)/)([^\s"'<>?#` + stopCJK + `]+)`)
	webhookURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>` + stopCJK + `]*`)
)

// tokenShaped says whether the token rule will mark v anyway ([token],
// which tells more than [redacted]: the value was a credential of a known
// form).
func tokenShaped(v string) bool {
	if loc := knownTokenRe.FindStringIndex(v); loc != nil && loc[0] == 0 {
		return true
	}
	return len(v) >= 32 && genericRe.MatchString(v) && looksRandom(v)
}

// authSchemes are the words an Authorization value starts with: authRe
// handles them.
var authSchemes = map[string]bool{"basic": true, "bearer": true, "token": true, "digest": true}

// sentenceEnd splits a final full stop off a value ("password=x." ends a
// sentence).
func sentenceEnd(v string) (string, string) {
	if strings.HasSuffix(v, ".") && !strings.HasPrefix(v, `"`) && !strings.HasPrefix(v, "'") {
		t := strings.TrimRight(v, ".")
		return t, v[len(t):]
	}
	return v, ""
}

func (r *Redactor) secretRules(s string) string {
	out := s
	if strings.Contains(out, "-----BEGIN") {
		out = replaceAll(out, pemRe, func(s string, m []int) (string, bool) {
			r.count(CountToken)
			return Redacted, true
		})
	}
	if strings.Contains(out, "-") {
		out = replaceAll(out, secretFlagRe, func(s string, m []int) (string, bool) {
			name := strings.TrimLeft(s[m[2]:m[3]], "-")
			v, end := sentenceEnd(s[m[6]:m[7]])
			if !secretKey(name) || v == Redacted || v == TokenMarker || strings.HasPrefix(v, "-") || tokenShaped(strings.Trim(v, `"'`)) || authSchemes[strings.ToLower(v)] {
				return "", false
			}
			r.count(CountToken)
			return s[m[0]:m[6]] + Redacted + end, true
		})
	}
	if strings.ContainsAny(out, "=:") {
		out = replaceAll(out, secretKVRe, func(s string, m []int) (string, bool) {
			if c := before(s, m[0]); isWord(c) || c == '-' {
				return "", false
			}
			raw, end := sentenceEnd(s[m[6]:m[7]])
			v := strings.Trim(raw, `"'`)
			key, sep := s[m[2]:m[3]], s[m[4]:m[5]]
			if !secretKey(key) || v == "" || v == Redacted || v == TokenMarker || strings.HasPrefix(v, "//") || tokenShaped(v) || authSchemes[strings.ToLower(v)] {
				return "", false
			}
			if strings.TrimSpace(sep) == "=" && (envUpper.MatchString(key) || envKnown[key]) {
				return "", false // an environment assignment: the env rule's
			}
			q := ""
			if strings.HasPrefix(raw, `"`) {
				q = `"`
			}
			r.count(CountToken)
			return s[m[0]:m[6]] + q + Redacted + q + end, true
		})
	}
	if containsFold(out, "basic") || containsFold(out, "bearer") || containsFold(out, "token") || containsFold(out, "digest") {
		out = replaceAll(out, authRe, func(s string, m []int) (string, bool) {
			v := s[m[4]:m[5]]
			// "basic usage", "token budget": a credential has a digit, an
			// upper-case letter after the first, or base64 padding.
			if v == Redacted || !(strings.ContainsAny(v, "0123456789=+/") || strings.ToLower(v[1:]) != v[1:]) {
				return "", false
			}
			r.count(CountToken)
			return s[m[2]:m[3]] + " " + TokenMarker, true
		})
	}
	if strings.Contains(out, "://") {
		out = replaceAll(out, webhookURL, func(s string, m []int) (string, bool) {
			u := s[m[0]:m[1]]
			repl := replaceAll(u, webhookRe, func(u string, w []int) (string, bool) {
				return u[w[2]:w[3]] + Redacted, true
			})
			if repl == u {
				return "", false
			}
			r.count(CountToken)
			return repl, true
		})
	}
	if strings.Contains(out, "@") {
		out = replaceAll(out, emailRe, func(s string, m []int) (string, bool) {
			v := s[m[0]:m[1]]
			at := strings.IndexByte(v, '@')
			if at == 0 || strings.HasPrefix(v, Redacted) || strings.HasSuffix(s[:m[0]], "://") || strings.HasSuffix(s[:m[0]], "[redacted]") {
				return "", false
			}
			if c := before(s, m[0]); c == '/' || c == ':' {
				return "", false // a URL's user info: the URL rule's
			}
			host := v[at+1:]
			if host == "" || strings.HasPrefix(v, "user-") && (strings.HasPrefix(host, "host-") || strings.HasPrefix(host, "ip-")) {
				return "", false
			}
			r.count(CountHost)
			return "user-" + r.hash("user", strings.ToLower(v[:at])) + "@" + r.hostToken(host), true
		})
	}
	return out
}
