/* cli_build.c: the CLI side of trees, submissions, builds and imports. `kfleet
 * submit` reads or fetches the mbox here (so what is sent is what `kfleet
 * series show` read), sends it base64 in JSON to POST /api/submissions and
 * can wait; `kfleet test --tree ... --mbox ...` waits for the builds, then
 * for every request's runs, and prints the before/after tables. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "kernels/kernels.h"

enum { CLI_OK = 0, CLI_NOT_PASSED = 1, CLI_USAGE = 2 };

#define JOB_LOG_MAX (64u << 20)   /* an imported log, as the daemon takes it */

static const char *js(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

static void usage_tree(FILE *f)
{
	fputs("usage: kfleet tree add NAME PATH-or-URL [--branch B]\n"
	      "       kfleet tree fetch NAME\n"
	      "       kfleet trees [--json]\n"
	      "\n"
	      "Registers a kernel git tree (a local repository or a git URL); kfleetd\n"
	      "keeps a mirror clone of it and builds in worktrees, never in the\n"
	      "original checkout.\n", f);
}

static void print_trees(json_t *trees)
{
	json_t *t;
	size_t i;

	printf("%-16s %-8s %-12s %-10s %s\n", "NAME", "STATE", "HEAD", "BRANCH", "FROM");
	json_array_foreach(trees, i, t) {
		printf("%-16s %-8s %-12.12s %-10s %s\n", js(t, "name"), js(t, "state"),
		       js(t, "head"), json_is_string(json_object_get(t, "branch")) ?
		       js(t, "branch") : "HEAD", js(t, "url"));
		if (json_is_string(json_object_get(t, "detail")))
			printf("    %s\n", js(t, "detail"));
	}
}

int cli_tree(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	char *token = NULL, *abs = NULL, path[256];
	const char *branch = NULL;
	json_t *body = NULL;
	int rc = CLI_USAGE;

	if (!strcmp(argv[0], "trees") || (argc >= 2 && !strcmp(argv[1], "list"))) {
		int json = argc >= 2 && !strcmp(argv[argc - 1], "--json");

		if (cli_api_call(k, "GET", "/api/trees", NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: trees: %s\n", r.err);
			return CLI_USAGE;
		}
		if (json) {
			json_dumpf(r.j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
		} else {
			print_trees(json_object_get(r.j, "trees"));
		}
		json_decref(r.j);
		return CLI_OK;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage_tree(stdout);
		return CLI_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "fetch")) {
		if (!(token = cli_read_token(k)))
			return CLI_USAGE;
		if (strlen(argv[2]) > 100) {
			fprintf(stderr, "kfleet: tree fetch: '%.100s...': not a tree name\n", argv[2]);
			goto out;
		}
		snprintf(path, sizeof(path), "/api/trees/%s/fetch", argv[2]);
		if (cli_api_call(k, "POST", path, NULL, token, &r) < 0) {
			fprintf(stderr, "kfleet: tree fetch: %s\n", r.err);
			goto out;
		}
		printf("tree '%s': fetch queued\n", argv[2]);
		rc = CLI_OK;
		goto out;
	}
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "add")) {
		if (argc == 6) {
			if (strcmp(argv[4], "--branch")) {
				usage_tree(stderr);
				goto out;
			}
			branch = argv[5];
		}
		/* a local tree by its absolute path: the daemon runs elsewhere */
		abs = strstr(argv[3], "://") ? strdup(argv[3]) : path_abs(argv[3]);
		if (!(token = cli_read_token(k)) || !abs)
			goto out;
		body = json_pack("{s:s, s:s}", "name", argv[2], "url", abs);
		if (!body || (branch && json_object_set_new(body, "branch", json_string(branch)))) {
			fprintf(stderr, "kfleet: tree add: the name, path and branch must be UTF-8\n");
			goto out;
		}
		if (cli_api_call(k, "POST", "/api/trees", body, token, &r) < 0) {
			fprintf(stderr, "kfleet: tree add: %s\n", r.err);
			goto out;
		}
		printf("tree '%s': added; kfleetd clones '%s' now (kfleet trees shows when it "
		       "is ready)\n", argv[2], abs);
		rc = CLI_OK;
		goto out;
	}
	usage_tree(stderr);
out:
	json_decref(r.j);
	json_decref(body);
	free(token);
	free(abs);
	return rc;
}

