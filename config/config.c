// SPDX-License-Identifier: GPL-2.0-only
/* config.c: reads kfleetd's INI configuration with inih over the embedded
 * defaults, checks every value, and prints the result back normalised
 * (kfleetd -nv). Every problem is reported as "file:line: message"; a bad
 * file never half-applies, the caller just refuses to start. */
#include "config/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ini.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "export/kcidb.h"
#include "images/images.h"

#define DEFAULT_STATE_DIR "./var"
#define DEFAULT_LISTEN_ADDR "127.0.0.1"
#define DEFAULT_PORT 8080

static void host_release(struct config_host *h)
{
	free(h->name);
	free(h->uri);
	free(h->accel);
	free(h->transfer);
	free(h->firmware);
	free(h->boot);
	free(h->kernel_args);
	free(h->pool);
	free(h->pool_path);
}

void config_release(struct config *c)
{
	free(c->path);
	free(c->etc_dir);
	free(c->state_dir);
	free(c->listen_addr);
	for (size_t i = 0; i < c->nhosts; i++)
		host_release(&c->hosts[i]);
	free(c->hosts);
	free(c->busybox);
	free(c->busybox_arm64);
	free(c->modules_path);
	free(c->debian_suite);
	free(c->debian_mirror);
	free(c->programs_dir);
	free(c->job_dirs);
	free(c->kcidb_origin);
	free(c->public_url);
	free(c->public_host);
	free(c->allowed_hosts);
	free(c->agent_dir);
	free(c->build_config);
	free(c->build_user);
	free(c->configs_dir);
	free(c->build_arches);
	config_watch_release(c);
	memset(c, 0, sizeof(*c));
}

