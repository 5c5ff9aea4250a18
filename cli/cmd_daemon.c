// SPDX-License-Identifier: GPL-2.0-only
/* cmd_daemon.c: `kfleet reload` and `kfleet shutdown`, the daemon's own
 * controls, through POST /api/reload and POST /api/shutdown (web/control.c,
 * token): its config read again as on SIGHUP, each key that changed
 * printed; a stop as on SIGTERM, waited for until the daemon no longer
 * answers and, when it runs on this machine, its process is gone. Exit 0
 * done, 2 refused (a config with errors, no token), not answered, or a
 * daemon still there past the timeout. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"

#define SHUTDOWN_TIMEOUT_S 60
#define SHUTDOWN_POLL_US   200000

int cli_reload(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	json_t *ch;
	size_t i;
	char *token;
	int json = 0;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--json")) {
			json = 1;
		} else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			cli_help_print(stdout, "reload");
			return CLI_OK;
		} else {
			fprintf(stderr, "kfleet: reload: unknown argument '%s'\n", argv[a]);
			cli_help_print(stderr, "reload");
			return CLI_USAGE;
		}
	}
	if (!(token = cli_read_token(k)))
		return CLI_USAGE;
	if (cli_api_call(k, "POST", "/api/reload", NULL, token, &r) < 0) {
		fprintf(stderr, "kfleet: reload: %s\n", r.err);
		free(token);
		return CLI_USAGE;
	}
	free(token);
	if (json) {
		cli_print_json(r.j);
	} else {
		json_array_foreach(json_object_get(r.j, "changes"), i, ch)
			printf("%s\n", cli_jstr(ch, "line", "?"));
		printf("%s\n", cli_jstr(r.j, "summary", "?"));
	}
	json_decref(r.j);
	return CLI_OK;
}

/* Whether the URL names this machine (a loopback address or localhost) */
static int url_is_local(const char *url)
{
	const char *h = strstr(url, "://");
	size_t n;

	if (!h)
		return 0;
	h += 3;
	n = strcspn(h, "/");
	return !strncmp(h, "127.", 4) || !strncmp(h, "[::1]", 5) ||
	       (!strncmp(h, "localhost", 9) && (n == 9 || h[9] == ':'));
}

/* Whether process pid is a kfleetd still running here: 0 when it is gone
 * (or a zombie, its parent not told yet), or is another program (the
 * daemon's pid seen from another pid namespace) */
static int kfleetd_alive(long long pid)
{
	struct buf st = BUF_INIT(1024);
	const char *lp, *rp;
	char path[64];
	int alive;

	if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		return 0;
	/* "PID (COMM) STATE ..." */
	snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
	if (read_file(path, &st, 1023) < 0) {
		alive = errno != ENOENT;
		buf_release(&st);
		return alive;
	}
	lp = strchr(buf_str(&st), '(');
	rp = strrchr(buf_str(&st), ')');
	alive = lp && rp && rp - lp == 8 && !strncmp(lp, "(kfleetd) ", 10) &&
		rp[2] != 'Z' && rp[2] != 'X';
	buf_release(&st);
	return alive;
}

/* Waits until kfleetd (pid) no longer answers at k->url and, on this
 * machine, its process is gone, until deadline (mono_ms()): 0, or -1
 * after saying what is left */
static int wait_stopped(struct cli *k, long long pid, int64_t deadline, long long timeout)
{
	int answers = 1, local = url_is_local(k->url);
	struct resp r;

	while (mono_ms() < deadline) {
		if (answers) {
			answers = cli_api_call(k, "GET", "/api/health", NULL, NULL, &r) == 0 ||
				  r.status != 0;
			json_decref(r.j);
		}
		if (!answers && (!local || !kfleetd_alive(pid)))
			return 0;
		usleep(SHUTDOWN_POLL_US);
	}
	if (answers)
		fprintf(stderr, "kfleet: shutdown: kfleetd (pid %lld) still answers at '%s' after "
			"%lld s\n", pid, k->url, timeout);
	else
		fprintf(stderr, "kfleet: shutdown: kfleetd no longer answers, but its process "
			"(pid %lld) is still there after %lld s\n", pid, timeout);
	return -1;
}

int cli_shutdown(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long timeout = SHUTDOWN_TIMEOUT_S, pid;
	struct resp r = { 0 };
	int c, wait = 1;
	int64_t t0;
	char *token;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': wait = 0; break;
		case 't':
			if (cli_parse_num(k->cmd, "--timeout", optarg, 1, 3600, &timeout) < 0)
				return CLI_USAGE;
			break;
		case 'h':
			cli_help_print(stdout, "shutdown");
			return CLI_OK;
		default:
			cli_help_print(stderr, "shutdown");
			return CLI_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "kfleet: shutdown: unknown argument '%s'\n", argv[optind]);
		cli_help_print(stderr, "shutdown");
		return CLI_USAGE;
	}
	if (!(token = cli_read_token(k)))
		return CLI_USAGE;
	t0 = mono_ms();
	c = cli_api_call(k, "POST", "/api/shutdown", NULL, token, &r);
	free(token);
	if (c < 0) {
		fprintf(stderr, "kfleet: shutdown: %s\n", r.err);
		return CLI_USAGE;
	}
	pid = cli_jint(r.j, "pid", 0);
	json_decref(r.j);
	if (!wait) {
		printf("kfleetd (pid %lld) is stopping\n", pid);
		return CLI_OK;
	}
	if (wait_stopped(k, pid, t0 + timeout * 1000, timeout) < 0)
		return CLI_USAGE;
	printf("kfleetd (pid %lld) stopped\n", pid);
	return CLI_OK;
}
