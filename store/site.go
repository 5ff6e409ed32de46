package store

import (
	"database/sql"
	"strconv"
)

// RunStamps maps each run that has events to the id and time of its latest
// one ("17 2026-11-29T16:17:55.000000000Z"), followed by the id of its
// latest correction when it has one (" c3"). Every change to a run (ingest,
// a companion file completing it, provenance completed) appends an event,
// and every amend a correction, so an unchanged stamp means an unchanged
// run: the site rebuilds only the pages of runs whose stamp moved. The time
// tells apart two archives whose event ids happen to match.
func (a *Archive) RunStamps() (out map[string]string, err error) {
	err = a.readBulk(func(query func(string) (bulkRows, error)) (err error) {
		out, err = runStamps(query)
		return err
	})
	return out, a.wrap("read run stamps", err)
}

// bulkRows are rows of a query of readBulk's, database/sql's or
// sqlitebulk's.
type bulkRows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}

// readBulk calls read with a query function for reading many rows: on
// SQLite it queries a connection of its own (one snapshot), in batches
// (sqlitebulk), not a cgo call and boxed values for each row as
// database/sql makes them; on PostgreSQL it is database/sql's.
func (a *Archive) readBulk(read func(query func(string) (bulkRows, error)) error) error {
	if a.d == postgresDialect {
		return read(func(q string) (bulkRows, error) { return a.r.Query(q) })
	}
	conn, err := a.openBulk()
	if err != nil {
		return err
	}
	defer conn.Close()
	return read(func(q string) (bulkRows, error) { return conn.Query(q) })
}

// runStamps is RunStamps through query.
func runStamps(query func(string) (bulkRows, error)) (map[string]string, error) {
	// Every event of a run, the latest kept here: one pass over the table
	// in its own order. (The latest of each run by MAX(id) and a join
	// back to its time was several times the CPU time on SQLite: a lookup
	// of a row of the table for each run.)
	rows, err := query(`SELECT run_id, id, at FROM events WHERE run_id IS NOT NULL AND run_id <> ''`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type stamp struct {
		id int64
		at string
	}
	latest := map[string]stamp{}
	for rows.Next() {
		var run string
		var st stamp
		if err := rows.Scan(&run, &st.id, &st.at); err != nil {
			return nil, err
		}
		if l, ok := latest[run]; !ok || st.id > l.id {
			latest[run] = st
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	out := make(map[string]string, len(latest))
	var text []byte
	for run, st := range latest {
		// fmt's "%d %s", made 10,000 times.
		text = append(append(strconv.AppendInt(text[:0], st.id, 10), ' '), st.at...)
		out[run] = string(text)
	}
	// Corrections append no event (their history is the corrections table).
	crows, err := query(`SELECT run_id, MAX(id) FROM corrections GROUP BY run_id`)
	if err != nil {
		return nil, err
	}
	defer crows.Close()
	for crows.Next() {
		var id string
		var max int64
		if err := crows.Scan(&id, &max); err != nil {
			return nil, err
		}
		out[id] += " c" + strconv.FormatInt(max, 10)
	}
	return out, crows.Err()
}

// BlobSizes maps every archived raw file's SHA-256 to its size in bytes.
func (a *Archive) BlobSizes() (out map[string]int64, err error) {
	err = a.readBulk(func(query func(string) (bulkRows, error)) error {
		rows, err := query(`SELECT sha256, size FROM blobs`)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = map[string]int64{}
		for rows.Next() {
			var sha string
			var size int64
			if err := rows.Scan(&sha, &size); err != nil {
				return err
			}
			out[sha] = size
		}
		return rows.Err()
	})
	return out, a.wrap("read blob sizes", err)
}

// PublishedCases lists the ids of the case studies with a recorded
// version, sorted.
func (a *Archive) PublishedCases() ([]string, error) {
	rows, err := a.r.Query(`SELECT DISTINCT case_id FROM publications ORDER BY case_id`)
	if err != nil {
		return nil, a.wrap("list case studies", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id sql.NullString
		if err := rows.Scan(&id); err != nil {
			return nil, a.wrap("list case studies", err)
		}
		out = append(out, id.String)
	}
	return out, a.wrap("list case studies", rows.Err())
}

// SiteKey is the archive's secret for the MAC over the rows a site build
// caches beside its pages: it never leaves the archive, so whoever can
// edit a site's folder but not its archive cannot make a cached row the
// next build trusts.
func (a *Archive) SiteKey() ([]byte, error) {
	var key []byte
	err := a.r.QueryRow(`SELECT value FROM archive_keys WHERE name = 'site'`).Scan(&key)
	if err != nil {
		return nil, a.wrap("read the site key", err)
	}
	return key, nil
}
