// SPDX-License-Identifier: GPL-2.0-only
/* mangen.c: writes kfleet's man pages from the text its programs print,
 * for make's `man` target: kfleet(1) from the CLI's help table
 * (cli/help.c), kfleetd(8) from what `kfleetd -h` prints, kfleetd.conf(5)
 * from every key config_print() writes with its default (what kfleetd -nv
 * prints) and the watches' keys, each described by the annotated list of
 * docs/configuration.md where it has the key.
 *   mangen kfleet > kfleet.1
 *   mangen kfleetd USAGE-FILE > kfleetd.8
 *   mangen conf docs/configuration.md > kfleetd.conf.5 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/util.h"
#include "config/config.h"
#include "watch/watch.h"

#define DOC_MAX (4 * 1024 * 1024)

/* s as roff text: backslash, hyphen and quotes escaped, a control
 * character at a line's start made plain */
static void roff(const char *s, size_t n)
{
	int bol = 1;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (bol && (c == '.' || c == '\''))
			fputs("\\&", stdout);
		bol = c == '\n';
		if (c == '\\')
			fputs("\\e", stdout);
		else if (c == '-')
			fputs("\\-", stdout);
		else if (c == '\'')
			fputs("\\(aq", stdout);
		else if (c == '`')
			fputs("\\(ga", stdout);
		else
			putchar(c);
	}
}

static void roff_s(const char *s)
{
	roff(s, strlen(s));
}

/* s as it is printed, in a block that keeps its lines */
static void verbatim(const char *s)
{
	fputs(".PP\n.nf\n", stdout);
	roff_s(s);
	if (*s && s[strlen(s) - 1] != '\n')
		putchar('\n');
	fputs(".fi\n", stdout);
}

static void head(const char *name, const char *section, const char *what)
{
	/* what is roff already: "kfleet \\- ..." */
	printf(".TH %s %s \"\" \"kfleet\" \"kfleet manual\"\n.SH NAME\n%s\n", name, section, what);
}

static int page_kfleet(void)
{
	size_t n;
	const struct cli_help *t = cli_helps(&n);

	for (size_t i = 0; i < n; i++)
		if (!t[i].names || !t[i].help)
			return -1;
	head("KFLEET", "1", "kfleet \\- test Linux kernels and patch series in QEMU guests");
	printf(".SH SYNOPSIS\n");
	verbatim(CLI_USAGE_HEAD + strlen("usage: "));
	verbatim("kfleet help [COMMAND]\nkfleet COMMAND --help\n");
	printf(".SH DESCRIPTION\n");
	roff_s("kfleet is the client of kfleetd(8), which builds kernels from patch series, "
	       "boots them in libvirt/QEMU guests, runs tests and benchmarks in them and keeps "
	       "every run. Each command but series, parse and help asks the daemon through its "
	       "HTTP API; help and COMMAND --help need neither the daemon nor a config.\n");
	printf(".SH OPTIONS\n.TP\n.BI \"\\-c \" CONFIG\nRead kfleetd's config for the "
	       "daemon's address and token.\n.TP\n.BI \"\\-\\-url \" URL\nThe daemon's address.\n"
	       ".TP\n.BI \"\\-\\-token\\-file \" FILE\nThe token for the calls that change state.\n"
	       ".TP\n.BR \\-h \", \" \\-\\-help\nThe commands and these options.\n");
	verbatim(CLI_USAGE_TAIL);
	printf(".SH COMMANDS\n");
	for (size_t i = 0; i < n; i++) {
		printf(".SS \"");
		for (const char *p = t[i].names; *p; p++)
			if (*p == ' ')
				fputs(", ", stdout);
			else
				putchar(*p);
		printf("\"\n");
		verbatim(t[i].help);
	}
	printf(".SH EXIT STATUS\n.TP\n0\nDone (with \\-\\-wait: every run passed).\n.TP\n1\n"
	       "A run did not pass.\n.TP\n2\nA usage, connection or API error.\n");
	printf(".SH ENVIRONMENT\n.TP\n.B KFLEET_URL\nThe daemon's address when \\-\\-url is not "
	       "given.\n.TP\n.B KFLEET_TOKEN_FILE\nThe token's file when \\-\\-token\\-file is not "
	       "given.\n.TP\n.B KFLEET_LORE_BASE\nThe archive series \\-\\-msgid reads.\n");
	printf(".SH SEE ALSO\n.BR kfleetd (8),\n.BR kfleetd.conf (5)\n");
	return 0;
}

