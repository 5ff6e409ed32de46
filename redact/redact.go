// Package redact removes what identifies a customer's infrastructure from text
// before it leaves the archive: host names, IP addresses, environment
// variables, internal paths and token-like strings. The export builder runs
// every text value through one Redactor (Field for provenance values, Text
// for free text); the xlsx and CSV writers then see only redacted text.
//
// Host names and addresses are hashed, not dropped: within one export the
// same value always maps to the same token, so a reader can still see that
// two runs ran on the same node, while the salt keeps a small space like
// IPv4 from being reversed by a dictionary. Secrets are dropped outright.
package redact

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Options configure a Redactor.
type Options struct {
	// Salt is mixed into every hash. Empty: New draws a random one, so that
	// hashes differ between exports and cannot be looked up in a table.
	// Tests pass a fixed salt for determinism.
	Salt []byte
}

// Redactor applies one redaction profile. It is safe for concurrent use.
type Redactor struct {
	salt []byte

	mu     sync.Mutex
	counts map[string]int
}

// Count keys: how many values each rule changed.
const (
	CountIP    = "ip"
	CountHost  = "host"
	CountEnv   = "env"
	CountPath  = "path"
	CountToken = "token"
	CountField = "field"
)

// Replacement markers.
const (
	Redacted    = "[redacted]"
	PathMarker  = "[path]"
	TokenMarker = "[token]"
)

// New returns a Redactor with opt's salt, or a random salt when it is empty.
func New(opt Options) *Redactor {
	salt := append([]byte(nil), opt.Salt...)
	if len(salt) == 0 {
		salt = make([]byte, 16)
		rand.Read(salt) // never fails (crypto/rand since Go 1.24)
	}
	return &Redactor{salt: salt, counts: map[string]int{}}
}

// Counts returns how many values each rule changed since New, keyed by
// CountIP, CountHost, CountEnv, CountPath, CountToken and CountField. A value
// is counted once per occurrence: a host name in 1,000 request rows counts
// 1,000 times. Rules that changed nothing are absent.
func (r *Redactor) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.counts))
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

func (r *Redactor) count(rule string) {
	r.mu.Lock()
	r.counts[rule]++
	r.mu.Unlock()
}

// hash is the first 8 hex digits of SHA-256(salt || kind || value). Eight
// digits keep tables readable; a collision between two hosts of one export
// is unlikely (32 bits) and would only merge two labels.
func (r *Redactor) hash(kind, value string) string {
	h := sha256.New()
	h.Write(r.salt)
	h.Write([]byte(kind))
	h.Write([]byte(value))
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// ipToken is the token of an address: ip-<hash> of its canonical form, so
// "10.0.0.1", "::ffff:10.0.0.1" and "fe80::1%eth0"/"fe80::1" hash alike.
func (r *Redactor) ipToken(a netip.Addr) string {
	return "ip-" + r.hash("ip", a.WithZone("").Unmap().String())
}

// hostToken is the token of a host name (case and a trailing dot ignored).
func (r *Redactor) hostToken(name string) string {
	return "host-" + r.hash("host", strings.TrimSuffix(strings.ToLower(name), "."))
}

// keepAddr reports addresses that identify nobody: the unspecified and
// loopback addresses. "--host 0.0.0.0" says the server listened on every
// interface, which is worth keeping when reproducing a run.
func keepAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsUnspecified() || a.IsLoopback()
}

// Field redacts one provenance value by its field name, then its text:
//   - host fields (hardware.node, measurement.client_host and metadata.*
//     keys naming a host, node or IP) become host-<hash> (ip-<hash> when the
//     value is an address, so it matches the same address in free text);
//   - metadata.* keys naming an environment, token, key, secret or password
//     become "[redacted]";
//   - every other field goes through Text.
func (r *Redactor) Field(field, value string) string {
	if value == "" {
		return value
	}
	switch fieldClass(field) {
	case classHost:
		v := strings.TrimSpace(value)
		if isDecimal(v) {
			// "metadata.num_nodes: 2" is a count, not a host name.
			return value
		}
		if strings.HasPrefix(v, "host-") || strings.HasPrefix(v, "ip-") {
			return value // already redacted
		}
		host, port := splitHostPort(v)
		if !isDecimal(strings.TrimPrefix(port, ":")) {
			host, port = v, ""
		}
		if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
			if keepAddr(a) {
				return value
			}
			r.count(CountField)
			return r.ipToken(a) + port
		}
		r.count(CountField)
		return r.hostToken(host) + port
	case classSecret:
		if value == Redacted {
			return value
		}
		r.count(CountField)
		return Redacted
	}
	return r.Text(value)
}

