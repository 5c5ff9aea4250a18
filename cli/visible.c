// SPDX-License-Identifier: GPL-2.0-only
/* visible.c: a guest's text made inert for a terminal, for what `kfleet
 * logs` and `kfleet show` print (unless --raw). A guest is hostile: its
 * console and output may hold escape sequences that retitle the window,
 * move the cursor, rewrite what was printed or talk to the terminal. Every
 * control character is shown instead of sent; newlines and tabs stay. */
#include "cli/cli.h"

#include <stdint.h>
#include <stdio.h>

#include "common/util.h"

/* A CR held back from the last call: a line's end when a newline follows */
static void held_cr(struct buf *out, struct cli_visible *st, int before_nl)
{
	if (st->cr && !before_nl)
		buf_puts(out, "^M");
	st->cr = 0;
}

void cli_visible(struct buf *out, const char *s, size_t n, struct cli_visible *st)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned c = p[i];
		uint32_t cp = 0;
		size_t l = utf8_decode(p + i, n - i, &cp);

		if (l && cp != '\r' && (cp == '\n' || cp == '\t' || (cp >= 0x20 && cp < 0x7f) ||
					cp >= 0xa0)) {
			held_cr(out, st, cp == '\n');   /* run == i after a CR */
			i += l;
			continue;
		}
		buf_append(out, s + run, i - run);
		held_cr(out, st, 0);
		if (c == '\r')
			st->cr = 1;            /* shown once the next byte says what it is */
		else if (!l)
			buf_printf(out, "\\x%02x", c);    /* not UTF-8 */
		else if (cp < 0x20)
			buf_printf(out, "^%c", (char)(cp + 0x40));
		else if (cp == 0x7f)
			buf_puts(out, "^?");
		else
			buf_printf(out, "\\u%04x", (unsigned)cp);   /* C1: 0x80 to 0x9f */
		i += l ? l : 1;
		run = i;
	}
	buf_append(out, s + run, i - run);
}

void cli_visible_end(struct buf *out, struct cli_visible *st)
{
	held_cr(out, st, 0);
}

void cli_visible_str(struct buf *out, const char *s, size_t n)
{
	struct cli_visible st = { 0 };

	cli_visible(out, s, n, &st);
	cli_visible_end(out, &st);
}

/* j's strings made visible in place, recursively */
static int visible_walk(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, key, v)
			if (visible_walk(v) < 0)
				return -1;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (visible_walk(v) < 0)
				return -1;
	} else if (json_is_string(j)) {
		struct buf b = BUF_INIT(0);
		int rc;

		cli_visible_str(&b, json_string_value(j), json_string_length(j));
		rc = json_string_setn(j, buf_str(&b), b.len);
		buf_release(&b);
		return rc;
	}
	return 0;
}

json_t *cli_visible_json(json_t *j)
{
	json_t *copy = json_deep_copy(j);

	if (copy && visible_walk(copy) < 0) {
		json_decref(copy);
		return NULL;
	}
	return copy;
}
