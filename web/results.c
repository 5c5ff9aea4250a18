// SPDX-License-Identifier: GPL-2.0-only
/* results.c: the files a job left in its results directory, copied out of
 * the run's root disk after the guest stopped (orchestrator/sched.c) into
 * RUN_DIR_RESULTS of the run's directory: the list on the run page and in
 * its JSON, and each file at /runs/ID/results/PATH. The names came from a
 * guest, so they are escaped wherever they are shown, and a requested path
 * is served only when it resolves inside that directory. */
#include "web/results.h"
#include "web/reply.h"

#include <errno.h>
#include <fts.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "orchestrator/orchestrator.h"

#define RESULTS_LIST_MAX 500    /* files listed; the rest are counted */

struct rfile {
	char *rel;
	long long size;
};

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/* The regular files under run_dir/results in name order, at most
 * RESULTS_LIST_MAX; *more counts the rest. Returns how many, 0 when there
 * is no such directory. */
static size_t results_list(const char *run_dir, struct rfile *v, size_t *more)
{
	char *dir = run_dir ? path_join(run_dir, RUN_DIR_RESULTS) : NULL;
	char *argv[] = { dir, NULL };
	FTS *fts;
	FTSENT *e;
	size_t n = 0, dlen;

	*more = 0;
	if (!dir)
		return 0;
	dlen = strlen(dir);
	fts = fts_open(argv, FTS_PHYSICAL | FTS_NOCHDIR, by_name);
	while (fts && (e = fts_read(fts))) {
		if (e->fts_info != FTS_F || e->fts_pathlen <= dlen + 1)
			continue;
		if (n == RESULTS_LIST_MAX) {
			(*more)++;
			continue;
		}
		v[n].rel = strdup(e->fts_path + dlen + 1);
		v[n].size = (long long)e->fts_statp->st_size;
		if (v[n].rel)
			n++;
	}
	if (fts)
		fts_close(fts);
	free(dir);
	return n;
}

static void results_free(struct rfile *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].rel);
}

/* A path for an href: each segment percent-encoded, the '/' kept */
static void url_path(struct buf *b, const char *s)
{
	struct buf seg = BUF_INIT(0);

	for (;;) {
		size_t n = strcspn(s, "/");

		buf_reset(&seg);
		buf_append(&seg, s, n);
		buf_url_encode(b, buf_str(&seg));
		if (!s[n])
			break;
		buf_puts(b, "/");
		s += n + 1;
	}
	buf_release(&seg);
}

void web_results_html(struct buf *b, const char *run_dir, int64_t run_id)
{
	struct rfile *v = calloc(RESULTS_LIST_MAX, sizeof(*v));
	size_t n, more;

	if (!v)
		return;
	n = results_list(run_dir, v, &more);
	if (n) {
		buf_puts(b, "<h2>result files</h2>\n<table class=\"results-files\"><thead><tr>"
			 "<th>file</th><th>bytes</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < n; i++) {
			buf_printf(b, "<tr><td><a href=\"/runs/%lld/results/", (long long)run_id);
			url_path(b, v[i].rel);
			buf_puts(b, "\">");
			web_html_str(b, v[i].rel);
			buf_printf(b, "</a></td><td class=\"num\">%lld</td></tr>\n", v[i].size);
		}
		buf_puts(b, "</tbody></table>\n");
		if (more)
			buf_printf(b, "<p class=\"note\">%zu more files not listed</p>\n", more);
	}
	results_free(v, n);
	free(v);
}

json_t *web_results_json(const char *run_dir, int64_t run_id)
{
	struct rfile *v = calloc(RESULTS_LIST_MAX, sizeof(*v));
	json_t *a = json_array();
	struct buf url = BUF_INIT(8192);
	size_t n, more;

	if (!v || !a) {
		free(v);
		json_decref(a);
		return NULL;
	}
	n = results_list(run_dir, v, &more);
	for (size_t i = 0; i < n; i++) {
		json_t *f = json_object();

		buf_reset(&url);
		buf_printf(&url, "/runs/%lld/results/", (long long)run_id);
		url_path(&url, v[i].rel);
		/* a name that is not UTF-8 cannot be a JSON string: left out */
		if (!f || json_object_set_new(f, "path", json_string(v[i].rel)) < 0 ||
		    json_object_set_new(f, "bytes", json_integer(v[i].size)) < 0 ||
		    json_object_set_new(f, "url", json_string(buf_str(&url))) < 0) {
			json_decref(f);
			continue;
		}
		json_array_append_new(a, f);
	}
	results_free(v, n);
	free(v);
	buf_release(&url);
	return a;
}

/* A file's type from its name: the text a job leaves is mostly logs */
static const char *results_ctype(const char *rel)
{
	const char *dot = strrchr(rel, '.');

	if (dot && (!strcmp(dot, ".txt") || !strcmp(dot, ".log") || !strcmp(dot, ".csv") ||
		    !strcmp(dot, ".tap")))
		return "text/plain; charset=utf-8";
	if (dot && !strcmp(dot, ".json"))
		return "application/json";
	return "application/octet-stream";
}

enum MHD_Result web_results_file(struct MHD_Connection *c, const char *run_dir, int64_t run_id,
				 const char *rel)
{
	char *dir = run_dir ? path_join(run_dir, RUN_DIR_RESULTS) : NULL, *path = NULL;
	char real_dir[PATH_MAX], real[PATH_MAX];
	enum MHD_Result rc;

	if (!*rel || strlen(rel) > 1000 || rel[0] == '/' || strstr(rel, "//") ||
	    !strcmp(rel, "..") || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
	    (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/.."))) {
		rc = web_reply_html_error(c, MHD_HTTP_BAD_REQUEST, "run %lld: '%.200s' is not a "
					  "results file name", (long long)run_id, rel);
		goto out;
	}
	path = dir ? path_join(dir, rel) : NULL;
	/* both resolved: whatever the names hold, the file must be inside */
	if (!path || !realpath(dir, real_dir) || !realpath(path, real) ||
	    !path_inside(real, real_dir)) {
		rc = web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no results file "
					  "'%.200s'", (long long)run_id, rel);
		goto out;
	}
	rc = web_reply_file(c, real, results_ctype(rel), 0, run_id);
out:
	free(path);
	free(dir);
	return rc;
}
