// SPDX-License-Identifier: GPL-2.0-only
/* diff_test.c: unit tests for config/diff.c, a configuration as its keys
 * and the keys two differ in (kfleetd's reload): the same settings written
 * differently are no change, a changed key is one change with both values,
 * a [host NAME] added or removed is its keys, each once, a key printed
 * empty has the value "", and setting a key changes only that key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "config/config.h"
#include "t/unit/testutil.h"
#include "watch/watch.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	watch_config_register();
	tu_tmpdir(dir, sizeof(dir), "diff");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	return 0;
}

/* The keys of the defaults with text read over them (a file) */
static void entries(const char *text, struct config_entries *e)
{
	struct buf err = BUF_INIT(0);
	struct config c;
	char *file = tu_path(dir, "kfleetd.conf");

	assert_int_equal(config_defaults(&c), 0);
	tu_write_str(file, text);
	if (config_load(&c, file, &err) < 0)
		fail_msg("config: %s", buf_str(&err));
	assert_int_equal(config_entries_init(e, &c), 0);
	config_release(&c);
	buf_release(&err);
	free(file);
}

/* The changes from a to b: "SECTION KEY OLD -> NEW; ..." ("-" for NULL) */
static char *diff(const char *a, const char *b)
{
	struct config_entries ea, eb;
	struct config_change *ch;
	struct buf s = BUF_INIT(0);
	size_t n;

	entries(a, &ea);
	entries(b, &eb);
	assert_int_equal(config_entries_diff(&ea, &eb, &ch, &n), 0);
	for (size_t i = 0; i < n; i++)
		buf_printf(&s, "%s[%s] %s %s -> %s", i ? "; " : "", ch[i].section, ch[i].key,
			   ch[i].old_value ? ch[i].old_value : "-",
			   ch[i].new_value ? ch[i].new_value : "-");
	free(ch);
	config_entries_release(&ea);
	config_entries_release(&eb);
	return s.data ? buf_detach(&s) : strdup("");
}

static void assert_diff(const char *a, const char *b, const char *want)
{
	char *got = diff(a, b);

	assert_string_equal(got, want);
	free(got);
}

static void test_keys(void **state)
{
	struct config_entries e;

	entries("[daemon]\nlog_level = warn\n[host a]\nuri = test:///default\n", &e);
	assert_true(e.n >= 40);
	assert_string_equal(config_entries_get(&e, "daemon", "log_level"), "warn");
	assert_string_equal(config_entries_get(&e, "host a", "uri"), "test:///default");
	assert_string_equal(config_entries_get(&e, "run", "timeout"), "300");
	/* printed "public_url =": empty, not missing */
	assert_string_equal(config_entries_get(&e, "daemon", "public_url"), "");
	assert_null(config_entries_get(&e, "host local", "uri"));
	assert_null(config_entries_get(&e, "daemon", "no_such_key"));
	/* the comment on top is no key */
	for (size_t i = 0; i < e.n; i++)
		assert_int_not_equal(e.v[i].key[0], '#');
	config_entries_release(&e);
	assert_int_equal(e.n, 0);
	assert_null(e.v);
}

static void test_same(void **state)
{
	assert_diff("", "", "");
	/* the same settings written otherwise: no change */
	assert_diff("[run]\nconsole_max = 16M\n", "[run]\nconsole_max = 16384K\n", "");
	assert_diff("[daemon]\nlog_level = info\n", "", "");
	assert_diff("[build]\nsandbox = yes\n", "[build]\nsandbox = true\n", "");
}

static void test_changed(void **state)
{
	assert_diff("", "[daemon]\nlog_level = debug\n[run]\ntimeout = 600\n",
		    "[daemon] log_level info -> debug; [run] timeout 300 -> 600");
	assert_diff("[daemon]\npublic_url = https://kf.example.org\n", "",
		    "[daemon] public_url https://kf.example.org -> ");
	assert_diff("[host a]\nuri = test:///default\nslots = 2\n",
		    "[host a]\nuri = test:///default\nslots = 3\n", "[host a] slots 2 -> 3");
}

static void test_sections(void **state)
{
	char *d = diff("[host a]\nuri = test:///default\n",
		       "[host a]\nuri = test:///default\n[host b]\nuri = qemu+ssh://b/system\n");
	const char *p;
	size_t n = 0;

	/* every key of the new host, once, with no old value */
	assert_non_null(strstr(d, "[host b] uri - -> qemu+ssh://b/system"));
	assert_non_null(strstr(d, "[host b] slots - -> 2"));
	assert_null(strstr(d, "[host a]"));
	for (p = d; (p = strstr(p, "[host b] uri ")); p++)
		n++;
	assert_int_equal(n, 1);
	free(d);
	d = diff("[host a]\nuri = test:///default\n[host b]\nuri = qemu+ssh://b/system\n",
		 "[host a]\nuri = test:///default\n");
	assert_non_null(strstr(d, "[host b] uri qemu+ssh://b/system -> -"));
	assert_null(strstr(d, " - -> "));
	free(d);
	/* the default host replaced: its keys gone, the new one's added */
	d = diff("", "[host x]\nuri = test:///default\n");
	assert_non_null(strstr(d, "[host local] uri qemu:///system -> -"));
	assert_non_null(strstr(d, "[host x] uri - -> test:///default"));
	assert_true(strstr(d, "[host local] uri") < strstr(d, "[host x] uri"));
	free(d);
}

static void test_set(void **state)
{
	struct config_entries a, b;
	struct config_change *ch;
	size_t n, before;

	entries("", &a);
	entries("[daemon]\nlog_level = debug\n[run]\ntimeout = 600\n", &b);
	before = a.n;
	assert_int_equal(config_entries_set(&a, "daemon", "log_level", "debug"), 0);
	assert_int_equal(a.n, before);
	assert_int_equal(config_entries_diff(&a, &b, &ch, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ch[0].key, "timeout");
	free(ch);
	/* a key it lacks is added */
	assert_int_equal(config_entries_set(&a, "host z", "uri", "test:///default"), 0);
	assert_int_equal(a.n, before + 1);
	assert_string_equal(config_entries_get(&a, "host z", "uri"), "test:///default");
	config_entries_release(&a);
	config_entries_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_changed),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_set),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
