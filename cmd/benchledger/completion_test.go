package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCompletionBash loads the bash script into a real bash and asks it to
// complete what a user types: a command prefix, a flag prefix of one
// command (and not another's), the shells of completion.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	r := bl(t, "completion", "bash")
	if r.code != 0 {
		t.Fatal(r)
	}
	script := filepath.Join(t.TempDir(), "benchledger.bash")
	writeFile(t, script, r.stdout)
	complete := func(words ...string) []string {
		t.Helper()
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := "source " + script + "; COMP_WORDS=(benchledger " + strings.Join(quoted, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)) + "; _benchledger; printf '%s\\n' \"${COMPREPLY[@]}\""
		out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", words, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  []string
		not   []string
	}{
		{words: []string{"rep"}, want: []string{"report"}},
		{words: []string{"e"}, want: []string{"errata", "export"}},
		{words: []string{"report", "--pu"}, want: []string{"--publish"}},
		{words: []string{"audit", "--ch"}, want: []string{"--check"}},
		{words: []string{"runs", "--"}, want: []string{"--json", "--since"}, not: []string{"--publish"}},
		{words: []string{"completion", ""}, want: []string{"bash", "fish", "zsh"}},
	} {
		got := complete(tc.words...)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%v completes to %v, want %s among them", tc.words, got, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("%v completes to %v, which must not hold %s", tc.words, got, w)
			}
		}
	}
	if r := bl(t, "completion", "tcsh"); r.code != exitUsage {
		t.Errorf("completion tcsh: want exit 2, got %v", r)
	}
}

// TestCompletionZshFish: the zsh and fish scripts name every command and
// flag, and parse in their shell where it is installed.
func TestCompletionZshFish(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"zsh", "fish"} {
		r := bl(t, "completion", shell)
		if r.code != 0 {
			t.Fatal(r)
		}
		for _, c := range completionTable(env{getenv: os.Getenv}) {
			if !strings.Contains(r.stdout, c.name) {
				t.Errorf("%s script lacks the command %s", shell, c.name)
			}
			for _, f := range c.flags {
				if !strings.Contains(r.stdout, f.dashed()+"[") && !strings.Contains(r.stdout, " "+f.name+" ") {
					t.Errorf("%s script lacks %s %s", shell, c.name, f.dashed())
				}
			}
		}
		bin, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("no %s here: its script is checked by content only", shell)
			continue
		}
		script := filepath.Join(t.TempDir(), "benchledger."+shell)
		writeFile(t, script, r.stdout)
		if out, err := exec.Command(bin, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, out)
		}
		if shell == "fish" {
			// fish completes a command line itself: ask it.
			out, err := exec.Command(bin, "--no-config", "-c", "source "+script+"; complete -C 'benchledger report --pu'; complete -C 'benchledger rep'").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--publish\trecord this rendering") || !strings.Contains(string(out), "report\trender a case study") {
				t.Errorf("fish completes to %q (%v), want --publish and report with their descriptions", out, err)
			}
		}
	}
}
