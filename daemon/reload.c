// SPDX-License-Identifier: GPL-2.0-only
/* reload.c: kfleetd's config read again (SIGHUP from kfleetd.c's signal
 * loop, POST /api/reload through web/'s callback): the file is read into
 * a fresh config, compared key by key with the one kfleetd runs with
 * (config/diff.c), and each difference is logged and answered, old -> new,
 * with whether it was applied now or takes effect at the next restart (a
 * password in a value, a host's URI's, masked).
 * Only what is safe and cheap to change under running threads is applied:
 * log_level. The rest (hosts, state, listen, run limits, job_dirs: the jobs
 * are read once, at start) is read by the orchestrator's threads as it was
 * at start, and waits for a restart. A file with errors changes nothing. */
#include "daemon/reload.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/redact.h"
#include "common/util.h"
#include "config/config.h"

#define RELOAD_ERR_MAX (16 * 1024)   /* the errors a reload answers with */

enum when { WHEN_NOW, WHEN_RESTART, WHEN_KEPT };

static const char *const when_names[] = { "now", "restart", "kept" };
static const char *const when_says[] = {
	"applied now", "takes effect at the next restart", "not applied: -d keeps the debug level",
};

struct reload {
	pthread_mutex_t lock;           /* one reload at a time */
	const char *path;               /* borrowed; NULL: the embedded defaults */
	int debug;                      /* -d: the level stays debug */
	enum log_level level;           /* the config's log_level, as last applied */
	struct config_entries running;  /* the keys kfleetd runs with: the start's,
					   and the ones applied since */
};

