// SPDX-License-Identifier: GPL-2.0-only
/* row.c: the one mapper from a statement's rows to structs. A field table
 * (struct db_field: name, offset, type) lists a struct's members in the
 * order of the columns; every "SELECT columns -> struct" of db/ fills its
 * rows here, and the same table frees them. */
#include "db/db.h"
#include "db/dbint.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

const struct db_field dbi_id_fields[] = { { "id", 0, DB_FIELD_INT }, { NULL, 0, 0 } };

void *dbi_grow(void *v, size_t n, size_t *alloc, size_t sz)
{
	void *nv;
	size_t na;

	if (n < *alloc)
		return v;
	na = *alloc ? *alloc * 2 : 16;
	nv = realloc(v, na * sz);
	if (!nv)
		return NULL;
	*alloc = na;
	return nv;
}

void db_row_release(const struct db_field *fields, void *row, size_t size)
{
	for (const struct db_field *f = fields; f->name; f++)
		if (f->type == DB_FIELD_TEXT)
			free(*(char **)((char *)row + f->offset));
	memset(row, 0, size);
}

void db_rows_free(const struct db_field *fields, void *rows, size_t size, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		db_row_release(fields, (char *)rows + i * size, size);
	free(rows);
}

int dbi_row_fill(sqlite3_stmt *st, const struct db_field *fields, void *row, size_t size)
{
	int ncol = sqlite3_column_count(st), i = 0;

	memset(row, 0, size);
	for (const struct db_field *f = fields; f->name && i < ncol; f++) {
		void *p = (char *)row + f->offset;
		const char *s;

		switch (f->type) {
		case DB_FIELD_TEXT:
			s = (const char *)sqlite3_column_text(st, i);
			if (s && !(*(char **)p = strdup(s))) {
				db_row_release(fields, row, size);
				return -1;
			}
			break;
		case DB_FIELD_INT:
		case DB_FIELD_TIME:
			*(int64_t *)p = sqlite3_column_int64(st, i);
			break;
		case DB_FIELD_INT32:
			*(int *)p = sqlite3_column_int(st, i);
			break;
		case DB_FIELD_REAL:
			*(double *)p = sqlite3_column_double(st, i);
			break;
		case DB_FIELD_STATE:   /* unknown: left RUN_QUEUED */
			run_state_parse((const char *)sqlite3_column_text(st, i), p);
			break;
		case DB_FIELD_OUTCOME: /* NULL or unknown: left RUN_OUT_NONE */
			run_outcome_parse((const char *)sqlite3_column_text(st, i), p);
			break;
		case DB_FIELD_HAS:     /* the next field reads this column again */
			*(int *)p = sqlite3_column_type(st, i) != SQLITE_NULL;
			continue;
		}
		i++;
	}
	return 0;
}

int dbi_row_one(sqlite3_stmt *st, const struct db_field *fields, void *row, size_t size)
{
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && dbi_row_fill(st, fields, row, size) < 0)
		rc = SQLITE_NOMEM;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int dbi_rows(sqlite3_stmt *st, const struct db_field *fields, size_t size, size_t max,
	     void *rows, size_t *n, int *truncated)
{
	size_t cnt = 0, alloc = 0;
	char *v = NULL, *nv;
	int rc = SQLITE_DONE;

	*(void **)rows = NULL;
	*n = 0;
	if (truncated)
		*truncated = 0;
	if (!st)
		return -1;
	while ((cnt < max || truncated) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (cnt == max) {
			*truncated = 1;
			rc = SQLITE_DONE;
			break;
		}
		if (!(nv = dbi_grow(v, cnt, &alloc, size)) ||
		    dbi_row_fill(st, fields, (v = nv) + cnt * size, size) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		cnt++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		db_rows_free(fields, v, size, cnt);
		return -1;
	}
	*(void **)rows = v;
	*n = cnt;
	return 0;
}

sqlite3_stmt *dbi_select(struct db *db, const struct db_field *fields, const char *table,
			 const char *rest)
{
	struct buf b = BUF_INIT(0);
	sqlite3_stmt *st;

	buf_puts(&b, "SELECT ");
	for (const struct db_field *f = fields; f->name; f++)
		buf_printf(&b, "%s%s", f == fields ? "" : ", ", f->name);
	buf_printf(&b, " FROM %s %s", table, rest);
	st = dbi_prep(db, buf_str(&b));
	buf_release(&b);
	return st;
}
