/* config.c: reads kfleetd's INI configuration with inih over the embedded
 * defaults, checks every value, and prints the result back normalised
 * (kfleetd -nv). Every problem is reported as "file:line: message"; a bad
 * file never half-applies, the caller just refuses to start. */
#include "config/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ini.h>
#include <pwd.h>
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
	{
		char *exe = exe_dir(), *agent = NULL;

		if (exe && asprintf(&agent, "%s/../lib/kfleet/kfleet-agent-x86_64", exe) >= 0 &&
		    access(agent, X_OK) == 0) {
			if (asprintf(&c->agent_dir, "%s/../lib/kfleet", exe) < 0)
				c->agent_dir = NULL;
			if (asprintf(&c->job_dirs, "%s/../share/kfleet/jobs/defs", exe) < 0)
				c->job_dirs = NULL;
			if (asprintf(&c->configs_dir, "%s/../share/kfleet/kernels/configs", exe) < 0)
				c->configs_dir = NULL;
		} else {
			c->agent_dir = exe ? strdup(exe) : strdup(".");
			if (c->agent_dir && asprintf(&c->job_dirs, "%s/../../jobs/defs",
						     c->agent_dir) < 0)
				c->job_dirs = NULL;
			if (c->agent_dir && asprintf(&c->configs_dir, "%s/../../kernels/configs",
						     c->agent_dir) < 0)
				c->configs_dir = NULL;
		}
		free(agent);
		free(exe);
	}
	if (!c->agent_dir)
		c->agent_dir = strdup(".");
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
	} else if (!strncmp(name, "host", 4) && (name[4] == ' ' || name[4] == '\t')) {
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
	} else if (!strncmp(name, "watch", 5) && (name[5] == ' ' || name[5] == '\t')) {
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
	const char *s = section + 4;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, s, n);
	name[n] = '\0';
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

/* One of the words in names[] (NULL-terminated) into *out, its index */
static void set_word(struct parse *p, const char *key, const char *v,
		     const char *const *names, int *out)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(v, names[i])) {
			*out = i;
			return;
		}
	perr(p, "%s: '%s' is not %s", key, v, !strcmp(key, "pin") ? "auto, yes or no" :
	     !strcmp(key, "busy") ? "wait or share" : "avoid, pause or share");
}

/* [quiet]: pinning runs to host cores of their own, and builds beside them */
static void quiet_key(struct parse *p, const char *key, const char *v)
{
	static const char *const pins[] = { "auto", "yes", "no", NULL };
	static const char *const busy[] = { "share", "wait", NULL };
	static const char *const builds[] = { "avoid", "pause", "share", NULL };
	struct config *c = p->c;

	if (!strcmp(key, "pin"))
		set_word(p, key, v, pins, &c->quiet_pin);
	else if (!strcmp(key, "busy"))
		set_word(p, key, v, busy, &c->quiet_busy_wait);
	else if (!strcmp(key, "builds"))
		set_word(p, key, v, builds, &c->quiet_builds);
	else if (!strcmp(key, "reserve"))
		set_int(p, key, v, 0, 1024, &c->quiet_reserve);
	else
		perr(p, "[quiet]: unknown key '%s'", key);
}

/* [storage]: the state directory's budget and retention */
static void storage_key(struct parse *p, const char *key, const char *v)
{
	struct config *c = p->c;

	if (!strcmp(key, "budget"))
		set_size(p, key, v, 0, &c->storage_budget);
	else if (!strcmp(key, "keep_days"))
		set_int(p, key, v, 0, 100000, &c->storage_keep_days);
	else if (!strcmp(key, "large"))
		set_size(p, key, v, 1, &c->storage_large);
	else if (!strcmp(key, "interval"))
		set_int(p, key, v, 1, 86400, &c->storage_interval_s);
	else if (!strcmp(key, "keep_initrd"))
		set_bool(p, key, v, &c->storage_keep_initrd);
	else
		perr(p, "[storage]: unknown key '%s'", key);
}

