// SPDX-License-Identifier: GPL-2.0-only
/* jobdef.c: job definitions, the INI files that say what runs in a guest:
 * the command, the programs it needs, the parser for its output, its
 * defaults and its metrics. Read with inih like the daemon's config; a
 * broken file is reported with file:line and left out, never fatal. */
#include "jobs/jobs.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define JOB_FILES_MAX 1024

static const char *const parsers[] = { "ktap", "test_progs", "bench", "metrics", "none" };
static const char *const kinds[] = { "selftest", "stress", "bench" };

void job_def_free(struct job_def *d)
{
	if (!d)
		return;
	free(d->file);
	free(d->name);
	free(d->description);
	free(d->kind);
	free(d->command);
	free(d->parser);
	free(d->selftests);
	free(d->results);
	free(d->image);
	for (size_t i = 0; i < d->nrootfs; i++)
		free(d->rootfs[i]);
	for (size_t i = 0; i < d->nprograms; i++)
		free(d->programs[i]);
	for (size_t i = 0; i < d->nconfig; i++)
		free(d->config[i]);
	for (size_t i = 0; i < d->nmodules; i++)
		free(d->modules[i]);
	for (size_t i = 0; i < d->nmetrics; i++) {
		free(d->metrics[i].name);
		free(d->metrics[i].unit);
	}
	free(d);
}

struct jparse {
	struct job_def *d;
	FILE *fp;
	int line;
	int nerr;
	struct buf *err;
	char *linebuf;
	size_t linecap;
};

static void jerr(struct jparse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jerr(struct jparse *p, const char *fmt, ...)
{
	va_list ap;

	buf_printf(p->err, "%s:%d: ", p->d->file, p->line);
	va_start(ap, fmt);
	buf_vprintf(p->err, fmt, ap);
	va_end(ap);
	buf_puts(p->err, "\n");
	p->nerr++;
}

/* Hands inih one line at a time, so p->line is the handler's line. */
static char *jreader(char *str, int num, void *stream)
{
	struct jparse *p = stream;
	ssize_t n = getline(&p->linebuf, &p->linecap, p->fp);

	if (n < 0)
		return NULL;
	p->line++;
	if (n >= num - 1) {
		jerr(p, "line too long (more than %d characters)", num - 2);
		snprintf(str, (size_t)num, "\n");
		return str;
	}
	snprintf(str, (size_t)num, "%s", p->linebuf);
	return str;
}

static int valid_name(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      (*s >= 'A' && *s <= 'Z' && strchr(extra, 'A')) || strchr(extra, *s)))
			return 0;
	return 1;
}

static int one_of(const char *v, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, set[i]))
			return 1;
	return 0;
}

static void set_str(struct jparse *p, char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s) {
		jerr(p, "out of memory");
		return;
	}
	free(*dst);
	*dst = s;
}

static void set_int(struct jparse *p, const char *key, const char *v, long long max, int *dst)
{
	long long n;

	if (parse_int(v, 1, max, &n) < 0)
		jerr(p, "%s: '%s' is not a whole number from 1 to %lld", key, v, max);
	else
		*dst = (int)n;
}

/* "a b, c": names of programs, modules or packages, at most max */
static void set_list(struct jparse *p, const char *key, const char *v, char **list, size_t *n,
		     size_t max, const char *extra)
{
	char *copy = strdup(v), *save = NULL;

	for (char *w = copy ? strtok_r(copy, " \t,", &save) : NULL; w;
	     w = strtok_r(NULL, " \t,", &save)) {
		if (!valid_name(w, 64, extra) || strchr("-+.", w[0]))
			jerr(p, "%s: '%s' is not a name", key, w);
		else if (*n == max)
			jerr(p, "%s: more than %zu", key, max);
		else
			list[(*n)++] = strdup(w);
	}
	free(copy);
}

static struct job_metric_def *metric_for(struct jparse *p, const char *name)
{
	struct job_def *d = p->d;

	for (size_t i = 0; i < d->nmetrics; i++)
		if (!strcmp(d->metrics[i].name, name))
			return &d->metrics[i];
	if (!valid_name(name, 128, "A_.:/-")) {
		jerr(p, "[metric %s]: metric names are letters, digits and _.:/-", name);
		return NULL;
	}
	if (d->nmetrics == JOBDEF_METRICS_MAX) {
		jerr(p, "more than %d metrics", JOBDEF_METRICS_MAX);
		return NULL;
	}
	d->metrics[d->nmetrics].name = strdup(name);
	d->metrics[d->nmetrics].higher_better = -1;
	return &d->metrics[d->nmetrics++];
}

/* command = ...: an indented line continues the command (inih hands it
 * over under the same key): a script of several lines */
