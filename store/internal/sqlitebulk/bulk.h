// The SQLite functions this package calls, from the library that
// github.com/mattn/go-sqlite3 compiles into the binary (its header is not
// reachable from here), and the cell both directions share.

#ifndef SQLITEBULK_BULK_H
#define SQLITEBULK_BULK_H

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
extern int sqlite3_open_v2(const char*, sqlite3**, int, const char*);
extern int sqlite3_close_v2(sqlite3*);
extern int sqlite3_busy_timeout(sqlite3*, int);
extern int sqlite3_exec(sqlite3*, const char*, int (*)(void*, int, char**, char**), void*, char**);
extern const char *sqlite3_errmsg(sqlite3*);
extern int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
extern int sqlite3_bind_text(sqlite3_stmt*, int, const char*, int, void(*)(void*));
extern int sqlite3_reset(sqlite3_stmt*);
extern int sqlite3_step(sqlite3_stmt*);
extern int sqlite3_finalize(sqlite3_stmt*);
extern int sqlite3_column_count(sqlite3_stmt*);
extern int sqlite3_column_type(sqlite3_stmt*, int);
extern double sqlite3_column_double(sqlite3_stmt*, int);
extern long long sqlite3_column_int64(sqlite3_stmt*, int);
extern const void *sqlite3_column_blob(sqlite3_stmt*, int);
extern int sqlite3_column_bytes(sqlite3_stmt*, int);
typedef struct sqlite3_value sqlite3_value;
extern sqlite3_value *sqlite3_column_value(sqlite3_stmt*, int);
extern int sqlite3_value_type(sqlite3_value*);
extern double sqlite3_value_double(sqlite3_value*);
extern long long sqlite3_value_int64(sqlite3_value*);
extern const void *sqlite3_value_blob(sqlite3_value*);
extern int sqlite3_value_bytes(sqlite3_value*);
extern int sqlite3_bind_int64(sqlite3_stmt*, int, long long);
extern int sqlite3_bind_double(sqlite3_stmt*, int, double);
extern int sqlite3_bind_blob(sqlite3_stmt*, int, const void*, int, void(*)(void*));
extern int sqlite3_bind_null(sqlite3_stmt*, int);
extern int sqlite3_bind_parameter_count(sqlite3_stmt*);
extern int sqlite3_clear_bindings(sqlite3_stmt*);
extern int sqlite3_extended_errcode(sqlite3*);

// One cell: its storage class (SQLite's 1 integer, 2 float, 3 text,
// 4 blob, 5 null) and value; text and blobs are in the batch's byte
// buffer at off.
typedef struct {
	double f;
	long long i;
	int off, len;
	int type, pad;
} bulk_cell;

#endif
