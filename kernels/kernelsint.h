/* kernelsint.h: what only kernels/ itself (and its tests and fuzz target)
 * sees. series.c splits an mbox with git mailsplit and reads each message
 * with git mailinfo; everything after that (subject tags, trailers, the
 * diff, versions, completeness) is pure and declared here so it can be
 * tested and fuzzed without running git. */
#ifndef KF_KERNELSINT_H
#define KF_KERNELSINT_H

#include <stddef.h>

#include "kernels/kernels.h"

#define SERIES_TREE_MAX 64

/* What a subject's leading tags say: "[PATCH bpf-next v4 2/3] bpf: x" */
struct series_tags {
	int reply;        /* starts with Re:, Fwd:, Aw:, ... */
	int tagged;       /* had a patch tag ([PATCH ...], [RFC ...], [... N/M]) */
	int rfc;
	int version;      /* 0 when the tags name none */
	int index;        /* N of N/M, -1 when none */
	int count;        /* M of N/M, -1 when none */
	char tree[SERIES_TREE_MAX]; /* the first other word in the tags ("bpf-next"), or "" */
	const char *title;          /* the rest of the subject, borrowed from it */
};

/* Parses subject's leading reply prefixes and patch tags. Never fails. */
void series_subject_parse(const char *subject, struct series_tags *t);

/* One message of the mbox as git mailsplit and git mailinfo left it. All
 * strings are NUL-terminated and owned by the message; NULL when absent. */
struct series_msg {
	unsigned line;     /* where it starts in the mbox, 0 when unknown */
	char *subject;     /* decoded and unfolded, tags kept (mailinfo -k) */
	char *author;
	char *email;
	char *date;
	char *msgid;       /* without the <> */
	char *body;        /* the commit message part (the whole text of a cover letter) */
	char *patch;       /* from the first diff-ish line on ("---", diffstat, diffs) */
	char *mail;        /* the message as split from the mbox */
	size_t mail_len;
};

void series_msg_release(struct series_msg *m);

/* Builds the series out of n messages in mbox order: classifies them
 * (cover letter, patch, reply), picks the version, checks completeness,
 * reads trailers, base-commit, change-id and the diffs. name is the mbox
 * as messages call it. Moves the strings it keeps out of msgs (they become
 * NULL); the caller still releases msgs. 0 with *out (free with
 * series_free()), or -1 with *err (caller frees). */
int series_assemble(const char *name, struct series_msg *msgs, size_t n,
		    struct series **out, char **err);

/* The lines (1-based) on which git mailsplit starts each message of an
 * mbox, into lines[0..max-1]; returns how many messages there are (which
 * may be more than max). A file that does not start with a "From " line is
 * one message. */
size_t series_mbox_lines(const char *data, size_t len, unsigned *lines, size_t max);

/* The unfolded value of the first header name: in the header block of a
 * mail (up to the first empty line). Returns a string the caller frees, or
 * NULL when there is no such header. */
char *series_header(const char *mail, size_t len, const char *name);

/* Counts a patch's diff: files touched, lines added and removed. 0, or -1
 * when a hunk is cut short or overlong, with *why (caller frees) saying
 * where. *files is 0 when there is no diff at all. */
int series_diffstat(const char *patch, int *files, int *ins, int *del, char **why);

/* The trailers ("Signed-off-by: ...") of a commit message: its last
 * paragraph, when git would take it as a trailer block. 0, or -1 when out
 * of memory. *out (caller frees with series_trailers_free()) may be NULL
 * when there are none. */
int series_trailers(const char *body, struct series_trailer **out, size_t *n);
void series_trailers_free(struct series_trailer *t, size_t n);

#endif
