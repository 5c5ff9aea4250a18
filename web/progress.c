// SPDX-License-Identifier: GPL-2.0-only
/* progress.c: a running build's stage and the objects made so far, read
 * from its log (kernels/buildlog.c), against the count of the newest done
 * build of the same arch and config, which also gives a time left; for
 * the first build of its arch and config, against the estimate from its
 * .config that the build noted in its log (kernels/estimate.c). */
#include "web/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/kernels.h"

/* kbuild lines in the log of the done build in dir; -1 when unknown. A
 * done build's log does not change, so its count is kept beside it
 * (build.objects) and the log, megabytes for a kernel, is read once, not
 * on every look at a build that follows it. */
static long long log_objects(const char *dir)
{
	struct kbuild_progress kp;
	char *log = dir ? path_join(dir, "build.log") : NULL;
	char *kept = dir ? path_join(dir, "build.objects") : NULL;
	struct buf b = BUF_INIT(32);
	long long n = -1;
	int rc;

	if (kept && read_file(kept, &b, 24) == 0 && parse_int(buf_str(&b), 0, 1LL << 40, &n) == 0)
		goto out;
	n = -1;
	rc = log ? kbuild_log_progress(log, &kp) : -1;
	if (rc == 0) {
		char line[24];
		int len = snprintf(line, sizeof(line), "%lld", kp.objects);

		n = kp.objects;
		if (kept)
			write_file(kept, line, (size_t)len, 0644);  /* else read again next time */
	}
out:
	buf_release(&b);
	free(kept);
	free(log);
	return n;
}

int web_build_progress(struct db *db, const struct build_row *b, struct web_progress *p)
{
	struct kbuild_progress kp;
	struct build_row prev;
	char *log;
	int rc;

	memset(p, 0, sizeof(*p));
	p->eta_ms = -1;
	if (!b->state || strcmp(b->state, "building") || !b->dir)
		return 0;
	log = path_join(b->dir, "build.log");
	rc = log ? kbuild_log_progress(log, &kp) : -1;
	free(log);
	if (rc < 0)
		return 0;
	snprintf(p->stage, sizeof(p->stage), "%s", kp.stage);
	p->objects = kp.objects;
	p->elapsed_ms = b->started_at ? now_ms() - b->started_at : 0;
	if (p->elapsed_ms < 0)
		p->elapsed_ms = 0;
	memset(&prev, 0, sizeof(prev));
	if (db_build_previous(db, b, &prev) == 1) {
		long long n = log_objects(prev.dir);

		if (n > 0) {
			p->expected = n;
			p->expected_from = "previous build";
		}
	}
	if (!p->expected && kp.estimate > 0) {
		p->expected = kp.estimate;
		p->expected_from = "config";
	}
	/* by the objects' pace once a few are made, else by the last build's
	 * time; a build past the last one's count is nearly done (past an
	 * estimate, when it ends is not known) */
	if (p->expected && p->objects * 20 >= p->expected && p->objects < p->expected)
		p->eta_ms = p->elapsed_ms * (p->expected - p->objects) / p->objects;
	else if (p->expected && p->objects >= p->expected &&
		 !strcmp(p->expected_from, "previous build"))
		p->eta_ms = 0;
	else if (prev.ms > 0)
		p->eta_ms = prev.ms > p->elapsed_ms ? prev.ms - p->elapsed_ms : 0;
	db_row_release(db_build_fields, &prev, sizeof(prev));
	return 1;
}

json_t *web_build_progress_json(struct db *db, const struct build_row *b)
{
	struct web_progress p;

	if (!web_build_progress(db, b, &p))
		return json_null();
	return json_pack("{ss sI so so sI so}", "stage", p.stage, "objects", (json_int_t)p.objects,
			 "expected", p.expected ? json_integer(p.expected) : json_null(),
			 "expected_from",
			 p.expected_from ? json_string(p.expected_from) : json_null(),
			 "elapsed_ms", (json_int_t)p.elapsed_ms,
			 "eta_ms", p.eta_ms >= 0 ? json_integer(p.eta_ms) : json_null());
}

static void duration(struct buf *out, long long ms)
{
	if (ms < 60000)
		buf_printf(out, "%lld s", (ms + 999) / 1000);
	else
		buf_printf(out, "%lld min", (ms + 59999) / 60000);
}

void web_progress_text(const struct web_progress *p, struct buf *out)
{
	buf_printf(out, "%s", p->stage);
	if (p->objects || !strcmp(p->stage, "make")) {
		buf_printf(out, ": %lld", p->objects);
		if (p->expected && p->objects <= p->expected)
			buf_printf(out, " of about %lld objects (%lld%%%s)", p->expected,
				   p->objects * 100 / p->expected,
				   p->expected_from && !strcmp(p->expected_from, "config") ?
				   ", estimated from its .config" : "");
		else
			buf_puts(out, " objects");
	}
	buf_puts(out, ", ");
	duration(out, p->elapsed_ms);
	buf_puts(out, " so far");
	if (p->eta_ms >= 0) {
		buf_puts(out, ", about ");
		duration(out, p->eta_ms);
		buf_puts(out, " left");
	}
}
