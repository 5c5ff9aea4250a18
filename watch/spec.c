// SPDX-License-Identifier: GPL-2.0-only
/* watch/spec.c: a watch's spec, the keys of a [watch NAME] section or of
 * `kfleet watch add`, checked one by one (so a config error names its
 * file:line) and as a whole, and the rules that say which series a watch
 * takes: a subject tag to a tree and branch, else the default tree, and
 * a regex the series' name must match. Pure: no I/O. */
#include "watch/watch.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"

static const char *const keys[] = {
	"patchwork", "project", "lore", "tags", "tree", "subject", "jobs", "arches", "vcpus", "repeat",
	"interval", "timeout", "token", "token_file", "checks", "context", "report_dir", "send",
	"smtp", "from", "to", "link_base", "since", "kcidb", "kcidb_token_file", "max_running",
	NULL,
};

const char *const *watch_spec_keys(void)
{
	return keys;
}

int watch_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > WATCH_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int is_http(const char *u)
{
	return (!strncmp(u, "http://", 7) && u[7]) || (!strncmp(u, "https://", 8) && u[8]);
}

static int tree_ok(const char *t)
{
	size_t n = strlen(t);

	return n && n <= 64 && t[0] != '.' && t[0] != '-' &&
	       strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") == n;
}

/* "TAG=TREE[:BRANCH], ..." into s (when not NULL); 0 / -1 with msg */
static int parse_tags(const char *v, struct watch_spec *s, char *msg, size_t n)
{
	char *dup = strdup(v), *save = NULL;
	size_t count = 0;
	int rc = 0;

	if (!dup)
		return snprintf(msg, n, "tags: out of memory"), -1;
	for (char *t = strtok_r(dup, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		char *eq = strchr(t, '='), *colon;

		if (++count > WATCH_TAGS_MAX) {
			snprintf(msg, n, "tags: more than %d", WATCH_TAGS_MAX);
			rc = -1;
			break;
		}
		if (!eq || eq == t || !eq[1]) {
			snprintf(msg, n, "tags: '%.80s' is not TAG=TREE[:BRANCH]", t);
			rc = -1;
			break;
		}
		*eq = '\0';
		colon = strchr(eq + 1, ':');
		if (colon)
			*colon = '\0';
		if (!tree_ok(eq + 1) || (colon && !tree_ok(colon + 1))) {
			snprintf(msg, n, "tags: '%.80s': the tree or branch is not a name", eq + 1);
			rc = -1;
			break;
		}
		if (s) {
			struct watch_tag *nt = realloc(s->tags, (s->ntags + 1) * sizeof(*nt));

			if (!nt) {
				rc = -1;
				break;
			}
			s->tags = nt;
			nt[s->ntags].tag = strdup(t);
			nt[s->ntags].tree = strdup(eq + 1);
			nt[s->ntags].branch = colon ? strdup(colon + 1) : NULL;
			s->ntags++;
		}
	}
	free(dup);
	return rc;
}

static int yes_no(const char *v, int *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		return *out = 1, 0;
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		return *out = 0, 0;
	return -1;
}

static int int_in(const char *v, long long lo, long long hi, int *out)
{
	long long x;

	if (parse_int(v, lo, hi, &x) < 0)
		return -1;
	*out = (int)x;
	return 0;
}

/* A date as patchwork's ?since= takes it: YYYY-MM-DD[THH:MM[:SS[.ffffff]]] */
static int date_ok(const char *v)
{
	size_t n = strlen(v);

	if (n < 10 || n > 26 || strspn(v, "0123456789-T:.") != n)
		return 0;
	return isdigit((unsigned char)v[0]) && v[4] == '-' && v[7] == '-' &&
	       (n == 10 || v[10] == 'T');
}

int watch_key_check(const char *key, const char *v, char *msg, size_t n)
{
	int x, known = 0;

	for (int i = 0; keys[i]; i++)
		known |= !strcmp(key, keys[i]);
	if (!known)
		return snprintf(msg, n, "unknown key '%.40s' (known: patchwork, project, lore, tags, tree, "
				"subject, jobs, arches, vcpus, repeat, interval, timeout, token, "
				"token_file, checks, context, report_dir, send, smtp, from, to, "
				"link_base, since, kcidb, kcidb_token_file, max_running)", key), -1;
	if (strlen(v) > 4096)
		return snprintf(msg, n, "%s: longer than 4096 bytes", key), -1;
	if ((!strcmp(key, "patchwork") || !strcmp(key, "lore")) && !is_http(v))
		return snprintf(msg, n, "%s: '%.200s' is not an http(s) URL", key, v), -1;
	if (!strcmp(key, "smtp") && strncmp(v, "smtp://", 7) && strncmp(v, "smtps://", 8))
		return snprintf(msg, n, "smtp: '%.200s' is not an smtp:// or smtps:// URL", v), -1;
	if (!strcmp(key, "link_base") && !is_http(v))
		return snprintf(msg, n, "link_base: '%.200s' is not an http(s) URL", v), -1;
	if (!strcmp(key, "project") && (!*v || strlen(v) > 100 || strpbrk(v, "/?&# \t")))
		return snprintf(msg, n, "project: '%.100s' is not a project's linkname or id", v), -1;
	if (!strcmp(key, "tags"))
		return parse_tags(v, NULL, msg, n);
	if (!strcmp(key, "tree")) {
		char *dup = strdup(v), *colon = dup ? strchr(dup, ':') : NULL;
		int ok;

		if (colon)
			*colon = '\0';
		ok = dup && tree_ok(dup) && (!colon || tree_ok(colon + 1));
		free(dup);
		if (!ok)
			return snprintf(msg, n, "tree: '%.100s' is not TREE[:BRANCH]", v), -1;
	}
	if (!strcmp(key, "subject")) {
		regex_t re;
		int rc = regcomp(&re, v, REG_EXTENDED | REG_ICASE | REG_NOSUB);

		if (rc) {
			char e[128];

			regerror(rc, &re, e, sizeof(e));
			return snprintf(msg, n, "subject: '%.100s': %s", v, e), -1;
		}
		regfree(&re);
	}
	if (!strcmp(key, "max_running") && int_in(v, 0, 1024, &x) < 0)
		return snprintf(msg, n, "max_running: '%.40s' is not a number from 0 (no cap) to 1024",
				v), -1;
	if (!strcmp(key, "repeat") && int_in(v, 1, 100, &x) < 0)
		return snprintf(msg, n, "repeat: '%.40s' is not a number from 1 to 100", v), -1;
	if (!strcmp(key, "interval") && int_in(v, 1, 86400, &x) < 0)
		return snprintf(msg, n, "interval: '%.40s' is not a number of seconds from 1 to "
				"86400", v), -1;
	if (!strcmp(key, "timeout") && int_in(v, 1, 600, &x) < 0)
		return snprintf(msg, n, "timeout: '%.40s' is not a number of seconds from 1 to 600",
				v), -1;
	if ((!strcmp(key, "checks") || !strcmp(key, "send")) && yes_no(v, &x) < 0)
		return snprintf(msg, n, "%s: '%.40s' is not yes or no", key, v), -1;
	if ((!strcmp(key, "report_dir") || !strcmp(key, "token_file") ||
	     !strcmp(key, "kcidb_token_file")) && v[0] != '/')
		return snprintf(msg, n, "%s: '%.200s' is not an absolute path", key, v), -1;
	if (!strcmp(key, "kcidb") && strcmp(v, "file") && v[0] != '/' && !is_http(v))
		return snprintf(msg, n, "kcidb: '%.200s' is not file, a directory (absolute) or an "
				"http(s) URL", v), -1;
	if (!strcmp(key, "since") && !date_ok(v))
		return snprintf(msg, n, "since: '%.40s' is not a date (YYYY-MM-DD[THH:MM:SS])", v), -1;
	if ((!strcmp(key, "context") || !strcmp(key, "from") || !strcmp(key, "to")) &&
	    strpbrk(v, "\r\n"))
		return snprintf(msg, n, "%s: must be one line", key), -1;
	return 0;
}

static char *get(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && *v ? strdup(v) : NULL;
}

int watch_spec_parse(const char *name, const json_t *obj, struct watch_spec *s, char *msg,
		     size_t n)
{
	const char *key;
	json_t *v;
	char *t;

	memset(s, 0, sizeof(*s));
	s->repeat = 1;
	s->interval_s = 300;
	s->timeout_s = 30;
	s->name = strdup(name ? name : "");
	if (!watch_name_ok(name))
		return snprintf(msg, n, "watch name '%.80s': use 1 to %d of A-Z a-z 0-9 . _ - (not "
				"starting with . or -)", name ? name : "", WATCH_NAME_MAX), -1;
	if (!json_is_object(obj))
		return snprintf(msg, n, "watch '%s': the spec is not an object", name), -1;
	json_object_foreach((json_t *)obj, key, v) {
		if (!json_is_string(v))
			return snprintf(msg, n, "%s: expected a string", key), -1;
		if (watch_key_check(key, json_string_value(v), msg, n) < 0)
			return -1;
	}
	s->patchwork = get(obj, "patchwork");
	s->project = get(obj, "project");
	s->lore = get(obj, "lore");
	if (s->lore && (s->patchwork || s->project))
		return snprintf(msg, n, "watch '%s': follows patchwork or lore, not both", name), -1;
	if (!s->lore && (!s->patchwork || !s->project))
		return snprintf(msg, n, "watch '%s': needs patchwork (the instance's URL) and "
				"project, or lore (a list's archive URL)", name), -1;
	for (char *u = s->lore ? s->lore : s->patchwork; strlen(u) > 8 && u[strlen(u) - 1] == '/';)
		u[strlen(u) - 1] = '\0';
	if ((t = get(obj, "tags")) && parse_tags(t, s, msg, n) < 0) {
		free(t);
		return -1;
	}
	free(t);
	if ((s->tree = get(obj, "tree")) && (t = strchr(s->tree, ':'))) {
		*t = '\0';
		s->branch = strdup(t + 1);
	}
	if (!s->ntags && !s->tree)
		return snprintf(msg, n, "watch '%s': needs tags (TAG=TREE[:BRANCH], ...) or a tree "
				"for the series it takes", name), -1;
	if ((s->subject = get(obj, "subject"))) {
		if (regcomp(&s->re, s->subject, REG_EXTENDED | REG_ICASE | REG_NOSUB))
			return snprintf(msg, n, "subject: not a regex"), -1;
		s->has_re = 1;
	}
	s->jobs = get(obj, "jobs");
	s->arches = get(obj, "arches");
	s->vcpus = get(obj, "vcpus");
	if ((t = get(obj, "repeat")))
		int_in(t, 1, 100, &s->repeat);
	free(t);
	if ((t = get(obj, "max_running")))
		int_in(t, 0, 1024, &s->max_running);
	free(t);
	if ((t = get(obj, "interval")))
		int_in(t, 1, 86400, &s->interval_s);
	free(t);
	if ((t = get(obj, "timeout")))
		int_in(t, 1, 600, &s->timeout_s);
	free(t);
	s->token = get(obj, "token");
	s->token_file = get(obj, "token_file");
	s->checks = s->token || s->token_file;
	if ((t = get(obj, "checks")))
		yes_no(t, &s->checks);
	free(t);
	if (s->checks && !s->token && !s->token_file)
		return snprintf(msg, n, "checks: yes needs token or token_file"), -1;
	if (s->checks && s->lore)
		return snprintf(msg, n, "checks: only a patchwork watch posts checks"), -1;
	s->context = get(obj, "context");
	if (!s->context)
		s->context = strdup("kfleet");
	s->report_dir = get(obj, "report_dir");
	if ((t = get(obj, "send")))
		yes_no(t, &s->send);
	free(t);
	s->smtp = get(obj, "smtp");
	s->from = get(obj, "from");
	s->to = get(obj, "to");
	if (s->send && (!s->smtp || !s->from))
		return snprintf(msg, n, "send: yes needs smtp and from"), -1;
	if (s->send && !s->report_dir)
		return snprintf(msg, n, "send: yes needs report_dir (every mail is kept there)"), -1;
	s->link_base = get(obj, "link_base");
	s->since = get(obj, "since");
	s->kcidb = get(obj, "kcidb");
	if (s->kcidb && !strcmp(s->kcidb, "file") && !s->report_dir)
		return snprintf(msg, n, "kcidb: file needs report_dir (the export is written there)"), -1;
	s->kcidb_token_file = get(obj, "kcidb_token_file");
	if (s->kcidb_token_file && (!s->kcidb || !is_http(s->kcidb)))
		return snprintf(msg, n, "kcidb_token_file: only with kcidb = an http(s) URL (the "
				"token is sent to it)"), -1;
	return 0;
}

json_t *watch_spec_json(const char *const *k, const char *const *v, size_t n)
{
	json_t *j = json_object();

	for (size_t i = 0; j && i < n; i++)
		json_object_set_new(j, k[i], json_string(v[i]));
	return j;
}

void watch_spec_release(struct watch_spec *s)
{
	for (size_t i = 0; i < s->ntags; i++) {
		free(s->tags[i].tag);
		free(s->tags[i].tree);
		free(s->tags[i].branch);
	}
	free(s->tags);
	if (s->has_re)
		regfree(&s->re);
	free(s->name);
	free(s->patchwork);
	free(s->project);
	free(s->lore);
	free(s->tree);
	free(s->branch);
	free(s->subject);
	free(s->jobs);
	free(s->arches);
	free(s->vcpus);
	free(s->token);
	free(s->token_file);
	free(s->context);
	free(s->report_dir);
	free(s->smtp);
	free(s->from);
	free(s->to);
	free(s->link_base);
	free(s->since);
	free(s->kcidb);
	free(s->kcidb_token_file);
	memset(s, 0, sizeof(*s));
}

/* Whether the bracketed prefix of subject ("[PATCH bpf-next v2 0/3] ...",
 * patchwork's "[bpf-next,v2,0/3] ...") holds tag as a word of its own */
static int has_tag(const char *subject, const char *tag)
{
	size_t tl = strlen(tag);

	while (subject && *subject == '[') {
		const char *end = strchr(subject, ']');

		if (!end)
			return 0;
		for (const char *p = subject + 1; p < end;) {
			size_t w;

			p += strspn(p, " ,\t");
			w = strcspn(p, " ,\t]");
			if (w == tl && !strncasecmp(p, tag, tl))
				return 1;
			p += w ? w : 1;
		}
		subject = end + 1;
		while (*subject == ' ')
			subject++;
	}
	return 0;
}

const char *watch_series_title(const char *name)
{
	const char *p = name ? name : "";

	p += strspn(p, " \t");
	while (*p == '[' && strchr(p, ']')) {
		p = strchr(p, ']') + 1;
		p += strspn(p, " \t");
	}
	return p;
}

int watch_rules_match(const struct watch_spec *s, const char *name, const char *subject,
		      const char **tree, const char **branch, char *why, size_t n)
{
	*tree = *branch = NULL;
	if (s->has_re && regexec(&s->re, name ? name : "", 0, NULL, 0) != 0 &&
	    regexec(&s->re, subject ? subject : "", 0, NULL, 0) != 0) {
		snprintf(why, n, "the subject does not match '%s'", s->subject);
		return 0;
	}
	for (size_t i = 0; i < s->ntags; i++)
		if (has_tag(subject, s->tags[i].tag) || has_tag(name, s->tags[i].tag)) {
			*tree = s->tags[i].tree;
			*branch = s->tags[i].branch;
			snprintf(why, n, "tag '%s': tree '%s'%s%s", s->tags[i].tag, *tree,
				 *branch ? " branch " : "", *branch ? *branch : "");
			return 1;
		}
	if (s->tree) {
		*tree = s->tree;
		*branch = s->branch;
		snprintf(why, n, "no tag of the rules: the default tree '%s'", s->tree);
		return 1;
	}
	snprintf(why, n, "the subject matches no rule (no tag of: ");
	for (size_t i = 0; i < s->ntags; i++) {
		size_t l = strlen(why);

		snprintf(why + l, n > l ? n - l : 0, "%s%s", i ? ", " : "", s->tags[i].tag);
	}
	if (strlen(why) + 2 < n)
		strcat(why, ")");
	return 0;
}