static struct config_host *host_add(struct config *c, const char *name)
{
	struct config_host *v = realloc(c->hosts, (c->nhosts + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->hosts = v;
	v = &c->hosts[c->nhosts++];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->uri = strdup("qemu:///system");
	v->accel = strdup("auto");
	v->transfer = strdup("auto");
	v->firmware = strdup("seabios");
	v->boot = strdup("default");
	v->kernel_args = strdup("");
	v->pool = strdup("kfleet");
	v->pool_path = strdup("/var/lib/kfleet/pool");
	v->slots = 2;
	v->cpus = -1;
	v->connect_timeout_s = 30;
	return v;
}

int config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->state_dir = strdup(DEFAULT_STATE_DIR);
	c->listen_addr = strdup(DEFAULT_LISTEN_ADDR);
	c->listen_port = DEFAULT_PORT;
	c->log_level = LOG_LVL_INFO;
	c->run_memory_mb = 512;
	c->run_timeout_s = 300;
	c->boot_timeout_s = 120;
	c->max_attempts = 2;
	c->reserve_after_s = 60;
	c->console_max = 16ULL << 20;
	c->output_max = 4ULL << 20;
	c->results_stream = IMG_RESULTS_STREAM_MAX;
	c->min_free_disk = 1ULL << 30;
	c->busybox = strdup("/bin/busybox");
	c->busybox_arm64 = strdup("/opt/kfleet/arm64/busybox");
	c->modules_path = strdup("/lib/modules:/opt/kfleet/arm64/lib/modules");
	c->debian_suite = strdup("bookworm");
	c->debian_mirror = strdup("http://deb.debian.org/debian");
	/* installed (make install: PREFIX/sbin/kfleetd beside PREFIX/lib/kfleet
	 * and PREFIX/share/kfleet), or in the source tree it was built in
	 * (build/bin: the agents beside it, jobs/defs and kernels/configs two
	 * up); found from where the binary is, so an install may be moved */
	if (config_find_install(c) < 0)
		return -1;
	/* built programs next to the agent */
	c->programs_dir = path_join(c->agent_dir, "wl");
	c->build_jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (c->build_jobs < 1)
		c->build_jobs = 1;
	c->build_timeout_s = 4 * 3600;
	c->build_sandbox = 1;
	c->build_user = strdup("kfleet-build");
	c->build_log_max = 64ULL << 20;
	c->build_disk_max = 32ULL << 30;
	c->build_ccache = 1;
	c->build_speculate = -1;
	c->quiet_pin = QUIET_PIN_AUTO;
	c->quiet_busy_wait = 1;
	c->quiet_builds = QUIET_BUILDS_AVOID;
	c->quiet_reserve = 1;
	c->storage_large = 1ULL << 20;
	c->storage_interval_s = 600;
	c->build_config = strdup("tinyconfig");
	c->build_arches = strdup("x86_64");
	c->kcidb_origin = strdup(KCIDB_ORIGIN_DEFAULT);
	if (!c->build_config || !c->configs_dir || !c->build_arches || !host_add(c, "local") || !c->state_dir || !c->listen_addr || !c->busybox ||
	    !c->agent_dir || !c->busybox_arm64 || !c->modules_path || !c->programs_dir ||
	    !c->debian_suite || !c->debian_mirror ||
	    !c->job_dirs || !c->kcidb_origin)
		return -1;
	return 0;
}

char *config_db_path(const struct config *c)
{
	return path_join(c->state_dir, "kfleet.db");
}

char *config_token_path(const struct config *c)
{
	return path_join(c->state_dir, "token");
}

/* --- parsing -------------------------------------------------------------- */

struct parse {
	struct config *c;
	const char *file;
	FILE *fp;
	int line;             /* the line inih is handling: counted by our reader */
	int hosts_from_file;  /* the file's first [host] replaces the default one */
	struct buf *err;
	int nerr;
	char *linebuf;        /* the line being read, whole (getline) */
	size_t linecap;
	int skip_section;     /* the current [section] was bad: its keys are ignored */
};

static void perr(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perr(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	buf_printf(p->err, "%s:%d: ", p->file, p->line);
	va_start(ap, fmt);
	buf_vprintf(p->err, fmt, ap);
	va_end(ap);
	buf_puts(p->err, "\n");
	p->nerr++;
}

static int valid_name(const char *s);

/* Checks a "[...]" line: known sections only, host names well formed.
 * Returns -1 when the line is not a section header at all. */
static int check_section(struct parse *p, const char *l)
{
	const char *close = strchr(l, ']');
	char name[128];
	size_t n;

	if (!close) {
		perr(p, "syntax error: section header without ']'");
		return -1;
	}
	p->skip_section = 1;
	n = (size_t)(close - l - 1);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, l + 1, n);
	name[n] = '\0';
	if (!strcmp(name, "daemon") || !strcmp(name, "run") || !strcmp(name, "image") ||
	    !strcmp(name, "build") || !strcmp(name, "quiet") || !strcmp(name, "storage")) {
		p->skip_section = 0;
	} else if (config_section_arg(name, "host", NULL, 0)) {
		char *h = name + 5;
		size_t hn;

		while (*h == ' ' || *h == '\t')
			h++;
		hn = strlen(h);
		if (hn >= 2 && h[0] == '"' && h[hn - 1] == '"') {
			h[hn - 1] = '\0';
			h++;
		}
		if (valid_name(h))
			p->skip_section = 0;
		else
			perr(p, "[%s]: host name '%s' must be 1-32 letters, digits, '-', '_' or '.'",
			     name, h);
	} else if (config_section_arg(name, "watch", NULL, 0)) {
		char msg[256];

		if (config_watch_section(name, msg, sizeof(msg)) == 0)
			p->skip_section = 0;
		else
			perr(p, "%s", msg);
	} else {
		perr(p, "unknown section '[%s]' (known: daemon, host NAME, run, image, build, "
		     "quiet, storage, watch NAME)", name);
	}
	return 0;
}

/* inih's reader: hands inih one line at a time (so p->line is the line the
 * handler sees), and reports what inih would only report once or not at
 * all: over-long lines, bad sections, lines that are not key = value. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	ssize_t n = getline(&p->linebuf, &p->linecap, p->fp);
	const char *l;

	if (n < 0)
		return NULL;
	p->line++;
	l = p->linebuf;
	if (p->line == 1 && !strncmp(l, "\xef\xbb\xbf", 3))
		l += 3;     /* a UTF-8 byte order mark */
	while (*l == ' ' || *l == '\t')
		l++;
	if (n >= num - 1) {
		perr(p, "line too long (more than %d characters)", num - 2);
		l = "\n";
	} else if (*l == '[') {
		if (check_section(p, l) < 0)
			l = "\n";
	} else if (*l && *l != '\n' && *l != '\r' && *l != ';' && *l != '#' &&
		   !strpbrk(l, "=:")) {
		perr(p, "syntax error: expected '[section]', 'key = value' or a comment");
		l = "\n";
	}
	snprintf(str, (size_t)num, "%s", l == p->linebuf ? p->linebuf : l);
	return str;
}

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

