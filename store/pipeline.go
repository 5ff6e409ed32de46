package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// On PostgreSQL every statement is a round trip to the server: an ingest
// of many small files sent a file's twenty-odd statements one at a time,
// each waiting for the answer to the last. A PutRun's inserts need no
// answer but success, and a commit's reads of what it links do not depend
// on each other, so each group goes in one batch (pgx's extended-protocol
// pipeline) on the writer's one connection, inside the transaction
// database/sql began on it. Each queued statement and its arguments are
// what database/sql would have sent, so the rows are the same
// (TestPostgresPipelineStoresAlike, TestPostgresChainStatesPipelinedAlike).
// The batch bypasses database/sql's lock on the connection, as the SQLite
// Inserter does: PutRun holds tx.stmts, which a blob's storer takes for
// each chunk, and a commit runs after every storer has finished.

// pipeline is the statements queued so far and, for each, how its error
// is described.
type pipeline struct {
	conn   *pgx.Conn
	batch  pgx.Batch
	wraps  []func(error) error
	values int // the arguments queued
}

// pipelineValues bounds the arguments a pipeline holds before it sends
// them: a run of a million records would otherwise hold them all, boxed.
const pipelineValues = 1 << 16

// startPipeline makes tx queue its inserts until flushPipeline, on
// PostgreSQL when the writer's pgx connection is known; elsewhere it does
// nothing and the statements run as they come.
func (tx *Tx) startPipeline() {
	if tx.a.d != postgresDialect {
		return
	}
	if c := tx.a.writerPG.Load(); c != nil {
		tx.pipe = &pipeline{conn: c}
	}
}

// flushPipeline sends the queued statements and ends the pipeline. The
// first statement refused gives the error, described as it would have
// been had it run alone; the server then refuses the rest of the
// transaction, as after any failed statement.
func (tx *Tx) flushPipeline() error {
	p := tx.pipe
	tx.pipe = nil
	return p.send(tx)
}

// send sends what p holds and empties it.
func (p *pipeline) send(tx *Tx) error {
	if p == nil || p.batch.Len() == 0 {
		return nil
	}
	defer func() { p.batch, p.wraps, p.values = pgx.Batch{}, nil, 0 }()
	res := p.conn.SendBatch(tx.ctx, &p.batch)
	for _, wrap := range p.wraps {
		if _, err := res.Exec(); err != nil {
			res.Close()
			return wrap(err)
		}
	}
	return res.Close()
}

// exec runs query with args, or queues it on the pipeline; wrap describes
// its error. args may be reused once exec returns.
func (tx *Tx) exec(query string, args []any, wrap func(error) error) error {
	if p := tx.pipe; p != nil {
		p.batch.Queue(rebind(query), pgArgs(args)...)
		p.wraps = append(p.wraps, wrap)
		if p.values += len(args); p.values >= pipelineValues {
			if err := p.send(tx); err != nil {
				tx.pipe = nil // the transaction is rolled back
				return err
			}
		}
		return nil
	}
	stmt, err := tx.stmt(query)
	if err != nil {
		return wrap(err)
	}
	if _, err := stmt.Exec(args...); err != nil {
		return wrap(err)
	}
	return nil
}

// pgArgs copies args as database/sql would pass them to pgx (pgValue).
func pgArgs(args []any) []any {
	out := make([]any, len(args))
	for i, v := range args {
		out[i] = pgValue(v)
	}
	return out
}

// asIs describes an error by itself.
func asIs(err error) error { return err }

// prefixed describes an error after what.
func prefixed(what string) func(error) error {
	return func(err error) error { return fmt.Errorf("%s: %w", what, err) }
}

// touchedStatesPipelined is touchedStates on PostgreSQL: every query of
// every touched thing's record, and its latest link, sent in one batch.
// The rows are the values database/sql gives (the record's JSON text
// takes an int32 as an int64), so the records are the same.
func (tx *Tx) touchedStatesPipelined(c *pgx.Conn, kinds []chainKind) ([]touchedState, error) {
	var batch pgx.Batch
	queries := make([][]recordQuery, len(tx.touched))
	for i, t := range tx.touched {
		queries[i] = tx.a.recordQueries(kinds[i], t.ref)
		for _, q := range queries[i] {
			batch.Queue(rebind(q.sql), q.args...)
		}
		batch.Queue(rebind(lastRecordSQL), t.kind, t.ref)
	}
	res := c.SendBatch(tx.ctx, &batch)
	defer res.Close()
	out := make([]touchedState, len(tx.touched))
	for i, t := range tx.touched {
		read := "extend the chain: read " + t.kind + " " + t.ref
		sets := make([][]recordRow, len(queries[i]))
		for j := range queries[i] {
			rows, err := res.Query()
			if err != nil {
				return nil, tx.wrap(read, err)
			}
			for rows.Next() {
				vals, err := rows.Values()
				if err == nil {
					sets[j], err = appendRecordRow(sets[j], vals)
				}
				if err != nil {
					rows.Close()
					return nil, tx.wrap(read, err)
				}
			}
			if rows.Close(); rows.Err() != nil {
				return nil, tx.wrap(read, rows.Err())
			}
		}
		recs, err := tx.a.assembleRecords(kinds[i], sets)
		if err != nil {
			return nil, tx.wrap(read, err)
		}
		out[i].recs = recs
		if err := res.QueryRow().Scan(&out[i].last); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, tx.wrap("extend the chain", err)
		}
	}
	return out, res.Close()
}
