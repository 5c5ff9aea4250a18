/* watch_config.c: the [watch NAME] sections of kfleetd's config, for
 * config.c: each key checked as it is read (so an error names its
 * file:line), the whole section checked once the file is read, printed
 * back by kfleetd -nv (the token masked), and freed. */
#include "orchestrator/config.h"
#include "orchestrator/watch.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "watch NAME" (or "watch \"NAME\"") -> NAME in out; 0 / -1 */
static int section_name(const char *section, char *out, size_t n)
{
	const char *s = section + 5;
	size_t l;

	while (*s == ' ' || *s == '\t')
		s++;
	l = strlen(s);
	if (l >= 2 && s[0] == '"' && s[l - 1] == '"') {
		s++;
		l -= 2;
	}
	if (l >= n)
		return -1;
	memcpy(out, s, l);
	out[l] = '\0';
	return watch_name_ok(out) ? 0 : -1;
}

int watch_config_section(const char *section, char *msg, size_t n)
{
	char name[WATCH_NAME_MAX + 1];

	if (section_name(section, name, sizeof(name)) < 0)
		return snprintf(msg, n, "[%s]: watch name must be 1-%d letters, digits, '-', '_' "
				"or '.'", section, WATCH_NAME_MAX), -1;
	return 0;
}

int watch_config_key(struct config *c, const char *section, const char *key, const char *v,
		     char *msg, size_t n)
{
	char name[WATCH_NAME_MAX + 1];
	struct config_watch *w = NULL;

	if (section_name(section, name, sizeof(name)) < 0)
		return 0;   /* reported with the header */
	if (watch_key_check(key, v, msg, n) < 0)
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

int watch_config_check(const struct config *c, size_t i, char *msg, size_t n)
{
	const struct config_watch *w = &c->watches[i];
	json_t *j = watch_spec_json((const char *const *)w->keys, (const char *const *)w->values,
				    w->n);
	struct watch_spec s;
	int rc = watch_spec_parse(w->name, j, &s, msg, n);

	watch_spec_release(&s);
	json_decref(j);
	return rc;
}

void watch_config_print(const struct config *c, FILE *out)
{
	for (size_t i = 0; i < c->nwatches; i++) {
		fprintf(out, "\n[watch %s]\n", c->watches[i].name);
		for (size_t k = 0; k < c->watches[i].n; k++)
			fprintf(out, "%s = %s\n", c->watches[i].keys[k],
				!strcmp(c->watches[i].keys[k], "token") ? "(set, not shown)" :
				c->watches[i].values[k]);
	}
}

void watch_config_release(struct config *c)
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