static void add_command(struct jparse *p, const char *v)
{
	struct job_def *d = p->d;

	if (d->command && p->linebuf && (p->linebuf[0] == ' ' || p->linebuf[0] == '\t')) {
		char *joined = NULL;

		if (asprintf(&joined, "%s\n%s", d->command, v) < 0)
			jerr(p, "out of memory");
		else {
			free(d->command);
			d->command = joined;
		}
	} else if (d->command) {
		jerr(p, "command: given twice (continue a long command on indented lines)");
	} else {
		set_str(p, &d->command, v);
	}
}

/* One key of [job] */
static void job_key(struct jparse *p, const char *key, const char *v)
{
	struct job_def *d = p->d;

	if (!strcmp(key, "name")) {
		if (!valid_name(v, 64, "_.-"))
			jerr(p, "name: '%s' must be 1-64 of a-z, 0-9, '_', '.', '-'", v);
		else
			set_str(p, &d->name, v);
	} else if (!strcmp(key, "description")) {
		set_str(p, &d->description, v);
	} else if (!strcmp(key, "kind")) {
		if (!one_of(v, kinds, sizeof(kinds) / sizeof(kinds[0])))
			jerr(p, "kind: '%s' is not selftest, stress or bench", v);
		else
			set_str(p, &d->kind, v);
	} else if (!strcmp(key, "command")) {
		add_command(p, v);
	} else if (!strcmp(key, "parser")) {
		if (!one_of(v, parsers, sizeof(parsers) / sizeof(parsers[0])))
			jerr(p, "parser: '%s' is not ktap, test_progs, bench, metrics or none", v);
		else
			set_str(p, &d->parser, v);
	} else if (!strcmp(key, "programs")) {
		set_list(p, key, v, d->programs, &d->nprograms, JOBDEF_PROGRAMS_MAX, "A_.-");
	} else if (!strcmp(key, "modules")) {
		set_list(p, key, v, d->modules, &d->nmodules, JOBDEF_PROGRAMS_MAX, "A_.-");
	} else if (!strcmp(key, "rootfs")) {
		/* Debian package names: lower case, digits, '+', '.', '-' */
		set_list(p, key, v, d->rootfs, &d->nrootfs, JOBDEF_ROOTFS_MAX, "+.-");
	} else if (!strcmp(key, "image")) {
		if (v[0] != '/' || strlen(v) > 1000 || strpbrk(v, " \t\r\n"))
			jerr(p, "image: '%s' is not an absolute path to a disk image", v);
		else
			set_str(p, &d->image, v);
	} else if (!strcmp(key, "results")) {
		if (v[0] != '/' || strlen(v) > 200 || strstr(v, "/..") ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789/_.-") != strlen(v))
			jerr(p, "results: '%s' is not an absolute guest path of letters, "
			     "digits and /_.-", v);
		else
			set_str(p, &d->results, v);
	} else if (!strcmp(key, "config")) {
		if (strncmp(v, "CONFIG_", 7) || !strchr(v, '='))
			jerr(p, "config: '%s' is not CONFIG_NAME=value", v);
		else if (d->nconfig == JOBDEF_CONFIG_MAX)
			jerr(p, "config: more than %d options", JOBDEF_CONFIG_MAX);
		else
			d->config[d->nconfig++] = strdup(v);
	} else if (!strcmp(key, "selftests")) {
		if (!valid_name(v, 64, "_.-"))
			jerr(p, "selftests: '%s' is not a kselftest target (like timers, "
			     "net, size)", v);
		else
			set_str(p, &d->selftests, v);
	} else if (!strcmp(key, "timeout")) {
		set_int(p, key, v, 7 * 86400, &d->timeout_s);
	} else if (!strcmp(key, "memory_mb")) {
		set_int(p, key, v, 1 << 22, &d->memory_mb);
	} else if (!strcmp(key, "vcpus")) {
		set_int(p, key, v, 4096, &d->vcpus);
	} else {
		jerr(p, "[job]: unknown key '%s'", key);
	}
}

/* One key of [metric NAME] */
static void metric_key(struct jparse *p, const char *section, const char *key, const char *v)
{
	struct job_metric_def *m = metric_for(p, section + 7);

	if (!m)
		return;
	if (!strcmp(key, "unit")) {
		free(m->unit);
		m->unit = strdup(v);
	} else if (!strcmp(key, "better")) {
		if (!strcmp(v, "higher"))
			m->higher_better = 1;
		else if (!strcmp(v, "lower"))
			m->higher_better = 0;
		else
			jerr(p, "better: '%s' is not higher or lower", v);
	} else if (!strcmp(key, "margin")) {
		if (parse_percent(v, JOBDEF_MARGIN_MAX, &m->margin) < 0)
			jerr(p, "[%s]: margin: '%s' is not a percentage above 0 and at most %g%% "
			     "(e.g. 3%%)", section, v, JOBDEF_MARGIN_MAX * 100);
	} else {
		jerr(p, "[%s]: unknown key '%s'", section, key);
	}
}

static int jhandler(void *user, const char *section, const char *key, const char *v)
{
	struct jparse *p = user;

	if (!key)
		return 1;
	if (!strcmp(section, "job"))
		job_key(p, key, v);
	else if (!strncmp(section, "metric ", 7))
		metric_key(p, section, key, v);
	else
		jerr(p, "unknown section '[%s]' (known: job, metric NAME)", section);
	return 1;
}

struct job_def *job_def_load(const char *path, struct buf *err)
{
	struct jparse p = { .err = err };
	int rc;

	p.d = calloc(1, sizeof(*p.d));
	if (!p.d)
		return NULL;
	p.d->file = strdup(path);
	p.fp = fopen(path, "r");
	if (!p.fp) {
		buf_printf(err, "%s: %s\n", path, strerror(errno));
		job_def_free(p.d);
		return NULL;
	}
	rc = ini_parse_stream(jreader, &p, jhandler, &p);
	fclose(p.fp);
	free(p.linebuf);
	if (rc > 0 && !p.nerr) {
		p.line = rc;
		jerr(&p, "syntax error: expected '[section]', 'key = value' or a comment");
	}
	p.line = 0;
	if (!p.nerr) {
		if (!p.d->name)
			jerr(&p, "[job]: no name");
		if (!p.d->command)
			jerr(&p, "[job]: no command");
		if (p.d->results && !p.d->nrootfs && !p.d->image)
			jerr(&p, "[job]: results needs rootfs or image: only a root disk keeps "
			     "files after the guest stops");
		if (p.d->image && p.d->nrootfs)
			jerr(&p, "[job]: rootfs and image: a job boots on one root disk");
		for (size_t i = 0; i < p.d->nmetrics; i++)
			if (p.d->metrics[i].higher_better < 0)
				jerr(&p, "[metric %s]: no 'better = higher|lower'", p.d->metrics[i].name);
	}
	if (p.nerr) {
		job_def_free(p.d);
		return NULL;
	}
	if (!p.d->parser)
		p.d->parser = strdup("none");
	if (!p.d->kind)
		p.d->kind = strdup("stress");
	return p.d;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct job_def *const *)a)->name, (*(struct job_def *const *)b)->name);
}