static int handler(void *user, const char *section, const char *key, const char *v)
{
	struct parse *p = user;
	struct config *c = p->c;

	if (!key || p->skip_section)  /* a header alone, or a bad section's key */
		return 1;
	if (!strcmp(section, "daemon")) {
		if (!strcmp(key, "state_dir")) {
			if (!*v)
				perr(p, "state_dir: must not be empty");
			else
				set_str(&c->state_dir, v);
		} else if (!strcmp(key, "listen")) {
			set_listen(p, v);
		} else if (!strcmp(key, "allowed_hosts")) {
			set_allowed_hosts(p, v);
		} else if (!strcmp(key, "job_dirs")) {
			set_str(&c->job_dirs, v);
		} else if (!strcmp(key, "kcidb_origin")) {
			if (!kcidb_origin_ok(v))
				perr(p, "kcidb_origin: '%s' is not 1 to 64 of a-z 0-9 _", v);
			else
				set_str(&c->kcidb_origin, v);
		} else if (!strcmp(key, "public_url")) {
			set_public_url(p, v);
		} else if (!strcmp(key, "min_free_disk")) {
			set_size(p, key, v, 0, &c->min_free_disk);
		} else if (!strcmp(key, "log_level")) {
			if (log_level_parse(v, &c->log_level) < 0)
				perr(p, "log_level: '%s' is not debug, info, warn or error", v);
		} else {
			perr(p, "[daemon]: unknown key '%s'", key);
		}
	} else if (!strncmp(section, "host", 4) && (section[4] == ' ' || section[4] == '\t')) {
		struct config_host *h = section_host(p, section);

		if (!h)
			return 1;
		if (!strcmp(key, "uri")) {
			if (!strstr(v, "://"))
				perr(p, "uri: '%s' is not a libvirt URI (like qemu:///system)", v);
			else
				set_str(&h->uri, v);
		} else if (!strcmp(key, "slots")) {
			set_int(p, key, v, 1, 1024, &h->slots);
		} else if (!strcmp(key, "cpus")) {
			long long n;

			if (!strcmp(v, "auto"))
				h->cpus = -1;
			else if (parse_int(v, 0, 1 << 20, &n) < 0)
				perr(p, "cpus: '%s' is not auto or a whole number from 0 (not "
				     "counted) to %d", v, 1 << 20);
			else
				h->cpus = (int)n;
		} else if (!strcmp(key, "accel")) {
			if (strcmp(v, "auto") && strcmp(v, "kvm") && strcmp(v, "tcg"))
				perr(p, "accel: '%s' is not auto, kvm or tcg", v);
			else
				set_str(&h->accel, v);
		} else if (!strcmp(key, "transfer")) {
			if (strcmp(v, "auto") && strcmp(v, "files") && strcmp(v, "upload"))
				perr(p, "transfer: '%s' is not auto, files or upload", v);
			else
				set_str(&h->transfer, v);
		} else if (!strcmp(key, "firmware")) {
			if (strcmp(v, "seabios") && strcmp(v, "qboot"))
				perr(p, "firmware: '%s' is not seabios or qboot", v);
			else
				set_str(&h->firmware, v);
		} else if (!strcmp(key, "boot")) {
			if (strcmp(v, "default") && strcmp(v, "fast"))
				perr(p, "boot: '%s' is not default or fast", v);
			else
				set_str(&h->boot, v);
		} else if (!strcmp(key, "kernel_args")) {
			size_t l = strlen(v), i = 0;

			while (i < l && v[i] >= 0x20 && v[i] < 0x7f)
				i++;
			if (l > CONFIG_KERNEL_ARGS_MAX)
				perr(p, "kernel_args: %zu bytes, more than %d", l,
				     CONFIG_KERNEL_ARGS_MAX);
			else if (i < l)
				perr(p, "kernel_args: byte %zu (0x%02x) is not printable ASCII", i + 1,
				     (unsigned char)v[i]);
			else
				set_str(&h->kernel_args, v);
		} else if (!strcmp(key, "pool")) {
			if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789_.-") != strlen(v) || v[0] == '.' || v[0] == '-')
				perr(p, "pool: '%s' is not a pool name (letters, digits, _.-)", v);
			else
				set_str(&h->pool, v);
		} else if (!strcmp(key, "connect_timeout")) {
			set_int(p, key, v, 1, 3600, &h->connect_timeout_s);
		} else if (!strcmp(key, "pool_path")) {
			if (v[0] != '/')
				perr(p, "pool_path: '%s' is not an absolute path", v);
			else
				set_str(&h->pool_path, v);
		} else {
			perr(p, "[%s]: unknown key '%s'", section, key);
		}
	} else if (!strcmp(section, "run")) {
		if (!strcmp(key, "memory_mb"))
			set_int(p, key, v, 64, 1 << 22, &c->run_memory_mb);
		else if (!strcmp(key, "timeout"))
			set_int(p, key, v, 1, 7 * 86400, &c->run_timeout_s);
		else if (!strcmp(key, "boot_timeout"))
			set_int(p, key, v, 1, 86400, &c->boot_timeout_s);
		else if (!strcmp(key, "silence_timeout"))
			set_int(p, key, v, 0, 7 * 86400, &c->silence_timeout_s);
		else if (!strcmp(key, "max_attempts"))
			set_int(p, key, v, 1, 10, &c->max_attempts);
		else if (!strcmp(key, "reserve_after"))
			set_int(p, key, v, 0, 7 * 86400, &c->reserve_after_s);
		else if (!strcmp(key, "console_max"))
			set_size(p, key, v, 4096, &c->console_max);
		else if (!strcmp(key, "output_max"))
			set_size(p, key, v, 1024, &c->output_max);
		else if (!strcmp(key, "results_stream")) {
			/* twice this in hex frames on the channel, and in its file */
			if (set_size(p, key, v, 0, &c->results_stream) == 0 &&
			    c->results_stream > (1ull << 30))
				perr(p, "results_stream: '%s' is over 1G (bigger results are "
				     "copied out of the disk)", v);
		}
		else
			perr(p, "[run]: unknown key '%s'", key);
	} else if (!strcmp(section, "image")) {
		if (!strcmp(key, "busybox"))
			set_str(&c->busybox, v);
		else if (!strcmp(key, "busybox_arm64"))
			set_str(&c->busybox_arm64, v);
		else if (!strcmp(key, "modules_path"))
			set_str(&c->modules_path, v);
		else if (!strcmp(key, "programs_dir"))
			set_str(&c->programs_dir, v);
		else if (!strcmp(key, "agent_dir"))
			set_str(&c->agent_dir, v);
		else if (!strcmp(key, "debian_suite"))
			set_str(&c->debian_suite, v);
		else if (!strcmp(key, "debian_mirror"))
			set_str(&c->debian_mirror, v);
		else
			perr(p, "[image]: unknown key '%s'", key);
	} else if (!strcmp(section, "build")) {
		if (!strcmp(key, "jobs"))
			set_int(p, key, v, 1, 4096, &c->build_jobs);
		else if (!strcmp(key, "timeout"))
			set_int(p, key, v, 60, 7 * 86400, &c->build_timeout_s);
		else if (!strcmp(key, "sandbox") || !strcmp(key, "ccache"))
			set_bool(p, key, v, !strcmp(key, "sandbox") ? &c->build_sandbox :
					   &c->build_ccache);
		else if (!strcmp(key, "user"))
			set_str(&c->build_user, v);
		else if (!strcmp(key, "log_max"))
			set_size(p, key, v, 0, &c->build_log_max);
		else if (!strcmp(key, "disk_max"))
			set_size(p, key, v, 0, &c->build_disk_max);
		else if (!strcmp(key, "speculate")) {
			if (!strcmp(v, "auto"))
				c->build_speculate = -1;
			else
				set_bool(p, key, v, &c->build_speculate);
		} else if (!strcmp(key, "config"))
			set_str(&c->build_config, v);
		else if (!strcmp(key, "configs_dir"))
			set_str(&c->configs_dir, v);
		else if (!strcmp(key, "arches")) {
			if (strcmp(v, "x86_64") && strcmp(v, "arm64") && strcmp(v, "x86_64,arm64") &&
			    strcmp(v, "arm64,x86_64"))
				perr(p, "arches: '%s' is not x86_64, arm64 or x86_64,arm64", v);
			else
				set_str(&c->build_arches, v);
		} else
			perr(p, "[build]: unknown key '%s'", key);
	} else if (!strcmp(section, "quiet")) {
		quiet_key(p, key, v);
	} else if (!strcmp(section, "storage")) {
		storage_key(p, key, v);
	} else if (!strncmp(section, "watch", 5) && (section[5] == ' ' || section[5] == '\t')) {
		char msg[512];

		if (config_watch_key(c, section, key, v, msg, sizeof(msg)) < 0)
			perr(p, "[%s]: %s", section, msg);
	} else if (!*section) {
		perr(p, "'%s' is outside any section", key);
	}
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

int config_listen_exposed(const struct config *c, char *msg, size_t n)
{
	unsigned char a[sizeof(struct in6_addr)], zero[sizeof(a)] = { 0 };
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int v6 = strchr(c->listen_addr, ':') != NULL, any = 0;

	if (!v6 && inet_pton(AF_INET, c->listen_addr, a) == 1) {
		if (a[0] == 127)
			return 0;
		any = !memcmp(a, zero, 4);
	} else if (v6 && inet_pton(AF_INET6, c->listen_addr, a) == 1) {
		if ((!memcmp(a, zero, 15) && a[15] == 1) || (!memcmp(a, mapped, 12) && a[12] == 127))
			return 0;
		any = !memcmp(a, zero, sizeof(a));
	}
	snprintf(msg, n, "listen = %s%s%s:%d is not a loopback address: the pages and the API are "
		 "reachable from the network, and the token is the only guard (of the calls that "
		 "change state; every page and read is open to whoever reaches the port)%s",
		 v6 ? "[" : "", c->listen_addr, v6 ? "]" : "", c->listen_port, any ?
		 "; a request is served only when its Host is localhost, 127.0.0.1, [::1] or "
		 "a name of [daemon] allowed_hosts" : "");
	return 1;
}

/* --- printing ------------------------------------------------------------- */

static void print_size(FILE *out, const char *key, unsigned long long n)
{
	static const char units[] = "KMG";
	int u = -1;

	while (u < 2 && n && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	if (u < 0)
		fprintf(out, "%s = %llu\n", key, n);
	else
		fprintf(out, "%s = %llu%c\n", key, n, units[u]);
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

void config_print(const struct config *c, FILE *out)
{
	int v6 = strchr(c->listen_addr, ':') != NULL;

	fprintf(out, "# kfleetd configuration: %s\n", c->path ? c->path : "embedded defaults");
	fprintf(out, "[daemon]\nstate_dir = %s\n", c->state_dir);
	fprintf(out, "listen = %s%s%s:%d\n", v6 ? "[" : "", c->listen_addr, v6 ? "]" : "",
		c->listen_port);
	fprintf(out, "log_level = %s\n", log_level_name(c->log_level));
	fprintf(out, "job_dirs = %s\n", c->job_dirs);
	fprintf(out, "allowed_hosts = %s\n", c->allowed_hosts ? c->allowed_hosts : "");
	fprintf(out, "kcidb_origin = %s\n", c->kcidb_origin);
	fprintf(out, "public_url =%s%s\n", c->public_url ? " " : "", c->public_url ? c->public_url : "");
	print_size(out, "min_free_disk", c->min_free_disk);
	for (size_t i = 0; i < c->nhosts; i++) {
		const char *args = c->hosts[i].kernel_args && *c->hosts[i].kernel_args ?
				   c->hosts[i].kernel_args : NULL;
		char cpus[16];

		if (c->hosts[i].cpus < 0)
			snprintf(cpus, sizeof(cpus), "auto");
		else
			snprintf(cpus, sizeof(cpus), "%d", c->hosts[i].cpus);
		fprintf(out, "\n[host %s]\nuri = %s\nslots = %d\ncpus = %s\naccel = %s\n"
			"transfer = %s\npool = %s\npool_path = %s\nfirmware = %s\nboot = %s\n"
			"kernel_args =%s%s\nconnect_timeout = %d\n",
			c->hosts[i].name, c->hosts[i].uri, c->hosts[i].slots, cpus, c->hosts[i].accel,
			c->hosts[i].transfer, c->hosts[i].pool, c->hosts[i].pool_path,
			c->hosts[i].firmware, c->hosts[i].boot, args ? " " : "", args ? args : "",
			c->hosts[i].connect_timeout_s);
	}
	fprintf(out, "\n[run]\nmemory_mb = %d\ntimeout = %d\nboot_timeout = %d\n"
		"silence_timeout = %d\nmax_attempts = %d\nreserve_after = %d\n", c->run_memory_mb,
		c->run_timeout_s, c->boot_timeout_s, c->silence_timeout_s, c->max_attempts,
		c->reserve_after_s);
	print_size(out, "console_max", c->console_max);
	print_size(out, "output_max", c->output_max);
	print_size(out, "results_stream", c->results_stream);
	fprintf(out, "\n[image]\nbusybox = %s\nbusybox_arm64 = %s\nagent_dir = %s\nmodules_path = %s\n"
		"programs_dir = %s\ndebian_suite = %s\ndebian_mirror = %s\n", c->busybox,
		c->busybox_arm64, c->agent_dir, c->modules_path, c->programs_dir, c->debian_suite,
		c->debian_mirror);
	fprintf(out, "\n[build]\njobs = %d\ntimeout = %d\nsandbox = %s\nccache = %s\nconfig = %s\n"
		"configs_dir = %s\narches = %s\nspeculate = %s\n", c->build_jobs, c->build_timeout_s,
		c->build_sandbox ? "yes" : "no", c->build_ccache ? "yes" : "no", c->build_config,
		c->configs_dir, c->build_arches, c->build_speculate < 0 ? "auto" :
		c->build_speculate ? "yes" : "no");
	fprintf(out, "user = %s\n", c->build_user);
	print_size(out, "log_max", c->build_log_max);
	print_size(out, "disk_max", c->build_disk_max);
	fprintf(out, "\n[quiet]\npin = %s\nbusy = %s\nbuilds = %s\nreserve = %d\n",
		c->quiet_pin == QUIET_PIN_AUTO ? "auto" : c->quiet_pin == QUIET_PIN_YES ? "yes" : "no",
		c->quiet_busy_wait ? "wait" : "share", c->quiet_builds == QUIET_BUILDS_AVOID ? "avoid" :
		c->quiet_builds == QUIET_BUILDS_PAUSE ? "pause" : "share", c->quiet_reserve);
	fprintf(out, "\n[storage]\n");
	print_size(out, "budget", c->storage_budget);
	fprintf(out, "keep_days = %d\n", c->storage_keep_days);
	print_size(out, "large", c->storage_large);
	fprintf(out, "interval = %d\nkeep_initrd = %s\n", c->storage_interval_s,
		c->storage_keep_initrd ? "yes" : "no");
	config_watch_print(c, out);
}
