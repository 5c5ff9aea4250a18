// SPDX-License-Identifier: GPL-2.0-only
/* fetch_test.c: unit tests for kernels/fetch.c against a real HTTP server
 * the test starts on 127.0.0.1 (libmicrohttpd): plain and gzip mboxes,
 * redirects, bodies over the cap, 404, a too slow server, lore message-ids,
 * patchwork's API, a proxy from the environment, TLS verification, and
 * `kfleet series show` over the network. Nothing leaves 127.0.0.1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"
#include "kernels/kernels.h"
#include "cli/cli.h"
#include "t/unit/testutil.h"

#define FIX     "t/data/series/"
#define BIG     (2u << 20)
#define COVER_MBOX "From patchwork Mon Sep 17 00:00:00 2001\nSubject: [PATCH 0/1] x\n\nbase-commit: 0123\n"
#define MSGID   "cover.1796032635.git.alice@example.org"

struct blob {
	unsigned char *p;
	size_t n;
};

struct server {
	struct MHD_Daemon *d;
	int port;
	char base[64];           /* http://127.0.0.1:PORT */
	struct blob mbox;        /* bpf-next-v4.mbox */
	struct blob gz;          /* the same, gzipped */
	struct blob thread_gz;   /* thread-replies.mbox, gzipped */
	struct blob bomb;        /* 4 MiB of 'A', gzipped */
	char *big;               /* BIG bytes */
	char pw7[256], pw8[64];  /* patchwork API answers */
	char pw11[512], pw12[512];  /* ...of a series with a cover letter */
	pthread_mutex_t lock;
	char last_url[1024];     /* the path of the last request */
};

static struct server srv;

/* gzip of n bytes */
static struct blob gzip_of(const void *p, size_t n)
{
	struct blob b;
	z_stream z;

	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	b.n = deflateBound(&z, (uLong)n) + 64;
	b.p = malloc(b.n);
	assert_non_null(b.p);
	z.next_in = (unsigned char *)p;
	z.avail_in = (uInt)n;
	z.next_out = b.p;
	z.avail_out = (uInt)b.n;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	b.n = z.total_out;
	deflateEnd(&z);
	return b;
}

static ssize_t slow_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	usleep(100 * 1000);
	if (pos >= 50)
		return MHD_CONTENT_READER_END_OF_STREAM;
	buf[0] = 'x';
	return 1;
}