static int set_int(struct parse *p, const char *key, const char *v, long long min,
		   long long max, int *dst)
{
	long long n;

	if (parse_int(v, min, max, &n) < 0) {
		perr(p, "%s: '%s' is not a whole number from %lld to %lld", key, v, min, max);
		return -1;
	}
	*dst = (int)n;
	return 0;
}

static int set_size(struct parse *p, const char *key, const char *v, unsigned long long min,
		    unsigned long long *dst)
{
	unsigned long long n;

	if (parse_size(v, &n) < 0 || n < min) {
		perr(p, "%s: '%s' is not a size of at least %llu bytes (like 64K, 16M, 1G)",
		     key, v, min);
		return -1;
	}
	*dst = n;
	return 0;
}

static int set_bool(struct parse *p, const char *key, const char *v, int *dst)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*dst = 1;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*dst = 0;
	else {
		perr(p, "%s: '%s' is not yes or no", key, v);
		return -1;
	}
	return 0;
}

#define ALLOWED_HOSTS_MAX 64

/* "NAME[:PORT] ..." (blanks or commas between), each entry checked as a
 * Host header is read (parse_hostport), kept normalised; empty: none */
static int set_allowed_hosts(struct parse *p, const char *v)
{
	char *dup = strdup(v), *save = NULL;
	struct buf out = BUF_INIT(0);
	int count = 0, rc = 0;

	if (!dup)
		return -1;
	for (char *t = strtok_r(dup, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		char name[256];
		int port;

		if (++count > ALLOWED_HOSTS_MAX) {
			perr(p, "allowed_hosts: more than %d names", ALLOWED_HOSTS_MAX);
			rc = -1;
			break;
		}
		if (parse_hostport(t, name, sizeof(name), &port) < 0) {
			perr(p, "allowed_hosts: '%s' is not NAME[:PORT] (a host name or address, "
			     "[IPV6] in brackets, a port from 1 to 65535)", t);
			rc = -1;
			break;
		}
		buf_printf(&out, "%s%s%s%s", out.len ? " " : "", strchr(name, ':') ? "[" : "", name,
			   strchr(name, ':') ? "]" : "");
		if (port > 0)
			buf_printf(&out, ":%d", port);
	}
	free(dup);
	if (rc == 0) {
		free(p->c->allowed_hosts);
		p->c->allowed_hosts = out.len ? buf_detach(&out) : NULL;
	}
	buf_release(&out);
	return rc;
}

#define PUBLIC_URL_MAX 200

/* "http(s)://NAME[:PORT][/PATH]": printable ASCII with no blank, quote,
 * '<', '>', '\\', '?', '#' or '@' (no user in it, nothing a link built on it
 * would carry further), its trailing '/' dropped; its NAME[:PORT] kept
 * for the Host check. Empty: none. */
static int set_public_url(struct parse *p, const char *v)
{
	const char *host, *end;
	char hp[256], name[256];
	size_t n = strlen(v);
	int port;

	if (!*v) {
		free(p->c->public_url);
		free(p->c->public_host);
		p->c->public_url = p->c->public_host = NULL;
		return 0;
	}
	host = !strncmp(v, "https://", 8) ? v + 8 : !strncmp(v, "http://", 7) ? v + 7 : NULL;
	if (!host || n > PUBLIC_URL_MAX)
		return perr(p, "public_url: '%.80s' is not an http:// or https:// URL of at most "
			    "%d bytes", v, PUBLIC_URL_MAX), -1;
	for (const char *q = v; *q; q++)
		if (*q <= ' ' || *q >= 127 || strchr("\"'<>\\?#@`{}|^", *q))
			return perr(p, "public_url: '%.80s': byte %d (0x%02x) is not allowed in "
				    "it", v, (int)(q - v) + 1, (unsigned char)*q), -1;
	end = strchr(host, '/');
	if (!end)
		end = host + strlen(host);
	snprintf(hp, sizeof(hp), "%.*s", (int)(end - host), host);
	if (parse_hostport(hp, name, sizeof(name), &port) < 0)
		return perr(p, "public_url: '%.80s': '%s' is not NAME[:PORT]", v, hp), -1;
	free(p->c->public_url);
	free(p->c->public_host);
	p->c->public_url = strdup(v);
	if (p->c->public_url) {
		size_t l = strlen(p->c->public_url);

		while (l > 0 && p->c->public_url[l - 1] == '/')
			p->c->public_url[--l] = '\0';
	}
	{
		char portstr[16] = "";
		int v6 = strchr(name, ':') != NULL;

		if (port > 0)
			snprintf(portstr, sizeof(portstr), ":%d", port);
		if (asprintf(&p->c->public_host, "%s%s%s%s", v6 ? "[" : "", name, v6 ? "]" : "",
			     portstr) < 0)
			p->c->public_host = NULL;
	}
	return 0;
}

/* "127.0.0.1:8080", "[::1]:8080", "8080" (address kept) */
static int set_listen(struct parse *p, const char *v)
{
	const char *colon = strrchr(v, ':');
	char addr[64];
	long long port;

	if (!colon) {
		if (parse_int(v, 0, 65535, &port) == 0) {
			p->c->listen_port = (int)port;
			return 0;
		}
		goto bad;
	}
	if (parse_int(colon + 1, 0, 65535, &port) < 0)
		goto bad;
	if (v[0] == '[') {
		if (colon[-1] != ']' || colon - v - 2 <= 0 || colon - v - 2 >= (int)sizeof(addr))
			goto bad;
		memcpy(addr, v + 1, (size_t)(colon - v - 2));
		addr[colon - v - 2] = '\0';
	} else {
		if (colon == v || colon - v >= (int)sizeof(addr) || memchr(v, ':', (size_t)(colon - v)))
			goto bad;
		memcpy(addr, v, (size_t)(colon - v));
		addr[colon - v] = '\0';
	}
	{
		unsigned char sa[sizeof(struct in6_addr)];

		if (inet_pton(strchr(addr, ':') ? AF_INET6 : AF_INET, addr, sa) != 1)
			goto bad;
	}
	if (set_str(&p->c->listen_addr, addr) < 0)
		return -1;
	p->c->listen_port = (int)port;
	return 0;
bad:
	perr(p, "listen: '%s' is not IP-ADDRESS:PORT (like 127.0.0.1:8080 or [::1]:8080)", v);
	return -1;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* The host a [host NAME] section names, made on first sight. */
static struct config_host *section_host(struct parse *p, const char *section)
{
	char name[64];

	/* check_section() took only a valid name (1-32 bytes) */
	if (config_section_arg(section, "host", name, sizeof(name)) != 1)
		return NULL;
	if (!p->hosts_from_file) {
		for (size_t i = 0; i < p->c->nhosts; i++)
			host_release(&p->c->hosts[i]);
		p->c->nhosts = 0;
		p->hosts_from_file = 1;
	}
	for (size_t i = 0; i < p->c->nhosts; i++)
		if (!strcmp(p->c->hosts[i].name, name))
			return &p->c->hosts[i];
	return host_add(p->c, name);
}

/* --- the keywords ------------------------------------------------------ */

/* Keys whose value needs more than a type's check, each setting its field
 * of obj (the config, or a [host NAME]'s entry) */
static int key_state_dir(struct parse *p, void *obj, const char *key, const char *v)
{
	if (!*v)
		return perr(p, "state_dir: must not be empty"), -1;
	return set_str(&((struct config *)obj)->state_dir, v);
}

static int key_listen(struct parse *p, void *obj, const char *key, const char *v)
{
	return set_listen(p, v);
}

static int key_allowed_hosts(struct parse *p, void *obj, const char *key, const char *v)
{
	return set_allowed_hosts(p, v);
}

static int key_public_url(struct parse *p, void *obj, const char *key, const char *v)
{
	return set_public_url(p, v);
}

static int key_kcidb_origin(struct parse *p, void *obj, const char *key, const char *v)
{
	if (!kcidb_origin_ok(v))
		return perr(p, "kcidb_origin: '%s' is not 1 to 64 of a-z 0-9 _", v), -1;
	return set_str(&((struct config *)obj)->kcidb_origin, v);
}

static int key_log_level(struct parse *p, void *obj, const char *key, const char *v)
{
	if (log_level_parse(v, &((struct config *)obj)->log_level) < 0)
		return perr(p, "log_level: '%s' is not debug, info, warn or error", v), -1;
	return 0;
}

static int key_uri(struct parse *p, void *obj, const char *key, const char *v)
{
	if (!strstr(v, "://"))
		return perr(p, "uri: '%s' is not a libvirt URI (like qemu:///system)", v), -1;
	return set_str(&((struct config_host *)obj)->uri, v);
}

static int key_cpus(struct parse *p, void *obj, const char *key, const char *v)
{
	struct config_host *h = obj;
	long long n;

	if (!strcmp(v, "auto")) {
		h->cpus = -1;
	} else if (parse_int(v, 0, 1 << 20, &n) < 0) {
		perr(p, "cpus: '%s' is not auto or a whole number from 0 (not counted) to %d", v,
		     1 << 20);
		return -1;
	} else {
		h->cpus = (int)n;
	}
	return 0;
}

static int key_kernel_args(struct parse *p, void *obj, const char *key, const char *v)
{
	size_t l = strlen(v), i = 0;

	while (i < l && v[i] >= 0x20 && v[i] < 0x7f)
		i++;
	if (l > CONFIG_KERNEL_ARGS_MAX)
		return perr(p, "kernel_args: %zu bytes, more than %d", l, CONFIG_KERNEL_ARGS_MAX), -1;
	if (i < l)
		return perr(p, "kernel_args: byte %zu (0x%02x) is not printable ASCII", i + 1,
			    (unsigned char)v[i]), -1;
	return set_str(&((struct config_host *)obj)->kernel_args, v);
}

static int key_pool(struct parse *p, void *obj, const char *key, const char *v)
{
	if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
	    strlen(v) || v[0] == '.' || v[0] == '-')
		return perr(p, "pool: '%s' is not a pool name (letters, digits, _.-)", v), -1;
	return set_str(&((struct config_host *)obj)->pool, v);
}

static int key_pool_path(struct parse *p, void *obj, const char *key, const char *v)
{
	if (v[0] != '/')
		return perr(p, "pool_path: '%s' is not an absolute path", v), -1;
	return set_str(&((struct config_host *)obj)->pool_path, v);
}

static int key_results_stream(struct parse *p, void *obj, const char *key, const char *v)
{
	struct config *c = obj;

	/* twice this in hex frames on the channel, and in its file */
	if (set_size(p, key, v, 0, &c->results_stream) == 0 && c->results_stream > (1ull << 30))
		return perr(p, "results_stream: '%s' is over 1G (bigger results are copied out of "
			    "the disk)", v), -1;
	return 0;
}

static int key_speculate(struct parse *p, void *obj, const char *key, const char *v)
{
	struct config *c = obj;

	if (!strcmp(v, "auto")) {
		c->build_speculate = -1;
		return 0;
	}
	return set_bool(p, key, v, &c->build_speculate);
}

static int key_arches(struct parse *p, void *obj, const char *key, const char *v)
{
	if (strcmp(v, "x86_64") && strcmp(v, "arm64") && strcmp(v, "x86_64,arm64") &&
	    strcmp(v, "arm64,x86_64"))
		return perr(p, "arches: '%s' is not x86_64, arm64 or x86_64,arm64", v), -1;
	return set_str(&((struct config *)obj)->build_arches, v);
}

enum kw_type {
	KW_STR,        /* any string */
	KW_CHOICE,     /* one of words[], kept as the string */
	KW_WORD,       /* one of words[], kept as its index (an int) */
	KW_INT,        /* a whole number from min to max */
	KW_SIZE,       /* a size (64K, 16M, 1G) of at least min bytes */
	KW_BOOL,       /* yes/no, true/false, 1/0 */
	KW_FN,         /* fn checks and sets it */
};

/* One key of a section: where its value goes (off, in struct config, or in
 * struct config_host for "host") and how it is read */
struct keyword {
	const char *section;
	const char *key;
	enum kw_type type;
	size_t off;
	long long min, max;
	const char *const *words;   /* KW_CHOICE, KW_WORD: NULL-terminated ... */
	const char *is_not;         /* ... and "is not ..." in the error */
	int (*fn)(struct parse *p, void *obj, const char *key, const char *v);
};

#define C(f)  offsetof(struct config, f)
#define H(f)  offsetof(struct config_host, f)

static const char *const accels[] = { "auto", "kvm", "tcg", NULL };
static const char *const transfers[] = { "auto", "files", "upload", NULL };
static const char *const firmwares[] = { "seabios", "qboot", NULL };
static const char *const boots[] = { "default", "fast", NULL };
static const char *const pins[] = { "auto", "yes", "no", NULL };       /* QUIET_PIN_* */
static const char *const busy[] = { "share", "wait", NULL };           /* quiet_busy_wait */
static const char *const builds[] = { "avoid", "pause", "share", NULL }; /* QUIET_BUILDS_* */

/* Sorted by section, then key (strcmp): found by bsearch(), as OpenBSD's
 * parse.y finds its keywords; config_test checks the order */
static const struct keyword keywords[] = {
	{ "build", "arches", KW_FN, 0, 0, 0, NULL, NULL, key_arches },
	{ "build", "ccache", KW_BOOL, C(build_ccache), 0, 0, NULL, NULL, NULL },
	{ "build", "config", KW_STR, C(build_config), 0, 0, NULL, NULL, NULL },
	{ "build", "configs_dir", KW_STR, C(configs_dir), 0, 0, NULL, NULL, NULL },
	{ "build", "disk_max", KW_SIZE, C(build_disk_max), 0, 0, NULL, NULL, NULL },
	{ "build", "jobs", KW_INT, C(build_jobs), 1, 4096, NULL, NULL, NULL },
	{ "build", "log_max", KW_SIZE, C(build_log_max), 0, 0, NULL, NULL, NULL },
	{ "build", "sandbox", KW_BOOL, C(build_sandbox), 0, 0, NULL, NULL, NULL },
	{ "build", "speculate", KW_FN, 0, 0, 0, NULL, NULL, key_speculate },
	{ "build", "timeout", KW_INT, C(build_timeout_s), 60, 7 * 86400, NULL, NULL, NULL },
	{ "build", "user", KW_STR, C(build_user), 0, 0, NULL, NULL, NULL },
	{ "daemon", "allowed_hosts", KW_FN, 0, 0, 0, NULL, NULL, key_allowed_hosts },
	{ "daemon", "job_dirs", KW_STR, C(job_dirs), 0, 0, NULL, NULL, NULL },
	{ "daemon", "kcidb_origin", KW_FN, 0, 0, 0, NULL, NULL, key_kcidb_origin },
	{ "daemon", "listen", KW_FN, 0, 0, 0, NULL, NULL, key_listen },
	{ "daemon", "log_level", KW_FN, 0, 0, 0, NULL, NULL, key_log_level },
	{ "daemon", "min_free_disk", KW_SIZE, C(min_free_disk), 0, 0, NULL, NULL, NULL },
	{ "daemon", "public_url", KW_FN, 0, 0, 0, NULL, NULL, key_public_url },
	{ "daemon", "state_dir", KW_FN, 0, 0, 0, NULL, NULL, key_state_dir },
	{ "host", "accel", KW_CHOICE, H(accel), 0, 0, accels, "auto, kvm or tcg", NULL },
	{ "host", "boot", KW_CHOICE, H(boot), 0, 0, boots, "default or fast", NULL },
	{ "host", "connect_timeout", KW_INT, H(connect_timeout_s), 1, 3600, NULL, NULL, NULL },
	{ "host", "cpus", KW_FN, 0, 0, 0, NULL, NULL, key_cpus },
	{ "host", "firmware", KW_CHOICE, H(firmware), 0, 0, firmwares, "seabios or qboot", NULL },
	{ "host", "kernel_args", KW_FN, 0, 0, 0, NULL, NULL, key_kernel_args },
	{ "host", "pool", KW_FN, 0, 0, 0, NULL, NULL, key_pool },
	{ "host", "pool_path", KW_FN, 0, 0, 0, NULL, NULL, key_pool_path },
	{ "host", "slots", KW_INT, H(slots), 1, 1024, NULL, NULL, NULL },
	{ "host", "transfer", KW_CHOICE, H(transfer), 0, 0, transfers, "auto, files or upload",
	  NULL },
	{ "host", "uri", KW_FN, 0, 0, 0, NULL, NULL, key_uri },
	{ "image", "agent_dir", KW_STR, C(agent_dir), 0, 0, NULL, NULL, NULL },
	{ "image", "busybox", KW_STR, C(busybox), 0, 0, NULL, NULL, NULL },
	{ "image", "busybox_arm64", KW_STR, C(busybox_arm64), 0, 0, NULL, NULL, NULL },
	{ "image", "debian_mirror", KW_STR, C(debian_mirror), 0, 0, NULL, NULL, NULL },
	{ "image", "debian_suite", KW_STR, C(debian_suite), 0, 0, NULL, NULL, NULL },
	{ "image", "modules_path", KW_STR, C(modules_path), 0, 0, NULL, NULL, NULL },
	{ "image", "programs_dir", KW_STR, C(programs_dir), 0, 0, NULL, NULL, NULL },
	{ "quiet", "builds", KW_WORD, C(quiet_builds), 0, 0, builds, "avoid, pause or share",
	  NULL },
	{ "quiet", "busy", KW_WORD, C(quiet_busy_wait), 0, 0, busy, "wait or share", NULL },
	{ "quiet", "pin", KW_WORD, C(quiet_pin), 0, 0, pins, "auto, yes or no", NULL },
	{ "quiet", "reserve", KW_INT, C(quiet_reserve), 0, 1024, NULL, NULL, NULL },
	{ "run", "boot_timeout", KW_INT, C(boot_timeout_s), 1, 86400, NULL, NULL, NULL },
	{ "run", "console_max", KW_SIZE, C(console_max), 4096, 0, NULL, NULL, NULL },
	{ "run", "max_attempts", KW_INT, C(max_attempts), 1, 10, NULL, NULL, NULL },
	{ "run", "memory_mb", KW_INT, C(run_memory_mb), 64, 1 << 22, NULL, NULL, NULL },
	{ "run", "output_max", KW_SIZE, C(output_max), 1024, 0, NULL, NULL, NULL },
	{ "run", "reserve_after", KW_INT, C(reserve_after_s), 0, 7 * 86400, NULL, NULL, NULL },
	{ "run", "results_stream", KW_FN, 0, 0, 0, NULL, NULL, key_results_stream },
	{ "run", "silence_timeout", KW_INT, C(silence_timeout_s), 0, 7 * 86400, NULL, NULL,
	  NULL },
	{ "run", "timeout", KW_INT, C(run_timeout_s), 1, 7 * 86400, NULL, NULL, NULL },
	{ "storage", "budget", KW_SIZE, C(storage_budget), 0, 0, NULL, NULL, NULL },
	{ "storage", "interval", KW_INT, C(storage_interval_s), 1, 86400, NULL, NULL, NULL },
	{ "storage", "keep_days", KW_INT, C(storage_keep_days), 0, 100000, NULL, NULL, NULL },
	{ "storage", "keep_initrd", KW_BOOL, C(storage_keep_initrd), 0, 0, NULL, NULL, NULL },
	{ "storage", "large", KW_SIZE, C(storage_large), 1, 0, NULL, NULL, NULL },
};

#undef C
#undef H

static int kw_cmp(const void *a, const void *b)
{
	const struct keyword *x = a, *y = b;
	int r = strcmp(x->section, y->section);

	return r ? r : strcmp(x->key, y->key);
}

const char *config_keyword_at(size_t i, const char **key)
{
	if (i >= sizeof(keywords) / sizeof(keywords[0]))
		return NULL;
	*key = keywords[i].key;
	return keywords[i].section;
}

/* Index of v in words (NULL-terminated), -1 when it is none of them */
static int word_index(const char *const *words, const char *v)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(v, words[i]))
			return i;
	return -1;
}

