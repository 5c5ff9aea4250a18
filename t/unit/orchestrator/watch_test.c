/* watch_test.c: unit tests for the pure parts of a watch: patchwork's
 * series list read from its REST shape (t/data/patchwork/series-page.json,
 * as patchwork 1.2 gives it) and from the malformed answers a server may
 * give, the query URL and a check's body (orchestrator/watch_pw.c); each
 * spec key's checks and the whole spec, and the rules that take or skip
 * a series by its subject tags and name (orchestrator/watch_spec.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "orchestrator/watch.h"
#include "orchestrator/watch_pw.h"
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
				 "\"bpf-next=bpfn:master,bpf=bpf\", \"token_file\": \"/t\", \"repeat\": \"3\"}",
				 &s, err, sizeof(err)), 0);
	assert_string_equal(s.patchwork, "http://pw");
	assert_int_equal(s.ntags, 2);
	assert_string_equal(s.tags[0].branch, "master");
	assert_null(s.tags[1].branch);
	assert_true(s.checks);      /* a token: checks on */
	assert_false(s.send);       /* never by default */
	assert_int_equal(s.repeat, 3);
	assert_int_equal(s.interval_s, 300);
	assert_string_equal(s.context, "kfleet");
	watch_spec_release(&s);
	spec_bad("{\"project\": \"p\", \"tree\": \"t\"}", "needs patchwork");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page),
		cmocka_unit_test(malformed),
		cmocka_unit_test(url_and_body),
		cmocka_unit_test(keys),
		cmocka_unit_test(specs),
		cmocka_unit_test(rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
