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
func (a *Archive) RunStamps() (map[string]string, error) {
	// A join rather than SQLite's bare column beside MAX(id), which
	// PostgreSQL does not have.
	rows, err := a.r.Query(`SELECT e.run_id, e.id, e.at FROM events e JOIN
		(SELECT MAX(id) AS id FROM events WHERE run_id IS NOT NULL AND run_id <> '' GROUP BY run_id) m ON e.id = m.id`)
	if err != nil {
		return nil, a.wrap("read run stamps", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, at string
		var max int64
		if err := rows.Scan(&id, &max, &at); err != nil {
			return nil, a.wrap("read run stamps", err)
		}
		out[id] = strconv.FormatInt(max, 10) + " " + at // fmt's "%d %s", made 10,000 times
	}
	if err := rows.Err(); err != nil {
		return nil, a.wrap("read run stamps", err)
	}
	rows.Close()
	// Corrections append no event (their history is the corrections table).
	crows, err := a.r.Query(`SELECT run_id, MAX(id) FROM corrections GROUP BY run_id`)
	if err != nil {
		return nil, a.wrap("read run stamps", err)
	}
	defer crows.Close()
	for crows.Next() {
		var id string
		var max int64
		if err := crows.Scan(&id, &max); err != nil {
			return nil, a.wrap("read run stamps", err)
		}
		out[id] += " c" + strconv.FormatInt(max, 10)
	}
	return out, a.wrap("read run stamps", crows.Err())
}

// BlobSizes maps every archived raw file's SHA-256 to its size in bytes.
func (a *Archive) BlobSizes() (map[string]int64, error) {
	rows, err := a.r.Query(`SELECT sha256, size FROM blobs`)
	if err != nil {
		return nil, a.wrap("read blob sizes", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var sha string
		var size int64
		if err := rows.Scan(&sha, &size); err != nil {
			return nil, a.wrap("read blob sizes", err)
		}
		out[sha] = size
	}
	return out, a.wrap("read blob sizes", rows.Err())
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
