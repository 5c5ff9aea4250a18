// SPDX-License-Identifier: GPL-2.0-only
/* scaling.c: kfleet compare's and kfleet test's scaling tables: the cells
 * of a comparison that differ only in vCPUs (GET /api/compare answers one
 * report per cell), read back into reports and laid out by vCPUs with
 * analysis/scaling.c, as the cover letters put 1, 16 and 96 vCPUs side by
 * side. */
#include "cli/scaling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling.h"
#include "cli/cli.h"
#include "common/util.h"

#define SCALING_REPORTS_MAX 256   /* cells read from one answer */

int cli_scaling_render(json_t *comparisons, int markdown, struct buf *out)
{
	size_t n = json_array_size(comparisons), ng, *group = NULL;
	struct cmp_report *rep = NULL;
	const struct cmp_report **reps = NULL, **sub = NULL;
	int rc = -1;

	if (n > SCALING_REPORTS_MAX)
		n = SCALING_REPORTS_MAX;
	if (n < 2)
		return 0;
	rep = calloc(n, sizeof(*rep));
	reps = calloc(n, sizeof(*reps));
	sub = calloc(n, sizeof(*sub));
	group = calloc(n, sizeof(*group));
	if (!rep || !reps || !sub || !group) {
		fprintf(stderr, "kfleet: scaling: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char err[256];

		if (cmp_report_from_json(json_array_get(comparisons, i), &rep[i], err,
					 sizeof(err)) < 0) {
			fprintf(stderr, "kfleet: scaling: comparisons[%zu]: %s\n", i, err);
			n = i + 1;
			goto out;
		}
		reps[i] = &rep[i];
	}
	ng = scaling_group(reps, n, group);
	for (size_t g = 0; g < ng; g++) {
		struct scaling sc;
		size_t nsub = 0;
		int r;

		for (size_t i = 0; i < n; i++)
			if (group[i] == g)
				sub[nsub++] = reps[i];
		if (scaling_build(&sc, sub, nsub) < 0) {
			scaling_release(&sc);
			fprintf(stderr, "kfleet: scaling: out of memory\n");
			goto out;
		}
		if (sc.nv >= 2) {
			buf_puts(out, out->len ? "\n" : "");
			r = markdown ? scaling_render_markdown(&sc, out) : scaling_render_text(&sc, out);
			if (r < 0) {
				scaling_release(&sc);
				fprintf(stderr, "kfleet: scaling: out of memory\n");
				goto out;
			}
		}
		scaling_release(&sc);
	}
	rc = 0;
out:
	for (size_t i = 0; rep && i < n; i++)
		cmp_report_release(&rep[i]);
	free(rep);
	free(reps);
	free(sub);
	free(group);
	return rc;
}

int cli_scaling_report(struct cli *k, long long a, long long b, const char *job, int markdown,
		       const char *margin)
{
	struct buf path = BUF_INIT(0), out = BUF_INIT(0);
	struct resp r = { 0 };
	int rc = -1;

	buf_printf(&path, "/api/compare?a=%lld&b=%lld&job=", a, b);
	buf_url_encode(&path, job);
	if (margin) {
		buf_puts(&path, "&margin=");
		buf_url_encode(&path, margin);
	}
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: %s: scaling: %s\n", k->cmd, r.err);
		goto out;
	}
	if (cli_scaling_render(json_object_get(r.j, "comparisons"), markdown, &out) < 0)
		goto out;
	if (out.len)
		printf("\n%s", buf_str(&out));
	rc = 0;
out:
	json_decref(r.j);
	buf_release(&path);
	buf_release(&out);
	return rc;
}

int cli_vcpus_list(const char *cmd, const char *s, int *v, size_t *n)
{
	struct buf b = BUF_INIT(4096);
	char *save = NULL;
	int rc = 0;

	*n = 0;
	if (buf_puts(&b, s) < 0 || !*s || s[strlen(s) - 1] == ',')
		rc = -1;
	for (char *t = rc ? NULL : strtok_r(b.data, ",", &save); t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		long long x;

		if (*n == CLI_VCPUS_MAX || parse_int(t, 1, 4096, &x) < 0) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < *n; i++)
			if (v[i] == (int)x)
				rc = -1;
		v[(*n)++] = (int)x;
	}
	if (rc || !*n)
		fprintf(stderr, "kfleet: %s: --vcpus '%s': a list of up to %d different numbers "
			"from 1 to 4096 (1,2,16)\n", cmd, s, CLI_VCPUS_MAX);
	buf_release(&b);
	return rc || !*n ? -1 : 0;
}
