package escape

import (
	"strconv"
	"strings"
	"unicode"
)

// ShellWord quotes s for a POSIX shell so that pasting it runs no command
// substitution, expansion or second command: as it is when it holds only
// characters no shell treats specially, otherwise in single quotes (a
// single quote inside written '\”).
func ShellWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r < unicode.MaxASCII && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r))) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin quotes each word of argv with ShellWord and joins them: one
// command line that reads back as the same arguments (benchledger record's
// command).
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellWord(a)
	}
	return strings.Join(q, " ")
}

// ShellArgs splits a command line as a POSIX shell would split its words
// (blanks separate; single quotes, double quotes and backslashes group)
// and quotes each word again with ShellWord: arguments recorded as one
// string ("--max-num-seqs 256 --override '{\"a\": 1}'") become a line that
// means the same words and nothing more. Unbalanced quotes make the whole
// string one word.
func ShellArgs(line string) string {
	words, ok := splitShell(line)
	if !ok {
		return ShellWord(line)
	}
	for i, w := range words {
		words[i] = ShellWord(w)
	}
	return strings.Join(words, " ")
}

func splitShell(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, false
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(line) {
				return nil, false
			}
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// Terminal makes s safe to print on a terminal: control characters (C0,
// DEL, C1, and the bidirectional overrides that reorder what is shown) are
// written as Go escapes (\n, \x1b, \u202e), and a backslash as \\ so that
// the escape cannot be forged. Text without any comes back as it is.
func Terminal(s string) string {
	clean := true
	for _, r := range s {
		if r == '\\' || termControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			sb.WriteString(`\\`)
		case termControl(r):
			q := strconv.QuoteRune(r)
			sb.WriteString(q[1 : len(q)-1])
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func termControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
