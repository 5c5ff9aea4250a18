/* tail.c: GET /api/runs/ID/tail?console=N&output=M: what a run's console
 * and its command's output gained past byte offsets N and M, with the
 * run's state and outcome, for `kfleet logs -f` and the run page while the
 * guest runs. Each part is at most WEB_TAIL_CHUNK bytes, cut before an
 * unfinished UTF-8 sequence so that the next call starts on a whole one;
 * {"console": {"offset": where the text starts, "next": where to ask from
 * next, "size": the file's size, "text", "restarted": the file became
 * shorter than N (virtlogd rotated it at 2 MiB), so the text starts at 0}}.
 * A file not there yet is empty. */
#include "web/handlers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "orchestrator/orchestrator.h"
#include "web/reply.h"
#include "web/server.h"

#define WEB_TAIL_CHUNK (64 * 1024)

/* Bytes at the end of p[0..n) that begin a UTF-8 sequence not finished
 * within it (0 to 3) */
static size_t utf8_unfinished(const unsigned char *p, size_t n)
{
	for (size_t k = 1; k <= 3 && k <= n; k++) {
		unsigned char c = p[n - k];

		if ((c & 0xc0) == 0x80)
			continue;              /* a continuation byte: look further back */
		if ((c & 0xe0) == 0xc0)
			return k < 2 ? k : 0;
		if ((c & 0xf0) == 0xe0)
			return k < 3 ? k : 0;
		if ((c & 0xf8) == 0xf0)
			return k < 4 ? k : 0;
		return 0;
	}
	return 0;
}

/* {"offset", "next", "size", "text", "restarted"} of dir/name from off;
 * NULL when out of memory */
static json_t *part(const char *dir, const char *name, long long off)
{
	char *path = dir ? path_join(dir, name) : NULL, *chunk = NULL;
	long long size = 0, start = off;
	int restarted = 0, fd = -1;
	ssize_t got = 0;
	struct stat st;
	json_t *o;

	if (path && (fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) >= 0 &&
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size = (long long)st.st_size;
		if (start > size) {
			start = 0;
			restarted = 1;
		}
		chunk = malloc(WEB_TAIL_CHUNK);
		if (chunk && size > start) {
			size_t want = (size_t)(size - start < WEB_TAIL_CHUNK ? size - start :
					       WEB_TAIL_CHUNK);

			got = pread(fd, chunk, want, (off_t)start);
			if (got < 0)
				got = 0;
			/* the rest of a sequence cut here comes with the next call;
			 * at the end of a finished file it is what it is */
			if (got > 0 && (size_t)got == want)
				got -= (ssize_t)utf8_unfinished((unsigned char *)chunk, (size_t)got);
		}
	} else if (fd < 0 && errno != ENOENT && path) {
		log_warn("web: '%s': %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	o = json_pack("{sI sI sI so sb}", "offset", (json_int_t)start, "next",
		      (json_int_t)(start + got), "size", (json_int_t)size, "text",
		      web_json_strn(chunk ? chunk : "", (size_t)got), "restarted", restarted);
	free(chunk);
	free(path);
	return o;
}

static int offset_arg(struct MHD_Connection *c, const char *key, long long *v)
{
	const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);

	*v = 0;
	return s ? parse_int(s, 0, INT64_MAX, v) : 0;
}

WEB_HANDLER(api_run_tail)
{
	long long con, outp;
	enum MHD_Result rc;
	struct run r;
	struct db *db;
	json_t *o;
	int found;

	if (offset_arg(c, "console", &con) < 0 || offset_arg(c, "output", &outp) < 0)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "console= and output= are byte offsets (0 or more)");
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	memset(&r, 0, sizeof(r));
	found = db_run_get(db, arg->id, &r);
	if (found <= 0) {
		if (found < 0)
			log_warn("web: run %lld: %s", (long long)arg->id, db_errmsg(db));
		return found < 0 ? web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
						   "database: %s", db_errmsg(db)) :
			web_reply_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no such run",
					(long long)arg->id);
	}
	o = json_pack("{sI ss so so so so}", "id", (json_int_t)r.id, "state",
		      run_state_name(r.state), "outcome",
		      r.state == RUN_DONE ? json_string(run_outcome_name(r.outcome)) : json_null(),
		      "detail", web_json_str(r.state == RUN_DONE ? r.detail : NULL),
		      "console", part(r.run_dir, RUN_FILE_CONSOLE, con),
		      "output", part(r.run_dir, RUN_FILE_OUTPUT, outp));
	run_release(&r);
	return o ? web_reply_json(c, MHD_HTTP_OK, o) : MHD_NO;
}
