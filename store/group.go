package store

import (
	"context"
	"errors"
	"fmt"
)

// Group is one database transaction that holds several write transactions
// in turn, each a savepoint of it: an ingest of many small files commits
// (syncs, and rewrites the tables' shared pages in the write-ahead log)
// once per group instead of once per file, while every file still commits
// or rolls back on its own. A part's Commit links what it changed into the
// chain, as a Tx of its own would, so the archive holds the same rows and
// links whichever way its files were grouped; only Group.Commit makes the
// parts durable, and a killed process leaves none of them.
//
// At most one part is open at a time; between parts nothing else may
// write the archive through this Archive (Begin waits for the Group).
type Group struct {
	a    *Archive
	tx   *Tx // the transaction the parts share; never committed itself
	open *Tx // the part being written, if any
	done bool
	// head is the chain's last link as the last kept part left it (nil:
	// read it from the archive).
	head *chainPos
}

// savepoint names the one savepoint a Group's open part holds.
const savepoint = "benchledger_part"

// BeginGroup starts a group, taking the archive's write lock as Begin does
// (onWait, ctx). ctx bounds the waiting for the lock only: the group is
// committed or rolled back by its caller, so an interruption between parts
// can still commit the parts that were completed.
func (a *Archive) BeginGroup(ctx context.Context, onWait func()) (*Group, error) {
	if err := a.groupSetting("begin a group", a.d.groupSettings); err != nil {
		return nil, err
	}
	tx, err := a.begin(context.WithoutCancel(ctx), ctx, onWait)
	if err != nil {
		return nil, errors.Join(err, a.groupSetting("end a group", a.d.groupReset))
	}
	return &Group{a: a, tx: tx}, nil
}

// groupSetting runs one of the dialect's statements for groups on the
// writer connection, outside any transaction.
func (a *Archive) groupSetting(op, stmt string) error {
	if stmt == "" || a.readOnly || a.w == nil {
		return nil
	}
	if _, err := a.w.Exec(stmt); err != nil {
		return a.wrap(op, err)
	}
	return nil
}

// Begin starts the next part: a Tx whose Commit keeps its writes in the
// group and whose Rollback undoes them alone.
func (g *Group) Begin() (*Tx, error) {
	switch {
	case g.done:
		return nil, fmt.Errorf("archive %s: begin a part: group already finished", g.a.path)
	case g.open != nil && !g.open.done:
		return nil, fmt.Errorf("archive %s: begin a part: the previous part is still open", g.a.path)
	}
	if _, err := g.tx.tx.Exec("SAVEPOINT " + savepoint); err != nil {
		return nil, g.a.wrap("begin a part", err)
	}
	g.open = &Tx{a: g.a, tx: g.tx.tx, ctx: g.tx.ctx, group: g, local: g.tx.local, requests: g.tx.requests}
	return g.open, nil
}

// Commit makes the committed parts durable. An open part is rolled back
// first.
func (g *Group) Commit() error {
	if g.done {
		return fmt.Errorf("archive %s: commit: group already finished", g.a.path)
	}
	if g.open != nil && !g.open.done {
		if err := g.open.Rollback(); err != nil {
			return errors.Join(err, g.Rollback())
		}
	}
	g.done = true
	return errors.Join(g.tx.Commit(), g.a.groupSetting("end a group", g.a.d.groupReset))
}

// Rollback discards every part. It is safe to call after Commit.
func (g *Group) Rollback() error {
	if g.done {
		return nil
	}
	g.done = true
	if g.open != nil {
		for _, bw := range g.open.blobs {
			bw.abort()
		}
	}
	return errors.Join(g.tx.Rollback(), g.a.groupSetting("end a group", g.a.d.groupReset))
}

// endPart finishes a part of a group: its writes are kept (RELEASE) or
// undone (ROLLBACK TO, then RELEASE). A part that deferred foreign key
// checks (a run renamed) has them checked again from here on, as a
// transaction of its own would after its commit.
func (tx *Tx) endPart(keep bool) error {
	if !keep {
		if _, err := tx.tx.Exec("ROLLBACK TO SAVEPOINT " + savepoint); err != nil {
			return tx.wrap("roll back a part", err)
		}
	}
	if _, err := tx.tx.Exec("RELEASE SAVEPOINT " + savepoint); err != nil {
		return tx.wrap("end a part", err)
	}
	if tx.deferred {
		if _, err := tx.tx.Exec(tx.a.d.immediateForeignKeys); err != nil {
			return tx.wrap("end a part", err)
		}
	}
	return nil
}
