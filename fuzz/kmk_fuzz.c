// SPDX-License-Identifier: GPL-2.0-only
/* kmk_fuzz.c: libFuzzer target for kernels/estimate_mk.c, the part of make
 * a first build's estimate reads the tree's Kbuild files with. A series
 * may change any Kbuild file, so any bytes must be read without a fault,
 * within the work bound (KMK_WORK_MAX) and with the lists it yields made
 * of words only. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "kernels/estimateint.h"

static void set(struct kmk_map *m, const char *k, const char *v)
{
	struct kmk_ent *e = kmk_put(m, k, strlen(k));

	if (e)
		buf_puts(&e->val, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const lists[] = { "obj-y", "obj-m", "lib-y", NULL };
	struct kmk_map config = { 0 }, pre = { 0 }, words = { 0 };
	struct kmk_ctx c = { "/nonexistent", &config, &pre, 1u << 22 };
	struct kmk mk = { { 0 }, &c };

	set(&config, "CONFIG_A", "y");
	set(&config, "CONFIG_M", "m");
	set(&pre, "SRCARCH", "x86");
	kmk_eval(&mk, (const char *)data, size);
	if (c.left > 1u << 22)
		abort();
	for (int i = 0; lists[i]; i++)
		kmk_words(&mk, lists[i], &words, NULL);
	for (size_t i = 0; i < words.cap; i++) {
		const struct kmk_ent *w = &words.t[i];

		if (w->key && (!w->klen || strlen(w->key) != w->klen || strpbrk(w->key, " \t\n")))
			abort();
	}
	kmk_map_release(&words);
	kmk_release(&mk);
	kmk_map_release(&pre);
	kmk_map_release(&config);
	return 0;
}
