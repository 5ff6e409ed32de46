//go:build cgo

package store

/*
extern int sqlite3_config(int, ...);

// SQLITE_CONFIG_STMTJRNL_SPILL (sqlite3.h): the bytes of a statement
// journal kept in memory before it is written to a temporary file.
static int stmtJournalSpill(int n) { return sqlite3_config(26, n); }
*/
import "C"

// stmtJournalMemory is how much of a statement journal SQLite keeps in
// memory (its default is 64 KiB). A statement that changes pages changed
// before in the same transaction keeps their old content in that journal,
// and once one statement's journal outgrew the memory it became a file for
// the rest of the transaction: with 16 KiB pages, the statements that
// insert a large run's request rows (64 rows each, some five pages of the
// table and its index) wrote 26,000 pages there for the 950 MB bench file,
// 426 MB through the kernel. 1 MiB holds such a statement's journal and
// is freed at its end. (BlobWriter.rekey keeps the one statement that
// would journal a page per chunk from arising.)
// It is set for the process before SQLite is first used; stmtJournalSet
// says whether SQLite took it.
const stmtJournalMemory = 1 << 20

var stmtJournalSet = C.stmtJournalSpill(stmtJournalMemory) == 0
