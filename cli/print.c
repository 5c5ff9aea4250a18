// SPDX-License-Identifier: GPL-2.0-only
/* print.c: what the kfleet commands share to read an API answer and print
 * it: strings and numbers of a JSON object with their defaults, durations,
 * indented text, JSON as it came, and the one check of an option's number.
 * The cmd_*.c files call these; they call nothing of the CLI. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/util.h"

const char *cli_jstr(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

const char *cli_jdash(json_t *o, const char *key)
{
	return cli_or_dash(cli_jstr(o, key, NULL));
}

long long cli_jint(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

const char *cli_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

void cli_fmt_duration(long long d, char out[32])
{
	if (d < 0)
		snprintf(out, 32, "-");
	else if (d < 1000)
		snprintf(out, 32, "%lld ms", d);
	else if (d < 60000)
		snprintf(out, 32, "%lld.%lld s", d / 1000, d % 1000 / 100);
	else if (d < 3600000)
		snprintf(out, 32, "%lld min %02lld s", d / 60000, d / 1000 % 60);
	else
		snprintf(out, 32, "%lld h %02lld min", d / 3600000, d / 60000 % 60);
}

void cli_print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
}

void cli_print_indented(const char *s, const char *indent)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		printf("%s%.*s\n", indent, (int)n, s);
		s += n + (nl ? 1 : 0);
	}
}

void cli_join_strs(struct buf *b, json_t *arr, const char *sep)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		if (i)
			buf_puts(b, sep);
		buf_puts(b, json_is_string(v) ? json_string_value(v) : "?");
	}
}

int cli_parse_num(const char *cmd, const char *opt, const char *s, long long min,
		  long long max, long long *out)
{
	if (parse_int(s, min, max, out) < 0) {
		fprintf(stderr, "kfleet: %s: %s '%s': not a number from %lld to %lld\n", cmd, opt,
			s, min, max);
		return -1;
	}
	return 0;
}
