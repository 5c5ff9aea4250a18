// SPDX-License-Identifier: GPL-2.0-only
/* watch/mail.c: sends a watch's reply mail (written to report_dir by
 * watch/report.c) over SMTP with libcurl, only when the watch says
 * send = yes: the envelope sender is the address of "from", the
 * recipients the series' author and the addresses of "to". The file is
 * sent as it is, its LF line ends made CRLF by libcurl. */
#include "watch/mail.h"

#include <curl/curl.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/redact.h"
#include "common/util.h"

#define MAIL_MAX (1u << 20)

/* The address of "Name <a@b>" or "a@b" as "<a@b>"; NULL when there is none */
static char *addr_of(const char *s)
{
	const char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char *a, *out = NULL;
	size_t n;

	if (lt && gt)
		a = strndup(lt + 1, (size_t)(gt - lt - 1));
	else {
		while (isspace((unsigned char)*s))
			s++;
		n = strlen(s);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		a = strndup(s, n);
	}
	if (a && strchr(a, '@') && !strpbrk(a, " \t\r\n<>,") && asprintf(&out, "<%s>", a) < 0)
		out = NULL;
	free(a);
	return out;
}

struct src {
	const char *p;
	size_t left;
};

static size_t reader(char *buf, size_t size, size_t nmemb, void *ud)
{
	struct src *s = ud;
	size_t n = size * nmemb < s->left ? size * nmemb : s->left;

	memcpy(buf, s->p, n);
	s->p += n;
	s->left -= n;
	return n;
}

/* The server's last reply line: what it said when it refused */
static int on_debug(CURL *c, curl_infotype type, char *data, size_t size, void *ud)
{
	char *last = ud;
	size_t n = size < 255 ? size : 255;

	(void)c;
	if (type != CURLINFO_HEADER_IN)
		return 0;
	memcpy(last, data, n);
	last[n] = '\0';
	last[strcspn(last, "\r\n")] = '\0';
	return 0;
}

int watch_mail_send(const char *url, const char *from, const char *author, const char *to,
		    const char *path, long timeout_s, char *err, size_t errn)
{
	struct buf mail = BUF_INIT(MAIL_MAX);
	struct curl_slist *rcpt = NULL;
	char cerr[CURL_ERROR_SIZE] = "", said[256] = "", *sender = from ? addr_of(from) : NULL, *list = NULL;
	struct src src;
	CURL *c = NULL;
	CURLcode rc;
	int ret = -1, nr = 0;

	if (!sender) {
		snprintf(err, errn, "from '%s': no address in it", from ? from : "");
		goto out;
	}
	if (read_file(path, &mail, MAIL_MAX) < 0) {
		snprintf(err, errn, "'%s': cannot be read", path);
		goto out;
	}
	if (asprintf(&list, "%s,%s", author ? author : "", to ? to : "") < 0) {
		list = NULL;
		snprintf(err, errn, "out of memory");
		goto out;
	}
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *a = addr_of(t);

		if (a) {
			rcpt = curl_slist_append(rcpt, a);
			nr++;
		}
		free(a);
	}
	if (!nr) {
		snprintf(err, errn, "no recipient: neither the author nor 'to' has an address");
		goto out;
	}
	src.p = mail.data;
	src.left = mail.len;
	c = curl_easy_init();
	if (!c || curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps") != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_MAIL_FROM, sender) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_CRLF, 1L) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_READFUNCTION, reader) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_READDATA, &src) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, timeout_s) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s * 2) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_USE_SSL, (long)(strncmp(url, "smtps://", 8) ?
							 CURLUSESSL_TRY : CURLUSESSL_ALL)) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, on_debug) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_DEBUGDATA, said) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_VERBOSE, 1L) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr) != CURLE_OK) {
		snprintf(err, errn, "'%s': libcurl lacks an option kfleet needs", url);
		goto out;
	}
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		long code = 0;

		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (said[0])
			snprintf(err, errn, "'%s': the server said '%s'", url, said);
		else if (code)
			snprintf(err, errn, "'%s': the server said %ld: %s", url, code,
				 cerr[0] ? cerr : curl_easy_strerror(rc));
		else
			snprintf(err, errn, "'%s': %s", url, cerr[0] ? cerr : curl_easy_strerror(rc));
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		redact_secrets_in(err, errn);   /* the URL's password: err is shown */
	curl_easy_cleanup(c);
	curl_slist_free_all(rcpt);
	buf_release(&mail);
	free(sender);
	free(list);
	return ret;
}
