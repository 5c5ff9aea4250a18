// SPDX-License-Identifier: GPL-2.0-only
/* channel.c: reads the agent channel file while the guest runs. QEMU
 * appends to it; this picks up the new bytes, splits them into lines of at
 * most FRAME_MAX_LINE, decodes frames, writes the command's output to
 * output.txt (capped) and remembers hello and exit. Everything here comes
 * from the guest and is treated as untrusted. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

void channel_init(struct channel *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->out_fd = ch->res_fd = -1;
}

int channel_open(struct channel *ch, const char *path, const char *output_path,
		 unsigned long long output_max)
{
	channel_init(ch);
	ch->path = path;
	buf_init(&ch->line, FRAME_MAX_LINE);
	ch->out_max = output_max;
	ch->res_fd = -1;
	ch->out_fd = open(output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	return ch->out_fd < 0 ? -1 : 0;
}

void channel_release(struct channel *ch)
{
	if (ch->out_fd >= 0)
		close(ch->out_fd);
	ch->out_fd = -1;
	if (ch->res_fd >= 0)
		close(ch->res_fd);
	ch->res_fd = -1;
	free(ch->res_path);
	ch->res_path = NULL;
	buf_release(&ch->line);
}

int channel_results(struct channel *ch, const char *path, unsigned long long cap)
{
	unlink(path);
	ch->res_path = strdup(path);
	if (!ch->res_path)
		return -1;
	ch->res_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ch->res_cap = cap;
	return ch->res_fd < 0 ? -1 : 0;
}

static void res_broken(struct channel *ch, const char *why)
{
	if (ch->res_state == CHANNEL_RES_BROKEN)
		return;
	ch->res_state = CHANNEL_RES_BROKEN;
	snprintf(ch->res_why, sizeof(ch->res_why), "%s", why);
	if (ch->res_fd >= 0)
		close(ch->res_fd);
	ch->res_fd = -1;
}

/* A chunk of the archive; in_order: no frame was lost before it */
static void res_chunk(struct channel *ch, const struct frame *f, int in_order)
{
	if (ch->res_state != CHANNEL_RES_NONE && ch->res_state != CHANNEL_RES_PART)
		return;
	if (ch->res_fd < 0)
		return;                 /* not asked for: a job without results */
	if (!in_order)
		return res_broken(ch, "a frame of the archive was lost");
	if (ch->res_len + f->len > ch->res_cap)
		return res_broken(ch, "the archive passed its limit");
	if (fd_write_all(ch->res_fd, f->payload, f->len) < 0) {
		ch->res_werr = errno;
		return res_broken(ch, strerror(errno));
	}
	ch->res_len += f->len;
	ch->res_state = CHANNEL_RES_PART;
}

/* The archive's end: what the agent says it sent must be what came */
static void res_end(struct channel *ch, const struct frame *f, int in_order)
{
	const char *p = (const char *)f->payload, *z;
	unsigned long long size;
	char *end;

	if (ch->res_fd < 0 || (ch->res_state != CHANNEL_RES_NONE &&
			       ch->res_state != CHANNEL_RES_PART))
		return;
	snprintf(ch->res_why, sizeof(ch->res_why), "%.*s", (int)f->len, p);
	if (!in_order)
		return res_broken(ch, "a frame of the archive was lost");
	if (!strcmp(p, "missing")) {
		ch->res_state = CHANNEL_RES_MISSING;
	} else if (!strncmp(p, "over ", 5) || !strncmp(p, "error=", 6)) {
		ch->res_state = CHANNEL_RES_OVER;
	} else if (!strncmp(p, "ok ", 3) && (z = strstr(p, " size=")) &&
		   (size = strtoull(z + 6, &end, 10), *end == '\0' || *end == ' ') &&
		   size == ch->res_len && ch->res_len) {
		ch->res_state = CHANNEL_RES_DONE;
	} else {
		return res_broken(ch, "the archive's end does not match what came");
	}
	close(ch->res_fd);
	ch->res_fd = -1;
}

static void output(struct channel *ch, const void *p, size_t n)
{
	if (ch->out_len + n > ch->out_max) {
		n = ch->out_max - ch->out_len;
		ch->out_capped = 1;
	}
	if (!n || ch->out_werr)
		return;
	if (fd_write_all(ch->out_fd, p, n) < 0)
		ch->out_werr = errno;
	else
		ch->out_len += n;
}

static void hello(struct channel *ch, const char *payload)
{
	char *copy = strdup(payload), *save = NULL;
	long long v;

	if (!copy)
		return;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '=');

		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(l, "release"))
			snprintf(ch->release, sizeof(ch->release), "%s", eq);
		else if (!strcmp(l, "nproc") && parse_int(eq, 1, CHANNEL_NPROC_MAX, &v) == 0)
			ch->nproc = (int)v;
		else if (!strcmp(l, "mem_kb") && parse_int(eq, 0, CHANNEL_MEM_KB_MAX, &v) == 0)
			ch->mem_kb = v;
	}
	free(copy);
	ch->hello = 1;
}

