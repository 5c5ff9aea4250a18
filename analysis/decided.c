// SPDX-License-Identifier: GPL-2.0-only
/* decided.c: whether a request run until decided wants another round,
 * from the verdicts of its metrics after a round (decided.h). Metrics
 * that are better, worse, changed or no change are settled; the uncertain
 * ones say how many runs a side would likely settle them (runs_needed),
 * and the next round brings the sides up to the largest of those, within
 * the cap. Runs that failed give no samples and do not count; a round
 * that gave none stops the loop, since more of the same would not. */
#include "analysis/decided.h"

#include <stdio.h>
#include <string.h>

#include "common/buf.h"

static const char *const state_names[] = {
	"deciding", "decided", "cap", "failing", "canceled",
};

const char *decided_state_name(enum decided_action a)
{
	return (unsigned)a < sizeof(state_names) / sizeof(state_names[0]) ? state_names[a] : "?";
}

static void set_reason(struct decided_out *out, const struct buf *b)
{
	snprintf(out->reason, sizeof(out->reason), "%s", buf_str(b));
}

/* "ops, lat_p99" of the uncertain metrics (or "ops no change, ..." of
 * every metric) onto b, names seen twice (two cells) once; how many */
static size_t names(struct buf *b, const struct decided_in *in, int uncertain_only)
{
	size_t shown = 0;

	for (size_t i = 0; i < in->nm; i++) {
		int dup = 0;

		if (uncertain_only && in->m[i].verdict != CMP_UNCERTAIN)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = (!uncertain_only || in->m[j].verdict == CMP_UNCERTAIN) &&
			      !strcmp(in->m[j].name, in->m[i].name);
		if (dup)
			continue;
		if (shown == 8) {
			buf_puts(b, ", ...");
			break;
		}
		buf_printf(b, "%s%s", shown++ ? ", " : "", in->m[i].name);
		if (!uncertain_only)
			buf_printf(b, " %s", cmp_verdict_name(in->m[i].verdict));
	}
	return shown;
}

int decided_next(const struct decided_in *in, struct decided_out *out)
{
	struct buf b = BUF_INIT(DECIDED_REASON_MAX), un = BUF_INIT(DECIDED_REASON_MAX);
	int need = 0, uncertain = 0, have;
	size_t nun;

	memset(out, 0, sizeof(*out));
	if (in->cap < 1 || (in->nm && !in->m))
		return -1;
	have = in->samples[0] < in->samples[1] ? in->samples[0] : in->samples[1];
	if (in->canceled) {
		out->action = DECIDED_CANCELED;
		buf_puts(&b, "canceled");
		goto out;
	}
	if (in->round > 1 && in->new_samples == 0) {
		out->action = DECIDED_FAILING;
		buf_printf(&b, "runs failing: round %d gave no samples", in->round);
		if (in->failing)
			buf_printf(&b, " (%s)", in->failing);
		goto out;
	}
	if (!in->nm) {
		out->action = DECIDED_FAILING;
		buf_printf(&b, "runs failing: no metric with samples on both sides (%d base, "
			   "%d patched run%s gave samples)", in->samples[0], in->samples[1],
			   in->samples[1] == 1 ? "" : "s");
		if (in->failing)
			buf_printf(&b, "; %s", in->failing);
		goto out;
	}
	for (size_t i = 0; i < in->nm; i++)
		if (in->m[i].verdict == CMP_UNCERTAIN) {
			uncertain++;
			if (in->m[i].runs_needed > need)
				need = in->m[i].runs_needed;
		}
	if (!uncertain) {
		out->action = DECIDED_DONE;
		buf_puts(&b, "decided: every metric better/worse/no change: ");
		names(&b, in, 0);
		goto out;
	}
	nun = names(&un, in, 1);
	if (in->queued >= in->cap) {
		out->action = DECIDED_CAP;
		buf_printf(&b, "cap reached (%d a side): metric%s %s still uncertain (%d run%s a "
			   "side would likely settle %s)", in->cap, nun == 1 ? "" : "s",
			   buf_str(&un), need, need == 1 ? "" : "s", nun == 1 ? "it" : "them");
		goto out;
	}
	out->action = DECIDED_MORE;
	/* failed runs left the sides short: the next round makes up for them */
	out->pairs = need > have ? need - have : 1;
	if (out->pairs > in->cap - in->queued)
		out->pairs = in->cap - in->queued;
	buf_printf(&b, "round %d: metric%s %s uncertain at %d run%s a side, %d would likely "
		   "settle %s: %d more", in->round + 1, nun == 1 ? "" : "s", buf_str(&un), have,
		   have == 1 ? "" : "s", need, nun == 1 ? "it" : "them", out->pairs);
out:
	set_reason(out, &b);
	buf_release(&b);
	buf_release(&un);
	return 0;
}