/* Sets k's field of obj from v, or says why not */
static void kw_set(struct parse *p, const struct keyword *k, void *obj, const char *v)
{
	char *field = (char *)obj + k->off;
	int i;

	switch (k->type) {
	case KW_STR:
		set_str((char **)(void *)field, v);
		break;
	case KW_CHOICE:
	case KW_WORD:
		i = word_index(k->words, v);
		if (i < 0)
			perr(p, "%s: '%s' is not %s", k->key, v, k->is_not);
		else if (k->type == KW_CHOICE)
			set_str((char **)(void *)field, v);
		else
			*(int *)(void *)field = i;
		break;
	case KW_INT:
		set_int(p, k->key, v, k->min, k->max, (int *)(void *)field);
		break;
	case KW_SIZE:
		set_size(p, k->key, v, (unsigned long long)k->min,
			 (unsigned long long *)(void *)field);
		break;
	case KW_BOOL:
		set_bool(p, k->key, v, (int *)(void *)field);
		break;
	case KW_FN:
		k->fn(p, obj, k->key, v);
		break;
	}
}

static int handler(void *user, const char *section, const char *key, const char *v)
{
	struct parse *p = user;
	struct keyword probe = { .section = section, .key = key };
	const struct keyword *k;
	void *obj = p->c;

	if (!key || p->skip_section)  /* a header alone, or a bad section's key */
		return 1;
	if (!*section) {
		perr(p, "'%s' is outside any section", key);
		return 1;
	}
	if (config_section_arg(section, "watch", NULL, 0)) {
		char msg[512];

		if (config_watch_key(p->c, section, key, v, msg, sizeof(msg)) < 0)
			perr(p, "[%s]: %s", section, msg);
		return 1;
	}
	if (config_section_arg(section, "host", NULL, 0)) {
		obj = section_host(p, section);
		if (!obj)
			return 1;
		probe.section = "host";
	}
	k = bsearch(&probe, keywords, sizeof(keywords) / sizeof(keywords[0]), sizeof(keywords[0]),
		    kw_cmp);
	if (!k)
		perr(p, "[%s]: unknown key '%s'", section, key);
	else
		kw_set(p, k, obj, v);
	return 1;
}

