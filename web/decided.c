// SPDX-License-Identifier: GPL-2.0-only
/* decided.c: a request run until decided (orchestrator/decided.c), as
 * the request page and its JSON show it: the mode and cap, each round
 * with why it was queued, the runs a side so far, and why it stopped or
 * that it is still deciding. Everything from the database goes through
 * web_html(). */
#include "web/decided.h"
#include "web/reply.h"

#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "db/db.h"

int web_decided_pending(const struct request *q)
{
	return q->decided && !strcmp(q->decided, "deciding");
}

void web_decided_html(struct buf *b, struct db *db, const struct request *q)
{
	struct request_round *rv = NULL;
	size_t nr = 0;
	char s[64];

	if (!q->until_decided) {
		web_html_kv(b, "mode", "fixed: the repeats asked for", "-");
		return;
	}
	buf_printf(b, "<tr><th>mode</th><td>until decided: more interleaved pairs while a "
		   "metric is uncertain, at most %d a side", q->max_runs);
	if (q->margin > 0)
		buf_printf(b, "; margin &plusmn;%.3g%% for every metric", q->margin * 100);
	buf_puts(b, "</td></tr>\n");
	buf_printf(b, "<tr><th>rounds</th><td>%d, %zu runs a side so far", q->rounds,
		   q->nruns / 2);
	if (db_request_rounds(db, q->id, &rv, &nr) == 0 && nr) {
		buf_puts(b, "<ol class=\"note\">");
		for (size_t i = 0; i < nr; i++) {
			buf_printf(b, "<li>%d a side: ", rv[i].pairs);
			web_html_str(b, rv[i].why);
			buf_puts(b, "</li>");
		}
		buf_puts(b, "</ol>");
	}
	db_request_rounds_free(rv, nr);
	buf_puts(b, "</td></tr>\n<tr><th>stopped</th><td>");
	if (web_decided_pending(q)) {
		buf_puts(b, "<span class=\"running\">still deciding</span>");
	} else {
		web_html_str(b, q->stop_reason ? q->stop_reason : q->decided);
		fmt_time_ms(q->decided_at, 0, s, sizeof(s));
		buf_printf(b, " <span class=\"note\">(%s UTC)</span>", s);
	}
	buf_puts(b, "</td></tr>\n");
}

json_t *web_decided_json(struct db *db, const struct request *q)
{
	struct request_round *rv = NULL;
	size_t nr = 0;
	json_t *o, *list;

	if (!q->until_decided)
		return json_pack("{s:s, s:i, s:I}", "mode", "fixed", "rounds", q->rounds,
				 "runs_per_side", (json_int_t)(q->nruns / 2));
	if (db_request_rounds(db, q->id, &rv, &nr) < 0)
		return NULL;
	list = json_array();
	for (size_t i = 0; list && i < nr; i++)
		if (json_array_append_new(list, json_pack("{s:i, s:i, s:I, s:o}", "n", rv[i].n,
				"pairs", rv[i].pairs, "queued_at", (json_int_t)rv[i].queued_at,
				"why", web_json_str(rv[i].why))) < 0) {
			json_decref(list);
			list = NULL;
		}
	db_request_rounds_free(rv, nr);
	if (!list)
		return NULL;
	o = json_pack("{s:s, s:o, s:i, s:o, s:i, s:I, s:o, s:o, s:o}", "mode", "until-decided",
		      "state", web_json_str(q->decided), "max_runs", q->max_runs,
		      "margin", q->margin > 0 ? json_real(q->margin) : json_null(),
		      "rounds", q->rounds, "runs_per_side", (json_int_t)(q->nruns / 2),
		      "stop_reason", web_json_str(q->stop_reason),
		      "decided_at", q->decided_at ? json_integer(q->decided_at) : json_null(),
		      "round_list", list);
	return o;
}