type class int

const (
	classText class = iota
	classHost
	classSecret
)

// hostWords and secretWords are the words of a metadata key that make it a
// host or a secret key. Words, not substrings: "metadata.description"
// contains "ip" and "metadata.keyboard" contains "key".
var (
	hostWords = map[string]bool{
		"host": true, "hosts": true, "hostname": true, "hostnames": true,
		"node": true, "nodes": true, "nodename": true,
		"ip": true, "ips": true, "ipaddr": true, "ipaddress": true, "ipv4": true, "ipv6": true,
	}
	secretWords = map[string]bool{
		"env": true, "envs": true, "environment": true,
		"token": true, "tokens": true, "key": true, "keys": true, "apikey": true,
		"secret": true, "secrets": true, "password": true, "passwd": true, "pwd": true,
		"credential": true, "credentials": true,
	}
)

func fieldClass(field string) class {
	switch field {
	case "hardware.node", "measurement.client_host":
		return classHost
	}
	key, ok := strings.CutPrefix(field, "metadata.")
	if !ok {
		return classText
	}
	words := keyWords(key)
	// A secret wins over a host: "metadata.host_password" is a password.
	for _, w := range words {
		if secretWords[w] {
			return classSecret
		}
	}
	for _, w := range words {
		if hostWords[w] {
			return classHost
		}
	}
	return classText
}

