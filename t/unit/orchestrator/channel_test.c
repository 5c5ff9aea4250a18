// SPDX-License-Identifier: GPL-2.0-only
/* channel_test.c: unit tests for channel_open/channel_poll
 * (orchestrator/channel.c), which follow the agent channel file QEMU
 * appends to while the guest runs. Frames made with frame_encode() are
 * appended in pieces, split mid-line between polls, mixed with noise,
 * corrupted, over-long and out of order; the channel must keep hello, exit
 * and the output (capped) straight and count what it dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/frame.h"
#include "common/log.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

struct fixture {
	char dir[128];
	char *chan;          /* dir/channel.log, what the "guest" writes */
	char *out;           /* dir/output.txt */
	struct channel ch;
	uint32_t seq;        /* next seq the fake agent uses */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "channel");
	f->chan = tu_path(f->dir, "channel.log");
	f->out = tu_path(f->dir, "output.txt");
	tu_write(f->chan, "", 0, 0);
	if (channel_open(&f->ch, f->chan, f->out, 1 << 20) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	channel_release(&f->ch);
	tu_rmrf(f->dir);
	free(f->chan);
	free(f->out);
	free(f);
	return 0;
}

static void append(struct fixture *f, const void *p, size_t n)
{
	tu_write(f->chan, p, n, 1);
}

static void append_str(struct fixture *f, const char *s)
{
	append(f, s, strlen(s));
}

/* Encodes the next frame of the fake agent into line; returns its length */
static int frame(struct fixture *f, char *line, enum frame_type t, const void *p, size_t n)
{
	int len = frame_encode(line, f->seq++, t, p, n);

	assert_true(len > 0);
	return len;
}

static void send(struct fixture *f, enum frame_type t, const char *payload)
{
	char line[FRAME_MAX_LINE + 1];
	int len = frame(f, line, t, payload, strlen(payload));

	append(f, line, (size_t)len);
}

static char *output(struct fixture *f, size_t *n)
{
	char *s = tu_slurp(f->out, n);

	assert_non_null(s);
	return s;
}

static void test_hello_split_mid_line(void **state)
{
	struct fixture *f = *state;
	const char *hello = "release=6.1.0-21-amd64\nnproc=4\nmem_kb=2012345\nuptime_ms=1234\n";
	char line[FRAME_MAX_LINE + 1];
	int len = frame(f, line, FRAME_HELLO, hello, strlen(hello)), cut = len / 2;

	/* nothing yet: the file is empty, and a missing file is not an error */
	assert_int_equal(channel_poll(&f->ch), 0);
	append(f, line, (size_t)cut);
	assert_int_equal(channel_poll(&f->ch), 0);
	assert_int_equal(f->ch.hello, 0);
	append(f, line + cut, (size_t)(len - cut));
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_int_equal(f->ch.hello, 1);
	assert_string_equal(f->ch.release, "6.1.0-21-amd64");
	assert_int_equal(f->ch.nproc, 4);
	assert_int_equal(f->ch.mem_kb, 2012345);
	assert_int_equal(f->ch.bad_frames, 0);
	assert_int_equal(f->ch.noise_lines, 0);
	assert_int_equal(f->ch.offset, len);
	/* nothing new: 0 */
	assert_int_equal(channel_poll(&f->ch), 0);
	/* a second hello is not news and changes nothing */
	send(f, FRAME_HELLO, "release=evil\nnproc=99\n");
	assert_int_equal(channel_poll(&f->ch), 0);
	assert_string_equal(f->ch.release, "6.1.0-21-amd64");
	assert_int_equal(f->ch.nproc, 4);
}

/* The hello's numbers are the guest's: one that does not parse, or is out
 * of range, is left 0 as if it were missing (atoi took "4x" as 4) */
static void test_hello_malformed_numbers(void **state)
{
	static const char *const bad[] = {
		"nproc=4x\nmem_kb=12kB\n", "nproc=\nmem_kb=\n", "nproc=-1\nmem_kb=-5\n",
		"nproc=0\nmem_kb=99999999999999999999\n", "nproc= 4\nmem_kb=0x10\n",
		"nproc=16385\nmem_kb=1099511627777\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fixture *f = *state;
		struct channel ch;
		char line[FRAME_MAX_LINE + 1];
		int len = frame_encode(line, 0, FRAME_HELLO, bad[i], strlen(bad[i]));

		tu_write(f->chan, line, (size_t)len, 0);
		assert_int_equal(channel_open(&ch, f->chan, f->out, 1 << 20), 0);
		assert_int_equal(channel_poll(&ch), 1);
		assert_int_equal(ch.hello, 1);
		if (ch.nproc != 0 || ch.mem_kb != 0)
			fail_msg("'%s': nproc %d, mem_kb %lld", bad[i], ch.nproc,
				 (long long)ch.mem_kb);
		channel_release(&ch);
	}
}