static ssize_t chunked_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	size_t n = max < 65536 ? max : 65536;

	if (pos >= BIG)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (pos + n > BIG)
		n = BIG - (size_t)pos;
	memset(buf, 'x', n);
	return (ssize_t)n;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
			     const char *type)
{
	enum MHD_Result rc;

	if (type)
		MHD_add_response_header(r, "Content-Type", type);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result bytes(struct MHD_Connection *c, unsigned status, const void *p, size_t n,
			     const char *type)
{
	return reply(c, status, MHD_create_response_from_buffer(n, (void *)p,
								 MHD_RESPMEM_PERSISTENT), type);
}

static enum MHD_Result redirect(struct MHD_Connection *c, const char *to)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"",
								  MHD_RESPMEM_PERSISTENT);

	MHD_add_response_header(r, "Location", to);
	return reply(c, 302, r, NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	static int marker;
	char to[256];
	int n;

	if (!*con_cls) {
		*con_cls = &marker;
		return MHD_YES;
	}
	pthread_mutex_lock(&srv.lock);
	snprintf(srv.last_url, sizeof(srv.last_url), "%s", url);
	pthread_mutex_unlock(&srv.lock);

	/* a request through us as a proxy names the whole URL */
	if (!strcmp(url, "http://proxied.invalid/plain.mbox") || !strcmp(url, "/plain.mbox") ||
	    !strcmp(url, "/series/7/mbox/"))
		return bytes(c, 200, srv.mbox.p, srv.mbox.n, "text/plain");
	if (!strcmp(url, "/series.mbox.gz"))
		return bytes(c, 200, srv.gz.p, srv.gz.n, "application/gzip");
	if (!strcmp(url, "/encoded.mbox")) {
		struct MHD_Response *r = MHD_create_response_from_buffer(srv.gz.n, srv.gz.p,
									  MHD_RESPMEM_PERSISTENT);

		MHD_add_response_header(r, "Content-Encoding", "gzip");
		return reply(c, 200, r, "text/plain");
	}
	if (sscanf(url, "/redirect/%d", &n) == 1) {
		if (n > 0)
			snprintf(to, sizeof(to), "%s/redirect/%d", srv.base, n - 1);
		else
			snprintf(to, sizeof(to), "%s/plain.mbox", srv.base);
		return redirect(c, to);
	}
	if (!strcmp(url, "/to-file"))
		return redirect(c, "file:///etc/passwd");
	if (!strcmp(url, "/to-missing"))
		return redirect(c, "/missing");
	if (!strcmp(url, "/big"))
		return bytes(c, 200, srv.big, BIG, "text/plain");
	if (!strcmp(url, "/big-chunked"))
		return reply(c, 200, MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536,
								       chunked_reader, NULL, NULL),
			     "text/plain");
	if (!strcmp(url, "/bomb.mbox.gz"))
		return bytes(c, 200, srv.bomb.p, srv.bomb.n, "application/gzip");
	if (!strcmp(url, "/bad.mbox.gz"))
		return bytes(c, 200, "\x1f\x8b\x08\x00garbage, not deflate data", 30,
			     "application/gzip");
	if (!strcmp(url, "/cut.mbox.gz"))
		return bytes(c, 200, srv.gz.p, srv.gz.n / 2, "application/gzip");
	if (!strcmp(url, "/slow"))
		return reply(c, 200, MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16,
								       slow_reader, NULL, NULL),
			     "text/plain");
	if (!strcmp(url, "/all/" MSGID "/t.mbox.gz"))
		return bytes(c, 200, srv.thread_gz.p, srv.thread_gz.n, "application/gzip");
	if (!strcmp(url, "/api/series/7/"))
		return bytes(c, 200, srv.pw7, strlen(srv.pw7), "application/json");
	if (!strcmp(url, "/api/series/8/"))
		return bytes(c, 200, srv.pw8, strlen(srv.pw8), "application/json");
	if (!strcmp(url, "/api/series/11/"))
		return bytes(c, 200, srv.pw11, strlen(srv.pw11), "application/json");
	if (!strcmp(url, "/api/series/12/"))
		return bytes(c, 200, srv.pw12, strlen(srv.pw12), "application/json");
	if (!strcmp(url, "/cover/11/mbox/"))
		return bytes(c, 200, COVER_MBOX, strlen(COVER_MBOX), "text/plain");
	if (!strcmp(url, "/api/series/9/"))
		return bytes(c, 200, "<html>not json</html>", 21, "text/html");
	return bytes(c, 404, "not found\n", 10, "text/plain");
}

static struct MHD_Daemon *start(unsigned flags, int *port, ...)
{
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	const char *key, *cert;
	va_list ap;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	va_start(ap, port);
	key = va_arg(ap, const char *);
	cert = key ? va_arg(ap, const char *) : NULL;
	va_end(ap);
	if (key)
		d = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, on_request, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				     MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_HTTPS_MEM_CERT, cert,
				     MHD_OPTION_END);
	else
		d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	assert_non_null(d);
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	assert_non_null(info);
	*port = info->port;
	return d;
}

#define FLAGS (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION)

static int group_setup(void **state)
{
	char *bomb;
	size_t n;

	/* nothing here may go through a proxy the environment names */
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pthread_mutex_init(&srv.lock, NULL);
	srv.mbox.p = (unsigned char *)tu_slurp(FIX "bpf-next-v4.mbox", &srv.mbox.n);
	if (!srv.mbox.p)
		return -1;
	srv.gz = gzip_of(srv.mbox.p, srv.mbox.n);
	{
		char *t = tu_slurp(FIX "thread-replies.mbox", &n);

		if (!t)
			return -1;
		srv.thread_gz = gzip_of(t, n);
		free(t);
	}
	bomb = malloc(4u << 20);
	srv.big = malloc(BIG);
	if (!bomb || !srv.big)
		return -1;
	memset(bomb, 'A', 4u << 20);
	memset(srv.big, 'x', BIG);
	srv.bomb = gzip_of(bomb, 4u << 20);
	free(bomb);
	srv.d = start(FLAGS, &srv.port, NULL);
	snprintf(srv.base, sizeof(srv.base), "http://127.0.0.1:%d", srv.port);
	snprintf(srv.pw7, sizeof(srv.pw7), "{\"id\": 7, \"name\": \"bpf: spill\", "
		 "\"version\": 4, \"mbox\": \"%s/series/7/mbox/\"}", srv.base);
	snprintf(srv.pw8, sizeof(srv.pw8), "{\"id\": 8, \"name\": \"no mbox\"}");
	snprintf(srv.pw11, sizeof(srv.pw11), "{\"id\": 11, \"mbox\": \"%s/series/7/mbox/\", "
		 "\"cover_letter\": {\"id\": 3, \"mbox\": \"%s/cover/11/mbox/\"}}", srv.base, srv.base);
	snprintf(srv.pw12, sizeof(srv.pw12), "{\"id\": 12, \"mbox\": \"%s/series/7/mbox/\", "
		 "\"cover_letter\": {\"id\": 4, \"mbox\": \"%s/cover/12/mbox/\"}}", srv.base, srv.base);
	return 0;
}

