package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/store"
)

// Exit codes: scripts depend on these (DESIGN.md, "Settled details").
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitProblems    = 3 // completed, but some inputs were rejected or a check failed
	exitNotArchive  = 4 // not an archive, or written by a newer version
	exitInterrupted = 130
)

const exitCodeHelp = `Exit status:
  0    success
  1    error (I/O, internal)
  2    usage error (unknown command, bad flags or arguments)
  3    completed with problems: some inputs were rejected, or a check failed
  4    the file is not a benchledger archive, or was written by a newer version
  130  interrupted (Ctrl-C or SIGTERM); the archive is left as it was before the file in progress
`

// errUsage marks a command-line mistake; errProblems a run that finished but
// rejected some inputs (the details were already printed).
var (
	errUsage    = errors.New("usage")
	errProblems = errors.New("completed with problems")
)

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// isUserMistake: an error that names something the user typed and the
// tool does not know — a run id, an ambiguous prefix, a figure name in a
// narrative — is a usage error (exit 2), not the tool's failure (exit 1).
func isUserMistake(err error) bool {
	var unknown *report.UnknownBindingError
	return errors.Is(err, store.ErrNoSuchRun) || errors.Is(err, store.ErrAmbiguous) || errors.As(err, &unknown)
}

// exitCode maps an error returned by a command to the documented exit status.
func exitCode(ctx context.Context, err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return exitInterrupted
	case errors.Is(err, errUsage), isUserMistake(err):
		return exitUsage
	case errors.Is(err, errProblems), errors.Is(err, store.ErrTampered):
		// A write refused because the archive was changed outside the
		// tool is the integrity check failing (audit gives 3 for it too).
		return exitProblems
	case errors.Is(err, store.ErrNotArchive), errors.Is(err, store.ErrNewerSchema):
		return exitNotArchive
	default:
		return exitError
	}
}