static void test_missing_channel_file(void **state)
{
	struct fixture *f = *state;

	unlink(f->chan);
	assert_int_equal(channel_poll(&f->ch), 0);
	send(f, FRAME_HELLO, "release=x\n");
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_string_equal(f->ch.release, "x");
}

static void test_output_in_order(void **state)
{
	struct fixture *f = *state;
	struct buf want = BUF_INIT(0), all = BUF_INIT(0);
	char *got;
	size_t n;

	send(f, FRAME_HELLO, "release=6.1\nnproc=1\nmem_kb=1000\n");
	for (int i = 0; i < 200; i++) {
		char chunk[64], line[FRAME_MAX_LINE + 1];
		int len;

		snprintf(chunk, sizeof(chunk), "chunk %03d: %s\n", i, i % 2 ? "odd" : "even");
		buf_puts(&want, chunk);
		len = frame(f, line, FRAME_OUT, chunk, strlen(chunk));
		buf_append(&all, line, (size_t)len);
	}
	/* the frames arrive in odd-sized pieces, polled after each */
	for (size_t off = 0; off < all.len; off += 777) {
		size_t k = all.len - off < 777 ? all.len - off : 777;

		append(f, all.data + off, k);
		channel_poll(&f->ch);
	}
	assert_int_equal(f->ch.hello, 1);
	assert_int_equal(f->ch.exited, 0);
	got = output(f, &n);
	assert_int_equal(n, want.len);
	assert_string_equal(got, want.data);
	assert_int_equal(f->ch.out_len, want.len);
	assert_int_equal(f->ch.out_capped, 0);
	assert_int_equal(f->ch.bad_frames, 0);
	free(got);
	buf_release(&want);
	buf_release(&all);
}

static void test_binary_output(void **state)
{
	struct fixture *f = *state;
	unsigned char bin[FRAME_MAX_PAYLOAD];
	char line[FRAME_MAX_LINE + 1], *got;
	int len;
	size_t n;

	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 13);
	len = frame(f, line, FRAME_OUT, bin, sizeof(bin));  /* the biggest frame */
	append(f, line, (size_t)len);
	assert_int_equal(channel_poll(&f->ch), 0);
	got = output(f, &n);
	assert_int_equal(n, sizeof(bin));
	assert_memory_equal(got, bin, sizeof(bin));
	assert_int_equal(f->ch.bad_frames, 0);
	assert_int_equal(f->ch.noise_lines, 0);
	free(got);
}

static void test_exit(void **state)
{
	struct fixture *f = *state;
	char *got;
	size_t n;

	send(f, FRAME_HELLO, "release=6.1\n");
	send(f, FRAME_OUT, "hello\n");
	send(f, FRAME_TRUNC, "4096");
	send(f, FRAME_TRUNC, "10");
	send(f, FRAME_EXIT, "code=3");
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_int_equal(f->ch.exited, 1);
	assert_string_equal(f->ch.exit_payload, "code=3");
	assert_int_equal(f->ch.truncated, 4106);
	/* after the exit, output and another exit are ignored */
	send(f, FRAME_OUT, "late\n");
	send(f, FRAME_EXIT, "code=0");
	assert_int_equal(channel_poll(&f->ch), 0);
	assert_string_equal(f->ch.exit_payload, "code=3");
	got = output(f, &n);
	assert_string_equal(got, "hello\n");
	free(got);
}

static void test_exit_payload_bounded(void **state)
{
	struct fixture *f = *state;
	char msg[600];

	memset(msg, 'e', sizeof(msg) - 1);
	memcpy(msg, "error=", 6);
	msg[sizeof(msg) - 1] = '\0';
	send(f, FRAME_EXIT, msg);
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_int_equal(strlen(f->ch.exit_payload), sizeof(f->ch.exit_payload) - 1);
	assert_memory_equal(f->ch.exit_payload, msg, sizeof(f->ch.exit_payload) - 1);
}