static int group_teardown(void **state)
{
	MHD_stop_daemon(srv.d);
	free(srv.mbox.p);
	free(srv.gz.p);
	free(srv.thread_gz.p);
	free(srv.bomb.p);
	free(srv.big);
	curl_global_cleanup();
	return 0;
}

/* base + path, in a static buffer (one at a time) */
static const char *at(const char *path)
{
	static char url[512];

	snprintf(url, sizeof(url), "%s%s", srv.base, path);
	return url;
}

/* fetch_url() that must fail, with the message wanted ("%s" the URL) */
static void url_fails(const char *path, const struct fetch_opts *o, const char *want)
{
	struct buf b = BUF_INIT(0);
	char *err = NULL, expect[1024], url[512];

	snprintf(url, sizeof(url), "%s", at(path));
	snprintf(expect, sizeof(expect), want, url);
	assert_int_equal(fetch_url(url, o, &b, &err), -1);
	assert_non_null(err);
	if (strcmp(err, expect))
		fail_msg("'%s': got '%s', want '%s'", path, err, expect);
	assert_int_equal(b.len, 0);
	free(err);
	buf_release(&b);
}

static void test_plain(void **state)
{
	struct buf b = BUF_INIT(0);
	struct series *s = NULL;
	char *err = NULL;

	assert_int_equal(fetch_url(at("/plain.mbox"), NULL, &b, &err), 0);
	assert_null(err);
	assert_int_equal(b.len, srv.mbox.n);
	assert_memory_equal(b.data, srv.mbox.p, b.len);
	assert_int_equal(series_parse_mem(at("/plain.mbox"), b.data, b.len, &s, &err), 0);
	assert_int_equal(s->version, 4);
	assert_int_equal(s->count, 3);
	series_free(s);
	buf_release(&b);
}

static void test_gzip(void **state)
{
	struct buf b = BUF_INIT(0);
	char *err = NULL;

	/* a .mbox.gz file */
	assert_int_equal(fetch_url(at("/series.mbox.gz"), NULL, &b, &err), 0);
	assert_int_equal(b.len, srv.mbox.n);
	assert_memory_equal(b.data, srv.mbox.p, b.len);
	/* Content-Encoding: gzip, undone by libcurl */
	buf_reset(&b);
	assert_int_equal(fetch_url(at("/encoded.mbox"), NULL, &b, &err), 0);
	assert_int_equal(b.len, srv.mbox.n);
	assert_memory_equal(b.data, srv.mbox.p, b.len);
	buf_release(&b);

	url_fails("/bad.mbox.gz", NULL, "'%s': not a valid gzip file (invalid code lengths set)");
	url_fails("/cut.mbox.gz", NULL, "'%s': the gzip file is cut short");
}

static void test_redirects(void **state)
{
	struct buf b = BUF_INIT(0);
	char *err = NULL;

	/* four hops to the mbox: within the limit of five */
	assert_int_equal(fetch_url(at("/redirect/3"), NULL, &b, &err), 0);
	assert_int_equal(b.len, srv.mbox.n);
	buf_release(&b);
	url_fails("/redirect/5", NULL, "'%s': more than 5 redirects");
	/* only http(s), also after a redirect */
	url_fails("/to-file", NULL, "'%s': Protocol \"file\" not supported or disabled in libcurl");
	{
		char want[512];

		snprintf(want, sizeof(want), "'%%s': HTTP 404 (from '%s/missing')", srv.base);
		url_fails("/to-missing", NULL, want);
	}
}

static void test_too_big(void **state)
{
	struct fetch_opts o = { .max_bytes = 1u << 20 };
	struct buf b = BUF_INIT(0);
	char *err = NULL;

	url_fails("/big", &o, "'%s': larger than 1 MiB");
	url_fails("/big-chunked", &o, "'%s': larger than 1 MiB");
	url_fails("/bomb.mbox.gz", &o, "'%s': larger than 1 MiB once inflated");
	/* within the default cap */
	assert_int_equal(fetch_url(at("/big-chunked"), NULL, &b, &err), 0);
	assert_int_equal(b.len, BIG);
	buf_release(&b);
}

