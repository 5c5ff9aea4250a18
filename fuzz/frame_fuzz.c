// SPDX-License-Identifier: GPL-2.0-only
/* frame_fuzz.c: libFuzzer target for frame_decode(), which kfleetd feeds
 * with every line a guest writes on its agent channel. Decodes the input as
 * one line, and re-encodes what decodes to check the round trip.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -o frame_fuzz \
 *       fuzz/frame_fuzz.c common/frame.c && ./frame_fuzz -max_total_time=30 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[FRAME_MAX_LINE + 1];
	static struct frame f, g;
	const char *why = NULL;
	enum frame_result r;
	int len;

	r = frame_decode((const char *)data, size, &f, &why);
	if (r == FRAME_BAD && !why)
		abort();
	if (r != FRAME_OK)
		return 0;
	if (f.len > FRAME_MAX_PAYLOAD || (unsigned)f.type >= FRAME_TYPE_COUNT || f.payload[f.len])
		abort();
	/* what decodes encodes back to a line that decodes the same */
	len = frame_encode(line, f.seq, f.type, f.payload, f.len);
	if (len < 1 || len > FRAME_MAX_LINE)
		abort();
	if (frame_decode(line, (size_t)len - 1, &g, NULL) != FRAME_OK ||
	    g.seq != f.seq || g.type != f.type || g.len != f.len ||
	    memcmp(g.payload, f.payload, f.len) != 0)
		abort();
	return 0;
}
