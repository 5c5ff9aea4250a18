/* SPDX-License-Identifier: GPL-2.0-only */
/* frame.h: the framing the in-guest agent uses to talk to kfleetd.
 * One frame is one text line on the agent channel (the guest's second serial
 * port, ttyS1, written to a file per run by QEMU):
 *
 *     KF1 <seq> <type> <crc32-hex8> <payload-hex>\n
 *
 * seq counts from 0 per boot, type is one of the words below, the CRC-32
 * (IEEE, zlib's polynomial) covers the raw payload bytes, the payload is at
 * most FRAME_MAX_PAYLOAD bytes, hex-encoded. Anything else on the channel is
 * noise: the decoder reports it and goes on. This file builds both into the
 * static agent (no libc beyond the basics) and into the daemon. */
#ifndef KF_FRAME_H
#define KF_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC "KF1"
#define FRAME_MAX_PAYLOAD 1024
/* longest valid line: magic, seq, type, crc, payload in hex, separators, \n */
#define FRAME_MAX_LINE (3 + 1 + 10 + 1 + 8 + 1 + 8 + 1 + 2 * FRAME_MAX_PAYLOAD + 1)

enum frame_type {
	FRAME_HELLO,  /* payload: key=value lines: release, nproc, mem_kb, uptime_ms */
	FRAME_OUT,    /* payload: a chunk of the command's stdout+stderr */
	FRAME_TRUNC,  /* payload: decimal count of output bytes the agent dropped */
	FRAME_EXIT,   /* payload: "code=N" | "signal=N" | "timeout=S" | "error=MSG" */
	FRAME_RES,    /* payload: a chunk of the results directory's tar archive
		       * (guest/agent_tar.h), sent after the command, before EXIT */
	FRAME_RES_END,/* payload: "ok files=F dirs=D bytes=B skipped=S size=Z" |
		       * "missing" | "over files=F bytes=B" | "error=MSG" */
	FRAME_TYPE_COUNT
};

const char *frame_type_name(enum frame_type t);

uint32_t frame_crc32(const void *p, size_t n);

/* Encodes one frame into out (at least FRAME_MAX_LINE + 1 bytes) and returns
 * the line length (with its \n, without the NUL), or -1 when n is too big. */
int frame_encode(char *out, uint32_t seq, enum frame_type t, const void *payload, size_t n);

struct frame {
	uint32_t seq;
	enum frame_type type;
	size_t len;
	unsigned char payload[FRAME_MAX_PAYLOAD + 1]; /* NUL after len bytes */
};

enum frame_result {
	FRAME_OK,
	FRAME_NOT_FRAME,   /* the line does not start with the magic: noise */
	FRAME_BAD,         /* starts like a frame but is malformed: see why */
};

/* Decodes one line (without its trailing \n; a trailing \r is ignored).
 * On FRAME_BAD, *why (if not NULL) points to a static reason string. */
enum frame_result frame_decode(const char *line, size_t n, struct frame *f, const char **why);

#endif
