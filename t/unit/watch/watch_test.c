// SPDX-License-Identifier: GPL-2.0-only
/* watch_test.c: unit tests for the pure parts of a watch: patchwork's
 * series list read from its REST shape (t/data/patchwork/series-page.json,
 * as patchwork 1.2 gives it) and from the malformed answers a server may
 * give, the query URL and a check's body (watch/pw.c); each
 * spec key's checks and the whole spec, and the rules that take or skip
 * a series by its subject tags and name (watch/spec.c); a
 * lore list's Atom feed (t/data/patchwork/lore-new.atom, public-inbox's
 * shape) and which of its messages start a series (watch/lore.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "config/config.h"
#include "watch/watch.h"
#include "watch/lore.h"
#include "watch/pw.h"
#include "t/unit/testutil.h"

static void page(void **state)
{
	char *path = tu_path("t/data/patchwork", "series-page.json"), err[256] = "";
	size_t len = 0, n = 0;
	char *text = tu_slurp(path, &len);
	struct pw_series *s = NULL;

	(void)state;
	assert_non_null(text);
	assert_int_equal(pw_series_parse(text, len, &s, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].id, 812345);
	assert_int_equal(s[0].version, 2);
	assert_true(s[0].received_all);
	assert_string_equal(s[0].msgid, "20261130100102.1-alice@example.org");
	assert_string_equal(s[0].subject, "[bpf-next,v2,0/2] bpf: Fix a verifier corner case");
	assert_string_equal(s[0].submitter, "Alice Kernel <alice@example.org>");
	assert_string_equal(s[0].mbox, "https://patchwork.example.org/series/812345/mbox/");
	assert_string_equal(s[0].date, "2026-11-30T10:01:02");
	assert_int_equal(s[0].npatches, 2);
	assert_int_equal(s[0].patches[1], 13002);
	/* no cover letter: patch 1 names it; not all received */
	assert_string_equal(s[1].msgid, "x@example.org");
	assert_string_equal(s[1].subject, "[net] net: fix a leak");
	assert_false(s[1].received_all);
	pw_series_free(s, n);
	free(text);
	free(path);
}

