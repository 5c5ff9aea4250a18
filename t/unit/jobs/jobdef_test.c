// SPDX-License-Identifier: GPL-2.0-only
/* jobdef_test.c: job files (jobs/jobdef.c): a command continued on indented
 * lines, the root disk keys (rootfs, results) and a metric's margin, with
 * the errors a broken file gets, each naming file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"
#include "jobs/jobs.h"
#include "t/unit/testutil.h"

static char dir[64];

/* Loads text as a job file; returns the job or NULL with the errors in err */
static struct job_def *load(const char *text, struct buf *err)
{
	char *path = path_join(dir, "t.job");

	assert_non_null(path);
	assert_int_equal(write_file(path, text, strlen(text), 0644), 0);
	buf_reset(err);
	struct job_def *d = job_def_load(path, err);

	free(path);
	return d;
}

static void test_multiline_command(void **state)
{
	struct buf err = BUF_INIT(0);
	struct job_def *d;

	(void)state;
	d = load("[job]\nname = m\ncommand = set -e\n\techo one\n    echo two\nparser = none\n", &err);
	assert_non_null(d);
	assert_string_equal(d->command, "set -e\necho one\necho two");
	job_def_free(d);
	d = load("[job]\nname = m\ncommand = a\ncommand = b\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "t.job:4: command: given twice"));
	buf_release(&err);
}

static void test_rootfs_keys(void **state)
{
	struct buf err = BUF_INIT(0);
	struct job_def *d;

	(void)state;
	d = load("[job]\nname = r\ncommand = true\nrootfs = rt-tests, coreutils libstdc++6\n"
		 "results = /var/tmp/out\n", &err);
	assert_non_null(d);
	assert_int_equal(d->nrootfs, 3);
	assert_string_equal(d->rootfs[0], "rt-tests");
	assert_string_equal(d->rootfs[2], "libstdc++6");
	assert_string_equal(d->results, "/var/tmp/out");
	job_def_free(d);

	/* names that could be options or are not Debian's syntax */
	d = load("[job]\nname = r\ncommand = true\nrootfs = -o Foo .x\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "t.job:4: rootfs: '-o' is not a name"));
	assert_non_null(strstr(buf_str(&err), "t.job:4: rootfs: 'Foo' is not a name"));
	assert_non_null(strstr(buf_str(&err), "t.job:4: rootfs: '.x' is not a name"));

	d = load("[job]\nname = r\ncommand = true\nrootfs = a\nresults = relative\n"
		 "results = /a/../etc\nresults = /a b\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "t.job:5: results: 'relative' is not an absolute"));
	assert_non_null(strstr(buf_str(&err), "t.job:6: results: '/a/../etc'"));
	assert_non_null(strstr(buf_str(&err), "t.job:7: results: '/a b'"));

	/* results only exist on a disk */
	d = load("[job]\nname = r\ncommand = true\nresults = /out\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "results needs rootfs or image"));
	d = load("[job]\nname = r\ncommand = true\nrootfs = a\nimage = /srv/d.qcow2\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "rootfs and image: a job boots on one root disk"));
	d = load("[job]\nname = r\ncommand = true\nimage = d.qcow2\nresults = /out\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "t.job:4: image: 'd.qcow2' is not an absolute"));
	d = load("[job]\nname = r\ncommand = true\nimage = /srv/d.qcow2\nresults = /out\n", &err);
	assert_non_null(d);
	assert_string_equal(d->image, "/srv/d.qcow2");
	job_def_free(d);
	buf_release(&err);
}

static void test_metric_margin(void **state)
{
	struct buf err = BUF_INIT(0);
	struct job_def *d;

	(void)state;
	d = load("[job]\nname = m\ncommand = true\n[metric ops]\nbetter = higher\nmargin = 3%\n"
		 "[metric lat]\nbetter = lower\nmargin = 0.5\n[metric other]\nbetter = lower\n",
		 &err);
	assert_non_null(d);
	assert_int_equal(d->nmetrics, 3);
	assert_true(d->metrics[0].margin == 0.03);
	assert_true(d->metrics[1].margin == 0.005);
	assert_true(d->metrics[2].margin == 0);   /* not given: the default */
	job_def_free(d);
	d = load("[job]\nname = m\ncommand = true\n[metric ops]\nbetter = higher\n"
		 "margin = -3%\nmargin = 60%\nmargin = three\n", &err);
	assert_null(d);
	assert_non_null(strstr(buf_str(&err), "t.job:6: [metric ops]: margin: '-3%' is not a "
			       "percentage above 0 and at most 50% (e.g. 3%)"));
	assert_non_null(strstr(buf_str(&err), "t.job:7: [metric ops]: margin: '60%'"));
	assert_non_null(strstr(buf_str(&err), "t.job:8: [metric ops]: margin: 'three'"));
	buf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	tu_tmpdir(dir, sizeof(dir), "jobdef");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiline_command),
		cmocka_unit_test(test_rootfs_keys),
		cmocka_unit_test(test_metric_margin),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
