// SPDX-License-Identifier: GPL-2.0-only
/* watches.c: the [watch NAME] sections of kfleetd's config, kept as
 * written: each key checked as it is read (so an error names its
 * file:line), the whole section checked once the file is read, printed
 * back by kfleetd -nv (the token masked), and freed. What a key means is
 * watch/'s: it hands its checker over (watch_config_register()) before a
 * config is read, so the config room calls up into no part. */
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct config_watch_checker *checker;

void config_watch_checker_set(const struct config_watch_checker *k)
{
	checker = k;
}

/* "watch NAME" (or "watch \"NAME\"") -> NAME in out, when the checker
 * takes the name; 0 / -1 */
static int section_name(const char *section, char *out, size_t n)
{
	return config_section_arg(section, "watch", out, n) == 1 && checker &&
	       checker->name_ok(out) ? 0 : -1;
}

int config_watch_section(const char *section, char *msg, size_t n)
{
	char name[CONFIG_WATCH_NAME_MAX + 1];

	if (!checker)
		return snprintf(msg, n, "[%s]: this program does not read watches", section), -1;
	if (section_name(section, name, sizeof(name)) < 0)
		return snprintf(msg, n, "[%s]: watch name must be 1-%d letters, digits, '-', '_' "
				"or '.'", section, CONFIG_WATCH_NAME_MAX), -1;
	return 0;
}

int config_watch_key(struct config *c, const char *section, const char *key, const char *v,
		     char *msg, size_t n)
{
	char name[CONFIG_WATCH_NAME_MAX + 1];
	struct config_watch *w = NULL;

	if (section_name(section, name, sizeof(name)) < 0)
		return 0;   /* reported with the header */
	if (checker->key(key, v, msg, n) < 0)
		return -1;
	for (size_t i = 0; i < c->nwatches && !w; i++)
		if (!strcmp(c->watches[i].name, name))
			w = &c->watches[i];
	if (!w) {
		struct config_watch *nw = realloc(c->watches, (c->nwatches + 1) * sizeof(*nw));

		if (!nw)
			return snprintf(msg, n, "out of memory"), -1;
		c->watches = nw;
		w = &nw[c->nwatches++];
		memset(w, 0, sizeof(*w));
		w->name = strdup(name);
	}
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->keys[i], key))
			return snprintf(msg, n, "'%s' given twice", key), -1;
	{
		char **k = realloc(w->keys, (w->n + 1) * sizeof(*k));
		char **vv = k ? realloc(w->values, (w->n + 1) * sizeof(*vv)) : NULL;

		if (k)
			w->keys = k;
		if (!k || !vv)
			return snprintf(msg, n, "out of memory"), -1;
		w->values = vv;
		w->keys[w->n] = strdup(key);
		w->values[w->n] = strdup(v);
		w->n++;
	}
	return 0;
}

int config_watch_check(const struct config *c, const char *path, struct buf *err)
{
	int bad = 0;

	for (size_t i = 0; checker && i < c->nwatches; i++) {
		char msg[512];

		if (checker->whole(&c->watches[i], msg, sizeof(msg)) < 0) {
			buf_printf(err, "%s: [watch %s]: %s\n", path, c->watches[i].name, msg);
			bad++;
		}
	}
	return bad;
}

void config_watch_print(const struct config *c, FILE *out)
{
	for (size_t i = 0; i < c->nwatches; i++) {
		fprintf(out, "\n[watch %s]\n", c->watches[i].name);
		for (size_t k = 0; k < c->watches[i].n; k++)
			fprintf(out, "%s = %s\n", c->watches[i].keys[k],
				!strcmp(c->watches[i].keys[k], "token") ? "(set, not shown)" :
				c->watches[i].values[k]);
	}
}

void config_watch_release(struct config *c)
{
	for (size_t i = 0; i < c->nwatches; i++) {
		for (size_t k = 0; k < c->watches[i].n; k++) {
			free(c->watches[i].keys[k]);
			free(c->watches[i].values[k]);
		}
		free(c->watches[i].keys);
		free(c->watches[i].values);
		free(c->watches[i].name);
	}
	free(c->watches);
	c->watches = NULL;
	c->nwatches = 0;
}