static void test_404_and_refused(void **state)
{
	struct buf b = BUF_INIT(0);
	char *err = NULL;

	url_fails("/missing", NULL, "'%s': HTTP 404");
	/* nothing listens on port 1 */
	assert_int_equal(fetch_url("http://127.0.0.1:1/x.mbox", NULL, &b, &err), -1);
	assert_non_null(strstr(err, "'http://127.0.0.1:1/x.mbox': Failed to connect"));
	free(err);
	assert_int_equal(fetch_url("file:///etc/passwd", NULL, &b, &err), -1);
	assert_string_equal(err, "'file:///etc/passwd': not an http(s) URL");
	free(err);
	assert_int_equal(fetch_url("ftp://127.0.0.1/x", NULL, &b, &err), -1);
	assert_string_equal(err, "'ftp://127.0.0.1/x': not an http(s) URL");
	free(err);
	buf_release(&b);
}

static void test_timeout(void **state)
{
	struct fetch_opts o = { .timeout_ms = 500 };
	struct buf b = BUF_INIT(0);
	int64_t t0 = mono_ms();
	char *err = NULL;

	assert_int_equal(fetch_url(at("/slow"), &o, &b, &err), -1);
	assert_true(mono_ms() - t0 < 3000);
	assert_non_null(err);
	assert_non_null(strstr(err, "/slow': timed out: Operation timed out after"));
	assert_int_equal(b.len, 0);
	free(err);
	buf_release(&b);
}

static void test_msgid(void **state)
{
	char base[128], *url = NULL, *err = NULL, want[256];
	struct fetch_opts o = { 0 };
	struct buf b = BUF_INIT(0);
	struct series *s = NULL;

	snprintf(base, sizeof(base), "%s/all/", srv.base);
	o.lore_base = base;
	assert_int_equal(fetch_msgid("<" MSGID ">", &o, &b, &url, &err), 0);
	snprintf(want, sizeof(want), "%s/all/" MSGID "/t.mbox.gz", srv.base);
	assert_string_equal(url, want);
	assert_int_equal(series_parse_mem(url, b.data, b.len, &s, &err), 0);
	assert_int_equal(s->messages, 7);
	assert_int_equal(s->count, 3);
	series_free(s);
	free(url);
	buf_reset(&b);

	/* id: prefix, the base from the environment */
	setenv("KFLEET_LORE_BASE", base, 1);
	assert_int_equal(fetch_msgid("id:" MSGID, NULL, &b, &url, &err), 0);
	assert_string_equal(url, want);
	free(url);
	unsetenv("KFLEET_LORE_BASE");

	/* what is not safe in a path is escaped; unknown ids are a 404 */
	assert_int_equal(fetch_msgid("<a/b%c d@x>", &o, &b, &url, &err), -1);
	snprintf(want, sizeof(want), "'%s/all/a%%2Fb%%25c%%20d@x/t.mbox.gz': HTTP 404", srv.base);
	assert_string_equal(err, want);
	assert_null(url);
	free(err);
	pthread_mutex_lock(&srv.lock);
	assert_string_equal(srv.last_url, "/all/a/b%c d@x/t.mbox.gz");
	pthread_mutex_unlock(&srv.lock);

	assert_int_equal(fetch_msgid("<>", &o, &b, &url, &err), -1);
	assert_string_equal(err, "message-id '<>': empty");
	free(err);
	o.lore_base = "file:///tmp";
	assert_int_equal(fetch_msgid(MSGID, &o, &b, &url, &err), -1);
	assert_string_equal(err, "lore base 'file:///tmp': not an http(s) URL");
	free(err);
	buf_release(&b);
}