// keyWords splits a key into lower-case words at punctuation and at
// lower-to-upper case changes: "worker_hostIP" → worker, host, ip.
func keyWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, c := range key {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if unicode.IsUpper(c) && prevLower {
				flush()
			}
			cur = append(cur, c)
			prevLower = unicode.IsLower(c) || unicode.IsDigit(c)
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Text redacts free text (server arguments, file names, labels, notes,
// messages) by pattern, in this order:
//
//  1. environment assignments (NAME=value, export/-e/--env NAME=value)
//     → NAME=[redacted];
//  2. URL hosts that are an address, an internal name or a bare one-label
//     name → ip-<hash> / host-<hash>, keeping scheme, port and path; user
//     information in a URL → [redacted]@; public URLs stay;
//  3. IPv6 and IPv4 addresses → ip-<hash> (a following :port stays);
//  4. host names under internal suffixes (.internal, .local, .lan, .corp,
//     .intra, .svc, .cluster.local) → host-<hash>;
//  5. internal absolute paths (/home, /root, /mnt, /data, /scratch, /tmp,
//     /Users, /opt, ..., ~/, C:\, \\server\share) → [path]/<basename>;
//  6. token-like strings → [token] (Bearer <token> → Bearer [token]).
//
// The order matters: an assignment's value is dropped whole before its
// parts could be hashed, and URL hosts are settled before the path rule
// (which leaves URL paths alone). It returns s itself when nothing matched.
func (r *Redactor) Text(s string) string {
	if !mayMatch(s) {
		return s
	}
	out := s
	out = r.secretRules(out)
	out = r.envRule(out)
	out = r.urlRule(out)
	out = r.ipv6Rule(out)
	out = r.ipv4Rule(out)
	out = r.hostRule(out)
	out = r.pathRule(out)
	out = r.tokenRule(out)
	if out == s {
		return s
	}
	return out
}

// mayMatch is a cheap filter for the common short label ("vllm", "bf16",
// "H100"): every rule needs one of these bytes, or a string long enough
// to be a token.
func mayMatch(s string) bool {
	if len(s) >= 15 {
		return true
	}
	return strings.ContainsAny(s, ".:/\\=~@-")
}

// replaceAll replaces the matches of re that fn accepts. fn gets the text
// and the submatch indexes; it returns the replacement of s[m[0]:m[1]] and
// whether to replace at all. With no accepted match it returns s itself.
func replaceAll(s string, re *regexp.Regexp, fn func(s string, m []int) (string, bool)) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last, changed := 0, false
	for _, m := range ms {
		repl, ok := fn(s, m)
		if !ok {
			continue
		}
		if !changed {
			b.Grow(len(s))
			changed = true
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(repl)
		last = m[1]
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// before and after return the rune just before i and at j (utf8.RuneError
// at the ends, which no boundary test rejects).
func before(s string, i int) rune {
	if i <= 0 {
		return utf8.RuneError
	}
	c, _ := utf8.DecodeLastRuneInString(s[:i])
	return c
}

func after(s string, j int) rune {
	if j >= len(s) {
		return utf8.RuneError
	}
	c, _ := utf8.DecodeRuneInString(s[j:])
	return c
}

func isAlnum(c rune) bool {
	return c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
}

func isWord(c rune) bool { return isAlnum(c) || c == '_' }

// Value characters stop at white space, shell separators, quotes and CJK
// punctuation (、。，：), so "HF_TOKEN=hf_x，然后" keeps the sentence.
const stopCJK = `\x{3000}-\x{303F}\x{FF00}-\x{FFEF}`

// --- 1. environment assignments ---

var envRe = regexp.MustCompile(`(export[ \t]+|-e[ \t]+|--env[= \t][ \t]*)?([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|"'` + stopCJK + `]*)`)

// envUpper is an upper-case identifier with an underscore: HF_TOKEN,
// CUDA_VISIBLE_DEVICES, VLLM_ATTENTION_BACKEND. Lower-case names
// (max_num_seqs=256) are arguments, not environment.
var envUpper = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+_?$|^_[A-Z0-9_]+$`)

// envKnown are variables without an underscore that are still environment.
var envKnown = map[string]bool{
	"HOSTNAME": true, "HOST": true, "HOME": true, "USER": true, "USERNAME": true,
	"TOKEN": true, "PASSWORD": true, "PASSWD": true, "SECRET": true, "APIKEY": true,
}

func (r *Redactor) envRule(s string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	return replaceAll(s, envRe, func(s string, m []int) (string, bool) {
		if isWord(before(s, m[0])) || before(s, m[0]) == '-' {
			return "", false
		}
		name := s[m[4]:m[5]]
		value := s[m[6]:m[7]]
		if m[2] < 0 && !envUpper.MatchString(name) && !envKnown[name] {
			return "", false
		}
		if value == "" || value == Redacted || value == `"`+Redacted+`"` {
			return "", false
		}
		r.count(CountEnv)
		return s[m[0]:m[5]] + "=" + Redacted, true
	})
}

// --- 2. URLs ---

// urlRe matches a URL's scheme and authority (user info, host, port).
var urlRe = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*)://([^/\s?#"'<>,;()` + stopCJK + `]+)`)

// internalSuffixes mark names that only resolve inside a network.
var internalSuffixes = []string{".internal", ".local", ".lan", ".corp", ".intra", ".svc"}

func isInternalName(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	for _, suf := range internalSuffixes {
		if strings.HasSuffix(h, suf) && len(h) > len(suf) {
			return true
		}
	}
	return false
}

func (r *Redactor) urlRule(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return replaceAll(s, urlRe, func(s string, m []int) (string, bool) {
		auth := s[m[4]:m[5]]
		// "see http://gpu-node-7." ends a sentence, not a host name.
		end := strings.TrimRight(auth, ".")
		trail := auth[len(end):]
		auth = end
		var out strings.Builder
		changed := false
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			// user:password@ is a credential; a user name alone still
			// names a person.
			out.WriteString(Redacted + "@")
			auth = auth[at+1:]
			r.count(CountToken)
			changed = true
		}
		host, port := splitHostPort(auth)
		bracketed := strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]")
		bare := strings.Trim(host, "[]")
		if a, err := netip.ParseAddr(bare); err == nil {
			if !keepAddr(a) {
				tok := r.ipToken(a)
				if bracketed {
					tok = "[" + tok + "]"
				}
				host = tok
				r.count(CountIP)
				changed = true
			}
		} else if !bracketed && (isInternalName(bare) || (!strings.Contains(bare, ".") && bare != "" &&
			!strings.EqualFold(bare, "localhost") && !strings.HasPrefix(bare, "host-") && !strings.HasPrefix(bare, "ip-"))) {
			// A one-label name (http://gpu-node-7:8000) only resolves
			// inside the customer's network. (A bracketed non-address,
			// "file://[path]/x", was redacted already.)
			host = r.hostToken(bare)
			r.count(CountHost)
			changed = true
		}
		if !changed {
			return "", false
		}
		out.WriteString(host)
		out.WriteString(port)
		out.WriteString(trail)
		return s[m[0]:m[4]] + out.String(), true
	})
}

// splitHostPort splits "host:8000" and "[::1]:8000"; port keeps its colon.
func splitHostPort(hp string) (host, port string) {
	if strings.HasPrefix(hp, "[") {
		if i := strings.IndexByte(hp, ']'); i >= 0 {
			return hp[:i+1], hp[i+1:]
		}
		return hp, ""
	}
	if strings.Count(hp, ":") > 1 {
		return hp, "" // an unbracketed IPv6 literal: no port to split off
	}
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		return hp[:i], hp[i:]
	}
	return hp, ""
}

