package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A large blob written through the write-ahead log is written twice: its
// pages go into the log during the transaction, and the checkpoint that
// follows the commit copies every one of them into the archive file. For
// the 950 MB bench file that copy was 470 MB and about 0.75 s of the
// ingest's 3.6 s, on one core, after the parse.
//
// BeginLarge's transaction instead writes the archive file directly, under
// SQLite's rollback journal: pages added at the end of the file are not
// journaled, so the blob's pages are written once. Atomicity is the same
// (a killed process leaves a journal that the next connection able to
// write plays back), but the rollback journal lets no one read while the
// transaction holds its exclusive lock. So the switch is made only when no
// other connection, in this process or another, has the archive open (SQLite
// refuses to leave WAL mode otherwise), and the archive is in WAL mode again
// as soon as the transaction ends. Whoever opens the archive meanwhile
// waits for that (Open, waitUnlocked).

// directFrom is the blob size from which BeginLarge writes directly
// (Archive.directFrom, which tests lower): below it the checkpoint's copy is
// small, and the switches of journal mode would cost more than they save.
const directFrom = 64 << 20

// lockedWait is how long a connection waits for a lock held by a direct
// transaction: the writer for a reader's shared lock (its spills and its
// commit need the exclusive one), Open for the writer's commit.
const lockedWait = 2 * time.Minute

// BeginLarge starts a write transaction, as Begin does, for storing a blob
// of size bytes. On a SQLite archive, from 64 MiB (directFrom) and when no
// other connection has the archive open, the transaction writes the
// archive file directly instead of through the write-ahead log.
//
// Until it ends, the caller must not read the archive other than through
// the transaction: in direct mode, such a read would wait for its commit.
func (a *Archive) BeginLarge(ctx context.Context, onWait func(), size int64) (*Tx, error) {
	direct, err := a.startDirect(size)
	if err != nil {
		return nil, err
	}
	tx, err := a.begin(ctx, ctx, onWait)
	if err != nil {
		if direct {
			err = errors.Join(err, a.endDirect())
		}
		return nil, err
	}
	tx.direct = direct
	if direct {
		// Its pages are written once, where they stay: the disk may
		// write them as they come, and the commit's sync has less to wait
		// for.
		tx.writeback = a.startWriteback()
	}
	return tx, nil
}

// WritesDirect reports whether BeginLarge may write a blob of size bytes
// directly, so that its caller must not read the archive meanwhile.
func (a *Archive) WritesDirect(size int64) bool {
	return a.d == sqliteDialect && !a.readOnly && a.w != nil && size >= a.directFrom
}

// startDirect switches the archive to the rollback journal for a
// transaction storing size bytes when it can; false when it did not.
func (a *Archive) startDirect(size int64) (bool, error) {
	if !a.WritesDirect(size) {
		return false, nil
	}
	// This process's idle readers would hold the archive open too. Once
	// the switch is made or refused they may open again: idle, they hold
	// no lock in either mode.
	a.r.SetMaxIdleConns(0)
	defer a.r.SetMaxIdleConns(readerConns)
	// No waiting: another connection open is a plain no.
	if err := a.writerTimeout(0); err != nil {
		return false, err
	}
	var mode string
	err := a.w.QueryRow("PRAGMA journal_mode = DELETE").Scan(&mode)
	if err != nil || !strings.EqualFold(mode, "delete") {
		if err != nil && !isBusy(err) {
			err = a.wrap("begin writing directly", err)
		} else {
			err = nil
		}
		return false, errors.Join(err, a.writerTimeout(writerBusyTimeout))
	}
	// The rollback journal's sync before the archive file is written is
	// what makes a transaction atomic there (NORMAL is enough in WAL
	// mode only). The long wait: readers who opened the archive meanwhile
	// hold shared locks for a query at a time, and this writer's spills
	// and commit wait for them.
	if _, err := a.w.Exec(fmt.Sprintf("PRAGMA synchronous = FULL; PRAGMA busy_timeout = %d", lockedWait.Milliseconds())); err != nil {
		return false, errors.Join(a.wrap("begin writing directly", err), a.endDirect())
	}
	return true, nil
}

// endDirect puts the archive back in WAL mode after a direct transaction
// ended, committed or not. Should that fail (a reader held its lock for
// lockedWait), the archive, consistent in either mode, stays in the
// rollback journal's until the next Open for writing sets WAL again.
func (a *Archive) endDirect() error {
	if err := setWAL(a.w); err != nil {
		return a.wrap("set WAL journal mode after writing directly", err)
	}
	if _, err := a.w.Exec("PRAGMA synchronous = NORMAL"); err != nil {
		return a.wrap("set WAL journal mode after writing directly", err)
	}
	return a.writerTimeout(writerBusyTimeout)
}

func (a *Archive) writerTimeout(d time.Duration) error {
	if _, err := a.w.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", d.Milliseconds())); err != nil {
		return a.wrap("set busy timeout", err)
	}
	return nil
}
