package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

func completionCommand() *command {
	return newCommand(command{
		name:  "completion",
		args:  "bash|zsh|fish",
		short: "print a shell completion script for bash, zsh or fish",
		long: `Prints a script that completes benchledger's commands and each command's flags, made from
the same table as --help. Load it for the current shell, or install it:

  source <(benchledger completion bash)        # bash; or save it under
                                               # /etc/bash_completion.d/benchledger
  benchledger completion zsh > "${fpath[1]}/_benchledger"   # zsh, then restart it
  benchledger completion fish > ~/.config/fish/completions/benchledger.fish

Arguments that are not flags complete as file names.`,
	}, runCompletion)
}

// completionOptions: completion has no flags of its own.
type completionOptions struct{}

func (o *completionOptions) addFlags(fs *flag.FlagSet, e env) {}

func runCompletion(ctx context.Context, e env, opts completionOptions, args []string) error {
	if len(args) != 1 {
		return usageErrorf("completion takes one shell: bash, zsh or fish")
	}
	cmds := completionTable(e)
	switch args[0] {
	case "bash":
		writeBashCompletion(e.stdout, cmds)
	case "zsh":
		writeZshCompletion(e.stdout, cmds)
	case "fish":
		writeFishCompletion(e.stdout, cmds)
	default:
		return usageErrorf("completion %q: the shells are bash, zsh and fish", args[0])
	}
	return nil
}

// completedCommand is what a completion script knows of a command.
type completedCommand struct {
	name, short string
	flags       []completedFlag
}

type completedFlag struct {
	name, usage string
	takesValue  bool
}

// dashed is the flag as written: -q for one letter, --name otherwise.
func (f completedFlag) dashed() string {
	if len(f.name) == 1 {
		return "-" + f.name
	}
	return "--" + f.name
}

// completionTable binds every command's flags, as an invocation would, to
// read them back: the scripts cannot drift from the flags.
func completionTable(e env) []completedCommand {
	var out []completedCommand
	for _, c := range commandTable() {
		fs, _ := newFlags(c, e)
		c.bind(fs, e)
		cc := completedCommand{name: c.name, short: c.short}
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			bf, isBool := f.Value.(interface{ IsBoolFlag() bool })
			cc.flags = append(cc.flags, completedFlag{name: f.Name, usage: usage, takesValue: !isBool || !bf.IsBoolFlag()})
		})
		out = append(out, cc)
	}
	return out
}

func commandNames(cmds []completedCommand) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return strings.Join(names, " ")
}

func writeBashCompletion(w io.Writer, cmds []completedCommand) {
	fmt.Fprintf(w, `# bash completion for benchledger (benchledger completion bash)
_benchledger() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "%s --help --version" -- "$cur"))
        return
    fi
    local flags=""
    case "${COMP_WORDS[1]}" in
`, commandNames(cmds))
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, f.dashed())
		}
		fmt.Fprintf(w, "        %s) flags=%q ;;\n", c.name, strings.Join(append(fl, "--help"), " "))
	}
	fmt.Fprint(w, `    esac
    if [ "${COMP_WORDS[1]}" = completion ]; then
        COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
        return
    fi
    case "$cur" in
        -*) COMPREPLY=($(compgen -W "$flags" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -o filenames -F _benchledger benchledger
`)
}

func writeZshCompletion(w io.Writer, cmds []completedCommand) {
	fmt.Fprint(w, "#compdef benchledger\n# zsh completion for benchledger (benchledger completion zsh)\n\n_benchledger() {\n    local -a commands\n    commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s\n", zshQuote(c.name+":"+c.short))
	}
	fmt.Fprint(w, "    )\n    if (( CURRENT == 2 )); then\n        _describe -t commands 'benchledger command' commands\n        return\n    fi\n    case $words[2] in\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s)\n            _arguments \\\n", c.name)
		for _, f := range c.flags {
			spec := f.dashed() + "[" + zshBracket(f.usage) + "]"
			if f.takesValue {
				spec += ":" + f.name + ":_files"
			}
			fmt.Fprintf(w, "                %s \\\n", zshQuote(spec))
		}
		if c.name == "completion" {
			fmt.Fprint(w, "                '1:shell:(bash zsh fish)'\n            ;;\n")
			continue
		}
		fmt.Fprint(w, "                '*:file:_files'\n            ;;\n")
	}
	fmt.Fprint(w, "    esac\n}\n\n_benchledger \"$@\"\n")
}

func writeFishCompletion(w io.Writer, cmds []completedCommand) {
	fmt.Fprintf(w, "# fish completion for benchledger (benchledger completion fish)\ncomplete -c benchledger -f\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c benchledger -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.short))
	}
	for _, c := range cmds {
		for _, f := range c.flags {
			req := ""
			if f.takesValue {
				req = " -r -F"
			}
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			fmt.Fprintf(w, "complete -c benchledger -n '__fish_seen_subcommand_from %s' %s%s -d %s\n", c.name, opt, req, fishQuote(f.usage))
		}
		if c.name == "completion" {
			fmt.Fprint(w, "complete -c benchledger -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
		} else {
			fmt.Fprintf(w, "complete -c benchledger -n '__fish_seen_subcommand_from %s' -F\n", c.name)
		}
	}
}

// zshQuote single-quotes s for zsh (” is a quote inside quotes there only
// with RC_QUOTES, so close, escape and reopen instead).
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// zshBracket keeps a description inside _arguments' [...]: brackets and
// colons would end it.
func zshBracket(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", ":", "\\:", "\n", " ").Replace(s)
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", " ").Replace(s) + "'"
}