int job_set_load(struct job_set *set, const char *dirs, struct buf *err)
{
	const char *p = dirs;
	int left_out = 0;

	memset(set, 0, sizeof(*set));
	while (p && *p) {
		const char *colon = strchr(p, ':');
		char *dir = strndup(p, colon ? (size_t)(colon - p) : strlen(p));
		DIR *dh = dir && *dir ? opendir(dir) : NULL;
		struct dirent *e;

		if (dir && *dir && !dh) {
			buf_printf(err, "%s: %s\n", dir, strerror(errno));
			left_out++;
		}
		while (dh && (e = readdir(dh))) {
			size_t n = strlen(e->d_name);
			struct job_def *d, **v;
			char *path;

			if (n < 5 || strcmp(e->d_name + n - 4, ".job") || e->d_name[0] == '.')
				continue;
			if (set->n == JOB_FILES_MAX) {
				buf_printf(err, "%s: more than %d job files\n", dir, JOB_FILES_MAX);
				left_out++;
				break;
			}
			path = path_join(dir, e->d_name);
			d = path ? job_def_load(path, err) : NULL;
			free(path);
			if (!d) {
				left_out++;
				continue;
			}
			if (job_set_find(set, d->name)) {
				buf_printf(err, "%s: job '%s' is already defined in '%s'\n", d->file,
					   d->name, job_set_find(set, d->name)->file);
				job_def_free(d);
				left_out++;
				continue;
			}
			v = realloc(set->v, (set->n + 1) * sizeof(*v));
			if (!v) {
				job_def_free(d);
				closedir(dh);
				free(dir);
				return -1;
			}
			set->v = v;
			set->v[set->n++] = d;
		}
		if (dh)
			closedir(dh);
		free(dir);
		p = colon ? colon + 1 : NULL;
	}
	if (set->n)
		qsort(set->v, set->n, sizeof(*set->v), by_name);
	return left_out;
}

void job_set_release(struct job_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		job_def_free(set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

const struct job_def *job_set_find(const struct job_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i]->name, name))
			return set->v[i];
	return NULL;
}

int job_def_parse(const struct job_def *d, const char *out, size_t len,
		  struct job_results *r, struct job_samples *s)
{
	if (!strcmp(d->parser, "ktap"))
		return ktap_parse(out, len, r);
	if (!strcmp(d->parser, "test_progs"))
		return tprogs_parse(out, len, r, NULL);
	if (!strcmp(d->parser, "bench"))
		return bench_parse(out, len, s);
	if (!strcmp(d->parser, "metrics"))
		return metrics_parse(out, len, s);
	return strcmp(d->parser, "none") ? -1 : 0;
}
