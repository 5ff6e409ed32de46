// Command xlsxbare is the yardstick of `make bench` for the xlsx export:
// excelize's StreamWriter alone writing the requests table's ten cells (a
// run id, two integers, six floats and an error text) with the same column
// number formats. With -db it reads the same records from an archive with
// one plain SQL query, so it writes the very cells `benchledger export
// --requests` writes (same values, so the same compression work); without,
// it makes up -rows rows in memory. benchledger must stay within 1.5x of it.
//
//	go run ./scripts/xlsxbare -db archive.db -o /tmp/bare.xlsx
//	go run ./scripts/xlsxbare -rows 1000000 -o /tmp/bare.xlsx
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/xuri/excelize/v2"
)

func main() {
	rows := flag.Int("rows", 1_000_000, "data rows (without -db)")
	db := flag.String("db", "", "read the rows of every run from this archive")
	out := flag.String("o", "bare.xlsx", "output file")
	flag.Parse()
	start := time.Now()
	src := synthetic(*rows)
	if *db != "" {
		src = fromArchive(*db)
	}
	if err := write(*out, src); err != nil {
		fmt.Fprintln(os.Stderr, "xlsxbare:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "xlsxbare: written in %.2f s\n", time.Since(start).Seconds())
}

// source calls fn with each row's ten values.
type source func(fn func(row []any) error) error

func synthetic(n int) source {
	return func(fn func([]any) error) error {
		row := make([]any, 10)
		for i := 0; i < n; i++ {
			x := float64(i)
			row[0], row[1], row[2] = "3f9c2a7d51be", int64(i), 1000+x*0.01
			row[3], row[4], row[5] = 50+float64(i%97), 12+float64(i%13)*0.1, 8.5+float64(i%7)*0.01
			row[6], row[7], row[8], row[9] = int64(1000+i%17), int64(256), 8.4+float64(i%5)*0.01, nil
			if err := fn(row); err != nil {
				return err
			}
		}
		return nil
	}
}

// fromArchive reads the requests table as benchledger's export derives it:
// TTFT and TPOT in ms, mean chunk gap in ms, empty cells for unknowns.
func fromArchive(path string) source {
	return func(fn func([]any) error) error {
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		if err != nil {
			return err
		}
		defer db.Close()
		rows, err := db.Query(`SELECT run_id, idx, start, ttft, latency, input_tokens, output_tokens, error, gap_count, gap_sum
			FROM requests ORDER BY run_id, idx`)
		if err != nil {
			return err
		}
		defer rows.Close()
		row := make([]any, 10)
		var id string
		var idx, gapCount int64
		var start, ttft, lat, gapSum sql.NullFloat64
		var in, out sql.NullInt64
		var errText sql.NullString
		opt := func(v sql.NullFloat64, scale float64) any {
			if !v.Valid {
				return nil
			}
			return v.Float64 * scale
		}
		for rows.Next() {
			if err := rows.Scan(&id, &idx, &start, &ttft, &lat, &in, &out, &errText, &gapCount, &gapSum); err != nil {
				return err
			}
			row[0], row[1], row[2], row[3], row[4] = id, idx, opt(start, 1), opt(ttft, 1000), opt(lat, 1)
			row[5], row[6], row[7], row[8], row[9] = nil, nil, nil, nil, nil
			if errText.String == "" && out.Valid && out.Int64 > 1 && ttft.Valid && lat.Valid {
				row[5] = (lat.Float64 - ttft.Float64) / float64(out.Int64-1) * 1000
			}
			if in.Valid {
				row[6] = in.Int64
			}
			if out.Valid {
				row[7] = out.Int64
			}
			if gapCount > 0 && gapSum.Valid {
				row[8] = gapSum.Float64 / float64(gapCount) * 1000
			}
			if errText.String != "" {
				row[9] = errText.String
			}
			if err := fn(row); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

func write(path string, src source) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	formats := []string{"@", "#,##0", "#,##0.000000", "#,##0.00", "#,##0.0000", "#,##0.000", "#,##0", "#,##0", "#,##0.000", "@"}
	for j, code := range formats {
		code := code
		id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return err
		}
		if err := sw.SetColStyle(j+1, j+1, id); err != nil {
			return err
		}
	}
	header := []any{"run", "index", "start (s)", "TTFT (ms)", "E2E (s)", "TPOT (ms)", "input tokens", "output tokens", "ITL mean (ms)", "error"}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	n := 1
	err = src(func(row []any) error {
		n++
		cell, err := excelize.CoordinatesToCellName(1, n)
		if err != nil {
			return err
		}
		return sw.SetRow(cell, row)
	})
	if err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(path)
}