struct reload *reload_new(const struct config *running, const char *path, int debug)
{
	struct reload *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (config_entries_init(&r->running, running) < 0) {
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	r->path = path;
	r->debug = debug;
	r->level = running->log_level;
	return r;
}

void reload_free(struct reload *r)
{
	if (!r)
		return;
	config_entries_release(&r->running);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* r->path read over the defaults into c: 0, or -1 with why logged and in
 * *err (caller frees); c is released then */
static int read_config(struct reload *r, struct config *c, char **err)
{
	struct buf e = BUF_INIT(RELOAD_ERR_MAX), msg = BUF_INIT(RELOAD_ERR_MAX);

	if (!r->path) {
		set_errf(err, "kfleetd runs on the embedded defaults (started without -c and no "
			 "default config file): there is no config file to read again");
		log_warn("reload: %s", *err ? *err : "no config file");
		return -1;
	}
	if (config_defaults(c) < 0)
		return set_errf(err, "config '%s': out of memory", r->path);
	if (config_load(c, r->path, &e) == 0) {
		buf_release(&e);
		return 0;
	}
	buf_printf(&msg, "config '%s' has errors: kfleetd keeps the config it runs with, "
		   "nothing changed", r->path);
	for (char *l = e.data, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		log_error("reload: %s", l);
		buf_printf(&msg, "\n%s", l);
	}
	log_error("reload: config '%s' has errors: kfleetd keeps the config it runs with, "
		  "nothing changed", r->path);
	*err = buf_detach(&msg);
	buf_release(&msg);
	buf_release(&e);
	config_release(c);
	return -1;
}

/* Whether a key that changed is applied now; every other takes a restart */
static enum when when_of(const struct reload *r, const struct config_change *ch)
{
	if (!strcmp(ch->section, "daemon") && !strcmp(ch->key, "log_level"))
		return r->debug ? WHEN_KEPT : WHEN_NOW;
	return WHEN_RESTART;
}

/* "'VALUE'" with its secrets masked (a password in a host's URI), or "(none)" */
static void value(struct buf *b, const char *v)
{
	if (!v) {
		buf_puts(b, "(none)");
		return;
	}
	buf_puts(b, "'");
	redact_append(b, v);
	buf_puts(b, "'");
}

/* "[run] timeout: '300' -> '600', takes effect at the next restart"; old
 * and new with their secrets masked, and said to differ in what is masked
 * when that is all they differ in */
static void change_line(struct buf *b, const struct config_change *ch, enum when w)
{
	char *o = redact_secrets(ch->old_value), *n = redact_secrets(ch->new_value);

	buf_printf(b, "[%s] %s: ", ch->section, ch->key);
	value(b, ch->old_value);
	buf_puts(b, " -> ");
	value(b, ch->new_value);
	if (o && n && !strcmp(o, n))
		buf_puts(b, " (a masked part changed)");
	buf_printf(b, ", %s", when_says[w]);
	free(o);
	free(n);
}

/* s as a JSON string (null for NULL), bytes past ASCII of a value that is
 * not UTF-8 shown as '?' */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *t;

	if (!s)
		return json_null();
	if ((j = json_string(s)) || !(t = strdup(s)))
		return j;
	for (char *p = t; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(t);
	free(t);
	return j;
}

/* v as jstr() gives it, its secrets masked */
static json_t *jsecret(const char *v)
{
	char *m = v ? redact_secrets(v) : NULL;
	json_t *j = jstr(v ? (m ? m : "(not shown)") : NULL);

	free(m);
	return j;
}

/* Logs each change and adds it to changes; counts them by when into n[] */
static int report(struct reload *r, const struct config_change *ch, size_t nch, json_t *changes,
		  size_t n[3])
{
	struct buf line = BUF_INIT(0);

	for (size_t i = 0; i < nch; i++) {
		enum when w = when_of(r, &ch[i]);

		buf_reset(&line);
		change_line(&line, &ch[i], w);
		log_info("reload: %s", buf_str(&line));
		n[w]++;
		if (json_array_append_new(changes, json_pack("{s:o, s:o, s:o, s:o, s:s, s:o}",
			"section", jstr(ch[i].section), "key", jstr(ch[i].key), "old",
			jsecret(ch[i].old_value), "new", jsecret(ch[i].new_value), "when",
			when_names[w], "line", jstr(buf_str(&line)))) < 0) {
			buf_release(&line);
			return -1;
		}
	}
	buf_release(&line);
	return 0;
}

/* The config's log_level from fresh, when it changed and is applied:
 * before the lines are logged when it says more (early), after them when
 * it says less, so that they are logged under the more verbose of the two */
static void apply_level(struct reload *r, const struct config *fresh,
			const struct config_change *ch, size_t nch, int early)
{
	int level = 0;

	for (size_t i = 0; i < nch; i++)
		level |= when_of(r, &ch[i]) == WHEN_NOW && !strcmp(ch[i].key, "log_level");
	if (!level || (early && fresh->log_level > r->level))
		return;
	log_set_level(fresh->log_level);
	if (!early)
		r->level = fresh->log_level;
}

/* The keys applied (or kept by -d) become what kfleetd runs with, so that
 * the next reload compares with them; the others still differ then */
static int remember(struct reload *r, const struct config_change *ch, size_t nch)
{
	for (size_t i = 0; i < nch; i++)
		if (when_of(r, &ch[i]) != WHEN_RESTART && ch[i].new_value &&
		    config_entries_set(&r->running, ch[i].section, ch[i].key, ch[i].new_value) < 0)
			return -1;
	return 0;
}

/* "config 'PATH' re-read: 2 keys changed, 1 applied, 1 at restart" */
static char *summary(const struct reload *r, size_t nch, const size_t n[3])
{
	struct buf b = BUF_INIT(0);

	buf_printf(&b, "config '%s' re-read: ", r->path);
	if (!nch)
		buf_puts(&b, "no change");
	else
		buf_printf(&b, "%zu key%s changed, %zu applied, %zu at restart", nch,
			   nch == 1 ? "" : "s", n[WHEN_NOW], n[WHEN_RESTART]);
	if (n[WHEN_KEPT])
		buf_printf(&b, ", %zu not applied (-d)", n[WHEN_KEPT]);
	return buf_detach(&b);
}

int reload_run(struct reload *r, json_t **answer, char **err)
{
	struct config_entries fresh_keys = { NULL, 0 };
	struct config_change *ch = NULL;
	struct config fresh;
	size_t nch = 0, n[3] = { 0, 0, 0 };
	json_t *changes = NULL;
	char *e = NULL, *sum = NULL;
	int rc = -1;

	if (answer)
		*answer = NULL;
	pthread_mutex_lock(&r->lock);
	if (read_config(r, &fresh, &e) < 0)
		goto out_locked;
	if (config_entries_init(&fresh_keys, &fresh) < 0 ||
	    config_entries_diff(&r->running, &fresh_keys, &ch, &nch) < 0 ||
	    !(changes = json_array())) {
		set_errf(&e, "config '%s': out of memory", r->path);
		goto out;
	}
	apply_level(r, &fresh, ch, nch, 1);
	if (report(r, ch, nch, changes, n) < 0 || !(sum = summary(r, nch, n))) {
		set_errf(&e, "config '%s': out of memory", r->path);
		goto out;
	}
	log_info("%s", sum);
	apply_level(r, &fresh, ch, nch, 0);
	/* after the lines: their strings are borrowed from r->running */
	if (remember(r, ch, nch) < 0) {
		set_errf(&e, "config '%s': out of memory", r->path);
		goto out;
	}
	if (answer && !(*answer = json_pack("{s:o, s:s, s:I, s:I, s:I, s:I, s:O}", "path",
					    jstr(r->path), "summary", sum, "changed",
					    (json_int_t)nch, "applied", (json_int_t)n[WHEN_NOW],
					    "restart", (json_int_t)n[WHEN_RESTART], "kept",
					    (json_int_t)n[WHEN_KEPT], "changes", changes))) {
		set_errf(&e, "config '%s': out of memory", r->path);
		goto out;
	}
	rc = 0;
out:
	free(ch);
	json_decref(changes);
	config_entries_release(&fresh_keys);
	config_release(&fresh);
out_locked:
	pthread_mutex_unlock(&r->lock);
	free(sum);
	if (err)
		*err = e;
	else
		free(e);
	return rc;
}
