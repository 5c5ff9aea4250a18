// SPDX-License-Identifier: GPL-2.0-only
/* help_test.c: unit tests for cli/help.c, kfleet's help table: every
 * command word has a help of its own that names it, no word is in two
 * entries, the global usage is made of every entry's summary between the
 * head and the global options, and a word that is no command has none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"

/* The command words kfleet.c dispatches, and help */
static const char *const words[] = {
	"run", "runs", "show", "logs", "cancel", "repro", "jobs", "compare", "test", "import",
	"trend", "flaky", "export", "submit", "tree", "trees", "hosts", "watch", "submission",
	"submissions", "builds", "build", "bisect", "bisections", "bisection", "reload",
	"shutdown", "series", "parse", "help",
};

/* What f(out) printed; caller frees */
static char *printed(void (*f)(FILE *))
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);

	assert_non_null(m);
	f(m);
	fclose(m);
	return s;
}

static void test_every_word(void **state)
{
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const struct cli_help *h = cli_help_find(words[i]);
		char want[64];

		assert_non_null(h);
		assert_int_equal(strncmp(h->help, "usage: kfleet ", 14), 0);
		/* its usage names the word as typed: "kfleet trees", not only "tree" */
		snprintf(want, sizeof(want), "kfleet %s ", words[i]);
		if (!strstr(h->help, want)) {
			snprintf(want, sizeof(want), "kfleet %s\n", words[i]);
			assert_non_null(strstr(h->help, want));
		}
		assert_int_equal(h->help[strlen(h->help) - 1], '\n');
		assert_int_equal(h->summary[strlen(h->summary) - 1], '\n');
	}
}

static void test_no_word_twice(void **state)
{
	size_t n, words_seen = 0;
	const struct cli_help *t = cli_helps(&n);

	for (size_t i = 0; i < n; i++) {
		char names[128], *save = NULL;

		assert_true(strlen(t[i].names) < sizeof(names));
		strcpy(names, t[i].names);
		for (char *w = strtok_r(names, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			assert_ptr_equal(cli_help_find(w), &t[i]);
			words_seen++;
		}
	}
	/* and the table holds no word the list above lacks */
	assert_int_equal(words_seen, sizeof(words) / sizeof(words[0]));
}

static void test_usage_made_of_the_table(void **state)
{
	size_t n;
	const struct cli_help *t = cli_helps(&n);
	char *u = printed(cli_usage);
	const char *p;

	assert_int_equal(strncmp(u, CLI_USAGE_HEAD "\n\n", strlen(CLI_USAGE_HEAD) + 2), 0);
	p = u + strlen(CLI_USAGE_HEAD) + 2;
	for (size_t i = 0; i < n; i++) {   /* each summary in the table's order */
		assert_int_equal(strncmp(p, t[i].summary, strlen(t[i].summary)), 0);
		p += strlen(t[i].summary);
	}
	assert_string_equal(p, "\n" CLI_USAGE_TAIL);
	free(u);
}

static void test_not_a_command(void **state)
{
	FILE *f = fopen("/dev/null", "w");

	assert_non_null(f);
	assert_null(cli_help_find("nosuch"));
	assert_null(cli_help_find("tre"));       /* a word's prefix is no word */
	assert_null(cli_help_find("trees "));
	assert_null(cli_help_find(""));
	assert_int_equal(cli_help_print(f, "nosuch"), -1);
	assert_int_equal(cli_help_print(f, "trees"), 0);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_word),
		cmocka_unit_test(test_no_word_twice),
		cmocka_unit_test(test_usage_made_of_the_table),
		cmocka_unit_test(test_not_a_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
