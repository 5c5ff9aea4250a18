// SPDX-License-Identifier: GPL-2.0-only
/* kfleetd.c: the daemon's main(): reads the config (or uses the embedded
 * defaults), checks it (-n), takes the state directory's pid file, then
 * starts the orchestrator (database, libvirt hosts, workers) and the web
 * server, and runs until SIGINT or SIGTERM (or kfleet shutdown); SIGHUP
 * (or kfleet reload) reads the config again (reload.c). Only this file may
 * exit on an error. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "common/log.h"
#include "common/pidfile.h"
#include "common/util.h"
#include "config/config.h"
#include "daemon/reload.h"
#include "orchestrator/orchestrator.h"
#include "watch/watch.h"
#include "web/web.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: kfleetd [-c CONFIG] [-n [-v]] [-d] [-l LOGFILE]\n"
		"  -c CONFIG   read this INI file (default: the embedded defaults; installed,\n"
		"              SYSCONFDIR/kfleet/kfleetd.conf if it exists: /etc/kfleet/kfleetd.conf\n"
		"              from the Debian package)\n"
		"  -n          check the configuration and exit; with -v print it normalised\n"
		"  -d          debug logging\n"
		"  -l LOGFILE  log to this file instead of stderr\n");
}

/* Reads the token, or makes one (0600) on first start. Returns it, caller frees. */
static char *load_token(const char *path)
{
	struct buf b = BUF_INIT(256);
	unsigned char r[24];
	char hex[49];
	int fd;

	if (read_file(path, &b, 255) == 0 && b.len >= 16) {
		while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r'))
			b.data[--b.len] = '\0';
		return buf_detach(&b);
	}
	buf_release(&b);
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return NULL;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (write(fd, hex, 48) != 48 || write(fd, "\n", 1) != 1) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	return strdup(hex);
}

