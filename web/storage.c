// SPDX-License-Identifier: GPL-2.0-only
/* storage.c: what the storage pass (orchestrator/storage.c) pruned of a
 * run's directory, from the pruned_files rows: the run page's storage
 * section (with the initrd's manifest, which stands for the initrd once
 * the run is over), the note where a pruned file would be shown, the
 * "pruned" array of the run's JSON, and a 410 for a pruned file's link
 * instead of a bare 404. */
#include "web/storage.h"
#include "web/reply.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "orchestrator/orchestrator.h"
#include "orchestrator/storage.h"

const struct db_pruned *web_pruned_find(const struct db_pruned *v, size_t n,
					const char *run_dir, const char *name)
{
	for (size_t i = n; run_dir && i-- > 0; )
		if (v[i].dir && v[i].name && !strcmp(v[i].dir, run_dir) && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void fmt_size(long long n, char out[32])
{
	if (n >= 10LL << 20)
		snprintf(out, 32, "%lld MiB", n >> 20);
	else if (n >= 10LL << 10)
		snprintf(out, 32, "%lld KiB", n >> 10);
	else
		snprintf(out, 32, "%lld bytes", n);
}

void web_pruned_note(struct buf *b, const struct db_pruned *p, const char *what)
{
	char t[32], sz[32];

	fmt_time_ms(p->pruned_at, 0, t, sizeof(t));
	fmt_size(p->bytes, sz);
	buf_printf(b, "<p class=\"note\">the %s (%s) was pruned at %s UTC: ", what, sz, t);
	web_html_str(b, p->why);
	buf_puts(b, !strcmp(p->why ? p->why : "", "retention") ? " (older than [storage] keep_days)"
		 : " (the state directory was over its [storage] budget)");
	buf_puts(b, "; the run's results and outcome are kept in the database</p>\n");
}

/* The manifest, when the run has one: what the initrd was */
static void manifest_html(struct buf *b, const char *run_dir)
{
	char *path = run_dir ? path_join(run_dir, RUN_FILE_MANIFEST) : NULL;
	struct buf text = BUF_INIT(MANIFEST_MAX);

	char *whole = run_dir ? path_join(run_dir, RUN_FILE_INITRD) : NULL;

	if (path && read_file(path, &text, MANIFEST_MAX) == 0) {
		if (whole && access(whole, F_OK) == 0)
			buf_puts(b, "<p>initrd: " RUN_FILE_INITRD " (kept whole while the guest "
				 "runs, or by [storage] keep_initrd), made of these parts</p>\n<pre>");
		else
			buf_puts(b, "<p>initrd: kept as the manifest of its parts (the shared ones "
				 "are kept once, by content, not per run) and the run's own part ("
				 RUN_FILE_INITRD_OWN ")</p>\n<pre>");
		web_html(b, buf_str(&text), text.len);
		buf_puts(b, "</pre>\n");
	}
	buf_release(&text);
	free(whole);
	free(path);
}

void web_storage_html(struct buf *b, const char *run_dir, const struct db_pruned *v, size_t n)
{
	buf_puts(b, "<h2>storage</h2>\n");
	manifest_html(b, run_dir);
	if (!n) {
		buf_puts(b, "<p class=\"note\">nothing of this run was pruned</p>\n");
		return;
	}
	buf_puts(b, "<table>\n<tr><th>pruned file</th><th>bytes</th><th>when</th><th>why</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		const char *att = v[i].dir ? strrchr(v[i].dir, '/') : NULL;
		char t[32];

		fmt_time_ms(v[i].pruned_at, 0, t, sizeof(t));
		buf_puts(b, "<tr><td>");
		if (att && strcmp(v[i].dir, run_dir ? run_dir : "")) {
			web_html_str(b, att + 1);   /* an earlier attempt's */
			buf_puts(b, "/");
		}
		web_html_str(b, v[i].name);
		buf_printf(b, "</td><td>%lld</td><td>%s UTC</td><td>", (long long)v[i].bytes, t);
		web_html_str(b, v[i].why);
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</table>\n");
}

json_t *web_pruned_json(const struct db_pruned *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *o = json_pack("{s:o, s:o, s:I, s:o, s:o}", "file", web_json_str(v[i].name),
				      "dir", web_json_str(v[i].dir), "bytes", (json_int_t)v[i].bytes,
				      "pruned_at", web_json_time(v[i].pruned_at),
				      "why", web_json_str(v[i].why));

		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

enum MHD_Result web_reply_pruned(struct MHD_Connection *c, int64_t run_id,
				 const struct db_pruned *p)
{
	char t[32];

	fmt_time_ms(p->pruned_at, 0, t, sizeof(t));
	return web_reply_html_error(c, MHD_HTTP_GONE, "run %lld: %s (%lld bytes) was pruned at %s "
				    "UTC (%s); the run's results and outcome are kept",
				    (long long)run_id, p->name, (long long)p->bytes, t,
				    p->why ? p->why : "?");
}
