// SPDX-License-Identifier: GPL-2.0-only
/* redact_test.c: unit tests for common/redact.c: a URL's password and a
 * token standing as its user are masked in every form a URL takes (IPv6
 * host, port, '@' in the password or the path, percent-encoding, inside
 * running text and quotes), secret-named parameters are masked, and what
 * holds no secret comes out as it went in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/redact.h"

struct pair {
	const char *in, *out;
};

/* each in gives its out, and out gives itself: nothing is left to mask */
static void check_pairs(const struct pair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *r = redact_secrets(p[i].in), *again;

		assert_non_null(r);
		if (strcmp(r, p[i].out))
			print_error("in:  '%s'\nout: '%s'\nnot: '%s'\n", p[i].in, r, p[i].out);
		assert_string_equal(r, p[i].out);
		again = redact_secrets(r);
		assert_string_equal(again, r);
		free(again);
		free(r);
	}
}

static void test_userinfo(void **state)
{
	static const struct pair p[] = {
		{ "smtps://kf:SECRET@mail.example:465", "smtps://kf:***@mail.example:465" },
		{ "smtp://kf:SECRET@127.0.0.1:25/", "smtp://kf:***@127.0.0.1:25/" },
		{ "https://kf:SECRET@pw.example/api/1.2/", "https://kf:***@pw.example/api/1.2/" },
		/* a user alone that reads as a login name is no secret */
		{ "qemu+ssh://root@host.example/system", "qemu+ssh://root@host.example/system" },
		{ "https://git.user-1@example.org/x", "https://git.user-1@example.org/x" },
		/* a user alone that does not is taken for a token */
		{ "https://ghp_0123456789abcdefghijklmnopqrstuvwxyz@github.example/x",
		  "https://***@github.example/x" },
		{ "https://tok%2Fen@h/", "https://***@h/" },
		/* an empty password hides nothing; an empty user is kept */
		{ "http://kf:@h/", "http://kf:@h/" },
		{ "http://:SECRET@h/", "http://:***@h/" },
		/* IPv6 hosts: their colons are not a password */
		{ "http://kf:SECRET@[::1]:8080/x", "http://kf:***@[::1]:8080/x" },
		{ "http://[::1]:8080/x", "http://[::1]:8080/x" },
		{ "qemu+ssh://root@[fe80::1%25eth0]:22/system", "qemu+ssh://root@[fe80::1%25eth0]:22/system" },
		/* an '@' in the password: the last one before the path ends it */
		{ "smtps://kf:p@ss@w0rd@mail.example/", "smtps://kf:***@mail.example/" },
		/* percent-encoded: %40 is no delimiter */
		{ "smtps://me%40example.org:p%40ss%3Aw@mail.example",
		  "smtps://me%40example.org:***@mail.example" },
		/* an '@' in the path or query is not userinfo */
		{ "https://lore.example/list/msg@id.example/t.mbox.gz",
		  "https://lore.example/list/msg@id.example/t.mbox.gz" },
		{ "https://h.example/?to=a@b.example", "https://h.example/?to=a@b.example" },
		{ "https://kf:SECRET@h.example/a@b", "https://kf:***@h.example/a@b" },
		/* a password with an unencoded '/' (not a valid URL, but an error
		 * may quote it): the ':' is not a port, so up to the '@' goes */
		{ "https://kf:sec/ret@h.example/x", "https://kf:***@h.example/x" },
		{ "https://h.example:8080/a@b", "https://h.example:8080/a@b" },
		/* ...and to the last '@' of the authority after it, as a second
		 * reading of the masked text would take it (the fuzzer's find) */
		{ "]z://:]/O@&@", "]z://:***@" },
		{ "https://kf:sec/ret@x@h.example/y", "https://kf:***@h.example/y" },
		/* no parameter in an authority: masking one there would move its end */
		{ "h://;password=??;s;@", "h://;password=??;s;@" },
		/* no userinfo */
		{ "https://patchwork.example/api/1.2", "https://patchwork.example/api/1.2" },
		{ "qemu:///system", "qemu:///system" },
		{ "http://127.0.0.1:1", "http://127.0.0.1:1" },
		{ "", "" },
	};

	(void)state;
	check_pairs(p, sizeof(p) / sizeof(p[0]));
}