/* Blocks the signals kfleetd stops on (and SIGHUP) in every thread, into set */
static void block_signals(sigset_t *set)
{
	/* Signals go to sigwait() in serve(), not to whichever thread runs. */
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* POST /api/reload: as SIGHUP */
static int web_reload(void *arg, struct json_t **answer, char **err)
{
	return reload_run(arg, answer, err);
}

/* POST /api/shutdown, its answer sent: SIGTERM to the process, which every
 * thread blocks, so that serve()'s sigwait() takes it */
static void web_shutdown(void *arg)
{
	(void)arg;
	kill(getpid(), SIGTERM);
}

/* Starts the web server on o and bd, reloads through rl. *allowed gets the
 * host list it was given when it had to be made (caller frees, after
 * web_stop()). */
static struct web *start_web(struct config *c, struct orch *o, struct bisect_driver *bd,
			     struct reload *rl, const char *token, char **allowed, char **e)
{
	struct web_opts wo;

	memset(&wo, 0, sizeof(wo));
	wo.listen_addr = c->listen_addr;
	wo.port = c->listen_port;
	wo.db_path = orch_db_path(o);
	wo.token = token;
	wo.orch = o;
	wo.bisect = bd;
	wo.kcidb_origin = c->kcidb_origin;
	/* the public URL's name is one a request may give */
	if (c->public_host &&
	    asprintf(allowed, "%s%s%s", c->allowed_hosts ? c->allowed_hosts : "",
		     c->allowed_hosts ? " " : "", c->public_host) < 0)
		*allowed = NULL;
	wo.allowed_hosts = *allowed ? *allowed : c->allowed_hosts;
	wo.public_url = c->public_url;
	wo.reload = web_reload;
	wo.shutdown = web_shutdown;
	wo.control_arg = rl;
	return web_start(&wo, e);
}

/* Tells the orchestrator the URL runs link to: the public one, else ours */
static void set_url(struct config *c, struct orch *o, struct web *w)
{
	char url[160];

	snprintf(url, sizeof(url), "http://%s%s%s:%d", strchr(c->listen_addr, ':') ? "[" : "",
		 c->listen_addr, strchr(c->listen_addr, ':') ? "]" : "", web_port(w));
	orch_set_url(o, c->public_url ? c->public_url : url);
}

/* Waits for SIGINT or SIGTERM, reading the config again through rl on
 * each SIGHUP. Returns the signal. */
static int wait_stop_signal(const sigset_t *set, struct reload *rl)
{
	int sig;

	for (;;) {
		if (sigwait(set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			log_info("SIGHUP: reading the config again");
			reload_run(rl, NULL, NULL);   /* it says what changed, or why nothing did */
			continue;
		}
		return sig;
	}
}

/* Starts the orchestrator and the web server on config c, read from
 * conf_path (NULL: the embedded defaults; -d: debug), serves until SIGINT
 * or SIGTERM, stops both. Returns the exit status. */
static int serve(struct config *c, const char *conf_path, int debug)
{
	char *e = NULL, *token = NULL, *token_path = NULL, *allowed = NULL, exposed[512];
	struct reload *rl = NULL;
	struct orch *o = NULL;
	struct bisect_driver *bd = NULL;
	struct web *w = NULL;
	sigset_t set;
	int sig, rc = 1;

	block_signals(&set);
	if (!(rl = reload_new(c, conf_path, debug))) {
		log_error("out of memory");
		goto out;
	}
	if (!(o = orch_new(c, &e))) {
		log_error("%s", e ? e : "cannot start");
		goto out;
	}
	token_path = config_token_path(c);
	token = token_path ? load_token(token_path) : NULL;
	if (!token) {
		log_error("token '%s': %s", token_path ? token_path : "?", strerror(errno));
		goto out;
	}
	if (!(bd = bisect_driver_start(o, c, &e))) {
		log_error("bisect: %s", e ? e : "cannot start");
		goto out;
	}
	if (!(w = start_web(c, o, bd, rl, token, &allowed, &e))) {
		log_error("web: %s", e ? e : "cannot start");
		goto out;
	}
	set_url(c, o, w);
	if (orch_start(o) < 0 || watcher_start(o) < 0) {
		log_error("cannot start the workers");
		goto out;
	}
	if (config_listen_exposed(c, exposed, sizeof(exposed)))
		log_warn("%s", exposed);
	log_info("kfleetd ready: http://%s%s%s:%d/ (pid %ld, state '%s', token in '%s')",
		 strchr(c->listen_addr, ':') ? "[" : "", c->listen_addr,
		 strchr(c->listen_addr, ':') ? "]" : "", web_port(w), (long)getpid(),
		 c->state_dir, token_path);
	sig = wait_stop_signal(&set, rl);
	log_info("signal %d: stopping", sig);
	rc = 0;
out:
	web_stop(w);
	bisect_driver_stop(bd);
	if (o)
		watcher_stop(o);
	orch_free(o);
	reload_free(rl);
	free(e);
	free(token);
	free(token_path);
	free(allowed);
	return rc;
}

/* Locks state_dir/kfleetd.pid for the daemon's life (the directory made
 * when missing): 0, or -1 after saying why not (another kfleetd on it) */
static int take_pidfile(const struct config *c, struct pidfile *pf)
{
	char *dir = path_abs(c->state_dir), *path = dir ? path_join(dir, "kfleetd.pid") : NULL;
	pid_t other = 0;
	int rc = -1;

	pf->fd = -1;
	pf->path = NULL;
	if (!path)
		log_error("out of memory");
	else if (mkdir_p(dir, 0755) < 0)
		log_error("state directory '%s': %s", dir, strerror(errno));
	else if (pidfile_lock(pf, path, &other) == 0)
		rc = 0;
	else if (errno == EWOULDBLOCK && other > 0)
		log_error("state directory '%s' is in use by another kfleetd, pid %ld (it holds "
			  "'%s'): stop it first (kfleet shutdown), or give this one another "
			  "state_dir", dir, (long)other, path);
	else if (errno == EWOULDBLOCK)
		log_error("state directory '%s' is in use by another kfleetd, starting (it holds "
			  "'%s', its pid not written yet)", dir, path);
	else
		log_error("pid file '%s': %s", path, strerror(errno));
	free(dir);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	struct config c;
	struct pidfile pf;
	struct buf err = BUF_INIT(64 * 1024);
	const char *conf_path = NULL, *log_path = NULL;
	char *default_conf = NULL;
	int check = 0, verbose = 0, debug = 0, opt, rc, fd;

	/* fds 0-2 open (/dev/null where a parent closed them): a file kfleetd
	 * opened there would take stray writes, and SQLite closes a database
	 * it finds there, dropping the process's locks on it */
	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	log_init("kfleetd", LOG_LVL_INFO);
	while ((opt = getopt(argc, argv, "c:nvdl:h")) != -1) {
		switch (opt) {
		case 'c': conf_path = optarg; break;
		case 'n': check = 1; break;
		case 'v': verbose = 1; break;
		case 'd': debug = 1; break;
		case 'l': log_path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	/* its [watch NAME] sections mean what watch/ says */
	watch_config_register();
	if (config_defaults(&c) < 0) {
		fprintf(stderr, "kfleetd: out of memory\n");
		return 1;
	}
	/* installed, with no -c: SYSCONFDIR/kfleet/kfleetd.conf when there is one */
	if (!conf_path)
		conf_path = default_conf = config_default_file(&c);
	if (conf_path && config_load(&c, conf_path, &err) < 0) {
		fputs(buf_str(&err), stderr);
		fprintf(stderr, "kfleetd: configuration '%s' has errors\n", conf_path);
		return 1;
	}
	if (check) {
		char *reach = NULL, exposed[512];
		unsigned bu, bg;

		if (c.build_sandbox && geteuid() == 0 && config_build_user(&c, &bu, &bg) < 0)
			fprintf(stderr, "kfleetd: warning: [build] user '%s': no such user (not root): "
				"builds will fail until it is made (useradd --system --user-group "
				"--no-create-home %s) or another is named\n", c.build_user,
				c.build_user);

		if (orch_qemu_reach(&c, &reach) < 0) {
			fprintf(stderr, "kfleetd: %s\n", reach);
			free(reach);
			config_release(&c);
			return 1;
		}
		/* a warning, not an error: a fleet behind a firewall may mean it */
		if (config_listen_exposed(&c, exposed, sizeof(exposed)))
			fprintf(stderr, "kfleetd: warning: %s\n", exposed);
		if (verbose)
			config_print(&c, stdout);
		else
			printf("configuration %s: ok\n", conf_path ? conf_path : "(embedded defaults)");
		config_release(&c);
		free(default_conf);
		return 0;
	}
	log_set_level(debug ? LOG_LVL_DEBUG : c.log_level);
	if (log_path && log_to_file(log_path) < 0) {
		fprintf(stderr, "kfleetd: log file '%s': %s\n", log_path, strerror(errno));
		return 1;
	}
	rc = take_pidfile(&c, &pf) < 0 ? 1 : serve(&c, conf_path, debug);
	pidfile_release(&pf);   /* gone once kfleetd is: start-stop-daemon reads it */
	config_release(&c);
	buf_release(&err);
	free(default_conf);
	return rc;
}