static void test_output_capped(void **state)
{
	struct fixture *f = *state;
	char chunk[1000], *got;
	size_t n;

	channel_release(&f->ch);
	assert_int_equal(channel_open(&f->ch, f->chan, f->out, 2500), 0);
	memset(chunk, 'x', sizeof(chunk) - 1);
	chunk[sizeof(chunk) - 1] = '\0';
	send(f, FRAME_OUT, chunk);
	send(f, FRAME_OUT, chunk);
	channel_poll(&f->ch);
	assert_int_equal(f->ch.out_capped, 0);
	assert_int_equal(f->ch.out_len, 1998);
	send(f, FRAME_OUT, chunk);
	send(f, FRAME_OUT, chunk);
	send(f, FRAME_EXIT, "code=0");
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_int_equal(f->ch.out_capped, 1);
	assert_int_equal(f->ch.out_len, 2500);
	assert_int_equal(f->ch.exited, 1);   /* frames after the cap still count */
	got = output(f, &n);
	assert_int_equal(n, 2500);
	assert_int_equal(strspn(got, "x"), 2500);
	free(got);
}

/* output.txt cannot be written (/dev/full: ENOSPC, as a full disk): the
 * channel says so, which ends the run as an infrastructure failure
 * (orchestrator/run.c), and still reads the frames after it */
static void test_output_write_error(void **state)
{
	struct fixture *f = *state;

	channel_release(&f->ch);
	assert_int_equal(channel_open(&f->ch, f->chan, "/dev/full", 1 << 20), 0);
	send(f, FRAME_HELLO, "release=6.1\n");
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_int_equal(f->ch.out_werr, 0);
	send(f, FRAME_OUT, "hello\n");
	send(f, FRAME_OUT, "again\n");
	send(f, FRAME_EXIT, "code=0");
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_int_equal(f->ch.out_werr, ENOSPC);
	assert_int_equal(f->ch.out_len, 0);
	assert_int_equal(f->ch.exited, 1);
}

static void test_noise_lines(void **state)
{
	struct fixture *f = *state;
	char *got;
	size_t n;

	append_str(f, "[    0.770000] Run /init as init process\n");
	send(f, FRAME_HELLO, "release=6.1\n");
	append_str(f, "random noise\n\n\r\nKF0 1 out 00000000\n");
	send(f, FRAME_OUT, "a");
	append_str(f, "KF1");   /* the start of a frame, then the line goes bad */
	append_str(f, "x more noise\n");
	send(f, FRAME_OUT, "b");
	assert_int_equal(channel_poll(&f->ch), 1);
	/* the boot line, "random noise", "", "\r", "KF0 ...", "KF1x more noise" */
	assert_int_equal(f->ch.noise_lines, 6);
	assert_int_equal(f->ch.bad_frames, 0);
	got = output(f, &n);
	assert_string_equal(got, "ab");
	free(got);
}

static void test_bad_crc(void **state)
{
	struct fixture *f = *state;
	char line[FRAME_MAX_LINE + 1], *got, *crc;
	int len;
	size_t n;

	send(f, FRAME_OUT, "good 1\n");
	len = frame(f, line, FRAME_OUT, "evil\n", 5);
	crc = line + strlen("KF1 1 out ");
	crc[0] = crc[0] == '0' ? '1' : '0';
	append(f, line, (size_t)len);
	channel_poll(&f->ch);
	assert_int_equal(f->ch.bad_frames, 1);
	assert_int_equal(f->ch.noise_lines, 0);
	/* the agent goes on with the next seq: only the bad frame is lost, and
	 * the gap it left is counted too */
	send(f, FRAME_OUT, "good 2\n");
	channel_poll(&f->ch);
	assert_int_equal(f->ch.bad_frames, 2);
	assert_int_equal(f->ch.next_seq, 3);
	got = output(f, &n);
	assert_string_equal(got, "good 1\ngood 2\n");
	free(got);
}

static void test_overlong_line(void **state)
{
	struct fixture *f = *state;
	size_t big = FRAME_MAX_LINE * 3 + 17;
	char *junk = malloc(big + 1), *got;
	size_t n;

	assert_non_null(junk);
	/* starts like a frame, so that a cut one would look like a bad frame */
	memset(junk, 'a', big);
	memcpy(junk, "KF1 0 out ", 10);
	junk[big] = '\n';
	send(f, FRAME_OUT, "before\n");
	/* the long line in pieces across polls */
	append(f, junk, big / 2);
	channel_poll(&f->ch);
	append(f, junk + big / 2, big + 1 - big / 2);
	channel_poll(&f->ch);
	send(f, FRAME_OUT, "after\n");
	channel_poll(&f->ch);
	assert_int_equal(f->ch.noise_lines, 1);
	assert_int_equal(f->ch.bad_frames, 0);
	assert_int_equal(f->ch.overlong, 0);
	got = output(f, &n);
	assert_string_equal(got, "before\nafter\n");
	free(got);
	free(junk);
}