static void test_params(void **state)
{
	static const struct pair p[] = {
		{ "qemu+ssh://root@h/system?keyfile=/root/.ssh/x&no_verify=1",
		  "qemu+ssh://root@h/system?keyfile=***&no_verify=1" },
		{ "qemu+ssh://root@[::1]:22/system?no_verify=1&keyfile=/root/.ssh/kfleet-ci",
		  "qemu+ssh://root@[::1]:22/system?no_verify=1&keyfile=***" },
		{ "https://h/x?access_token=abc;page=2#frag", "https://h/x?access_token=***;page=2#frag" },
		{ "https://h/x?Password=abc&API_KEY=def&Token=ghi",
		  "https://h/x?Password=***&API_KEY=***&Token=***" },
		{ "https://h/x?client_secret=s&sig=1&signature=zz", "https://h/x?client_secret=***&sig=1&signature=***" },
		/* in running text too, after a blank or at the start */
		{ "password=hunter2 and pwd=x", "password=*** and pwd=***" },
		/* a name that only contains a secret word is not one */
		{ "https://h/x?tokens_left=5&keyboard=us", "https://h/x?tokens_left=5&keyboard=us" },
		/* an empty value stays empty */
		{ "https://h/x?token=&a=1", "https://h/x?token=&a=1" },
		/* not a parameter: inside a word or a path */
		{ "my-monkey=1 /a/token=b", "my-monkey=*** /a/token=b" },
		/* both in one URL */
		{ "https://kf:SECRET@h/x?token=T", "https://kf:***@h/x?token=***" },
	};

	(void)state;
	check_pairs(p, sizeof(p) / sizeof(p[0]));
}

static void test_running_text(void **state)
{
	static const struct pair p[] = {
		/* the errors kfleet writes: the URL quoted, then what went wrong */
		{ "'smtps://kf:SECRET@127.0.0.1:1': Failed to connect to 127.0.0.1 port 1",
		  "'smtps://kf:***@127.0.0.1:1': Failed to connect to 127.0.0.1 port 1" },
		{ "poll failed (1 in a row; next in 4 s): 'http://kf:PW@127.0.0.1:9/api/1.2/series/"
		  "?project=fake&order=id': HTTP 404",
		  "poll failed (1 in a row; next in 4 s): 'http://kf:***@127.0.0.1:9/api/1.2/series/"
		  "?project=fake&order=id': HTTP 404" },
		{ "<a href=\"https://u:p@h/\">x</a>", "<a href=\"https://u:***@h/\">x</a>" },
		{ "two: http://a:b@h1/ and https://c:d@h2/", "two: http://a:***@h1/ and https://c:***@h2/" },
		/* mail addresses are no URLs */
		{ "from 'kfleet <kfleet@kfleet.invalid>': no address",
		  "from 'kfleet <kfleet@kfleet.invalid>': no address" },
		/* "://" without a scheme before it */
		{ "://kf:x@h and 9://kf:x@h", "://kf:x@h and 9://kf:x@h" },
		{ "a:b@c", "a:b@c" },
	};

	(void)state;
	check_pairs(p, sizeof(p) / sizeof(p[0]));
}

static void test_in_place_and_buf(void **state)
{
	char s[64] = "'smtps://kf:VERYLONGSECRET@m.example': refused";
	char tiny[32] = "https://kf:SECRETSECRET@h/";
	struct buf b = BUF_INIT(0), capped = BUF_INIT(8);

	(void)state;
	redact_secrets_in(s, sizeof(s));
	assert_string_equal(s, "'smtps://kf:***@m.example': refused");
	/* cut to fit, never the secret */
	redact_secrets_in(tiny, 16);
	assert_string_equal(tiny, "https://kf:***@");
	assert_null(redact_secrets(NULL));
	redact_secrets_in(NULL, 10);

	assert_int_equal(redact_append(&b, "x "), 0);
	assert_int_equal(redact_append(&b, "http://u:p@h"), 0);
	assert_int_equal(redact_append(&b, NULL), 0);
	assert_string_equal(buf_str(&b), "x http://u:***@h");
	buf_release(&b);
	/* the cap says so */
	assert_int_equal(redact_append(&capped, "http://u:p@host.example"), -1);
	assert_null(strstr(buf_str(&capped), "p@"));
	buf_release(&capped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_userinfo),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_running_text),
		cmocka_unit_test(test_in_place_and_buf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
