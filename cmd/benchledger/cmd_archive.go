package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/benchledger/benchledger/store"
)

func archiveCommand() *command {
	return newCommand(command{
		name:  "archive",
		args:  "copy SRC DST",
		short: "copy a whole archive between SQLite files and PostgreSQL databases",
		long: `archive copy SRC DST copies every row of the archive SRC into DST, a new archive: a file
that does not exist yet, or a PostgreSQL database (postgres://…) that holds no archive.
Either may be a file or a postgres:// URL, so a team moves a single-file archive onto
its PostgreSQL server and back. Nothing is recomputed: the raw files stay byte-identical,
the hash chain and its findings come along (audit of the copy says what audit of SRC
says), and a report renders the same bytes from either. SRC is only read, from one
snapshot; DST is written in one transaction, so a failed copy leaves DST empty
(docs/team-archive.md).`,
	}, runArchive)
}

// archiveOptions are archive's flags (none yet: the action and the two
// archives are its arguments).
type archiveOptions struct{}

func (o *archiveOptions) addFlags(fs *flag.FlagSet, e env) {}

func runArchive(ctx context.Context, e env, _ archiveOptions, args []string) error {
	if len(args) == 0 || args[0] != "copy" {
		return usageErrorf("archive takes an action: archive copy SRC DST")
	}
	if len(args) != 3 {
		return usageErrorf("archive copy takes two archives, SRC and DST")
	}
	srcName, dstName := args[1], args[2]
	src, err := openForReading(srcName, e)
	if err != nil {
		return err
	}
	defer src.Close()
	created := false
	if !store.IsPostgres(dstName) {
		if _, err := os.Stat(dstName); errors.Is(err, fs.ErrNotExist) {
			created = true
		}
	}
	dst, err := store.Open(dstName, writing(e, store.Options{}))
	if err != nil {
		return err
	}
	stats, err := src.CopyTo(ctx, dst)
	cerr := dst.Close()
	if err == nil {
		err = cerr
	}
	if err != nil {
		if created {
			// An empty archive the copy made would only mislead.
			os.Remove(dstName)
		}
		return err
	}
	fmt.Fprintf(e.stderr, "copied %s to %s: %d runs, %d raw files, %d requests, %d events, %d publications, %d chain links\n",
		src.Path(), dst.Path(), stats["runs"], stats["blobs"], stats["requests"], stats["events"], stats["publications"], stats["chain"])
	return nil
}
