// SPDX-License-Identifier: GPL-2.0-only
/* diff.c: a configuration as its keys, section by section, and the keys
 * that differ between two. The keys come from config_print()'s normalised
 * text, so two files that say the same thing differently (16M or 16384K,
 * a key left at its default or written out) are equal, and every key
 * config_print() knows is compared. kfleetd's reload (daemon/reload.c)
 * compares the config it runs with and the file read again. */
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_entries_release(struct config_entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].section);
		free(e->v[i].key);
		free(e->v[i].value);
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

/* Appends section, key and value (copies): 0 / -1 */
static int add(struct config_entries *e, const char *section, const char *key, size_t kn,
	       const char *value, size_t vn)
{
	struct config_entry *v = realloc(e->v, (e->n + 1) * sizeof(*v)), *x;

	if (!v)
		return -1;
	e->v = v;
	x = &v[e->n];
	x->section = strdup(section);
	x->key = strndup(key, kn);
	x->value = strndup(value, vn);
	if (!x->section || !x->key || !x->value) {
		free(x->section);
		free(x->key);
		free(x->value);
		return -1;
	}
	e->n++;
	return 0;
}

/* config_print()'s text split: "[SECTION]" lines and "KEY = VALUE" (or
 * "KEY =") lines under them; comments and blank lines skipped */
static int parse(struct config_entries *e, const char *text)
{
	char section[256] = "";

	for (const char *p = text; *p; ) {
		size_t l = strcspn(p, "\n"), k;
		const char *eq = memchr(p, '=', l), *v;

		if (l && *p == '[' && p[l - 1] == ']') {
			snprintf(section, sizeof(section), "%.*s", (int)(l - 2), p + 1);
		} else if (l && *p != '#' && eq) {
			for (k = (size_t)(eq - p); k && p[k - 1] == ' '; k--)
				;
			v = eq + 1 + (eq[1] == ' ');
			if (add(e, section, p, k, v, (size_t)(p + l - v)) < 0)
				return -1;
		}
		p += l + (p[l] == '\n');
	}
	return 0;
}

int config_entries_init(struct config_entries *e, const struct config *c)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	int rc;

	e->v = NULL;
	e->n = 0;
	if (!m)
		return -1;
	config_print(c, m);
	if (fclose(m) != 0) {
		free(text);
		return -1;
	}
	rc = parse(e, text);
	free(text);
	if (rc < 0)
		config_entries_release(e);
	return rc;
}

/* The entry of key in section, NULL when none */
static struct config_entry *find(const struct config_entries *e, const char *section,
				 const char *key)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].section, section) && !strcmp(e->v[i].key, key))
			return &e->v[i];
	return NULL;
}

const char *config_entries_get(const struct config_entries *e, const char *section,
			       const char *key)
{
	struct config_entry *x = find(e, section, key);

	return x ? x->value : NULL;
}

int config_entries_set(struct config_entries *e, const char *section, const char *key,
		       const char *value)
{
	struct config_entry *x = find(e, section, key);
	char *v;

	if (!x)
		return add(e, section, key, strlen(key), value, strlen(value));
	if (!(v = strdup(value)))
		return -1;
	free(x->value);
	x->value = v;
	return 0;
}

int config_entries_diff(const struct config_entries *a, const struct config_entries *b,
			struct config_change **out, size_t *n)
{
	struct config_change *v = calloc(a->n + b->n + 1, sizeof(*v));
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!v)
		return -1;
	for (size_t i = 0; i < a->n; i++) {
		const char *nv = config_entries_get(b, a->v[i].section, a->v[i].key);

		if (!nv || strcmp(nv, a->v[i].value))
			v[k++] = (struct config_change){ a->v[i].section, a->v[i].key,
							 a->v[i].value, nv };
	}
	for (size_t i = 0; i < b->n; i++)
		if (!find(a, b->v[i].section, b->v[i].key))
			v[k++] = (struct config_change){ b->v[i].section, b->v[i].key, NULL,
							 b->v[i].value };
	*out = v;
	*n = k;
	return 0;
}
