package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// env is what a command may touch of the outside world, so tests can run
// every command in-process with buffers.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// gc, set only by main, takes the libraries' hooks for the garbage
	// collector's settings (gc.go); nil in the in-process tests.
	gc gcHooks
}

// command is one subcommand: its name and help, and bind, which binds the
// flags of a fresh options value to a flag set and returns the command's
// run over them and e (restic's pattern: an options struct, its addFlags,
// and runX(ctx, env, opts, args); see newCommand).
type command struct {
	name  string
	args  string // argument synopsis after the flags
	short string
	long  string
	bind  func(fs *flag.FlagSet, e env) func(ctx context.Context, args []string) error
	// passthrough: the first positional argument ends the command's flags;
	// it and everything after it are another program's command line
	// (record -- COMMAND), whose own flags are not ours.
	passthrough bool
}

// newCommand makes a command of options type O: each invocation binds a
// fresh O's flags, parses the command line into it and calls
// run(ctx, e, opts, args) with the positional arguments.
func newCommand[O any, P interface {
	*O
	addFlags(fs *flag.FlagSet, e env)
}](c command, run func(ctx context.Context, e env, opts O, args []string) error) *command {
	c.bind = func(fs *flag.FlagSet, e env) func(context.Context, []string) error {
		opts := new(O)
		P(opts).addFlags(fs, e)
		return func(ctx context.Context, args []string) error { return run(ctx, e, *opts, args) }
	}
	return &c
}

func commandTable() []*command {
	return []*command{captureCommand(), recordCommand(), ingestCommand(), amendCommand(), runsCommand(), showCommand(), compareCommand(), figuresCommand(), reportCommand(), errataCommand(), auditCommand(), exportCommand(), siteCommand(), archiveCommand(), traceCommand(), completionCommand(), versionCommand()}
}

// version is set by the Makefile through -ldflags; "go run" builds fall back
// to the module version.
var version = ""

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func run(ctx context.Context, args []string, e env) int {
	if e.getenv == nil {
		e.getenv = os.Getenv
	}
	cmds := commandTable()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		printUsage(e.stdout, cmds)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	if name == "--version" || name == "-v" || name == "-version" {
		name, args = "version", []string{"version"}
	}
	if name == "help" {
		name = args[1]
		args = []string{name, "--help"}
	}
	for _, c := range cmds {
		if c.name == name {
			err := c.invoke(ctx, e, args[1:])
			if errors.Is(err, flag.ErrHelp) {
				return exitOK
			}
			if err != nil && !errors.Is(err, errProblems) {
				fmt.Fprintf(e.stderr, "benchledger %s: %v\n", name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
				if errors.Is(err, errUsage) {
					fmt.Fprintf(e.stderr, "Run 'benchledger %s --help' for usage.\n", name)
				}
			}
			return exitCode(ctx, err)
		}
	}
	fmt.Fprintf(e.stderr, "benchledger: unknown command %q\n", name)
	printUsage(e.stderr, cmds)
	return exitUsage
}

func printUsage(w io.Writer, cmds []*command) {
	fmt.Fprintf(w, "benchledger archives LLM serving benchmark results with their provenance.\n\nUsage:\n  benchledger <command> [flags] [arguments]\n\nCommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "\nThe archive is ./benchledger.db unless --db or $BENCHLEDGER_DB names another.\nRun 'benchledger <command> --help' for a command's flags; 'benchledger --version' (-v) prints the version.\n\n%s", exitCodeHelp)
}

// invoke parses the command line into the command's options and runs it.
func (c *command) invoke(ctx context.Context, e env, args []string) error {
	fs, help := newFlags(c, e)
	runWith := c.bind(fs, e)
	var pos []string
	var err error
	if c.passthrough {
		if err = fs.Parse(args); err != nil && !errors.Is(err, flag.ErrHelp) {
			err = fmt.Errorf("%w: %v", errUsage, err)
		}
		pos = fs.Args()
	} else {
		pos, err = parseArgs(fs, args)
	}
	if errors.Is(err, flag.ErrHelp) {
		help()
	}
	if err != nil {
		return err
	}
	if err := checkFlags(fs); err != nil {
		return err
	}
	return runWith(ctx, pos)
}

// newFlags makes a command's flag set with help that ends in the exit codes.
// The help asked for goes to stdout (so that it can be paged); a parse error
// is said once, by run, with a pointer to --help rather than the whole help.
func newFlags(c *command, e env) (fs *flag.FlagSet, help func()) {
	fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, func() {
		out := e.stdout
		fmt.Fprintf(out, "Usage: benchledger %s [flags] %s\n\n%s\n\nFlags:\n", c.name, c.args, strings.TrimSpace(c.long))
		printFlags(out, fs)
		fmt.Fprintf(out, "\n%s", exitCodeHelp)
	}
}

// printFlags is flag.PrintDefaults with each default said once: a flag
// whose usage already tells its default (--db names $BENCHLEDGER_DB) does
// not get flag's "(default ...)" after it.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		var b strings.Builder
		fmt.Fprintf(&b, "  -%s", f.Name)
		kind, usage := flag.UnquoteUsage(f)
		if kind != "" {
			b.WriteString(" " + kind)
		}
		if b.Len() <= 4 { // a one-letter boolean flag: the usage on the same line
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		switch def := f.DefValue; {
		case strings.Contains(usage, "default"), def == "", def == "false", def == "0":
		case isString(f):
			fmt.Fprintf(&b, " (default %q)", def)
		default:
			fmt.Fprintf(&b, " (default %v)", def)
		}
		fmt.Fprintln(w, b.String())
	})
}

// parseArgs parses flags wherever they stand among the positional arguments
// ("show RUN --json" as well as "show --json RUN"); "--" ends flag parsing.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func isString(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(string)
	return ok
}

// dbFlag binds --db with the documented default.
func dbFlag(fs *flag.FlagSet, e env, db *string) {
	def := e.getenv("BENCHLEDGER_DB")
	if def == "" {
		def = "benchledger.db"
	}
	fs.StringVar(db, "db", def, "archive: a file, or a postgres:// URL for a team archive (default $BENCHLEDGER_DB, or ./benchledger.db when it is unset)")
}

func versionCommand() *command {
	return newCommand(command{name: "version", short: "print the tool version", long: "Prints the benchledger version."}, runVersion)
}

// versionOptions: version has no flags of its own.
type versionOptions struct{}

func (o *versionOptions) addFlags(fs *flag.FlagSet, e env) {}

func runVersion(ctx context.Context, e env, opts versionOptions, args []string) error {
	fmt.Fprintf(e.stdout, "benchledger %s\n", toolVersion())
	return nil
}
