// SPDX-License-Identifier: GPL-2.0-only
/* hosts.c: the hosts table: each libvirt host as it last described itself
 * (upserted by name at start-up and by the health checks), whether it is
 * in placement, and the hosts page's listing with its runs per host. */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"

#include <stddef.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field host_fields[] = {
	F(dbq_host, name, TEXT), F(dbq_host, uri, TEXT), F(dbq_host, accel, TEXT),
	F(dbq_host, qemu_version, TEXT), F(dbq_host, libvirt_version, TEXT),
	F(dbq_host, max_vcpus, INT32), F(dbq_host, memory_kb, INT), F(dbq_host, healthy, INT32),
	F(dbq_host, health_detail, TEXT), F(dbq_host, updated_at, TIME),
	F(dbq_host, running, INT32), F(dbq_host, done, INT), { NULL, 0, 0 },
};

int db_host_upsert(struct db *db, const char *name, const char *uri, const char *accel,
		   const char *qemu_version, const char *libvirt_version, int max_vcpus,
		   int64_t memory_kb)
{
	return dbi_exec(db,
		"INSERT INTO hosts (name, uri, accel, qemu_version, libvirt_version,"
		" max_vcpus, memory_kb, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
		" ON CONFLICT (name) DO UPDATE SET uri = ?2, accel = ?3, qemu_version = ?4,"
		" libvirt_version = ?5, max_vcpus = ?6, memory_kb = ?7, updated_at = ?8",
		DBI_TEXT(name), DBI_TEXT(uri), DBI_TEXT(accel), DBI_TEXT(qemu_version),
		DBI_TEXT(libvirt_version), DBI_INT(max_vcpus), DBI_INT(memory_kb),
		DBI_INT(now_ms()));
}

int db_host_known(struct db *db, const char *name, const char *uri)
{
	return dbi_exec(db, "INSERT INTO hosts (name, uri, updated_at) VALUES (?1, ?2, ?3)"
			" ON CONFLICT (name) DO UPDATE SET uri = ?2", DBI_TEXT(name),
			DBI_TEXT(uri), DBI_INT(now_ms()));
}

int db_host_health(struct db *db, const char *name, int healthy, const char *detail)
{
	return dbi_exec(db, "UPDATE hosts SET healthy = ?2, health_detail = ?3,"
			" updated_at = ?4 WHERE name = ?1", DBI_TEXT(name),
			DBI_INT(healthy ? 1 : 0), DBI_TEXT(detail), DBI_INT(now_ms()));
}

/* --- the hosts page (query.h) --------------------------------------------- */

int dbq_hosts(struct db *db, struct dbq_host **out, size_t *n)
{
	return dbi_rows(dbi_prep(db,
		"SELECT h.name, h.uri, h.accel, h.qemu_version, h.libvirt_version, h.max_vcpus,"
		" h.memory_kb, h.healthy, h.health_detail, h.updated_at,"
		/* kept by triggers (schema step 6), not counted over the runs */
		" coalesce((SELECT n FROM run_counts c WHERE c.host_id = h.id"
		"  AND c.state = 'running'), 0),"
		" coalesce((SELECT n FROM run_counts c WHERE c.host_id = h.id"
		"  AND c.state = 'done'), 0)"
		" FROM hosts h ORDER BY h.name LIMIT 10000"),
		host_fields, sizeof(**out), SIZE_MAX, out, n, NULL);
}

void dbq_hosts_free(struct dbq_host *v, size_t n)
{
	db_rows_free(host_fields, v, sizeof(*v), n);
}
