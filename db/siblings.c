// SPDX-License-Identifier: GPL-2.0-only
/* siblings.c: a request's siblings (siblings.h): the requests of the same
 * base and patched kernel and job, for the scaling chart across vCPU
 * counts. One query on the requests table. */
#include "db/db.h"
#include "db/dbint.h"
#include "db/siblings.h"

int db_request_siblings(struct db *db, const struct request *q, size_t max, int64_t **ids,
			size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT id FROM (SELECT id FROM requests"
				 " WHERE base_kernel_id = ? AND patched_kernel_id = ? AND job IS ?"
				 " ORDER BY id DESC LIMIT ?) ORDER BY id",
				 DBI_INT(q->base_kernel_id), DBI_INT(q->patched_kernel_id),
				 DBI_TEXT(q->job), DBI_INT((int64_t)max)),
			dbi_id_fields, sizeof(**ids), max, ids, n, NULL);
}