int config_load(struct config *c, const char *path, struct buf *err)
{
	struct parse p = { .c = c, .file = path, .err = err };
	int rc;

	p.fp = fopen(path, "r");
	if (!p.fp) {
		buf_printf(err, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = ini_parse_stream(reader, &p, handler, &p);
	fclose(p.fp);
	free(p.linebuf);
	if (rc > 0 && !p.nerr) {
		p.line = rc;
		perr(&p, "syntax error: expected '[section]', 'key = value' or a comment");
	} else if (rc < 0) {
		buf_printf(err, "%s: cannot read\n", path);
		p.nerr++;
	}
	if (!p.nerr)
		p.nerr += config_watch_check(c, path, err);
	if (!p.nerr && c->nhosts == 0) {
		buf_printf(err, "%s: no [host NAME] section\n", path);
		p.nerr++;
	}
	if (p.nerr)
		return -1;
	set_str(&c->path, path);
	return 0;
}

int config_build_user(const struct config *c, unsigned *uid, unsigned *gid)
{
	unsigned u, g;
	char end;
	struct passwd *pw;

	if (sscanf(c->build_user, "%u:%u%c", &u, &g, &end) == 2 && u && g) {
		*uid = u;
		*gid = g;
		return 0;
	}
	if ((pw = getpwnam(c->build_user)) && pw->pw_uid && pw->pw_gid) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		return 0;
	}
	return -1;
}
