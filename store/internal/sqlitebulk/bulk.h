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

extern int sqlite3_get_autocommit(sqlite3*);

// The virtual-table interface, as sqlite3.h lays it out (a stable ABI):
// only the members up to xRename, which a module of iVersion 1 has.
typedef struct sqlite3_context sqlite3_context;
typedef struct bulk_vtab_base {
	const void *pModule;
	int nRef;
	char *zErrMsg;
} bulk_vtab_base;
typedef struct bulk_cursor_base {
	bulk_vtab_base *pVtab;
} bulk_cursor_base;
typedef struct bulk_index_info {
	int nConstraint;
	void *aConstraint;
	int nOrderBy;
	void *aOrderBy;
	void *aConstraintUsage;
	int idxNum;
	char *idxStr;
	int needToFreeIdxStr;
	int orderByConsumed;
	double estimatedCost;
	long long estimatedRows; // from SQLite 3.8.2
} bulk_index_info;
typedef struct bulk_module {
	int iVersion;
	int (*xCreate)(sqlite3*, void*, int, const char *const*, bulk_vtab_base**, char**);
	int (*xConnect)(sqlite3*, void*, int, const char *const*, bulk_vtab_base**, char**);
	int (*xBestIndex)(bulk_vtab_base*, bulk_index_info*);
	int (*xDisconnect)(bulk_vtab_base*);
	int (*xDestroy)(bulk_vtab_base*);
	int (*xOpen)(bulk_vtab_base*, bulk_cursor_base**);
	int (*xClose)(bulk_cursor_base*);
	int (*xFilter)(bulk_cursor_base*, int, const char*, int, void**);
	int (*xNext)(bulk_cursor_base*);
	int (*xEof)(bulk_cursor_base*);
	int (*xColumn)(bulk_cursor_base*, sqlite3_context*, int);
	int (*xRowid)(bulk_cursor_base*, long long*);
	void *xUpdate, *xBegin, *xSync, *xCommit, *xRollback, *xFindFunction, *xRename;
} bulk_module;
extern int sqlite3_create_module_v2(sqlite3*, const char*, const bulk_module*, void*, void(*)(void*));
extern int sqlite3_declare_vtab(sqlite3*, const char*);
extern void *sqlite3_malloc(int);
extern void sqlite3_free(void*);
extern void sqlite3_result_int64(sqlite3_context*, long long);
extern void sqlite3_result_double(sqlite3_context*, double);
extern void sqlite3_result_text(sqlite3_context*, const char*, int, void(*)(void*));
extern void sqlite3_result_blob(sqlite3_context*, const void*, int, void(*)(void*));
extern void sqlite3_result_null(sqlite3_context*);

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