// --- 3. addresses ---

var (
	ipv6Re = regexp.MustCompile(`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.[0-9]{1,3}){0,3}(?:%[0-9A-Za-z._-]+)?`)
	ipv4Re = regexp.MustCompile(`[0-9]{1,3}(?:\.[0-9]{1,3}){3}`)
)

func (r *Redactor) ipv6Rule(s string) string {
	if strings.Count(s, ":") < 2 {
		return s
	}
	return replaceAll(s, ipv6Re, func(s string, m []int) (string, bool) {
		// Boundaries: "Note::" or "15:04:05" inside a word or a
		// time stamp are not addresses.
		if c := before(s, m[0]); isWord(c) || c == ':' || c == '.' {
			return "", false
		}
		if c := after(s, m[1]); isWord(c) || c == ':' {
			return "", false
		}
		a, err := netip.ParseAddr(s[m[0]:m[1]])
		if err != nil || !a.Is6() || keepAddr(a) {
			return "", false
		}
		r.count(CountIP)
		return r.ipToken(a), true
	})
}

func (r *Redactor) ipv4Rule(s string) string {
	if strings.Count(s, ".") < 3 {
		return s
	}
	return replaceAll(s, ipv4Re, func(s string, m []int) (string, bool) {
		// "v1.2.3.4", "1.2.3.4.5" and "x1.2.3.4" are versions or
		// parts of something else; a trailing full stop ends a sentence.
		if c := before(s, m[0]); isAlnum(c) || c == '.' || c == '_' {
			return "", false
		}
		if c := after(s, m[1]); isWord(c) {
			return "", false
		}
		if after(s, m[1]) == '.' && isAlnum(after(s, m[1]+1)) {
			return "", false
		}
		a, err := netip.ParseAddr(s[m[0]:m[1]])
		if err != nil || keepAddr(a) {
			return "", false
		}
		r.count(CountIP)
		return r.ipToken(a), true
	})
}

// --- 4. internal host names ---

var hostRe = regexp.MustCompile(`(?i)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.(?:internal|local|lan|corp|intra|svc)`)

func (r *Redactor) hostRule(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return replaceAll(s, hostRe, func(s string, m []int) (string, bool) {
		if c := before(s, m[0]); isWord(c) || c == '.' || c == '-' {
			return "", false
		}
		// "config.local.yaml" and "x.internal.example.com" go on.
		c := after(s, m[1])
		if isWord(c) || c == '-' || (c == '.' && isAlnum(after(s, m[1]+1))) {
			return "", false
		}
		r.count(CountHost)
		return r.hostToken(s[m[0]:m[1]]), true
	})
}

// --- 5. internal paths ---

// unixRoots are the directories under which paths name people, teams and
// mounts. System paths (/usr/bin/python, /etc/hosts) identify nobody and stay.
var unixRoots = []string{"home", "root", "mnt", "media", "data", "scratch", "tmp", "Users", "opt", "srv", "nfs", "lustre", "gpfs", "workspace", "shared"}

const pathChars = `[^\s"'<>|,;:()\[\]{}` + stopCJK + `]`