static void usage_submit(FILE *f, int test)
{
	fprintf(f, "usage: kfleet %s [--tree T] (--mbox FILE | --url URL | --msgid ID |\n"
		"           --patchwork URL/ID) [--base REV] [--arch x86_64,arm64]\n"
		"           [--config tinyconfig|defconfig|allnoconfig|FILE] [--fragment F]...\n"
		"           %s[--vcpus N,M] [--repeat N] [--memory MB] [--lore BASE]%s\n"
		"\n"
		"Builds the base and the patched kernel of a series for each arch (what\n"
		"is built already is reused), then queues base and patched runs of each\n"
		"job, interleaved. The base is --base, else the series' base-commit, else\n"
		"the head of the tree. The tree is --tree, else the one the subject tag\n"
		"names. Without a series (submit only), --tree and --base build one commit\n"
		"and --job runs the jobs on it (--repeat times): what trends are made of.\n"
		"With --kernel PATH (submit only) a kernel built elsewhere (a distro's, or\n"
		"one built by hand) is tested instead: the tree at --base gives only the\n"
		"selftests the jobs need (test_progs, built against the kernel's BTF).\n",
		test ? "test" : "submit", test ? "--job J1,J2 " : "[--job J1,J2] ",
		test ? " [--markdown]" : " [--wait]");
}

/* Base64 of n bytes, caller frees; NULL when out of memory */
static char *base64(const char *p, size_t n)
{
	char *out;

	if (n > (size_t)INT32_MAX / 2)
		return NULL;
	out = malloc((n + 2) / 3 * 4 + 1);
	if (out)
		EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)p, (int)n);
	return out;
}

static void print_builds(json_t *builds)
{
	json_t *b;
	size_t i;

	json_array_foreach(builds, i, b) {
		json_t *ms = json_object_get(b, "ms");

		printf("  build %lld  %-6s %-7s %-8s %-12.12s %s%s", (long long)json_integer_value(
		       json_object_get(b, "id")), js(b, "arch"),
		       json_is_string(json_object_get(b, "side")) ? js(b, "side") : "",
		       js(b, "state"),
		       js(b, "commit_id"), js(b, "release"),
		       json_integer_value(json_object_get(b, "reused")) ? " (reused)" : "");
		if (json_is_integer(ms))
			printf(", %lld s", (long long)json_integer_value(ms) / 1000);
		printf("\n");
		if (json_is_string(json_object_get(b, "errors")))
			printf("%s", js(b, "errors"));
		else if (json_is_string(json_object_get(b, "detail")))
			printf("    %s\n", js(b, "detail"));
		if (json_is_string(json_object_get(b, "dropped")))
			printf("    not kept by olddefconfig: %s\n", js(b, "dropped"));
	}
}

static void print_submission(json_t *s)
{
	json_t *ser = json_object_get(s, "series"), *p;
	size_t i;

	printf("submission %lld: %s%s%s\n", (long long)json_integer_value(json_object_get(s, "id")),
	       js(s, "state"), json_is_string(json_object_get(s, "outcome")) ? ": " : "",
	       json_is_string(json_object_get(s, "outcome")) ? js(s, "outcome") : "");
	if (json_is_string(json_object_get(s, "detail")))
		printf("  %s\n", js(s, "detail"));
	printf("  tree:     %s\n", js(s, "tree"));
	if (json_is_string(json_object_get(s, "kernel"))) {
		/* a kernel built elsewhere: the tree only gives its selftests */
		printf("  kernel:   %s\n", js(s, "kernel"));
		printf("  selftests from %s (%s)\n", js(s, "base_commit"), js(s, "base_why"));
		printf("  arch:     %s\n", js(s, "arches"));
	} else {
		printf("  series:   %s\n", json_is_string(json_object_get(s, "series_subject")) ?
		       js(s, "series_subject") : "(none: the base only)");
		printf("  base:     %s (%s)\n", js(s, "base_commit"), js(s, "base_why"));
		if (json_is_string(json_object_get(s, "patched_commit")))
			printf("  patched:  %s\n", js(s, "patched_commit"));
		printf("  arches:   %s, config %s\n", js(s, "arches"), js(s, "config"));
	}
	json_array_foreach(json_object_get(ser, "patches"), i, p)
		printf("  %lld/%lld %s\n", (long long)json_integer_value(json_object_get(p, "index")),
		       (long long)json_integer_value(json_object_get(ser, "count")), js(p, "title"));
	print_builds(json_object_get(s, "builds"));
	if (json_array_size(json_object_get(s, "requests")))
		printf("  runs:     %lld of %lld done\n",
		       (long long)json_integer_value(json_object_get(s, "runs_done")),
		       (long long)json_integer_value(json_object_get(s, "runs")));
}

