/* query.c: the read-only queries of the queue, hosts and request pages
 * (web/queue.c, web/request.c): plain SELECTs on the caller's connection,
 * every list bounded. Nothing here writes; db.c keeps every change of
 * state. */
#include "db/query.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static char *col_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? strdup((const char *)s) : NULL;
}

static sqlite3_stmt *prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

/* v (alloc elements of size sz) grown to hold one more than n; NULL when
 * memory ran out (v is left as it was) */
static void *grow(void *v, size_t n, size_t *alloc, size_t sz)
{
	void *nv;
	size_t na;

	if (n < *alloc)
		return v;
	na = *alloc ? *alloc * 2 : 64;
	nv = realloc(v, na * sz);
	if (!nv)
		return NULL;
	*alloc = na;
	return nv;
}

void dbq_queue_free(struct dbq_queue_run *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].kernel_path);
		free(v[i].job);
		free(v[i].command);
		free(v[i].arch);
		free(v[i].host);
	}
	free(v);
}

int dbq_queue(struct db *db, size_t max, struct dbq_queue_run **out, size_t *n)
{
	sqlite3_stmt *st = prep(db,
		"SELECT r.id, r.request_id, r.kernel_id, k.path, r.job, r.command, r.arch,"
		" r.vcpus, h.name, r.state, r.attempt, r.queued_at, r.started_at"
		" FROM runs r JOIN kernels k ON k.id = r.kernel_id"
		" LEFT JOIN hosts h ON h.id = r.host_id"
		" WHERE r.state IN ('queued', 'running')"
		" ORDER BY r.state = 'queued', CASE WHEN r.state = 'running' THEN r.started_at END,"
		" r.id LIMIT ?");
	struct dbq_queue_run *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_queue_run *r;
		const char *state = (const char *)sqlite3_column_text(st, 9);

		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		r = &v[cnt++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(st, 0);
		r->request_id = sqlite3_column_int64(st, 1);
		r->kernel_id = sqlite3_column_int64(st, 2);
		r->kernel_path = col_dup(st, 3);
		r->job = col_dup(st, 4);
		r->command = col_dup(st, 5);
		r->arch = col_dup(st, 6);
		r->vcpus = sqlite3_column_int(st, 7);
		r->host = col_dup(st, 8);
		r->state = state && !strcmp(state, "running") ? RUN_RUNNING : RUN_QUEUED;
		r->attempt = sqlite3_column_int(st, 10);
		r->queued_at = sqlite3_column_int64(st, 11);
		r->started_at = sqlite3_column_int64(st, 12);
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_queue_free(v, cnt);
	return -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int dbq_median_duration(struct db *db, const char *job, const char *command,
			const char *arch, int vcpus, int64_t *median_ms, int *n)
{
	sqlite3_stmt *st = prep(db,
		"SELECT ended_at - started_at FROM runs"
		" WHERE state = 'done' AND started_at > 0 AND ended_at >= started_at"
		" AND (outcome IS NULL OR outcome NOT IN ('infra', 'canceled'))"
		" AND (job = ?1 OR (?1 IS NULL AND job IS NULL AND command = ?2))"
		" AND arch = ?3 AND vcpus = ?4 ORDER BY id DESC LIMIT ?5");
	int64_t d[DBQ_MEDIAN_RUNS];
	int cnt = 0, s;

	*n = 0;
	if (!st)
		return -1;
	if (job)
		sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 1);
	if (command)
		sqlite3_bind_text(st, 2, command, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	if (arch)
		sqlite3_bind_text(st, 3, arch, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int(st, 4, vcpus);
	sqlite3_bind_int(st, 5, DBQ_MEDIAN_RUNS);
	while ((s = sqlite3_step(st)) == SQLITE_ROW && cnt < DBQ_MEDIAN_RUNS)
		d[cnt++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE && s != SQLITE_ROW)
		return -1;
	*n = cnt;
	if (!cnt)
		return 0;
	qsort(d, (size_t)cnt, sizeof(d[0]), cmp_i64);
	*median_ms = cnt % 2 ? d[cnt / 2] : (d[cnt / 2 - 1] + d[cnt / 2]) / 2;
	return 1;
}

int dbq_run_request(struct db *db, int64_t run_id, int64_t *request_id)
{
	sqlite3_stmt *st = prep(db, "SELECT request_id FROM runs WHERE id = ?");
	int s, rc = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*request_id = sqlite3_column_int64(st, 0);
		rc = sqlite3_column_type(st, 0) != SQLITE_NULL && *request_id > 0;
	} else if (s == SQLITE_DONE) {
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int dbq_request_progress(struct db *db, int64_t request_id, int *runs, int *done)
{
	sqlite3_stmt *st = prep(db, "SELECT count(*), coalesce(sum(state = 'done'), 0)"
				" FROM runs WHERE request_id = ?");
	int rc = -1;

	*runs = *done = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, request_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*runs = sqlite3_column_int(st, 0);
		*done = sqlite3_column_int(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

void dbq_results_free(struct dbq_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].status);
	}
	free(v);
}

int dbq_request_results(struct db *db, int64_t request_id, size_t max,
			struct dbq_result **out, size_t *n, int *truncated)
{
	sqlite3_stmt *st = prep(db,
		"SELECT s.run_id, s.path, s.status FROM results s JOIN runs r ON r.id = s.run_id"
		" WHERE r.request_id = ? AND r.state = 'done' ORDER BY s.run_id, s.path LIMIT ?");
	struct dbq_result *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, request_id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max + 1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_result *r;

		if (cnt == max) {
			*truncated = 1;
			s = SQLITE_DONE;
			break;
		}
		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		r = &v[cnt++];
		r->run_id = sqlite3_column_int64(st, 0);
		r->path = col_dup(st, 1);
		r->status = col_dup(st, 2);
		if (!r->path || !r->status)
			goto fail;
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_results_free(v, cnt);
	return -1;
}

void dbq_hosts_free(struct dbq_host *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].uri);
		free(v[i].accel);
		free(v[i].qemu_version);
		free(v[i].libvirt_version);
		free(v[i].health_detail);
	}
	free(v);
}

int dbq_hosts(struct db *db, struct dbq_host **out, size_t *n)
{
	sqlite3_stmt *st = prep(db,
		"SELECT h.name, h.uri, h.accel, h.qemu_version, h.libvirt_version, h.max_vcpus,"
		" h.memory_kb, h.healthy, h.health_detail, h.updated_at,"
		" (SELECT count(*) FROM runs r WHERE r.host_id = h.id AND r.state = 'running'),"
		" (SELECT count(*) FROM runs r WHERE r.host_id = h.id AND r.state = 'done')"
		" FROM hosts h ORDER BY h.name LIMIT 10000");
	struct dbq_host *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_host *h;

		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		h = &v[cnt++];
		memset(h, 0, sizeof(*h));
		h->name = col_dup(st, 0);
		h->uri = col_dup(st, 1);
		h->accel = col_dup(st, 2);
		h->qemu_version = col_dup(st, 3);
		h->libvirt_version = col_dup(st, 4);
		h->max_vcpus = sqlite3_column_int(st, 5);
		h->memory_kb = sqlite3_column_int64(st, 6);
		h->healthy = sqlite3_column_int(st, 7);
		h->health_detail = col_dup(st, 8);
		h->updated_at = sqlite3_column_int64(st, 9);
		h->running = sqlite3_column_int(st, 10);
		h->done = sqlite3_column_int64(st, 11);
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_hosts_free(v, cnt);
	return -1;
}
