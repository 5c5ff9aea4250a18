/* SPDX-License-Identifier: GPL-2.0-only */
/* jobsint.h: what the parsers in jobs/ share and nobody else needs: line
 * iteration, cleaning outside text into bounded UTF-8, appending rows,
 * samples and notes, and a small string index. */
#ifndef KF_JOBSINT_H
#define KF_JOBSINT_H

#include <stddef.h>

#include "jobs/jobs.h"

/* One line of the input: s[0..n) without "\n" or "\r\n"; no is 1-based.
 * s points into the caller's buffer and is not NUL-terminated. */
struct job_line {
	const char *s;
	size_t n;
	size_t no;
};

struct job_lines {
	const char *p, *end;
	size_t no;
};

void job_lines_init(struct job_lines *it, const char *data, size_t len);
/* 1 with the next line in *l, 0 at the end */
int job_lines_next(struct job_lines *it, struct job_line *l);

/* A clean copy of s[0..n): surrounding blanks trimmed, tabs made spaces,
 * control characters and invalid UTF-8 made '?', at most max bytes (cut on
 * a character boundary). Caller frees; NULL when out of memory. */
char *job_clean(const char *s, size_t n, size_t max);

/* Appends a note "what" about a line (cleaned, bounded); past
 * JOB_NOTES_MAX only counts it. 0 / -1 when out of memory. */
int job_note(struct job_notes *ns, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void job_notes_release(struct job_notes *ns);

/* Appends a row with clean copies of path and reason (reason may be NULL;
 * an empty one is stored as NULL). 0, 1 when r is full (r->truncated set,
 * nothing added), -1 when out of memory. */
int job_result_add(struct job_results *r, const char *path, size_t pathlen,
		   enum job_status st, const char *reason, size_t reasonlen, size_t line);
/* Sets row i's status, keeping the counts right */
void job_result_set_status(struct job_results *r, size_t i, enum job_status st);

/* Appends a sample; name must already be a valid metric name, unit is
 * copied clean (NULL or "" for none); seq < 0 means the number of earlier
 * samples with that name. 0, 1 when s is full, -1 when out of memory. */
int job_sample_add(struct job_samples *s, const char *name, double value,
		   const char *unit, long seq, size_t line);
/* 1 when name is [A-Za-z0-9_.:/-]{1,JOB_METRIC_MAX} */
int job_metric_name_ok(const char *name, size_t n);

/* Length of the decimal number at s[0..n) ([+-]digits[.digits][e[+-]digits],
 * also ".5"), 0 when none; *v gets its value (may be inf when huge). */
size_t job_decimal(const char *s, size_t n, double *v);

/* A string -> long map with its own copies of the keys */
struct job_index *job_index_new(void);
void job_index_free(struct job_index *x);
/* The value of key, or NULL when absent */
long *job_index_find(struct job_index *x, const char *key);
/* The value of key, added as 0 when absent; NULL when out of memory */
long *job_index_add(struct job_index *x, const char *key);

#endif