/* Polls the submission until its builds are over: 0 with r->j, -1 */
static int wait_built(struct cli *k, long long id, struct resp *r)
{
	char path[64];
	const char *last = "";
	int fails = 0;

	snprintf(path, sizeof(path), "/api/submissions/%lld", id);
	for (;;) {
		const char *st;

		json_decref(r->j);
		r->j = NULL;
		if (cli_api_call(k, "GET", path, NULL, NULL, r) < 0) {
			if (++fails > 30) {
				fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r->err);
				return -1;
			}
			sleep(2);
			continue;
		}
		fails = 0;
		st = js(r->j, "state");
		if (strcmp(st, last)) {
			fprintf(stderr, "submission %lld: %s\n", id, st);
			last = strcmp(st, "queued") ? "building" : "queued";
			if (strcmp(st, "queued") && strcmp(st, "building"))
				return 0;
		}
		sleep(2);
	}
}

int cli_submit(struct cli *k, int argc, char **argv, int test)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "mbox", required_argument, NULL, 'f' },
		{ "url", required_argument, NULL, 'u' },
		{ "msgid", required_argument, NULL, 'i' },
		{ "patchwork", required_argument, NULL, 'p' },
		{ "lore", required_argument, NULL, 'l' },
		{ "base", required_argument, NULL, 'b' },
		{ "arch", required_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'C' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "job", required_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "memory", required_argument, NULL, 'm' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "wait", no_argument, NULL, 'w' },
		{ "markdown", no_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tree = NULL, *mbox = NULL, *url = NULL, *msgid = NULL, *pw = NULL;
	const char *base = NULL, *arch = NULL, *config = NULL, *jobs = NULL, *vcpus = NULL;
	const char *kernel = NULL;
	struct fetch_opts fo = { 0 };
	struct buf frags = BUF_INIT(8192), mb = BUF_INIT(0);
	struct resp r = { 0 };
	char *token = NULL, *b64 = NULL, *source = NULL, *err = NULL, *cfgabs = NULL;
	char *kabs = NULL;
	long long repeat = 0, memory = 0, id;
	int c, rc = CLI_USAGE, sources = 0, wait = test, markdown = 0, json = 0;
	json_t *body = NULL;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 't': tree = optarg; break;
		case 'f': mbox = optarg; sources++; break;
		case 'u': url = optarg; sources++; break;
		case 'i': msgid = optarg; sources++; break;
		case 'p': pw = optarg; sources++; break;
		case 'l': fo.lore_base = optarg; break;
		case 'b': base = optarg; break;
		case 'a': arch = optarg; break;
		case 'C': config = optarg; break;
		case 'F': {
			char *a = optarg[0] == '.' || (strchr(optarg, '/') && access(optarg, R_OK) == 0)
				  ? path_abs(optarg) : NULL;

			buf_printf(&frags, "%s%s", frags.len ? "," : "", a ? a : optarg);
			free(a);
			break;
		}
		case 'J': jobs = optarg; break;
		case 'v': vcpus = optarg; break;
		case 'k': kernel = optarg; break;
		case 'r':
			if (cli_parse_num(k->cmd, "--repeat", optarg, 1, 100, &repeat) < 0)
				goto out;
			break;
		case 'm':
			if (cli_parse_num(k->cmd, "--memory", optarg, 64, 1 << 24, &memory) < 0)
				goto out;
			break;
		case 'w': wait = 1; break;
		case 'M': markdown = 1; break;
		case 'j': json = 1; break;
		case 'h':
			usage_submit(stdout, test);
			rc = CLI_OK;
			goto out;
		default:
			usage_submit(stderr, test);
			goto out;
		}
	}
	if (optind < argc || sources > 1 || (test && (!sources || !jobs)) ||
	    (!sources && !tree)) {
		fprintf(stderr, "kfleet: %s: %s\n", k->cmd, optind < argc ? "unexpected arguments" :
			sources > 1 ? "give one of --mbox, --url, --msgid, --patchwork" :
			test ? "a series (--mbox, --url, --msgid or --patchwork) and --job are needed" :
			"--tree is needed when there is no series");
		usage_submit(stderr, test);
		goto out;
	}
	if (sources && cli_series_get(mbox, url, msgid, pw, &fo, &mb, &source, &err) < 0) {
		fprintf(stderr, "kfleet: %s: %s\n", k->cmd, err ? err : "out of memory");
		goto out;
	}
	if (config && config[0] != '/' && strchr(config, '/'))
		cfgabs = path_abs(config);
	if (kernel && !(kabs = path_abs(kernel))) {
		fprintf(stderr, "kfleet: %s: kernel '%s': %s\n", k->cmd, kernel, strerror(errno));
		goto out;
	}
	token = cli_read_token(k);
	if (!token)
		goto out;
	body = json_object();
	if (sources) {
		b64 = base64(mb.len ? mb.data : "", mb.len);
		if (!b64 || json_object_set_new(body, "mbox_base64", json_string(b64)) ||
		    json_object_set_new(body, "mbox_name", json_string(source))) {
			fprintf(stderr, "kfleet: %s: out of memory\n", k->cmd);
			goto out;
		}
	}
	if ((tree && json_object_set_new(body, "tree", json_string(tree))) ||
	    (base && json_object_set_new(body, "base", json_string(base))) ||
	    (arch && json_object_set_new(body, "arch", json_string(arch))) ||
	    (config && json_object_set_new(body, "config", json_string(cfgabs ? cfgabs : config))) ||
	    (frags.len && json_object_set_new(body, "fragments", json_string(buf_str(&frags)))) ||
	    (jobs && json_object_set_new(body, "jobs", json_string(jobs))) ||
	    (vcpus && json_object_set_new(body, "vcpus", json_string(vcpus))) ||
	    (repeat && json_object_set_new(body, "repeat", json_integer(repeat))) ||
	    (memory && json_object_set_new(body, "memory_mb", json_integer(memory))) ||
	    (kabs && json_object_set_new(body, "kernel", json_string(kabs)))) {
		fprintf(stderr, "kfleet: %s: the options must be UTF-8\n", k->cmd);
		goto out;
	}
	if (cli_api_call(k, "POST", "/api/submissions", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r.err);
		goto out;
	}
	id = json_integer_value(json_object_get(r.j, "id"));
	printf("submission %lld queued%s\n", id, source ? "" : kabs ?
	       " (a kernel built elsewhere: the tree gives its selftests)" :
	       " (no series: the base only)");
	rc = CLI_OK;
	if (!wait)
		goto out;
	if (wait_built(k, id, &r) < 0) {
		rc = CLI_USAGE;
		goto out;
	}
	if (json) {
		json_dumpf(r.j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		print_submission(r.j);
	}
	if (!strcmp(js(r.j, "state"), "failed")) {
		rc = CLI_NOT_PASSED;
		goto out;
	}
	if (test) {
		json_t *reqs = json_object_get(r.j, "requests"), *q;
		size_t i;

		json_incref(reqs);
		json_array_foreach(reqs, i, q) {
			struct resp rq = { 0 };
			char path[64];
			int one;

			snprintf(path, sizeof(path), "/api/requests/%lld",
				 (long long)json_integer_value(q));
			if (cli_api_call(k, "GET", path, NULL, NULL, &rq) < 0) {
				fprintf(stderr, "kfleet: %s: %s\n", k->cmd, rq.err);
				rc = CLI_USAGE;
				continue;
			}
			printf("\nrequest %lld: %s\n", (long long)json_integer_value(q), js(rq.j, "job"));
			one = cli_request_report(k, json_integer_value(q), js(rq.j, "job"), markdown);
			if (one > rc)
				rc = one;
			json_decref(rq.j);
		}
		json_decref(reqs);
		printf("\n%s/submissions/%lld\n", k->url, id);
	}
out:
	json_decref(r.j);
	json_decref(body);
	buf_release(&frags);
	buf_release(&mb);
	free(cfgabs);
	free(kabs);
	free(token);
	free(b64);
	free(source);
	free(err);
	return rc;
}