static int page_kfleetd(const char *usage_file)
{
	struct buf u = BUF_INIT(64 * 1024);
	char *opts;

	if (read_file(usage_file, &u, 64 * 1024) < 0 || strncmp(buf_str(&u), "usage: kfleetd", 14)) {
		fprintf(stderr, "mangen: '%s': not kfleetd's usage\n", usage_file);
		buf_release(&u);
		return -1;
	}
	head("KFLEETD", "8", "kfleetd \\- the kfleet daemon: builds kernels, runs them in guests, "
	     "serves the results");
	opts = strchr(buf_str(&u), '\n');
	printf(".SH SYNOPSIS\n");
	if (opts)
		*opts++ = '\0';
	verbatim(buf_str(&u) + strlen("usage: "));
	printf(".SH OPTIONS\n");
	verbatim(opts ? opts : "");
	printf(".SH DESCRIPTION\n");
	roff_s("kfleetd reads its config (kfleetd.conf(5), or the embedded defaults), opens its "
	       "database in the state directory, connects to its libvirt hosts and serves the "
	       "status pages and the JSON API that kfleet(1) uses. It builds kernels from the patch "
	       "series it is given, in a sandbox, runs queued runs in transient guests, stores "
	       "every result and metric in SQLite, and runs until SIGINT or SIGTERM (or kfleet "
	       "shutdown); runs in flight when it stops are retried when it starts again.\n");
	printf(".SH SIGNALS\n.TP\n.B SIGTERM, SIGINT\n");
	roff_s("Stop: the web server first, then the runs in flight (their guests destroyed, the "
	       "runs queued again) and the workers; the pid file is removed. kfleet shutdown does "
	       "the same.\n");
	printf(".TP\n.B SIGHUP\n");
	roff_s("Read the config file again (the -c file, or the one read by default) and log each "
	       "key that differs from the config kfleetd runs with, old -> new, and whether it "
	       "was applied now (log_level) or takes effect at the next restart (every other "
	       "key), then a summary line. A file with errors is logged and changes nothing. "
	       "kfleet reload does the same and prints what changed.\n");
	printf(".SH FILES\n.TP\n.I state_dir/kfleetd.pid\nkfleetd's pid, locked while it runs: a "
	       "second kfleetd on the same state directory is refused, naming it; one left by a "
	       "killed kfleetd is taken over. For start\\-stop\\-daemon \\-\\-pidfile.\n"
	       ".TP\n.I state_dir/kfleet.db\nThe database.\n.TP\n.I state_dir/token\n"
	       "The token the calls that change state need (made on first start, mode 0600).\n"
	       ".TP\n.I state_dir/runs/ID/\nEach run's files: console, output, domain XML.\n");
	printf(".SH SEE ALSO\n.BR kfleet (1),\n.BR kfleetd.conf (5)\n");
	buf_release(&u);
	return 0;
}

/* The lines of the annotated list in doc (its first ``` block holding
 * "[daemon]") that describe key of section: the key's line and the
 * comment lines after it; appended to out. 1 found, 0 not. */
static int doc_key(const char *doc, const char *section, const char *key, struct buf *out)
{
	const char *p = strstr(doc, "```\n[daemon]");
	char sec[128] = "";
	size_t kl = strlen(key);

	if (!p)
		return 0;
	for (p += 4; *p && strncmp(p, "```", 3); p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		size_t l = strcspn(p, "\n");

		if (*p == '[') {
			size_t e = strcspn(p, "]");

			snprintf(sec, sizeof(sec), "%.*s", (int)(e < l ? e + 1 : 0), p);
			continue;
		}
		if (strcmp(sec, section) || strncmp(p, key, kl) || (p[kl] != ' ' && p[kl] != '='))
			continue;
		buf_append(out, p, l + 1);
		for (const char *q = p + l + 1; *q == ' '; q += strcspn(q, "\n") + 1) {
			size_t m = strcspn(q, "\n");

			if (q[strspn(q, " ")] != '#')
				break;
			buf_append(out, q, m + 1);
		}
		return 1;
	}
	return 0;
}