static void expect_bad(const char *body, const char *msg)
{
	struct pw_series *s = NULL;
	size_t n = 7;
	char err[256] = "";

	if (pw_series_parse(body, strlen(body), &s, &n, err, sizeof(err)) == 0)
		fail_msg("'%s' was taken", body);
	assert_null(s);
	assert_int_equal(n, 0);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

static void malformed(void **state)
{
	(void)state;
	expect_bad("<html>502 Bad Gateway</html>", "not JSON");
	expect_bad("[{\"id\": 1, \"patches\": [", "not JSON");
	expect_bad("", "not JSON");
	expect_bad("{\"detail\": \"Not found.\"}", "not a list of series (a JSON object)");
	expect_bad("[3]", "series 1: not an object");
	expect_bad("[{\"patches\": []}]", "series 1: no 'id'");
	expect_bad("[{\"id\": -4, \"patches\": []}]", "series 1: no 'id'");
	expect_bad("[{\"id\": 5}]", "series 5: no 'patches' list");
	expect_bad("[{\"id\": 5, \"patches\": [], \"date\": \"2026-01-01\"}]", "series 5: no 'mbox'");
	expect_bad("[{\"id\": 5, \"patches\": [{\"name\": \"x\"}], \"date\": \"d\", \"mbox\": \"m\"}]",
		   "series 5: patch 1 has no 'id'");
	expect_bad("[{\"id\": 5, \"patches\": [{\"id\": 2}], \"date\": \"d\", \"mbox\": \"m\"}]",
		   "series 5: no message-id");
}

/* real patchwork lists a series while its first mail is being parsed:
 * no cover letter, no patch yet, received_all false. Not complete, not
 * an error of the whole page */
static void series_being_parsed(void **state)
{
	const char *j = "[{\"id\": 44, \"patches\": [], \"cover_letter\": null, \"date\": \"d\", "
			"\"mbox\": \"m\", \"received_all\": false, \"received_total\": 0, \"total\": 1}]";
	struct pw_series *s = NULL;
	char err[256] = "";
	size_t n = 0;

	(void)state;
	if (pw_series_parse(j, strlen(j), &s, &n, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].id, 44);
	assert_false(s[0].received_all);
	assert_int_equal(s[0].npatches, 0);
	pw_series_free(s, n);
	/* complete, and still no mail: patchwork's shape is broken */
	expect_bad("[{\"id\": 5, \"patches\": [], \"date\": \"d\", \"mbox\": \"m\", \"received_all\": true}]",
		   "series 5: no message-id");
}

static void url_and_body(void **state)
{
	char *u = pw_series_url("https://pw.example.org", "net dev&x", "2026-11-30T10:00:00", 3);
	char *b = pw_check_body("fail", "http://k/submissions/4", "build failed: \"x\"", "kfleet");
	json_t *j = json_loads(b, 0, NULL);

	(void)state;
	assert_string_equal(u, "https://pw.example.org/api/1.2/series/?project=net%20dev%26x"
			    "&since=2026-11-30T10%3A00%3A00&order=id&per_page=50&page=3");
	assert_string_equal(json_string_value(json_object_get(j, "state")), "fail");
	assert_string_equal(json_string_value(json_object_get(j, "description")),
			    "build failed: \"x\"");
	assert_string_equal(json_string_value(json_object_get(j, "context")), "kfleet");
	assert_string_equal(json_string_value(json_object_get(j, "target_url")),
			    "http://k/submissions/4");
	json_decref(j);
	free(b);
	free(u);
}

static void key_bad(const char *k, const char *v, const char *msg)
{
	char err[512] = "";

	if (watch_key_check(k, v, err, sizeof(err)) == 0)
		fail_msg("%s = %s was taken", k, v);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

static void keys(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(watch_key_check("patchwork", "https://patchwork.kernel.org", err,
					 sizeof(err)), 0);
	assert_int_equal(watch_key_check("tags", "bpf-next=bpf-next:master, bpf=bpf", err,
					 sizeof(err)), 0);
	assert_int_equal(watch_key_check("since", "2026-11-30T10:00:00", err, sizeof(err)), 0);
	key_bad("colour", "blue", "unknown key 'colour'");
	key_bad("patchwork", "ftp://x", "is not an http(s) URL");
	key_bad("project", "a/b", "is not a project's linkname or id");
	key_bad("tags", "bpf-next", "'bpf-next' is not TAG=TREE[:BRANCH]");
	key_bad("tags", "x=", "is not TAG=TREE[:BRANCH]");
	key_bad("tags", "x=-tree", "the tree or branch is not a name");
	key_bad("tree", "a b", "is not TREE[:BRANCH]");
	key_bad("subject", "([a", "subject: '([a'");
	key_bad("repeat", "0", "not a number from 1 to 100");
	assert_int_equal(watch_key_check("max_running", "0", err, sizeof(err)), 0);
	key_bad("max_running", "-1", "max_running: '-1' is not a number from 0 (no cap) to 1024");
	key_bad("max_running", "many", "max_running: 'many' is not a number");
	key_bad("interval", "5s", "not a number of seconds");
	key_bad("checks", "maybe", "is not yes or no");
	key_bad("report_dir", "mail", "is not an absolute path");
	key_bad("since", "yesterday", "is not a date");
	key_bad("smtp", "http://x", "is not an smtp://");
	key_bad("context", "a\nb", "must be one line");
}

static int spec_of(const char *json, struct watch_spec *s, char *err, size_t n)
{
	json_t *j = json_loads(json, 0, NULL);
	int rc = watch_spec_parse("w", j, s, err, n);

	json_decref(j);
	return rc;
}

static void spec_bad(const char *json, const char *msg)
{
	struct watch_spec s;
	char err[512] = "";

	if (spec_of(json, &s, err, sizeof(err)) == 0)
		fail_msg("%s was taken", json);
	watch_spec_release(&s);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

static void specs(void **state)
{
	struct watch_spec s;
	char err[512];

	(void)state;
	assert_int_equal(spec_of("{\"patchwork\": \"http://pw/\", \"project\": \"p\", \"tags\": "
				 "\"bpf-next=bpfn:master,bpf=bpf\", \"token_file\": \"/t\", \"repeat\": \"3\","
				 " \"max_running\": \"2\"}",
				 &s, err, sizeof(err)), 0);
	assert_string_equal(s.patchwork, "http://pw");
	assert_int_equal(s.ntags, 2);
	assert_string_equal(s.tags[0].branch, "master");
	assert_null(s.tags[1].branch);
	assert_true(s.checks);      /* a token: checks on */
	assert_false(s.send);       /* never by default */
	assert_int_equal(s.repeat, 3);
	assert_int_equal(s.max_running, 2);
	assert_int_equal(s.interval_s, 300);
	assert_string_equal(s.context, "kfleet");
	watch_spec_release(&s);
	spec_bad("{\"project\": \"p\", \"tree\": \"t\"}", "needs patchwork");
	spec_bad("{\"lore\": \"http://l/bpf\", \"patchwork\": \"http://pw\", \"project\": \"p\", "
		 "\"tree\": \"t\"}", "patchwork or lore, not both");
	spec_bad("{\"lore\": \"http://l/bpf\", \"tree\": \"t\", \"token\": \"x\"}",
		 "only a patchwork watch posts checks");
	spec_bad("{\"patchwork\": \"http://pw\", \"project\": \"p\"}", "needs tags");
	spec_bad("{\"patchwork\": \"http://pw\", \"project\": \"p\", \"tree\": \"t\", \"checks\": "
		 "\"yes\"}", "checks: yes needs token");
	spec_bad("{\"patchwork\": \"http://pw\", \"project\": \"p\", \"tree\": \"t\", \"send\": "
		 "\"yes\"}", "send: yes needs smtp and from");
	spec_bad("{\"patchwork\": \"http://pw\", \"project\": \"p\", \"tree\": \"t\", \"repeat\": 3}",
		 "repeat: expected a string");
	assert_false(watch_name_ok("-x"));
	assert_false(watch_name_ok("a/b"));
	assert_true(watch_name_ok("bpf-next.ci_1"));
}

/* patchwork's events: the series-completed ones' series ids, in order;
 * one series as GET /series/ID/ gives it; the URL asks for the project's
 * series-completed events since a date, oldest first */
static void events(void **state)
{
	static const char ev[] =
		"[{\"id\": 7, \"category\": \"series-created\", \"date\": \"2026-12-06T09:00:00\","
		"  \"payload\": {\"series\": {\"id\": 41}}},"
		" {\"id\": 8, \"category\": \"series-completed\", \"date\": \"2026-12-06T09:00:01\","
		"  \"payload\": {\"series\": {\"id\": 41, \"name\": \"x\"}}},"
		" {\"id\": 9, \"category\": \"series-completed\", \"date\": \"2026-12-06T09:00:02\","
		"  \"payload\": {\"series\": {\"id\": 40}}}]";
	char err[256] = "", *url;
	int64_t *ids = NULL;
	size_t n = 0, len = 0;
	char *path = tu_path("t/data/patchwork", "series-page.json");
	char *text = tu_slurp(path, &len);
	struct pw_series *one = NULL;

	(void)state;
	assert_int_equal(pw_events_parse(ev, strlen(ev), &ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 41);
	assert_int_equal(ids[1], 40);
	free(ids);
	{
		static const char bad[] = "[{\"category\": \"series-completed\"}]";

		assert_int_equal(pw_events_parse(bad, strlen(bad), &ids, &n, err, sizeof(err)), -1);
	}
	assert_string_equal(err, "event 1: no category or payload.series.id");
	assert_int_equal(pw_events_parse("{}", 2, &ids, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "not a list of events");
	url = pw_events_url("https://pw.example", "net dev", "2026-12-06T09:00:00", 2);
	assert_string_equal(url, "https://pw.example/api/1.2/events/?project=net%20dev&category="
			    "series-completed&since=2026-12-06T09%3A00%3A00&order=date&per_page=50&page=2");
	free(url);
	/* the first series of a page, alone, is one series */
	assert_non_null(text);
	{
		json_t *j = json_loads(text, 0, NULL);
		char *first = json_dumps(json_array_get(j, 0), 0);

		assert_int_equal(pw_series_parse_one(first, strlen(first), &one, err, sizeof(err)), 0);
		assert_int_equal(one->id, 812345);
		pw_series_free(one, 1);
		free(first);
		json_decref(j);
	}
	assert_int_equal(pw_series_parse_one("[]", 2, &one, err, sizeof(err)), -1);
	assert_string_equal(err, "not a series (a JSON list)");
	free(text);
	free(path);
}

/* The versions of one series have one title, whatever their tags */
static void titles(void **state)
{
	(void)state;
	assert_string_equal(watch_series_title("[fake-next] notes: a note"), "notes: a note");
	assert_string_equal(watch_series_title("[fake-next,v2] notes: a note"), "notes: a note");
	assert_string_equal(watch_series_title(" [PATCH bpf-next v4 0/3] [RFC]  bpf: x"), "bpf: x");
	assert_string_equal(watch_series_title("bpf: no tags [at the end]"), "bpf: no tags [at the end]");
	assert_string_equal(watch_series_title("[unclosed bpf: x"), "[unclosed bpf: x");
	assert_string_equal(watch_series_title(NULL), "");
	assert_string_equal(watch_series_title("[PATCH]"), "");
}

static void rules(void **state)
{
	struct watch_spec s;
	const char *tree, *branch;
	char err[512], why[512];

	(void)state;
	assert_int_equal(spec_of("{\"patchwork\": \"http://pw\", \"project\": \"p\", \"tags\": "
				 "\"bpf-next=bpfn:master,bpf=bpf\", \"subject\": \"^bpf|selftests\"}",
				 &s, err, sizeof(err)), 0);
	assert_int_equal(watch_rules_match(&s, "bpf: x", "[PATCH bpf-next v2 0/3] bpf: x", &tree,
					   &branch, why, sizeof(why)), 1);
	assert_string_equal(tree, "bpfn");
	assert_string_equal(branch, "master");
	assert_string_equal(why, "tag 'bpf-next': tree 'bpfn' branch master");
	/* patchwork's names, and a tag in any case */
	assert_int_equal(watch_rules_match(&s, "bpf: x", "[BPF,v3,1/2] bpf: x", &tree, &branch, why,
					   sizeof(why)), 1);
	assert_string_equal(tree, "bpf");
	/* "bpf" is not "bpf-next"'s prefix match, nor a tag in the title */
	assert_int_equal(watch_rules_match(&s, "bpf: bpf-next things", "[PATCH net] bpf: bpf-next",
					   &tree, &branch, why, sizeof(why)), 0);
	assert_string_equal(why, "the subject matches no rule (no tag of: bpf-next, bpf)");
	assert_int_equal(watch_rules_match(&s, "net: y", "[PATCH bpf] net: y", &tree, &branch, why,
					   sizeof(why)), 0);
	assert_string_equal(why, "the subject does not match '^bpf|selftests'");
	watch_spec_release(&s);
	assert_int_equal(spec_of("{\"patchwork\": \"http://pw\", \"project\": \"p\", \"tree\": "
				 "\"linux:next\"}", &s, err, sizeof(err)), 0);
	assert_int_equal(watch_rules_match(&s, "x", "[PATCH] x", &tree, &branch, why, sizeof(why)), 1);
	assert_string_equal(tree, "linux");
	assert_string_equal(branch, "next");
	watch_spec_release(&s);
}

static void lore_feed(void **state)
{
	char *path = tu_path("t/data/patchwork", "lore-new.atom"), err[256] = "";
	size_t len = 0, n = 0;
	char *text = tu_slurp(path, &len);
	struct lore_entry *e = NULL;

	(void)state;
	assert_non_null(text);
	assert_int_equal(lore_feed_parse(text, len, &e, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	/* a review reply and a patch of a series with a cover letter are not series */
	assert_true(e[0].is_reply);
	assert_false(e[0].starts_series);
	assert_false(e[1].starts_series);
	/* the cover letter is: its id %-decoded, its title on one line */
	assert_true(e[2].starts_series);
	assert_int_equal(e[2].version, 2);
	assert_string_equal(e[2].msgid, "20261130100102.1-alice@example.org");
	assert_string_equal(e[2].subject, "[PATCH bpf-next v2 0/2] bpf: Fix a  verifier corner case");
	assert_string_equal(e[2].author, "Alice Kernel <alice@example.org>");
	assert_string_equal(e[2].updated, "2026-11-30T10:01:02Z");
	assert_true(e[3].starts_series);
	assert_int_equal(e[3].version, 1);
	lore_entries_free(e, n);
	free(text);
	free(path);
}

static void lore_bad(void **state)
{
	static const char *const bad[][2] = {
		{ "<html><body>502</body>", "not XML" },
		{ "", "not XML" },
		{ "<?xml version=\"1.0\"?><rss></rss>", "not an Atom feed (the root is <rss>)" },
		{ "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>[PATCH] x</title>"
		  "<updated>2026-01-01T00:00:00Z</updated></entry></feed>", "entry 1: no link" },
		{ "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>x</title></entry>",
		  "not XML" },
		/* an entity is not expanded (nor fetched) */
		{ "<!DOCTYPE feed [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><feed><entry>"
		  "<title>&x;</title><updated>u</updated><link href=\"h/m/\"/></entry></feed>", "" },
	};
	int first;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lore_entry *e = NULL;
		size_t n = 9;
		char err[256] = "";
		int rc = lore_feed_parse(bad[i][0], strlen(bad[i][0]), &e, &n, err, sizeof(err));

		if (!*bad[i][1]) {
			/* taken, the entity left unexpanded */
			assert_int_equal(rc, 0);
			assert_int_equal(n, 1);
			assert_null(strstr(e[0].subject, "root:"));
			lore_entries_free(e, n);
			continue;
		}
		if (rc == 0)
			fail_msg("'%s' was taken", bad[i][0]);
		assert_null(e);
		assert_int_equal(n, 0);
		if (!strstr(err, bad[i][1]))
			fail_msg("error '%s' lacks '%s'", err, bad[i][1]);
	}
	assert_true(lore_series_start("[PATCH] x", 0, &first));
	assert_true(lore_series_start("[PATCH v3 1/4] x", 0, &first));
	assert_int_equal(first, 3);
	assert_false(lore_series_start("[PATCH v3 1/4] x", 1, &first));
	assert_true(lore_series_start("[PATCH v3 0/4] x", 1, &first));
	assert_false(lore_series_start("[PATCH 2/4] x", 0, &first));
	assert_false(lore_series_start("Re: [PATCH 0/4] x", 0, &first));
	assert_false(lore_series_start("[GIT PULL] x", 0, &first));
	/* "v0" is no version: the series is taken as v1 (found by lore_fuzz) */
	assert_true(lore_series_start("[PATCH v0 0/2] x", 0, &first));
	assert_int_equal(first, 1);
	assert_false(lore_series_start("a question", 0, &first));
}

/* [watch NAME] sections through config_load(): errors name file:line */
static void config_sections(void **state)
{
	char dir[256], *path;
	struct config c;
	struct buf err = BUF_INIT(64 * 1024);

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "watchconf");
	path = tu_path(dir, "k.ini");
	tu_write_str(path, "[host local]\nuri = qemu:///system\n\n[watch pw]\n"
		     "patchwork = http://pw.example.org\nproject = p\ntree = linux\n"
		     "token = s3cret\n");
	assert_int_equal(config_defaults(&c), 0);
	assert_int_equal(config_load(&c, path, &err), 0);
	assert_int_equal(c.nwatches, 1);
	assert_string_equal(c.watches[0].name, "pw");
	assert_int_equal(c.watches[0].n, 4);
	config_release(&c);
	tu_write_str(path, "[host local]\nuri = qemu:///system\n[watch pw]\n"
		     "patchwork = http://pw\ninterval = soon\nproject = p\nproject = q\n"
		     "[watch bad/name]\nx = y\n[watch nop]\ntree = t\n");
	assert_int_equal(config_defaults(&c), 0);
	assert_int_equal(config_load(&c, path, &err), -1);
	if (!strstr(buf_str(&err), "k.ini:5: [watch pw]: interval: 'soon' is not a number"))
		fail_msg("%s", buf_str(&err));
	if (!strstr(buf_str(&err), "k.ini:7: [watch pw]: 'project' given twice"))
		fail_msg("%s", buf_str(&err));
	if (!strstr(buf_str(&err), "k.ini:8: [watch bad/name]: watch name must be"))
		fail_msg("%s", buf_str(&err));
	config_release(&c);
	/* each key fine, the section not: named by the file */
	buf_reset(&err);
	tu_write_str(path, "[host local]\nuri = qemu:///system\n[watch nop]\ntree = t\n");
	assert_int_equal(config_defaults(&c), 0);
	assert_int_equal(config_load(&c, path, &err), -1);
	if (!strstr(buf_str(&err), "k.ini: [watch nop]: watch 'nop': needs patchwork"))
		fail_msg("%s", buf_str(&err));
	config_release(&c);
	buf_release(&err);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page),
		cmocka_unit_test(malformed),
		cmocka_unit_test(series_being_parsed),
		cmocka_unit_test(url_and_body),
		cmocka_unit_test(keys),
		cmocka_unit_test(specs),
		cmocka_unit_test(rules),
		cmocka_unit_test(titles),
		cmocka_unit_test(events),
		cmocka_unit_test(lore_feed),
		cmocka_unit_test(lore_bad),
		cmocka_unit_test(config_sections),
	};

	watch_config_register();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