int cli_submission(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	int json = argc >= 2 && !strcmp(argv[argc - 1], "--json");
	long long id;
	char path[64];
	json_t *v;
	size_t i;

	if (!strcmp(argv[0], "submissions")) {
		if (cli_api_call(k, "GET", "/api/submissions", NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: submissions: %s\n", r.err);
			return CLI_USAGE;
		}
		if (json) {
			json_dumpf(r.j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
		} else {
			printf("%-6s %-10s %-14s %-9s %s\n", "ID", "TREE", "STATE", "ARCHES", "SERIES");
			json_array_foreach(json_object_get(r.j, "submissions"), i, v)
				printf("%-6lld %-10s %-14s %-9s %s\n",
				       (long long)json_integer_value(json_object_get(v, "id")),
				       js(v, "tree"), js(v, "state"), js(v, "arches"),
				       json_is_string(json_object_get(v, "series_subject")) ?
				       js(v, "series_subject") : "(base only)");
		}
		json_decref(r.j);
		return CLI_OK;
	}
	if (argc < 2 || parse_int(argv[1], 1, INT64_MAX, &id) < 0) {
		fprintf(stderr, "usage: kfleet submission ID [--json]\n       kfleet submissions "
			"[--json]\n");
		return CLI_USAGE;
	}
	snprintf(path, sizeof(path), "/api/submissions/%lld", id);
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: submission: %s\n", r.err);
		return CLI_USAGE;
	}
	if (json) {
		json_dumpf(r.j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		print_submission(r.j);
	}
	json_decref(r.j);
	return CLI_OK;
}

int cli_builds(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	int json = argc >= 2 && !strcmp(argv[argc - 1], "--json");
	long long id = 0;
	char path[64];

	if (!strcmp(argv[0], "build") &&
	    (argc < 2 || parse_int(argv[1], 1, INT64_MAX, &id) < 0)) {
		fprintf(stderr, "usage: kfleet build ID [--json]\n       kfleet builds [--json]\n");
		return CLI_USAGE;
	}
	if (id)
		snprintf(path, sizeof(path), "/api/builds/%lld", id);
	else
		snprintf(path, sizeof(path), "/api/builds");
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: %s: %s\n", argv[0], r.err);
		return CLI_USAGE;
	}
	if (json) {
		json_dumpf(r.j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else if (id) {
		json_t *a = json_array();

		json_array_append(a, r.j);
		print_builds(a);
		printf("  key %s\n  toolchain %s\n  directory %s\n", js(r.j, "key"),
		       js(r.j, "toolchain"), js(r.j, "dir"));
		json_decref(a);
	} else {
		print_builds(json_object_get(r.j, "builds"));
	}
	json_decref(r.j);
	return CLI_OK;
}

int cli_import(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "job", required_argument, NULL, 'J' },
		{ "parser", required_argument, NULL, 'p' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kernel = NULL, *job = NULL, *parser = NULL, *arch = NULL, *name = NULL;
	struct buf log = BUF_INIT(JOB_LOG_MAX + 1);
	struct resp r = { 0 };
	char *kabs = NULL, *token = NULL, *b64 = NULL;
	long long vcpus = 0;
	json_t *body = NULL;
	int c, rc = CLI_USAGE;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = optarg; break;
		case 'J': job = optarg; break;
		case 'p': parser = optarg; break;
		case 'a': arch = optarg; break;
		case 'n': name = optarg; break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &vcpus) < 0)
				goto out;
			break;
		case 'h':
			rc = CLI_OK;
			/* fall through */
		default:
			fprintf(rc ? stderr : stdout, "usage: kfleet import --kernel PATH (--job J | "
				"--parser ktap|test_progs|bench|metrics)\n"
				"         [--arch A] [--vcpus N] [--name NAME] FILE\n");
			goto out;
		}
	}
	if (optind != argc - 1 || !kernel || (!job == !parser)) {
		fprintf(stderr, "kfleet: import: %s\n", optind != argc - 1 ? "give one log file" :
			!kernel ? "--kernel PATH is required" : "give --job or --parser, one of them");
		goto out;
	}
	if (read_file(strcmp(argv[optind], "-") ? argv[optind] : "/dev/stdin", &log,
		      JOB_LOG_MAX) < 0 || log.truncated) {
		fprintf(stderr, "kfleet: import: '%s': %s\n", argv[optind],
			log.truncated ? "larger than 64 MiB" : strerror(errno));
		goto out;
	}
	kabs = path_abs(kernel);
	b64 = base64(log.len ? log.data : "", log.len);
	token = cli_read_token(k);
	if (!kabs || !b64 || !token)
		goto out;
	body = json_pack("{s:s, s:s, s:s}", "kernel", kabs, "log_base64", b64, "name",
			 name ? name : argv[optind]);
	if (!body || (job && json_object_set_new(body, "job", json_string(job))) ||
	    (parser && json_object_set_new(body, "parser", json_string(parser))) ||
	    (arch && json_object_set_new(body, "arch", json_string(arch))) ||
	    (vcpus && json_object_set_new(body, "vcpus", json_integer(vcpus)))) {
		fprintf(stderr, "kfleet: import: the options must be UTF-8\n");
		goto out;
	}
	if (cli_api_call(k, "POST", "/api/import", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: import: %s\n", r.err);
		goto out;
	}
	printf("run %lld imported\n", (long long)json_integer_value(json_object_get(r.j, "id")));
	rc = CLI_OK;
out:
	json_decref(r.j);
	json_decref(body);
	buf_release(&log);
	free(kabs);
	free(token);
	free(b64);
	return rc;
}
