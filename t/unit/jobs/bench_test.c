// SPDX-License-Identifier: GPL-2.0-only
/* bench_test.c: unit tests for bench_parse() (jobs/bench.c) on a
 * trig-kprobe run and on the other report formats of the selftests bench
 * tool (t/data/jobs/), and on generated inputs: names, "+-", bad numbers,
 * every cut, bounds, garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/testutil.h"
#include "t/unit/jobs/jobs_testutil.h"

static void parse_fixture(const char *name, struct job_samples *s)
{
	size_t n = 0;
	char *text = jt_fixture(name, &n);

	jt_parse_samples(bench_parse, text, n, s, 0);
	jt_check_samples(s);
	free(text);
}

static void parse_str(const char *in, struct job_samples *s)
{
	jt_parse_samples(bench_parse, in, strlen(in), s, 0);
	jt_check_samples(s);
}

static void test_trig(void **state)
{
	struct job_samples s;

	(void)state;
	parse_fixture("bench-trig-kprobe.log", &s);
	assert_int_equal(s.n, 4 * 4 + 7);
	jt_expect_sample(&s, "trig-kprobe.hits.iter", 0, 12.478, "M/s");
	jt_expect_sample(&s, "trig-kprobe.hits.iter", 1, 12.631, "M/s");
	jt_expect_sample(&s, "trig-kprobe.hits.iter", 3, 12.577, "M/s");
	jt_expect_sample(&s, "trig-kprobe.hits_per_prod.iter", 2, 12.502, "M/s");
	jt_expect_sample(&s, "trig-kprobe.drops.iter", 0, 0, "M/s");
	jt_expect_sample(&s, "trig-kprobe.total_operations.iter", 1, 12.631, "M/s");
	/* the Summary: mean and standard deviation */
	jt_expect_sample(&s, "trig-kprobe.hits", 0, 12.570, "M/s");
	jt_expect_sample(&s, "trig-kprobe.hits.stddev", 0, 0.052, "M/s");
	jt_expect_sample(&s, "trig-kprobe.hits_per_prod", 0, 12.570, "M/s");
	jt_expect_sample(&s, "trig-kprobe.drops", 0, 0, "M/s");
	jt_expect_sample(&s, "trig-kprobe.total_operations.stddev", 0, 0.052, "M/s");
	assert_int_equal(jt_sample(&s, "trig-kprobe.hits", 0)->line, 7);
	assert_int_equal(s.notes.n, 0);
	jt_golden_samples(&s, "bench-trig-kprobe.out");
	job_samples_release(&s);
}

static void test_formats(void **state)
{
	struct job_samples s;

	(void)state;
	parse_fixture("bench-formats.log", &s);
	/* ops_report_final: throughput with a unit of two words, latency */
	jt_expect_sample(&s, "bpf-loop.throughput", 0, 30.178, "M ops/s");
	jt_expect_sample(&s, "bpf-loop.throughput.stddev", 0, 0.045, "M ops/s");
	jt_expect_sample(&s, "bpf-loop.throughput_per_prod", 0, 30.178, "M ops/s");
	jt_expect_sample(&s, "bpf-loop.latency", 0, 33.137, "ns/op");
	jt_expect_sample(&s, "bpf-loop.hits.iter", 1, 30.201, "M/s");
	/* htab-mem */
	jt_expect_sample(&s, "htab-mem.per-prod-op.iter", 0, 105.43, "k/s");
	jt_expect_sample(&s, "htab-mem.per-prod-op", 0, 105.40, "k/s");
	jt_expect_sample(&s, "htab-mem.per-prod-op.stddev", 0, 0.51, "k/s");
	jt_expect_sample(&s, "htab-mem.memory_usage", 0, 11.02, "MiB");
	jt_expect_sample(&s, "htab-mem.peak_memory_usage", 0, 11.62, "MiB");
	/* local-storage-create: a field that starts with its value */
	jt_expect_sample(&s, "local-storage-create.creates", 0, 123.456, "k/s");
	jt_expect_sample(&s, "local-storage-create.creates_per_prod", 0, 123.456, "k/s");
	jt_expect_sample(&s, "local-storage-create.kmallocs_per_create", 0, 2.53,
			 "kmallocs/create");
	/* bloom false positives */
	jt_expect_sample(&s, "bloom-false-positive.false_hits.iter", 0, 1234, NULL);
	jt_expect_sample(&s, "bloom-false-positive.total_operations", 0, 1234560, NULL);
	jt_expect_sample(&s, "bloom-false-positive.false_hits_percentage", 0, 1.0, "%");
	/* local storage: two fields without a comma, three with */
	jt_expect_sample(&s, "local-storage-cache-seq-get.hits.iter", 0, 12.345, "M/s");
	jt_expect_sample(&s, "local-storage-cache-seq-get.important_hits.iter", 0, 1.234, "M/s");
	jt_expect_sample(&s, "local-storage-cache-seq-get.hits_throughput", 0, 12.345,
			 "M ops/s");
	jt_expect_sample(&s, "local-storage-cache-seq-get.hits_latency", 0, 81.004, "ns/op");
	jt_expect_sample(&s, "local-storage-cache-seq-get.important_hits_throughput.stddev", 0,
			 0.001, "M ops/s");
	/* the garbage at the end */
	assert_true(jt_has_note(&s.notes, 22, "Iter line"));
	assert_true(jt_has_note(&s.notes, 23, "Summary line without metrics"));
	assert_int_equal(s.notes.n, 2);
	jt_golden_samples(&s, "bench-formats.out");
	job_samples_release(&s);
}