var (
	unixPathRe = regexp.MustCompile(`(?:~|/(?:` + strings.Join(unixRoots, "|") + `))/` + pathChars + `*`)
	winPathRe  = regexp.MustCompile(`[A-Za-z]:[\\/]` + `[^\s"'<>|,;*?()\[\]{}` + stopCJK + `]*`)
	uncPathRe  = regexp.MustCompile(`\\\\[A-Za-z0-9._$-]+\\` + `[^\s"'<>|,;*?()\[\]{}` + stopCJK + `]*`)
	// URL spans the path rule leaves alone: https://host/data/x is a URL
	// path, not a directory layout. (file:// URLs are local paths.)
	urlSpanRe = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>` + stopCJK + `]*`)
)

func (r *Redactor) pathRule(s string) string {
	if !strings.ContainsAny(s, "/\\~") {
		return s
	}
	var spans [][]int
	if strings.Contains(s, "://") {
		for _, sp := range urlSpanRe.FindAllStringIndex(s, -1) {
			if !strings.HasPrefix(strings.ToLower(s[sp[0]:sp[1]]), "file:") {
				spans = append(spans, sp)
			}
		}
	}
	inURL := func(i int) bool {
		for _, sp := range spans {
			if i >= sp[0] && i < sp[1] {
				return true
			}
		}
		return false
	}
	unix := func(s string, m []int) (string, bool) {
		c := before(s, m[0])
		fileURL := strings.HasSuffix(strings.ToLower(s[:m[0]]), "file://")
		if !fileURL && (isWord(c) || c == '.' || c == '/' || c == '\\' || c == '-' || c == '~') {
			return "", false
		}
		if inURL(m[0]) {
			return "", false
		}
		return r.pathRepl(s[m[0]:m[1]], 1)
	}
	out := s
	if strings.Contains(s, "~/") || hasUnixRoot(s) {
		out = replaceAll(out, unixPathRe, unix)
	}
	if strings.Contains(out, `:\`) || strings.Contains(out, ":/") {
		out = replaceAll(out, winPathRe, func(s string, m []int) (string, bool) {
			if isWord(before(s, m[0])) || inURLAt(s, m[0]) {
				return "", false
			}
			return r.pathRepl(s[m[0]:m[1]], 1)
		})
	}
	if strings.Contains(out, `\\`) {
		out = replaceAll(out, uncPathRe, func(s string, m []int) (string, bool) {
			if c := before(s, m[0]); isWord(c) || c == '\\' {
				return "", false
			}
			// \\server\share: the server name is never the basename.
			p := s[m[0]:m[1]]
			if len(strings.FieldsFunc(p, isPathSep)) < 2 {
				r.count(CountPath)
				return PathMarker, true
			}
			return r.pathRepl(p, 1)
		})
	}
	return out
}

// hasUnixRoot is a cheap filter for unixPathRe.
func hasUnixRoot(s string) bool {
	for i := strings.IndexByte(s, '/'); i >= 0; {
		rest := s[i+1:]
		for _, root := range unixRoots {
			if len(rest) > len(root) && rest[len(root)] == '/' && rest[:len(root)] == root {
				return true
			}
		}
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// inURLAt reports whether i falls inside a URL of s (for the Windows rule,
// which runs after the Unix one changed the offsets).
func inURLAt(s string, i int) bool {
	if !strings.Contains(s, "://") {
		return false
	}
	for _, sp := range urlSpanRe.FindAllStringIndex(s, -1) {
		if i >= sp[0] && i < sp[1] {
			return true
		}
	}
	return false
}

// pathRepl is [path]/<basename> for a path whose first `root` elements
// are its root (/home, C:, \\server): a path that is only its root
// ("/tmp/") tells nothing and stays. A trailing full stop ends a sentence.
func (r *Redactor) pathRepl(p string, root int) (string, bool) {
	trail := ""
	for strings.HasSuffix(p, ".") && !strings.HasSuffix(p, "/.") && !strings.HasSuffix(p, "..") {
		p, trail = p[:len(p)-1], "."+trail
	}
	elems := strings.FieldsFunc(p, isPathSep)
	if len(elems) <= root {
		return "", false
	}
	// /home/alice and C:\Users\alice end in a user name, which is what
	// the rule hides: show no basename there.
	for i := 0; i < 2 && i < len(elems); i++ {
		if (elems[i] == "home" || strings.EqualFold(elems[i], "Users")) && len(elems) == i+2 {
			r.count(CountPath)
			return PathMarker + trail, true
		}
	}
	base := path.Base(strings.ReplaceAll(strings.TrimRight(p, `/\`), `\`, "/"))
	r.count(CountPath)
	return PathMarker + "/" + base + trail, true
}

func isPathSep(c rune) bool { return c == '/' || c == '\\' }

// --- 6. tokens ---

var (
	bearerRe = regexp.MustCompile(`(?i)\b(bearer)[ \t]+[A-Za-z0-9._~+/=-]{16,}`)
	// Known credential formats: Hugging Face, OpenAI/Anthropic, GitHub,
	// Slack, AWS access keys, Google API keys, GitLab, npm, and JWTs.
	knownTokenRe = regexp.MustCompile(`hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,}|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)
	genericRe    = regexp.MustCompile(`[A-Za-z0-9_-]{32,}`)
)

