// SPDX-License-Identifier: GPL-2.0-only
/* client.c: the kfleet CLI's side of kfleetd's HTTP API: the daemon's
 * address (--url, $KFLEET_URL, the config's listen address), its token (the
 * state directory's token file), one call of the API over libcurl with a
 * bounded answer, and base64 for the files a request carries. */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/util.h"
#include "config/config.h"

#define RESP_MAX         (64u << 20)   /* a response body; 500 runs with long commands fit */
#define TOKEN_MAX        4096
#define CONNECT_TIMEOUT_MS 5000L
#define TOTAL_TIMEOUT_MS   60000L

int cli_resolve_url(struct cli *k)
{
	const char *env = getenv("KFLEET_URL");
	struct buf b = BUF_INIT(0);

	if (k->url_opt && *k->url_opt)
		buf_puts(&b, k->url_opt);
	else if (env && *env)
		buf_puts(&b, env);
	else if (k->config_path) {
		const char *a = k->cfg.listen_addr;
		int v6;

		/* a server listening on every address is reached on loopback */
		if (!strcmp(a, "0.0.0.0"))
			a = "127.0.0.1";
		else if (!strcmp(a, "::"))
			a = "::1";
		v6 = strchr(a, ':') != NULL;
		buf_printf(&b, "http://%s%s%s:%d", v6 ? "[" : "", a, v6 ? "]" : "",
			   k->cfg.listen_port);
	} else {
		buf_puts(&b, CLI_DEFAULT_URL);
	}
	while (b.len && b.data[b.len - 1] == '/')
		b.data[--b.len] = '\0';
	k->url = buf_detach(&b);
	return k->url ? 0 : -1;
}

char *cli_read_token(struct cli *k)
{
	const char *env = getenv("KFLEET_TOKEN_FILE");
	char *path = NULL, *tok = NULL;
	struct buf b = BUF_INIT(0);
	size_t n;

	if (k->token_file && *k->token_file)
		path = strdup(k->token_file);
	else if (env && *env)
		path = strdup(env);
	else
		path = config_token_path(&k->cfg);
	if (!path) {
		fprintf(stderr, "kfleet: out of memory\n");
		goto out;
	}
	if (read_file(path, &b, TOKEN_MAX) < 0) {
		fprintf(stderr, "kfleet: token file '%s': %s\n", path, strerror(errno));
		goto out;
	}
	n = b.len;
	while (n && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' ||
		     b.data[n - 1] == ' ' || b.data[n - 1] == '\t'))
		b.data[--n] = '\0';
	b.len = n;
	if (!n || b.truncated || strlen(b.data) != n) {
		fprintf(stderr, "kfleet: token file '%s': %s\n", path,
			n ? "not a token" : "empty");
		goto out;
	}
	tok = buf_detach(&b);
out:
	buf_release(&b);
	free(path);
	return tok;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *cls)
{
	struct buf *b = cls;

	if (buf_append(b, p, size * nmemb) < 0)
		return 0;   /* too big: curl stops with a write error */
	return size * nmemb;
}

int cli_api_call(struct cli *k, const char *method, const char *path, json_t *body,
		 const char *token, struct resp *r)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct buf resp = BUF_INIT(RESP_MAX);
	struct buf url = BUF_INIT(0);
	struct curl_slist *hdrs = NULL;
	char *payload = NULL, *auth = NULL;
	json_error_t jerr;
	CURL *h = NULL;
	CURLcode cc;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	buf_printf(&url, "%s%s", k->url, path);
	h = curl_easy_init();
	if (!h) {
		snprintf(r->err, sizeof(r->err), "cannot start libcurl");
		goto out;
	}
	curl_easy_setopt(h, CURLOPT_URL, buf_str(&url));
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, TOTAL_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kfleet");
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (token) {
		size_t n = strlen(token) + 32;

		auth = malloc(n);
		if (!auth) {
			snprintf(r->err, sizeof(r->err), "out of memory");
			goto out;
		}
		snprintf(auth, n, "Authorization: Bearer %s", token);
		hdrs = curl_slist_append(hdrs, auth);
	}
	if (body) {
		payload = json_dumps(body, JSON_COMPACT);
		if (!payload) {
			snprintf(r->err, sizeof(r->err), "out of memory");
			goto out;
		}
		hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
		hdrs = curl_slist_append(hdrs, "Expect:");
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(payload));
	}
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		if (cc == CURLE_WRITE_ERROR && resp.truncated)
			snprintf(r->err, sizeof(r->err), "'%s': response larger than %u bytes",
				 buf_str(&url), RESP_MAX);
		else
			snprintf(r->err, sizeof(r->err), "'%s': %s", buf_str(&url),
				 errbuf[0] ? errbuf : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	r->j = json_loadb(buf_str(&resp), resp.len, 0, &jerr);
	if (r->status < 200 || r->status > 299) {
		json_t *e = r->j ? json_object_get(r->j, "error") : NULL;

		if (json_is_string(e))
			snprintf(r->err, sizeof(r->err), "%ld: %s", r->status, json_string_value(e));
		else
			snprintf(r->err, sizeof(r->err), "%ld: '%s' answered without an error text",
				 r->status, buf_str(&url));
		json_decref(r->j);
		r->j = NULL;
		goto out;
	}
	if (!r->j) {
		snprintf(r->err, sizeof(r->err), "'%s': bad JSON in the answer: %d:%d: %s",
			 buf_str(&url), jerr.line, jerr.column, jerr.text);
		goto out;
	}
	rc = 0;
out:
	curl_slist_free_all(hdrs);
	if (h)
		curl_easy_cleanup(h);
	free(payload);
	free(auth);
	buf_release(&resp);
	buf_release(&url);
	return rc;
}

char *cli_base64(const char *p, size_t n)
{
	char *out;

	if (n > (size_t)INT32_MAX / 2)
		return NULL;
	out = malloc((n + 2) / 3 * 4 + 1);
	if (out)
		EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)p, (int)n);
	return out;
}