static void test_shapes(void **state)
{
	struct job_samples s;

	(void)state;
	/* no "Setting up" line (bench -q): no prefix */
	parse_str("Summary: hits 1.5 +- 0.25M/s\n"
		  "Iter 12 (1.0us): rate -2.5e3 ops/s, ratio 4 %, bare 7\n", &s);
	jt_expect_sample(&s, "hits", 0, 1.5, "M/s");
	jt_expect_sample(&s, "hits.stddev", 0, 0.25, "M/s");
	jt_expect_sample(&s, "rate.iter", 12, -2500, "ops/s");
	jt_expect_sample(&s, "ratio.iter", 12, 4, "%");
	jt_expect_sample(&s, "bare.iter", 12, 7, NULL);
	assert_int_equal(s.n, 5);
	job_samples_release(&s);

	/* a name not fit for a metric is made one; an overlong one is dropped */
	parse_str("Setting up benchmark 'We ird/na\xffme'...\n"
		  "Summary: Hits Total 3M/s\n"
		  "Setting up benchmark 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'\n"
		  "Summary: hits 4M/s\n", &s);
	jt_expect_sample(&s, "we_ird/na_me.hits_total", 0, 3, "M/s");
	jt_expect_sample(&s, "hits", 0, 4, "M/s");
	job_samples_release(&s);

	{
		char in[400];

		/* 130 bytes: one past what a metric name may hold */
		snprintf(in, sizeof(in), "Summary: %0130d 5M/s\n", 0);
		memset(in + 9, 'x', 130);
		parse_str(in, &s);
		assert_int_equal(s.n, 0);
		assert_true(jt_has_note(&s.notes, 1, "too long"));
		job_samples_release(&s);
	}
}

static void test_bad_lines(void **state)
{
	struct job_samples s;

	(void)state;
	parse_str("Iter\n"
		  "Iter 1\n"
		  "Iter 1 (no close\n"
		  "Iter 9999999999 (1us): hits 1M/s\n"
		  "Iter x (1us): hits 1M/s\n"
		  "Summary: hits 1e999M/s\n"
		  "Summary: hits nan M/s, drops -inf\n"
		  "Summary:\n"
		  "Iterations 5\n"
		  "Summary: hits 0x10M/s\n", &s);
	assert_int_equal(s.n, 1);
	/* "0x10M/s" reads as 0 with unit "x10M/s": harmless, and what was printed */
	jt_expect_sample(&s, "hits", 0, 0, "x10M/s");
	for (size_t line = 2; line <= 5; line++)
		assert_true(jt_has_note(&s.notes, line, "Iter line"));
	assert_true(jt_has_note(&s.notes, 6, "without metrics"));
	assert_true(jt_has_note(&s.notes, 7, "without metrics"));
	assert_true(jt_has_note(&s.notes, 8, "without metrics"));
	job_samples_release(&s);
}

static void test_every_cut(void **state)
{
	static const char *const fixtures[] = { "bench-trig-kprobe.log", "bench-formats.log" };

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		size_t n = 0;
		char *text = jt_fixture(fixtures[i], &n);

		jt_every_prefix_samples(bench_parse, text, n);
		free(text);
	}
}

static void test_bounds_and_garbage(void **state)
{
	static const char garbage[] = "Iter 1 (\x00): h\xff 1\x00M/s, \xc3\x28 2 \x1b/s (3\xe2/prod)\n"
				      "Summary: ( ( ( ) ) ) , , , \xc2\xb1 \xc2\xb1 1 \xc2\xb1\n";
	struct job_samples s;
	char *big;
	size_t n;
	FILE *f = open_memstream(&big, &n);

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 50; i++)
		fprintf(f, "Iter %3d (1.0us): hits %d.5M/s\n", i, i);
	fclose(f);
	jt_parse_samples(bench_parse, big, n, &s, 10);
	jt_check_samples(&s);
	assert_int_equal(s.n, 10);
	assert_int_equal(s.truncated, 1);
	assert_true(jt_has_note(&s.notes, 11, "more than 10 samples"));
	free(big);
	job_samples_release(&s);

	jt_parse_samples(bench_parse, garbage, sizeof(garbage) - 1, &s, 0);
	jt_check_samples(&s);
	job_samples_release(&s);

	/* a 1 MiB Summary of tokens and of one token */
	n = 1 << 20;
	big = malloc(n + 16);
	assert_non_null(big);
	memcpy(big, "Summary: ", 9);
	for (size_t i = 9; i < n; i += 2) {
		big[i] = (i / 2) % 2 ? 'a' : '1';
		big[i + 1] = ' ';
	}
	jt_parse_samples(bench_parse, big, n, &s, 0);
	jt_check_samples(&s);
	job_samples_release(&s);
	memset(big + 9, '7', n - 9);
	jt_parse_samples(bench_parse, big, n, &s, 0);
	jt_check_samples(&s);
	job_samples_release(&s);
	free(big);

	job_samples_init(&s, 0);
	assert_int_equal(bench_parse(NULL, 0, &s), 0);
	assert_int_equal(s.n, 0);
	job_samples_release(&s);
}

static void test_json(void **state)
{
	struct job_samples s;
	json_t *j, *x;

	(void)state;
	parse_str("Summary: latency 33.137 ns/op, bare 7\n", &s);
	j = job_samples_json(&s);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "samples")), 2);
	x = json_array_get(json_object_get(j, "samples"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "name")), "latency");
	assert_true(json_real_value(json_object_get(x, "value")) == 33.137);
	assert_string_equal(json_string_value(json_object_get(x, "unit")), "ns/op");
	assert_int_equal(json_integer_value(json_object_get(x, "seq")), 0);
	x = json_array_get(json_object_get(j, "samples"), 1);
	assert_true(json_is_null(json_object_get(x, "unit")));
	assert_true(json_is_false(json_object_get(j, "truncated")));
	json_decref(j);
	job_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trig),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_bounds_and_garbage),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