/* A valid frame of the longest size is not mistaken for an over-long line */
static void test_longest_frame_fits(void **state)
{
	struct fixture *f = *state;
	char payload[FRAME_MAX_PAYLOAD + 1], line[FRAME_MAX_LINE + 1];
	int len;

	memset(payload, 'z', FRAME_MAX_PAYLOAD);
	payload[FRAME_MAX_PAYLOAD] = '\0';
	len = frame_encode(line, 4294967295U, FRAME_HELLO, payload, FRAME_MAX_PAYLOAD);
	assert_true(len > 2 * FRAME_MAX_PAYLOAD && len <= FRAME_MAX_LINE);
	f->ch.next_seq = 4294967295U;
	append(f, line, (size_t)len);
	channel_poll(&f->ch);
	assert_int_equal(f->ch.noise_lines, 0);
	assert_int_equal(f->ch.bad_frames, 0);
	assert_int_equal(f->ch.hello, 1);
	assert_int_equal(f->ch.next_seq, 0);   /* wraps */
}

static void test_out_of_order(void **state)
{
	struct fixture *f = *state;
	char *got;
	size_t n;

	send(f, FRAME_OUT, "0");
	send(f, FRAME_OUT, "1");
	f->seq = 5;                      /* frames 2..4 lost */
	send(f, FRAME_OUT, "5");
	send(f, FRAME_OUT, "6");
	f->seq = 3;                      /* a replay */
	send(f, FRAME_OUT, "3");
	send(f, FRAME_OUT, "4");
	channel_poll(&f->ch);
	/* the jump to 5 and the one back to 3, each counted once */
	assert_int_equal(f->ch.bad_frames, 2);
	assert_int_equal(f->ch.next_seq, 5);
	got = output(f, &n);
	assert_string_equal(got, "015634");
	free(got);
}

/* A frame with a \r\n ending (a tty in the path) still decodes */
static void test_crlf(void **state)
{
	struct fixture *f = *state;
	char line[FRAME_MAX_LINE + 2];
	int len = frame(f, line, FRAME_EXIT, "code=0", 6);

	line[len - 1] = '\r';
	line[len] = '\n';
	append(f, line, (size_t)len + 1);
	assert_int_equal(channel_poll(&f->ch), 1);
	assert_string_equal(f->ch.exit_payload, "code=0");
	assert_int_equal(f->ch.bad_frames, 0);
}

/* TRUNC counts come from the guest: huge or negative values must neither
 * overflow (undefined behaviour, fatal under UBSan) nor lower the count.
 * Run in a child so a sanitizer abort fails only this test. */
static void test_trunc_hostile_counts(void **state)
{
	struct fixture *f = *state;
	pid_t pid;
	int status;

	send(f, FRAME_TRUNC, "9223372036854775807");
	send(f, FRAME_TRUNC, "9223372036854775807");
	send(f, FRAME_TRUNC, "-5");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		channel_poll(&f->ch);
		_exit(f->ch.truncated >= 0 && f->ch.truncated >= 9223372036854775807LL ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("hostile TRUNC counts: child %s %d", WIFEXITED(status) ? "exited" :
			 "killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) :
			 WTERMSIG(status));
}

static void test_open_error(void **state)
{
	struct fixture *f = *state;
	struct channel ch;
	char *bad = tu_path(f->dir, "no/such/output.txt");

	assert_int_equal(channel_open(&ch, f->chan, bad, 100), -1);
	channel_release(&ch);
	free(bad);
}

/* A channel never opened (a run that ended before its guest started)
 * closes no file of others: fd 0 once went that way, from a zeroed
 * context, and SQLite's database with it. */
static void test_release_unopened(void **state)
{
	struct channel ch;
	int p[2], saved = dup(0);

	(void)state;
	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	channel_init(&ch);
	channel_release(&ch);
	channel_release(&ch);
	assert_int_not_equal(fcntl(0, F_GETFD), -1);
	assert_int_not_equal(fcntl(p[0], F_GETFD), -1);
	dup2(saved, 0);
	close(saved);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_hello_split_mid_line),
		T(test_hello_malformed_numbers),
		T(test_missing_channel_file),
		T(test_output_in_order),
		T(test_binary_output),
		T(test_exit),
		T(test_exit_payload_bounded),
		T(test_output_capped),
		T(test_output_write_error),
		T(test_noise_lines),
		T(test_bad_crc),
		T(test_overlong_line),
		T(test_longest_frame_fits),
		T(test_out_of_order),
		T(test_crlf),
		T(test_trunc_hostile_counts),
		T(test_open_error),
		T(test_release_unopened),
	};
#undef T

	/* the channel warns about every bad frame; keep the test output readable */
	log_init("channel_test", LOG_LVL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
