// SPDX-License-Identifier: GPL-2.0-only
/* manifest.c: a run's initrd as the parts it was made of (storage.h). The
 * initrd QEMU boots is one file, the run's own small cpio followed by
 * shared archives (the base, modules, the job's programs, kselftests) that
 * every run of a kernel and job boots alike: initrd.c writes this manifest
 * beside it, and once the run is over only the manifest and the run's own
 * part stay. The text form, one part a line, in order:
 *
 *   # comment lines
 *   initrd SHA256 BYTES
 *   part SHA256 BYTES PATH      (PATH absolute, or a name in the run's dir)
 *
 * so `awk '$1 == "part" { print $4 }' initrd.manifest | xargs cat` (in the
 * run's directory) makes the initrd again, and the hashes say whether it
 * is the one the run booted. */
#include "orchestrator/storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define MANIFEST_HEAD \
	"# kfleet initrd manifest: the run's initrd was the parts below, concatenated\n" \
	"# in order; a path without '/' is in the run's directory. Made again with\n" \
	"#   awk '$1 == \"part\" { print $4 }' initrd.manifest | xargs cat > initrd.img\n"

int manifest_format(const struct manifest *m, struct buf *out)
{
	if (buf_puts(out, MANIFEST_HEAD) < 0 ||
	    buf_printf(out, "initrd %s %lld\n", m->sha, m->bytes) < 0)
		return -1;
	for (size_t i = 0; i < m->nparts; i++)
		if (buf_printf(out, "part %s %lld %s\n", m->parts[i].sha, m->parts[i].bytes,
			       m->parts[i].path) < 0)
			return -1;
	return 0;
}

/* 64 lowercase hex digits */
static int is_sha(const char *s, size_t n)
{
	if (n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* "SHA BYTES" at the start of l, the rest after them into *rest */
static int sha_bytes(const char *l, char sha[65], long long *bytes, const char **rest)
{
	const char *sp = strchr(l, ' '), *end;
	char num[24];

	if (!sp || !is_sha(l, (size_t)(sp - l)))
		return -1;
	memcpy(sha, l, 64);
	sha[64] = '\0';
	end = strchr(sp + 1, ' ');
	if (!end)
		end = sp + 1 + strlen(sp + 1);
	if ((size_t)(end - sp - 1) >= sizeof(num))
		return -1;
	memcpy(num, sp + 1, (size_t)(end - sp - 1));
	num[end - sp - 1] = '\0';
	if (parse_int(num, 0, 1LL << 50, bytes) < 0)
		return -1;
	*rest = *end ? end + 1 : end;
	return 0;
}

/* One line (NUL-terminated, no newline) into m */
static int parse_line(const char *l, const char *name, int ln, struct manifest *m, char **err)
{
	const char *rest;

	if (!*l || *l == '#')
		return 0;
	if (!strncmp(l, "initrd ", 7)) {
		if (sha_bytes(l + 7, m->sha, &m->bytes, &rest) < 0 || *rest)
			return set_errf(err, "%s:%d: expected 'initrd SHA256 BYTES'", name, ln);
		return 0;
	}
	if (strncmp(l, "part ", 5))
		return set_errf(err, "%s:%d: expected 'initrd', 'part' or a comment", name, ln);
	if (m->nparts == MANIFEST_PARTS_MAX)
		return set_errf(err, "%s:%d: more than %d parts", name, ln, MANIFEST_PARTS_MAX);
	{
		struct manifest_part *p = &m->parts[m->nparts];

		if (sha_bytes(l + 5, p->sha, &p->bytes, &rest) < 0 || !*rest)
			return set_errf(err, "%s:%d: expected 'part SHA256 BYTES PATH'", name, ln);
		p->path = strdup(rest);
		if (!p->path)
			return set_errf(err, "%s:%d: out of memory", name, ln);
		m->nparts++;
	}
	return 0;
}

int manifest_parse(const char *text, size_t len, const char *name, struct manifest *m,
		   char **err)
{
	char line[4200];
	int ln = 0;

	memset(m, 0, sizeof(*m));
	for (size_t off = 0; off < len; ) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - text - off) : len - off;

		ln++;
		if (n >= sizeof(line) || memchr(text + off, '\0', n))
			return set_errf(err, "%s:%d: not a line of text under %zu bytes", name, ln,
					sizeof(line));
		memcpy(line, text + off, n);
		line[n] = '\0';
		if (parse_line(line, name, ln, m, err) < 0)
			return -1;
		off += n + 1;
	}
	if (!m->sha[0])
		return set_errf(err, "%s: no 'initrd' line", name);
	if (!m->nparts)
		return set_errf(err, "%s: no parts", name);
	{
		long long sum = 0;

		for (size_t i = 0; i < m->nparts; i++)
			sum += m->parts[i].bytes;
		if (sum != m->bytes)
			return set_errf(err, "%s: the parts add up to %lld bytes, the initrd has %lld",
					name, sum, m->bytes);
	}
	return 0;
}

void manifest_release(struct manifest *m)
{
	for (size_t i = 0; i < m->nparts; i++)
		free(m->parts[i].path);
	memset(m, 0, sizeof(*m));
}
