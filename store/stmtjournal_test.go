//go:build cgo

package store

import "testing"

// TestStatementJournalInMemory: SQLite took the larger in-memory
// statement journal (set before its first use; too late, it refuses).
func TestStatementJournalInMemory(t *testing.T) {
	if !stmtJournalSet {
		t.Errorf("sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, %d) was refused", stmtJournalMemory)
	}
}