static void test_patchwork(void **state)
{
	static const char *const refs[] = { "/7", "/7/", "/api/series/7/", "/api/1.3/series/7",
					    "/series/7/", "/project/netdevbpf/list/?series=7",
					    "/project/netdevbpf/list/?state=*&series=7&x=1" };
	char want[256], ref[256], *url = NULL, *err = NULL;
	struct buf b = BUF_INIT(0);

	snprintf(want, sizeof(want), "%s/series/7/mbox/", srv.base);
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		snprintf(ref, sizeof(ref), "%s%s", srv.base, refs[i]);
		buf_reset(&b);
		if (fetch_patchwork(ref, NULL, &b, &url, &err) < 0)
			fail_msg("'%s': %s", ref, err);
		assert_string_equal(url, want);
		assert_int_equal(b.len, srv.mbox.n);
		free(url);
	}

	snprintf(ref, sizeof(ref), "%s/8", srv.base);
	assert_int_equal(fetch_patchwork(ref, NULL, &b, &url, &err), -1);
	snprintf(want, sizeof(want), "'%s/api/series/8/': no \"mbox\" URL in the answer", srv.base);
	assert_string_equal(err, want);
	free(err);
	snprintf(ref, sizeof(ref), "%s/9", srv.base);
	assert_int_equal(fetch_patchwork(ref, NULL, &b, &url, &err), -1);
	snprintf(want, sizeof(want), "'%s/api/series/9/': not a patchwork series (", srv.base);
	assert_non_null(strstr(err, want));
	free(err);
	snprintf(ref, sizeof(ref), "%s/10", srv.base);
	assert_int_equal(fetch_patchwork(ref, NULL, &b, &url, &err), -1);
	snprintf(want, sizeof(want), "'%s/api/series/10/': HTTP 404", srv.base);
	assert_string_equal(err, want);
	free(err);
	snprintf(ref, sizeof(ref), "%s/series/abc", srv.base);
	assert_int_equal(fetch_patchwork(ref, NULL, &b, &url, &err), -1);
	assert_non_null(strstr(err, "not BASE/ID, BASE/api/series/ID/ or a URL with ?series=ID"));
	free(err);
	assert_int_equal(fetch_patchwork("12345", NULL, &b, &url, &err), -1);
	free(err);
	buf_release(&b);
}

/* patchwork's series mbox lacks the cover letter (and its base-commit):
 * the cover letter's own mbox comes first */
static void test_patchwork_cover(void **state)
{
	char want[256], ref[256], *url = NULL, *err = NULL;
	struct buf b = BUF_INIT(0);

	snprintf(ref, sizeof(ref), "%s/11", srv.base);
	if (fetch_patchwork(ref, NULL, &b, &url, &err) < 0)
		fail_msg("'%s': %s", ref, err);
	snprintf(want, sizeof(want), "%s/series/7/mbox/", srv.base);
	assert_string_equal(url, want);
	free(url);
	assert_int_equal(b.len, strlen(COVER_MBOX) + 1 + srv.mbox.n);
	assert_memory_equal(b.data, COVER_MBOX "\n", strlen(COVER_MBOX) + 1);
	assert_memory_equal(b.data + strlen(COVER_MBOX) + 1, srv.mbox.p, srv.mbox.n);
	buf_reset(&b);
	/* a cover letter whose mbox is not there is an error, not a series without it */
	snprintf(ref, sizeof(ref), "%s/12", srv.base);
	assert_int_equal(fetch_patchwork(ref, NULL, &b, &url, &err), -1);
	snprintf(want, sizeof(want), "'%s/cover/12/mbox/': HTTP 404", srv.base);
	assert_string_equal(err, want);
	free(err);
	buf_release(&b);
}

/* patchwork pages its lists with a Link: header (RFC 8288): a full last
 * page names no next one, and the page after it is a 404 */
static void test_link_next(void **state)
{
	static const struct { const char *link, *next; } cases[] = {
		{ "<http://pw/api/1.2/series/?page=2&project=fake>; rel=\"next\", "
		  "<http://pw/api/1.2/series/?page=5&project=fake>; rel=\"last\"",
		  "http://pw/api/1.2/series/?page=2&project=fake" },
		{ "<http://pw/s/?page=1>; rel=\"first\", <http://pw/s/?page=3>; rel=\"next\", "
		  "<http://pw/s/?page=5>; rel=\"last\"", "http://pw/s/?page=3" },
		{ "<http://pw/s/?page=1>; rel=\"first\", <http://pw/s/?page=1>; rel=\"last\"", NULL },
		{ "<http://pw/s/?page=2>; rel=next", "http://pw/s/?page=2" },
		{ "<http://pw/s/?page=2>; rel=\"nextish\"", NULL },
		{ "<http://pw/s/?page=2; rel=\"next\"", NULL },
		{ "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = fetch_link_next(cases[i].link);

		if (cases[i].next)
			assert_string_equal(n, cases[i].next);
		else if (n)
			fail_msg("'%s': next '%s', expected none", cases[i].link, n);
		free(n);
	}
	assert_null(fetch_link_next(NULL));
}

static void test_proxy_from_env(void **state)
{
	struct buf b = BUF_INIT(0);
	char *err = NULL;

	/* the server answers as a proxy would: the name need not resolve */
	setenv("http_proxy", srv.base, 1);
	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	assert_int_equal(fetch_url("http://proxied.invalid/plain.mbox", NULL, &b, &err), 0);
	assert_int_equal(b.len, srv.mbox.n);
	pthread_mutex_lock(&srv.lock);
	assert_string_equal(srv.last_url, "http://proxied.invalid/plain.mbox");
	pthread_mutex_unlock(&srv.lock);
	unsetenv("http_proxy");
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);
	buf_release(&b);
}