func (r *Redactor) tokenRule(s string) string {
	if len(s) < 15 {
		return s
	}
	bearer := func(s string, m []int) (string, bool) {
		// "bearer authentication" is prose; a token has a digit.
		if !strings.ContainsAny(s[m[3]:m[1]], "0123456789") {
			return "", false
		}
		r.count(CountToken)
		return s[m[2]:m[3]] + " " + TokenMarker, true
	}
	known := func(s string, m []int) (string, bool) {
		if c := before(s, m[0]); isAlnum(c) || c == '-' {
			return "", false
		}
		if isAlnum(after(s, m[1])) {
			return "", false // AKIA… longer than an access key
		}
		r.count(CountToken)
		return TokenMarker, true
	}
	out := s
	if containsFold(s, "bearer") {
		out = replaceAll(out, bearerRe, bearer)
	}
	if containsAnyOf(out, tokenPrefixes) {
		out = replaceAll(out, knownTokenRe, known)
	}
	if longestRun(out) < 32 {
		return out
	}
	return replaceAll(out, genericRe, func(s string, m []int) (string, bool) {
		if !looksRandom(s[m[0]:m[1]]) {
			return "", false
		}
		r.count(CountToken)
		return TokenMarker, true
	})
}

// tokenPrefixes are the literal starts of knownTokenRe, a cheap filter.
var tokenPrefixes = []string{"hf_", "sk-", "sk_", "gh", "xox", "AKIA", "ASIA", "AIza", "glpat-", "npm_", "eyJ"}

func containsAnyOf(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// longestRun is the length of the longest run of [A-Za-z0-9_-].
func longestRun(s string) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		if isWord(c) || c == '-' {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// looksRandom tells a generated secret from a long name. A secret mixes
// upper case, lower case and digits, changes character class often and has
// long runs between separators; a model name (Llama-3_1-Nemotron-Ultra-
// 253B-v1) is short words joined by '-' or '_'. Hex strings are never
// secrets here: checkpoint revisions and SHA-256 digests must survive.
func looksRandom(t string) bool {
	var upper, lower, digit, hexOnly = false, false, false, true
	alnum, seps, changes := 0, 0, 0
	prev := 0 // 1 upper, 2 lower, 3 digit
	for i := 0; i < len(t); i++ {
		c := t[i]
		var cls int
		switch {
		case c >= 'A' && c <= 'Z':
			upper, cls = true, 1
		case c >= 'a' && c <= 'z':
			lower, cls = true, 2
		case c >= '0' && c <= '9':
			digit, cls = true, 3
		default:
			seps++
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			hexOnly = false
		}
		alnum++
		if prev != 0 && cls != prev {
			changes++
		}
		prev = cls
	}
	if !upper || !lower || !digit || hexOnly {
		return false
	}
	// Mean run between separators of at least 10 characters, and a class
	// change on at least 3 of 10 neighbours (random base62: about 6 of 10;
	// names with words: 3 or fewer).
	if alnum < 10*(seps+1) {
		return false
	}
	return changes*10 >= 3*(alnum-1)
}