/* config_print()'s text, each key described from doc where it has it */
static void conf_sections(const char *printed, const char *doc)
{
	char sec[128] = "";
	int open = 0;

	for (const char *p = printed; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t l = strcspn(p, "\n");
		char key[128];
		struct buf d = BUF_INIT(0);

		if (!l || *p == '#')
			continue;
		if (*p == '[') {
			snprintf(sec, sizeof(sec), "%.*s", (int)l, p);
			if (open)
				fputs(".fi\n", stdout);
			printf(".SS \"");
			roff(p, l);
			printf("\"\n.PP\n.nf\n");
			open = 1;
			continue;
		}
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(p, " ="), p);
		if (doc_key(doc, sec, key, &d))
			roff(d.data, d.len);
		else
			roff(p, l + 1);
		buf_release(&d);
	}
	if (open)
		fputs(".fi\n", stdout);
}

static int page_conf(const char *doc_path)
{
	struct buf doc = BUF_INIT(DOC_MAX);
	struct config c;
	char *printed = NULL;
	size_t n = 0;
	FILE *m = NULL;
	const char *const *wk = watch_spec_keys();
	const struct cli_help *w = cli_help_find("watch");
	int rc = -1;

	memset(&c, 0, sizeof(c));
	if (read_file(doc_path, &doc, DOC_MAX) < 0 || !strstr(buf_str(&doc), "```\n[daemon]")) {
		fprintf(stderr, "mangen: '%s': no annotated list of keys (a ``` block from "
			"[daemon])\n", doc_path);
		goto out;
	}
	if (config_defaults(&c) < 0 || !(m = open_memstream(&printed, &n))) {
		fprintf(stderr, "mangen: out of memory\n");
		goto out;
	}
	config_print(&c, m);
	if (fclose(m))
		goto out;
	head("KFLEETD.CONF", "5", "kfleetd.conf \\- the kfleetd configuration file");
	printf(".SH SYNOPSIS\n.B kfleetd \\-c\n.I kfleetd.conf\n.SH DESCRIPTION\n");
	roff_s("An INI file: [section] headers, key = value lines, # comments. kfleetd -n -c "
	       "FILE checks one, naming file:line for each error; kfleetd -nv prints the "
	       "configuration in force, normalised. A key not given has the default shown. "
	       "There may be several [host NAME] sections (the first replaces the default "
	       "[host local]) and [watch NAME] sections.\n");
	printf(".SH KEYS\n");
	conf_sections(printed, buf_str(&doc));
	printf(".SS \"[watch NAME]\"\n");
	roff_s("A watch follows a patchwork project or a lore list and tests each new series "
	       "(kfleet watch add takes the same keys). Its keys:\n");
	printf(".PP\n.nf\n");
	for (size_t i = 0; wk[i]; i++) {
		roff_s(wk[i]);
		printf(" =\n");
	}
	printf(".fi\n");
	if (w)
		verbatim(w->help);
	printf(".SH SEE ALSO\n.BR kfleetd (8),\n.BR kfleet (1)\n");
	rc = 0;
out:
	free(printed);
	config_release(&c);
	buf_release(&doc);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = -1;

	if (argc == 2 && !strcmp(argv[1], "kfleet"))
		rc = page_kfleet();
	else if (argc == 3 && !strcmp(argv[1], "kfleetd"))
		rc = page_kfleetd(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "conf"))
		rc = page_conf(argv[2]);
	else
		fprintf(stderr, "usage: mangen kfleet | kfleetd USAGE-FILE | conf CONFIGURATION.md\n");
	if (fflush(stdout) || ferror(stdout))
		rc = -1;
	return rc < 0 ? 1 : 0;
}