static void test_tls_verified(void **state)
{
	char dir[128], *key_path, *cert_path, *key, *cert, *err = NULL, url[128];
	struct buf b = BUF_INIT(0);
	struct MHD_Daemon *d;
	struct cmd *c;
	int port;

	if (!MHD_is_feature_supported(MHD_FEATURE_TLS))
		skip();
	tu_tmpdir(dir, sizeof(dir), "tls");
	key_path = tu_path(dir, "key.pem");
	cert_path = tu_path(dir, "cert.pem");
	c = cmd_new("openssl");
	cmd_args(c, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
		 "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
		 "subjectAltName=IP:127.0.0.1", "-keyout", key_path, "-out", cert_path, NULL);
	cmd_timeout(c, 30000);
	if (cmd_run(c, &err) < 0) {
		print_message("no certificate (%s): skipped\n", err);
		free(err);
		cmd_free(c);
		tu_rmrf(dir);
		skip();
	}
	cmd_free(c);
	key = tu_slurp(key_path, NULL);
	cert = tu_slurp(cert_path, NULL);
	d = start(FLAGS, &port, key, cert);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d/plain.mbox", port);
	/* a certificate nobody vouches for is refused */
	assert_int_equal(fetch_url(url, NULL, &b, &err), -1);
	assert_non_null(err);
	if (!strstr(err, "certificate"))
		fail_msg("'%s': want a certificate error", err);
	free(err);
	assert_int_equal(b.len, 0);
	MHD_stop_daemon(d);
	free(key);
	free(cert);
	free(key_path);
	free(cert_path);
	tu_rmrf(dir);
	buf_release(&b);
}

static int run_cli(char **argv, int argc, char **out, char **errout)
{
	return tu_run_captured(cli_series, argv, argc, out, errout);
}

static void test_cli(void **state)
{
	char url[256], lore[256], pw[256], missing[256], want[512], *out, *err;
	char *by_url[] = { "series", "show", "--url", url, NULL };
	char *by_msgid[] = { "series", "show", "--lore", lore, "--msgid", "<" MSGID ">", NULL };
	char *by_pw[] = { "series", "show", "--json", "--patchwork", pw, NULL };
	char *bad[] = { "series", "show", "--url", missing, NULL };

	snprintf(url, sizeof(url), "%s/series.mbox.gz", srv.base);
	snprintf(lore, sizeof(lore), "%s/all", srv.base);
	snprintf(pw, sizeof(pw), "%s/7", srv.base);
	snprintf(missing, sizeof(missing), "%s/missing", srv.base);

	assert_int_equal(run_cli(by_url, 4, &out, &err), 0);
	snprintf(want, sizeof(want), "from:        %s\n", url);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "\n3/3 selftests/bpf: test spilling PTR_TO_MEM registers ("));
	free(out);
	free(err);

	assert_int_equal(run_cli(by_msgid, 6, &out, &err), 0);
	assert_non_null(strstr(out, "left out:    3 of 7 mails"));
	free(out);
	free(err);

	assert_int_equal(run_cli(by_pw, 5, &out, &err), 0);
	snprintf(want, sizeof(want), "\"source\": \"%s/series/7/mbox/\"", srv.base);
	assert_non_null(strstr(out, want));
	free(out);
	free(err);

	assert_int_equal(run_cli(bad, 4, &out, &err), 2);
	snprintf(want, sizeof(want), "kfleet: series show: '%s': HTTP 404\n", missing);
	assert_string_equal(err, want);
	assert_string_equal(out, "");
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_redirects),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_404_and_refused),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_msgid),
		cmocka_unit_test(test_patchwork),
		cmocka_unit_test(test_patchwork_cover),
		cmocka_unit_test(test_link_next),
		cmocka_unit_test(test_proxy_from_env),
		cmocka_unit_test(test_tls_verified),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