/* One complete line; returns 1 when it was a hello or an exit. */
static int handle_line(struct channel *ch, const char *l, size_t n)
{
	struct frame *f = malloc(sizeof(*f));
	const char *why = NULL;
	int news = 0, in_order;

	if (!f)
		return 0;
	switch (frame_decode(l, n, f, &why)) {
	case FRAME_NOT_FRAME:
		ch->noise_lines++;
		goto out;
	case FRAME_BAD:
		ch->bad_frames++;
		if (ch->bad_frames <= 5)
			log_warn("channel '%s': bad frame: %s", ch->path, why ? why : "?");
		goto out;
	case FRAME_OK:
		break;
	}
	/* within the archive's frames no seq may be skipped; a chunk lost
	 * before the first one is caught by the end's size */
	in_order = f->seq == ch->next_seq || ch->res_state == CHANNEL_RES_NONE;
	if (f->seq != ch->next_seq) {
		ch->bad_frames++;
		log_warn("channel '%s': frame %u out of order (expected %u)", ch->path,
			 f->seq, ch->next_seq);
	}
	ch->next_seq = f->seq + 1;
	switch (f->type) {
	case FRAME_HELLO:
		if (!ch->hello) {
			hello(ch, (const char *)f->payload);
			news = 1;
		}
		break;
	case FRAME_OUT:
		if (!ch->exited)
			output(ch, f->payload, f->len);
		break;
	case FRAME_TRUNC: {
		/* a count from the guest: bounded, never negative, saturating */
		char *end;
		long long cnt = strtoll((const char *)f->payload, &end, 10);

		if (cnt > 0 && *end == '\0')
			ch->truncated = cnt > LLONG_MAX - ch->truncated ? LLONG_MAX :
					ch->truncated + cnt;
		else
			ch->bad_frames++;
		break;
	}
	case FRAME_RES:
		res_chunk(ch, f, in_order);
		break;
	case FRAME_RES_END:
		res_end(ch, f, in_order);
		break;
	case FRAME_EXIT:
		if (!ch->exited) {
			size_t k = f->len < sizeof(ch->exit_payload) - 1 ?
				   f->len : sizeof(ch->exit_payload) - 1;

			memcpy(ch->exit_payload, f->payload, k);
			ch->exit_payload[k] = '\0';
			ch->exited = 1;
			news = 1;
		}
		break;
	default:
		break;
	}
out:
	free(f);
	return news;
}

int channel_poll(struct channel *ch)
{
	char chunk[16384];
	int fd = open(ch->path, O_RDONLY | O_CLOEXEC), news = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	for (;;) {
		ssize_t r = pread(fd, chunk, sizeof(chunk), ch->offset);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		ch->offset += r;
		for (ssize_t i = 0; i < r; i++) {
			char c = chunk[i];

			if (c != '\n') {
				if (ch->overlong)
					continue;
				if (buf_append(&ch->line, &c, 1) < 0) {
					ch->overlong = 1;
					ch->noise_lines++;
				}
				continue;
			}
			if (!ch->overlong)
				news |= handle_line(ch, buf_str(&ch->line), ch->line.len);
			ch->overlong = 0;
			buf_reset(&ch->line);
		}
	}
	close(fd);
	return news;
}

/* Is this line a RES frame ("KF1 <seq> res ...")? Only its shape is looked
 * at: the file was decoded already. */
static int is_res_line(const char *l, size_t n)
{
	const char *p = l, *e = l + n;

	if (n < 4 || memcmp(p, FRAME_MAGIC " ", 4))
		return 0;
	for (p += 4; p < e && *p >= '0' && *p <= '9'; p++)
		;
	return e - p > 5 && !memcmp(p, " res ", 5);
}

int channel_drop_results(const char *path)
{
	char *tmp = NULL, *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *in = NULL, *out = NULL;
	int fd = -1, rc = -1;

	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -1;
	in = fopen(path, "re");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (!in || fd < 0 || !(out = fdopen(fd, "w")))
		goto out;
	fd = -1;
	while ((n = getline(&line, &cap, in)) > 0)
		if (!is_res_line(line, (size_t)n) && fwrite(line, 1, (size_t)n, out) != (size_t)n)
			goto out;
	if (ferror(in) || fflush(out) != 0)
		goto out;
	rc = rename(tmp, path);
out:
	if (rc < 0)
		unlink(tmp);
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
	if (in)
		fclose(in);
	free(line);
	free(tmp);
	return rc;
}
