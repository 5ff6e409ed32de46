package escape

import "testing"

func TestShellArgs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"--max-num-seqs 256 --enable-chunked-prefill": "--max-num-seqs 256 --enable-chunked-prefill",
		"--served-model-name `whoami`":                "--served-model-name '`whoami`'",
		"--x $(rm -rf ~); echo hi":                    "--x '$(rm' -rf '~);' echo hi",
		`--override '{"a": 1}'`:                       `--override '{"a": 1}'`,
		`--name "it's"`:                               `--name 'it'\''s'`,
		`--broken 'x`:                                 `'--broken '\''x'`,
	} {
		if got := ShellArgs(in); got != want {
			t.Errorf("ShellArgs(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestShellJoin: a command line joined from argv splits back into the
// same words.
func TestShellJoin(t *testing.T) {
	t.Parallel()
	argv := []string{"vllm", "bench", "serve", "--result-dir", "out dir", "--label", "it's", "--x", "$(whoami)", ""}
	got := ShellJoin(argv)
	if want := `vllm bench serve --result-dir 'out dir' --label 'it'\''s' --x '$(whoami)' ''`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
	if words, ok := splitShell(got); !ok || len(words) != len(argv) || words[4] != "out dir" || words[6] != "it's" {
		t.Errorf("splits back into %q", words)
	}
}

func TestTerminal(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain.json":               "plain.json",
		"a\nfffffff  new  vllm  x": `a\nfffffff  new  vllm  x`,
		"\x1b[2Jx":                 `\x1b[2Jx`,
		"evil\u202etxt.json":       `evil\u202etxt.json`,
		`back\slash`:               `back\\slash`,
		"日本語.json":                 "日本語.json",
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %s, want %s", in, got, want)
		}
	}
}
