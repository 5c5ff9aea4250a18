// SPDX-License-Identifier: GPL-2.0-only
/* metrics.c: reads the "METRIC name=value [unit]" lines that our own job
 * programs (the workloads under jobs/) print among their other output, into
 * samples for the samples table. Everything else on the output is ignored;
 * a METRIC line that does not parse is reported with its line and dropped. */
#include "jobs/jobsint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '%' || c == '/' || c == '*' || c == '^' || c == '-';
}

/* One line; 0, or -1 when out of memory */
static int metric_line(struct job_samples *s, const char *l, size_t n, size_t no)
{
	char name[JOB_METRIC_MAX + 1], unit[JOB_UNIT_MAX + 1];
	size_t i = 0, ns, nl, vs, vl, us, ul;
	double v = 0;
	int rc;

	while (i < n && blank(l[i]))
		i++;
	if (n - i < 6 || memcmp(l + i, "METRIC", 6) || (n - i > 6 && !blank(l[i + 6])))
		return 0;
	i += 6;
	while (i < n && blank(l[i]))
		i++;
	ns = i;
	while (i < n && l[i] != '=' && !blank(l[i]))
		i++;
	nl = i - ns;
	if (i >= n || l[i] != '=')
		return job_note(&s->notes, no, "METRIC line without name=value");
	if (!job_metric_name_ok(l + ns, nl))
		return job_note(&s->notes, no, "METRIC name '%.*s' is not [A-Za-z0-9_.:/-]{1,%d}",
				(int)(nl > 64 ? 64 : nl), l + ns, JOB_METRIC_MAX);
	vs = ++i;
	while (i < n && !blank(l[i]))
		i++;
	vl = i - vs;
	if (!vl || job_decimal(l + vs, vl, &v) != vl)
		return job_note(&s->notes, no, "METRIC %.*s: value '%.*s' is not a decimal number",
				(int)nl, l + ns, (int)(vl > 64 ? 64 : vl), l + vs);
	if (!isfinite(v))
		return job_note(&s->notes, no, "METRIC %.*s: value '%.*s' is out of range",
				(int)nl, l + ns, (int)(vl > 64 ? 64 : vl), l + vs);
	while (i < n && blank(l[i]))
		i++;
	us = i;
	while (i < n && !blank(l[i]))
		i++;
	ul = i - us;
	while (i < n && blank(l[i]))
		i++;
	if (i < n)
		return job_note(&s->notes, no, "METRIC %.*s: text after the unit", (int)nl, l + ns);
	if (ul > JOB_UNIT_MAX)
		return job_note(&s->notes, no, "METRIC %.*s: unit longer than %d bytes", (int)nl,
				l + ns, JOB_UNIT_MAX);
	for (size_t j = 0; j < ul; j++)
		if (!unit_char(l[us + j]))
			return job_note(&s->notes, no, "METRIC %.*s: unit '%.*s' is not "
					"[A-Za-z0-9_.%%/*^-]", (int)nl, l + ns, (int)ul, l + us);
	memcpy(name, l + ns, nl);
	name[nl] = '\0';
	memcpy(unit, l + us, ul);
	unit[ul] = '\0';
	rc = job_sample_add(s, name, v, unit, -1, no);
	return rc < 0 ? -1 : 0;
}

int metrics_parse(const char *data, size_t len, struct job_samples *s)
{
	struct job_lines it;
	struct job_line l = { 0 };

	job_lines_init(&it, data, len);
	while (!s->truncated && job_lines_next(&it, &l))
		if (metric_line(s, l.s, l.n, l.no) < 0)
			return -1;
	if (s->truncated &&
	    job_note(&s->notes, l.no, "more than %zu samples: the rest was not read", s->max) < 0)
		return -1;
	return 0;
}
