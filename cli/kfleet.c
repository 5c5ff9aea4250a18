/* kfleet.c: the command-line client. It talks to kfleetd's JSON API over
 * HTTP (libcurl): `run` submits a run of a command or a job (optionally
 * waiting for its end), `runs` lists the newest runs, `show` prints one run
 * with its results, metrics and output, `jobs` lists the daemon's jobs.
 * Exit status: 0 ok (with --wait: the run passed), 1 the run did not pass,
 * 2 usage, connection or API errors. */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "common/buf.h"
#include "common/util.h"
#include "jobs/jobs.h"
#include "cli/cli.h"
#include "orchestrator/config.h"
#include "orchestrator/orchestrator.h"

#define DEFAULT_URL      "http://127.0.0.1:8080"
#define RESP_MAX         (64u << 20)   /* a response body; 500 runs with long commands fit */
#define TOKEN_MAX        4096
#define CONNECT_TIMEOUT_MS 5000L
#define TOTAL_TIMEOUT_MS   60000L
#define WAIT_RETRIES     30           /* polls that may fail in a row while waiting */

enum { EXIT_OK = 0, EXIT_NOT_PASSED = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
	fputs("usage: kfleet [-c CONFIG] [--url URL] [--token-file FILE] COMMAND ...\n"
	      "\n"
	      "  run --kernel PATH [--arch A] [--vcpus N] [--memory MB] [--timeout S]\n"
	      "      [--wait] [--json] -- CMD...     queue a run of CMD in a guest\n"
	      "  run --job NAME --kernel PATH [--arch A] [--vcpus N] [--memory MB]\n"
	      "      [--timeout S] [--wait] [--json] queue a run of a job (its defaults\n"
	      "                                       apply where no option is given)\n"
	      "      run also takes --topology SOCKETS:CORES:THREADS, --numa NODES and\n"
	      "      --repeat N (N separate runs; with --wait, each one's result)\n"
	      "  test --base PATH --patched PATH --job NAME [--repeat N] [--arch A] [--vcpus N]\n"
	      "      [--memory MB] [--wait] [--markdown]\n"
	      "                                       runs of both kernels interleaved, then\n"
	      "                                       (--wait) the before/after table\n"
	      "  runs [--limit N] [--json]            list the newest runs\n"
	      "  show ID [--json]                     print one run: results, metrics, output\n"
	      "  jobs [--json]                        list the jobs the daemon knows\n"
	      "  jobs show NAME [--json]              print one job's definition\n"
	      "  import --kernel PATH (--job J | --parser P) [--arch A] [--vcpus N] FILE\n"
	      "                                       a log from elsewhere, parsed, kept as a run\n"
	      "  compare (--kernels A B --job NAME | --request ID) [--arch A] [--vcpus N]\n"
	      "      [--columns avg,p99,max,test|all] [--markdown|--json]\n"
	      "                                       before/after table of the job's metrics\n"
	      "                                       (A == B: the noise floor, runs split)\n"
	      "  tree add NAME PATH-or-URL [--branch B] | tree fetch NAME | trees\n"
	      "                                       kernel git trees kfleetd builds from\n"
	      "  submit --tree T (--mbox F | --url U | --msgid ID | --patchwork P) [--base REV]\n"
	      "      [--arch A,B] [--config C] [--fragment F]... [--job J,..] [--vcpus N,..]\n"
	      "      [--repeat N] [--wait]          build base and patched, queue their runs\n"
	      "  submit --tree T --base REV --kernel PATH --job J,.. [--arch A] [--wait]\n"
	      "                                       test a kernel built elsewhere, with the\n"
	      "                                       tree's selftests (test_progs) built for it\n"
	      "  test --tree T --mbox F --job J ...   the same, waiting, then the tables\n"
	      "  submission ID | submissions | builds | build ID [--json]\n"
	      "  trend --tree T --job J [--metric M] [--arch A] [--vcpus N] [--json]\n"
	      "                                       a metric across commits, change points\n"
	      "  series show (--mbox FILE | --url URL | --msgid ID | --patchwork URL/ID)\n"
	      "      [--lore BASE] [--json]          read a patch series and print it, no daemon\n"
	      "  parse ktap|test_progs|bench|metrics FILE [--json]\n"
	      "                                       parse a job's output here, no daemon\n"
	      "                                       (FILE - reads stdin)\n"
	      "\n"
	      "URL: --url, $KFLEET_URL, the config's listen address, or " DEFAULT_URL ".\n"
	      "Token: --token-file, $KFLEET_TOKEN_FILE, or the config's state_dir/token.\n",
	      f);
}

/* ---- configuration: URL and token ---- */

static int resolve_url(struct cli *k)
{
	const char *env = getenv("KFLEET_URL");
	struct buf b = BUF_INIT(0);

	if (k->url_opt && *k->url_opt)
		buf_puts(&b, k->url_opt);
	else if (env && *env)
		buf_puts(&b, env);
	else if (k->config_path) {
		const char *a = k->cfg.listen_addr;
		int v6;

		/* a server listening on every address is reached on loopback */
		if (!strcmp(a, "0.0.0.0"))
			a = "127.0.0.1";
		else if (!strcmp(a, "::"))
			a = "::1";
		v6 = strchr(a, ':') != NULL;
		buf_printf(&b, "http://%s%s%s:%d", v6 ? "[" : "", a, v6 ? "]" : "",
			   k->cfg.listen_port);
	} else {
		buf_puts(&b, DEFAULT_URL);
	}
	while (b.len && b.data[b.len - 1] == '/')
		b.data[--b.len] = '\0';
	k->url = buf_detach(&b);
	return k->url ? 0 : -1;
}

/* Returns the token (caller frees) or NULL after printing why */
char *cli_read_token(struct cli *k)
{
	const char *env = getenv("KFLEET_TOKEN_FILE");
	char *path = NULL, *tok = NULL;
	struct buf b = BUF_INIT(0);
	size_t n;

	if (k->token_file && *k->token_file)
		path = strdup(k->token_file);
	else if (env && *env)
		path = strdup(env);
	else
		path = config_token_path(&k->cfg);
	if (!path) {
		fprintf(stderr, "kfleet: out of memory\n");
		goto out;
	}
	if (read_file(path, &b, TOKEN_MAX) < 0) {
		fprintf(stderr, "kfleet: token file '%s': %s\n", path, strerror(errno));
		goto out;
	}
	n = b.len;
	while (n && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' ||
		     b.data[n - 1] == ' ' || b.data[n - 1] == '\t'))
		b.data[--n] = '\0';
	b.len = n;
	if (!n || b.truncated || strlen(b.data) != n) {
		fprintf(stderr, "kfleet: token file '%s': %s\n", path,
			n ? "not a token" : "empty");
		goto out;
	}
	tok = buf_detach(&b);
out:
	buf_release(&b);
	free(path);
	return tok;
}

/* ---- HTTP ---- */

static size_t on_body(char *p, size_t size, size_t nmemb, void *cls)
{
	struct buf *b = cls;

	if (buf_append(b, p, size * nmemb) < 0)
		return 0;   /* too big: curl stops with a write error */
	return size * nmemb;
}

/* Calls the API: method on path with an optional JSON body. 0 when the
 * answer was 2xx with a JSON body (r->j set, caller decrefs), else -1 with
 * r->err saying why (the API's own "error" text when there is one). */
int cli_api_call(struct cli *k, const char *method, const char *path, json_t *body,
		 const char *token, struct resp *r)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct buf resp = BUF_INIT(RESP_MAX);
	struct buf url = BUF_INIT(0);
	struct curl_slist *hdrs = NULL;
	char *payload = NULL, *auth = NULL;
	json_error_t jerr;
	CURL *h = NULL;
	CURLcode cc;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	buf_printf(&url, "%s%s", k->url, path);
	h = curl_easy_init();
	if (!h) {
		snprintf(r->err, sizeof(r->err), "cannot start libcurl");
		goto out;
	}
	curl_easy_setopt(h, CURLOPT_URL, buf_str(&url));
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, TOTAL_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kfleet");
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (token) {
		size_t n = strlen(token) + 32;

		auth = malloc(n);
		if (!auth) {
			snprintf(r->err, sizeof(r->err), "out of memory");
			goto out;
		}
		snprintf(auth, n, "Authorization: Bearer %s", token);
		hdrs = curl_slist_append(hdrs, auth);
	}
	if (body) {
		payload = json_dumps(body, JSON_COMPACT);
		if (!payload) {
			snprintf(r->err, sizeof(r->err), "out of memory");
			goto out;
		}
		hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
		hdrs = curl_slist_append(hdrs, "Expect:");
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(payload));
	}
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		if (cc == CURLE_WRITE_ERROR && resp.truncated)
			snprintf(r->err, sizeof(r->err), "'%s': response larger than %u bytes",
				 buf_str(&url), RESP_MAX);
		else
			snprintf(r->err, sizeof(r->err), "'%s': %s", buf_str(&url),
				 errbuf[0] ? errbuf : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	r->j = json_loadb(buf_str(&resp), resp.len, 0, &jerr);
	if (r->status < 200 || r->status > 299) {
		json_t *e = r->j ? json_object_get(r->j, "error") : NULL;

		if (json_is_string(e))
			snprintf(r->err, sizeof(r->err), "%ld: %s", r->status, json_string_value(e));
		else
			snprintf(r->err, sizeof(r->err), "%ld: '%s' answered without an error text",
				 r->status, buf_str(&url));
		json_decref(r->j);
		r->j = NULL;
		goto out;
	}
	if (!r->j) {
		snprintf(r->err, sizeof(r->err), "'%s': bad JSON in the answer: %d:%d: %s",
			 buf_str(&url), jerr.line, jerr.column, jerr.text);
		goto out;
	}
	rc = 0;
out:
	curl_slist_free_all(hdrs);
	if (h)
		curl_easy_cleanup(h);
	free(payload);
	free(auth);
	buf_release(&resp);
	buf_release(&url);
	return rc;
}

/* ---- printing ---- */

static const char *jget_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long jget_int(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void fmt_time(long long ms, char out[40])
{
	time_t t;
	struct tm tm;

	if (ms <= 0) {
		strcpy(out, "-");
		return;
	}
	t = (time_t)(ms / 1000);
	if (!localtime_r(&t, &tm) || !strftime(out, 40, "%Y-%m-%d %H:%M:%S %Z", &tm))
		strcpy(out, "?");
}

static void fmt_duration(long long d, char out[32])
{
	if (d < 0)
		snprintf(out, 32, "-");
	else if (d < 1000)
		snprintf(out, 32, "%lld ms", d);
	else if (d < 60000)
		snprintf(out, 32, "%lld.%lld s", d / 1000, d % 1000 / 100);
	else if (d < 3600000)
		snprintf(out, 32, "%lld min %02lld s", d / 60000, d / 1000 % 60);
	else
		snprintf(out, 32, "%lld h %02lld min", d / 3600000, d / 60000 % 60);
}

static void print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}

/* Prints text indented, one line at a time */
static void print_indented(const char *s, const char *indent)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		printf("%s%.*s\n", indent, (int)n, s);
		s += n + (nl ? 1 : 0);
	}
}

/* The run's results: the counts, then those that did not pass */
static void print_run_results(json_t *res)
{
	json_t *counts = json_object_get(res, "counts"), *rows = json_object_get(res, "rows");
	json_t *row;
	long long total = 0, failing, shown = 0;
	int w = 0;
	size_t i;

	for (int s = 0; s < JOB_STATUS_COUNT; s++)
		total += jget_int(counts, job_status_name((enum job_status)s), 0);
	if (!total)
		return;
	printf("results:");
	for (int s = 0; s < JOB_STATUS_COUNT; s++)
		printf("%s %lld %s", s ? "," : "",
		       jget_int(counts, job_status_name((enum job_status)s), 0),
		       job_status_name((enum job_status)s));
	printf("\n");
	json_array_foreach(rows, i, row) {
		const char *path = or_dash(jget_str(row, "path"));
		int n = (int)strlen(path);

		if (strcmp(or_dash(jget_str(row, "status")), "pass") && n > w)
			w = n > 60 ? 60 : n;
	}
	json_array_foreach(rows, i, row) {
		const char *st = or_dash(jget_str(row, "status"));
		const char *detail = jget_str(row, "detail");

		if (!strcmp(st, "pass"))
			continue;
		printf("  %-*s  %-7s%s%s\n", w, or_dash(jget_str(row, "path")), st,
		       detail ? "  " : "", detail ? detail : "");
		shown++;
	}
	failing = total - jget_int(counts, "pass", 0);
	if (shown < failing)
		printf("  (%lld more that did not pass not shown)\n", failing - shown);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int same_metric(json_t *a, json_t *b)
{
	const char *x = jget_str(a, "metric"), *y = jget_str(b, "metric");

	return x && y && !strcmp(x, y);
}

/* The run's metrics, one line per metric: unit, samples, min/median/max.
 * The samples come sorted by metric and seq. */
static void print_run_metrics(json_t *samples, int truncated)
{
	size_t n = json_array_size(samples), i, j;
	double *v;
	int w = 0;

	if (!n)
		return;
	v = malloc(n * sizeof(*v));
	if (!v) {
		printf("metrics: out of memory\n");
		return;
	}
	for (i = 0; i < n; i++) {
		int l = (int)strlen(or_dash(jget_str(json_array_get(samples, i), "metric")));

		if (l > w)
			w = l > 50 ? 50 : l;
	}
	printf("metrics (unit, samples, min/median/max)%s:\n",
	       truncated ? ", from the first samples only" : "");
	for (i = 0; i < n; i = j) {
		json_t *first = json_array_get(samples, i);
		const char *unit = NULL;
		size_t k;
		double med;

		for (j = i; j < n && (j == i || same_metric(first, json_array_get(samples, j)));
		     j++) {
			json_t *smp = json_array_get(samples, j);

			v[j - i] = json_number_value(json_object_get(smp, "value"));
			if (!unit)
				unit = jget_str(smp, "unit");
		}
		k = j - i;
		qsort(v, k, sizeof(*v), cmp_double);
		med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
		printf("  %-*s  %-8s %6zu  %.10g/%.10g/%.10g\n", w,
		       or_dash(jget_str(first, "metric")), or_dash(unit), k, v[0], med, v[k - 1]);
	}
	free(v);
}

static void print_run(json_t *r)
{
	json_t *kernel = json_object_get(r, "kernel");
	json_t *guest = json_object_get(r, "guest");
	json_t *attempts = json_object_get(r, "attempts");
	const char *outcome = jget_str(r, "outcome");
	const char *run_dir = jget_str(r, "run_dir");
	const char *output = jget_str(r, "output");
	const char *s;
	long long started = jget_int(r, "started_at", 0), booted = jget_int(r, "booted_at", 0);
	long long ended = jget_int(r, "ended_at", 0);
	char t[40], d[32];

	printf("run %lld: %s%s%s\n", jget_int(r, "id", 0), or_dash(jget_str(r, "state")),
	       outcome ? ", " : "", outcome ? outcome : "");
	if ((s = jget_str(r, "detail")))
		printf("  detail:     %s\n", s);
	printf("  kernel:     %s\n", or_dash(jget_str(kernel, "path")));
	printf("  arch:       %s, %lld vCPUs, %lld MiB, timeout %lld s\n",
	       or_dash(jget_str(r, "arch")), jget_int(r, "vcpus", 0),
	       jget_int(r, "memory_mb", 0), jget_int(r, "timeout_s", 0));
	printf("  attempt:    %lld of at most %lld\n", jget_int(r, "attempt", 0),
	       jget_int(r, "max_attempts", 0));
	printf("  host:       %s", or_dash(jget_str(r, "host")));
	if (jget_str(r, "accel"))
		printf(" (%s, machine %s, QEMU %s, libvirt %s)", jget_str(r, "accel"),
		       or_dash(jget_str(r, "machine")), or_dash(jget_str(r, "qemu_version")),
		       or_dash(jget_str(r, "libvirt_version")));
	printf("\n");
	if ((s = jget_str(r, "domain")))
		printf("  domain:     %s\n", s);
	fmt_time(jget_int(r, "queued_at", 0), t);
	printf("  queued:     %s\n", t);
	fmt_time(started, t);
	printf("  started:    %s\n", t);
	fmt_time(booted, t);
	fmt_duration(started > 0 && booted > 0 ? booted - started : -1, d);
	printf("  booted:     %s%s%s%s\n", t, booted > 0 ? " (after " : "", booted > 0 ? d : "",
	       booted > 0 ? ")" : "");
	fmt_time(ended, t);
	printf("  ended:      %s\n", t);
	fmt_duration(jget_int(r, "duration_ms", -1), d);
	printf("  duration:   %s\n", d);
	if (json_is_integer(json_object_get(r, "exit_code")))
		printf("  exit code:  %lld\n", jget_int(r, "exit_code", 0));
	if (jget_str(guest, "release"))
		printf("  guest:      %s, %lld CPUs, %lld kB\n", jget_str(guest, "release"),
		       jget_int(guest, "nproc", 0), jget_int(guest, "mem_kb", 0));
	if ((s = jget_str(r, "job")))
		printf("  job:        %s\n", s);
	printf("  command:    %s\n", or_dash(jget_str(r, "command")));
	if (run_dir) {
		printf("  console:    %s/%s\n", run_dir, RUN_FILE_CONSOLE);
		printf("  output:     %s/%s\n", run_dir, RUN_FILE_OUTPUT);
		printf("  domain xml: %s/%s\n", run_dir, RUN_FILE_XML);
	}
	print_run_results(json_object_get(r, "results"));
	print_run_metrics(json_object_get(r, "samples"),
			  json_is_true(json_object_get(r, "samples_truncated")));
	if (json_array_size(attempts) > 1) {
		size_t i;
		json_t *a;

		printf("attempts:\n");
		json_array_foreach(attempts, i, a) {
			fmt_time(jget_int(a, "started_at", 0), t);
			printf("  %lld  %-10s  %s  %-13s  %s\n", jget_int(a, "n", 0),
			       or_dash(jget_str(a, "host")), t, or_dash(jget_str(a, "outcome")),
			       or_dash(jget_str(a, "detail")));
		}
	}
	if ((s = jget_str(r, "splat"))) {
		printf("splat:\n");
		print_indented(s, "  ");
	}
	if (output) {
		size_t n = json_string_length(json_object_get(r, "output"));

		printf("output:\n");
		fwrite(output, 1, n, stdout);
		if (n && output[n - 1] != '\n')
			fputc('\n', stdout);
		if (json_is_true(json_object_get(r, "output_truncated")))
			printf("(output truncated; all of it is in %s/%s)\n", or_dash(run_dir),
			       RUN_FILE_OUTPUT);
	}
}

/* ---- commands ---- */

static int get_run(struct cli *k, long long id, struct resp *r)
{
	char path[64];

	snprintf(path, sizeof(path), "/api/runs/%lld", id);
	return cli_api_call(k, "GET", path, NULL, NULL, r);
}

/* Polls the run until it is done; prints it; 0 passed, 1 not, 2 error */
static int wait_run(struct cli *k, long long id, int json)
{
	const char *last_state = "queued";
	struct resp r;
	int failures = 0, rc;

	for (;;) {
		const char *state;

		if (get_run(k, id, &r) < 0) {
			/* a daemon restarting is not the run's end */
			if (r.status || ++failures >= WAIT_RETRIES) {
				fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r.err);
				return EXIT_USAGE;
			}
			sleep(1);
			continue;
		}
		failures = 0;
		state = jget_str(r.j, "state");
		if (state && !strcmp(state, "done"))
			break;
		if (!json && state && strcmp(state, last_state)) {
			fprintf(stderr, "run %lld %s%s%s\n", id, state,
				jget_str(r.j, "host") ? " on " : "", or_dash(jget_str(r.j, "host")));
			last_state = !strcmp(state, "running") ? "running" : "queued";
		}
		json_decref(r.j);
		sleep(1);
	}
	if (json)
		print_json(r.j);
	else
		print_run(r.j);
	{
		const char *o = jget_str(r.j, "outcome");

		rc = o && !strcmp(o, "passed") ? EXIT_OK : EXIT_NOT_PASSED;
	}
	json_decref(r.j);
	return rc;
}

int cli_parse_num(const char *cmd, const char *opt, const char *s, long long min,
		  long long max, long long *out)
{
	if (parse_int(s, min, max, out) < 0) {
		fprintf(stderr, "kfleet: %s: %s '%s': not a number from %lld to %lld\n", cmd, opt,
			s, min, max);
		return -1;
	}
	return 0;
}

static int cmd_run(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "memory", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'J' },
		{ "topology", required_argument, NULL, 'T' },
		{ "numa", required_argument, NULL, 'N' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kernel = NULL, *arch = NULL, *job = NULL, *topology = NULL;
	long long vcpus = 0, memory = 0, timeout = 0, numa = 0, repeat = 1, id = 0, first = 0;
	int wait = 0, json = 0, c, rc = EXIT_USAGE;
	struct buf command = BUF_INIT(0);
	char *kabs = NULL, *token = NULL;
	json_t *body = NULL;
	struct resp r = { 0 };

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = optarg; break;
		case 'a': arch = optarg; break;
		case 'J': job = optarg; break;
		case 'T': topology = optarg; break;
		case 'N':
			if (cli_parse_num(k->cmd, "--numa", optarg, 1, 64, &numa) < 0)
				goto out;
			break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &vcpus) < 0)
				goto out;
			break;
		case 'm':
			if (cli_parse_num(k->cmd, "--memory", optarg, 1, 1 << 24, &memory) < 0)
				goto out;
			break;
		case 't':
			if (cli_parse_num(k->cmd, "--timeout", optarg, 1, 1 << 30, &timeout) < 0)
				goto out;
			break;
		case 'r':
			if (cli_parse_num(k->cmd, "--repeat", optarg, 1, 1000, &repeat) < 0)
				goto out;
			break;
		case 'w': wait = 1; break;
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (!kernel || (job && optind < argc) || (!job && optind >= argc)) {
		fprintf(stderr, "kfleet: run: %s\n", !kernel ? "--kernel PATH is required"
			: job ? "give --job NAME or a command, not both"
			: "no command given (put it after --, or give --job NAME)");
		usage(stderr);
		goto out;
	}
	if (job && !*job) {
		fprintf(stderr, "kfleet: run: --job: empty name\n");
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (i > optind)
			buf_puts(&command, " ");
		buf_puts(&command, argv[i]);
	}
	kabs = path_abs(kernel);
	if (!kabs) {
		fprintf(stderr, "kfleet: run: kernel '%s': %s\n", kernel, strerror(errno));
		goto out;
	}
	token = cli_read_token(k);
	if (!token)
		goto out;
	body = json_object();
	if (!body || json_object_set_new(body, "kernel", json_string(kabs)) < 0 ||
	    (job && json_object_set_new(body, "job", json_string(job)) < 0) ||
	    (!job && json_object_set_new(body, "command", json_string(buf_str(&command))) < 0) ||
	    (arch && json_object_set_new(body, "arch", json_string(arch)) < 0) ||
	    (vcpus && json_object_set_new(body, "vcpus", json_integer(vcpus)) < 0) ||
	    (memory && json_object_set_new(body, "memory_mb", json_integer(memory)) < 0) ||
	    (timeout && json_object_set_new(body, "timeout_s", json_integer(timeout)) < 0) ||
	    (topology && json_object_set_new(body, "topology", json_string(topology)) < 0) ||
	    (numa && json_object_set_new(body, "numa_nodes", json_integer(numa)) < 0)) {
		/* json_string refuses invalid UTF-8 */
		fprintf(stderr, "kfleet: run: the kernel path, the job and the command must be "
			"UTF-8\n");
		goto out;
	}
	/* --repeat: separate runs, queued one after the other */
	for (long long i = 0; i < repeat; i++) {
		json_decref(r.j);
		r.j = NULL;
		if (cli_api_call(k, "POST", "/api/runs", body, token, &r) < 0) {
			fprintf(stderr, "kfleet: run: %s\n", r.err);
			goto out;
		}
		id = jget_int(r.j, "id", 0);
		if (id <= 0) {
			fprintf(stderr, "kfleet: run: the answer has no run id\n");
			goto out;
		}
		if (!first)
			first = id;
		if (!wait && json)
			print_json(r.j);
		else if (!wait || !json)
			fprintf(wait ? stderr : stdout, "run %lld queued\n", id);
	}
	if (!wait) {
		rc = EXIT_OK;
		goto out;
	}
	/* each run's result in turn; the exit status is the worst */
	rc = EXIT_OK;
	for (long long i = first; i <= id; i++) {
		int one = wait_run(k, i, json);

		if (one > rc)
			rc = one;
	}
out:
	json_decref(r.j);
	json_decref(body);
	free(token);
	free(kabs);
	buf_release(&command);
	return rc;
}

static int cmd_runs(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long limit = 50;
	int json = 0, c, jw = 3;
	struct resp r;
	json_t *runs, *run;
	char path[64], d[32];
	size_t i;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (cli_parse_num(k->cmd, "--limit", optarg, 1, 500, &limit) < 0)
				return EXIT_USAGE;
			break;
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kfleet: runs: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "/api/runs?limit=%lld", limit);
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: runs: %s\n", r.err);
		return EXIT_USAGE;
	}
	if (json) {
		print_json(r.j);
		json_decref(r.j);
		return EXIT_OK;
	}
	runs = json_object_get(r.j, "runs");
	json_array_foreach(runs, i, run) {
		int l = (int)strlen(or_dash(jget_str(run, "job")));

		if (l > jw)
			jw = l;
	}
	printf("%-7s %-8s %-13s %-*s %-8s %5s %-5s %-12s %s\n", "ID", "STATE", "OUTCOME", jw,
	       "JOB", "ARCH", "VCPUS", "ACCEL", "DURATION", "KERNEL");
	json_array_foreach(runs, i, run) {
		fmt_duration(jget_int(run, "duration_ms", -1), d);
		printf("%-7lld %-8s %-13s %-*s %-8s %5lld %-5s %-12s %s\n", jget_int(run, "id", 0),
		       or_dash(jget_str(run, "state")), or_dash(jget_str(run, "outcome")), jw,
		       or_dash(jget_str(run, "job")),
		       or_dash(jget_str(run, "arch")), jget_int(run, "vcpus", 0),
		       or_dash(jget_str(run, "accel")), d,
		       or_dash(jget_str(json_object_get(run, "kernel"), "path")));
	}
	{
		json_t *cn = json_object_get(r.j, "counts");

		printf("%lld queued, %lld running, %lld done\n", jget_int(cn, "queued", 0),
		       jget_int(cn, "running", 0), jget_int(cn, "done", 0));
	}
	json_decref(r.j);
	return EXIT_OK;
}

static int cmd_show(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long id;
	int json = 0, c;
	struct resp r;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "kfleet: show: expected one run id\n");
		return EXIT_USAGE;
	}
	if (cli_parse_num(k->cmd, "run id", argv[optind], 1, INT64_MAX, &id) < 0)
		return EXIT_USAGE;
	if (get_run(k, id, &r) < 0) {
		fprintf(stderr, "kfleet: show: %s\n", r.err);
		return EXIT_USAGE;
	}
	if (json)
		print_json(r.j);
	else
		print_run(r.j);
	json_decref(r.j);
	return EXIT_OK;
}

/* ---- jobs ---- */

/* Appends s percent-encoded as one URL path segment */
static void url_segment(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
			buf_append(b, p, 1);
		else
			buf_printf(b, "%%%02X", *p);
	}
}

/* The strings of a JSON array joined by sep into b */
static void join_strs(struct buf *b, json_t *arr, const char *sep)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		if (i)
			buf_puts(b, sep);
		buf_puts(b, json_is_string(v) ? json_string_value(v) : "?");
	}
}

static void print_jobs(json_t *jobs)
{
	int wn = 4, wk = 4, wp = 6, wg = 8;
	json_t *j;
	size_t i;

	if (!json_array_size(jobs)) {
		printf("no jobs (the daemon found no *.job files in its job_dirs)\n");
		return;
	}
	json_array_foreach(jobs, i, j) {
		struct buf progs = BUF_INIT(0);
		int l;

		join_strs(&progs, json_object_get(j, "programs"), ",");
		if ((l = (int)strlen(or_dash(jget_str(j, "name")))) > wn)
			wn = l;
		if ((l = (int)strlen(or_dash(jget_str(j, "kind")))) > wk)
			wk = l;
		if ((l = (int)strlen(or_dash(jget_str(j, "parser")))) > wp)
			wp = l;
		if ((l = (int)progs.len) > wg)
			wg = l > 40 ? 40 : l;
		buf_release(&progs);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %s\n", wn, "NAME", wk, "KIND", wp, "PARSER", wg,
	       "PROGRAMS", "DESCRIPTION");
	json_array_foreach(jobs, i, j) {
		struct buf progs = BUF_INIT(0);

		join_strs(&progs, json_object_get(j, "programs"), ",");
		printf("%-*s  %-*s  %-*s  %-*s  %s\n", wn, or_dash(jget_str(j, "name")), wk,
		       or_dash(jget_str(j, "kind")), wp, or_dash(jget_str(j, "parser")), wg,
		       or_dash(buf_str(&progs)), jget_str(j, "description") ?
		       jget_str(j, "description") : "");
		buf_release(&progs);
	}
}

/* A job's default, or the daemon's when the job has none */
static void print_default(const char *label, json_t *j, const char *key, const char *unit)
{
	json_t *v = json_object_get(j, key);

	if (json_is_integer(v))
		printf("  %-12s%lld%s\n", label, (long long)json_integer_value(v), unit);
	else
		printf("  %-12sthe daemon's default\n", label);
}

static void print_job(json_t *j)
{
	struct buf b = BUF_INIT(0);
	json_t *metrics = json_object_get(j, "metrics"), *m;
	const char *s;
	size_t i;

	s = jget_str(j, "description");
	printf("job %s%s%s\n", or_dash(jget_str(j, "name")), s ? ": " : "", s ? s : "");
	printf("  kind:       %s\n", or_dash(jget_str(j, "kind")));
	printf("  parser:     %s\n", or_dash(jget_str(j, "parser")));
	printf("  command:    %s\n", or_dash(jget_str(j, "command")));
	join_strs(&b, json_object_get(j, "programs"), " ");
	printf("  programs:   %s\n", or_dash(buf_str(&b)));
	buf_reset(&b);
	join_strs(&b, json_object_get(j, "config"), " ");
	printf("  config:     %s\n", or_dash(buf_str(&b)));
	buf_reset(&b);
	join_strs(&b, json_object_get(j, "rootfs"), " ");
	if (b.len)
		printf("  root disk:  Debian packages %s\n", buf_str(&b));
	if (jget_str(j, "image"))
		printf("  root disk:  %s (an overlay of it per run)\n", jget_str(j, "image"));
	if (jget_str(j, "results"))
		printf("  results:    %s (copied out after the run)\n", jget_str(j, "results"));
	if (jget_str(j, "selftests"))
		printf("  selftests:  %s (built from the tree for each kernel, at /kselftest)\n",
		       jget_str(j, "selftests"));
	buf_release(&b);
	print_default("timeout:", j, "timeout_s", " s");
	print_default("memory:", j, "memory_mb", " MiB");
	print_default("vCPUs:", j, "vcpus", "");
	printf("  file:       %s\n", or_dash(jget_str(j, "file")));
	if (json_array_size(metrics)) {
		printf("metrics:\n");
		json_array_foreach(metrics, i, m)
			printf("  %-32s %-10s %s is better\n", or_dash(jget_str(m, "name")),
			       or_dash(jget_str(m, "unit")), or_dash(jget_str(m, "better")));
	}
}

static int cmd_jobs(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct buf path = BUF_INIT(0);
	int json = 0, c, show, rc = EXIT_USAGE;
	struct resp r = { 0 };

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	show = optind < argc && !strcmp(argv[optind], "show");
	if (show ? optind != argc - 2 : optind != argc) {
		fprintf(stderr, "kfleet: jobs: %s\n", show ? "expected 'show NAME'"
			: "expected nothing or 'show NAME'");
		usage(stderr);
		return EXIT_USAGE;
	}
	buf_puts(&path, "/api/jobs");
	if (show) {
		buf_puts(&path, "/");
		url_segment(&path, argv[optind + 1]);
	}
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: jobs: %s\n", r.err);
		goto out;
	}
	if (json)
		print_json(r.j);
	else if (show)
		print_job(r.j);
	else
		print_jobs(json_object_get(r.j, "jobs"));
	rc = EXIT_OK;
out:
	json_decref(r.j);
	buf_release(&path);
	return rc;
}

/* ---- compare: two kernels' runs of a job, metric by metric ---- */

/* "avg,p99,max,test" or "all" into CMP_COL_ bits; 0 / -1 */
static int compare_columns(const char *s, unsigned *cols)
{
	struct buf b = BUF_INIT(256);
	char *save = NULL;
	int rc = 0;

	if (buf_puts(&b, s) < 0)
		return -1;
	for (char *t = strtok_r(b.data, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save))
		*cols |= !strcmp(t, "all") ? CMP_COL_ALL : !strcmp(t, "avg") ? CMP_COL_MEAN
			: !strcmp(t, "p99") ? CMP_COL_P99 : !strcmp(t, "max") ? CMP_COL_MAX
			: !strcmp(t, "test") ? CMP_COL_TEST : (rc = -1, 0u);
	buf_release(&b);
	return rc;
}

static int cmd_compare(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernels", required_argument, NULL, 'K' },
		{ "request", required_argument, NULL, 'R' },
		{ "job", required_argument, NULL, 'J' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "columns", required_argument, NULL, 'C' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *job = NULL, *arch = NULL;
	long long ka = 0, kb = 0, vcpus = 0, req = 0;
	int json = 0, markdown = 0, c, rc = EXIT_USAGE;
	unsigned cols = CMP_COL_DEFAULT;
	char *req_job = NULL;
	struct buf path = BUF_INIT(0), out = BUF_INIT(0);
	struct resp r = { 0 };
	json_t *v;
	size_t i;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'K':   /* --kernels A B: B is the next argument */
			if (optind >= argc) {
				fprintf(stderr, "kfleet: compare: --kernels needs two kernel ids\n");
				goto out;
			}
			if (cli_parse_num(k->cmd, "--kernels", optarg, 1, INT64_MAX, &ka) < 0 ||
			    cli_parse_num(k->cmd, "--kernels", argv[optind], 1, INT64_MAX, &kb) < 0)
				goto out;
			optind++;
			break;
		case 'R':
			if (cli_parse_num(k->cmd, "--request", optarg, 1, INT64_MAX, &req) < 0)
				goto out;
			break;
		case 'J': job = optarg; break;
		case 'a': arch = optarg; break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &vcpus) < 0)
				goto out;
			break;
		case 'C':
			if (compare_columns(optarg, &cols) < 0) {
				fprintf(stderr, "kfleet: compare: --columns '%s': a list of avg, p99, "
					"max, test, or all\n", optarg);
				goto out;
			}
			break;
		case 'm': markdown = 1; break;
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (req && !ka) {
		/* a request: its two kernels and its job */
		char rp[64];

		snprintf(rp, sizeof(rp), "/api/requests/%lld", req);
		if (cli_api_call(k, "GET", rp, NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: compare: %s\n", r.err);
			goto out;
		}
		ka = jget_int(r.j, "base_kernel_id", 0);
		kb = jget_int(r.j, "patched_kernel_id", 0);
		if (!job && json_is_string(json_object_get(r.j, "job")))
			job = req_job = strdup(jget_str(r.j, "job"));
		json_decref(r.j);
		r.j = NULL;
	}
	if (!ka || !job || !*job || optind < argc || (json && markdown)) {
		fprintf(stderr, "kfleet: compare: %s\n", !ka ? "--kernels A B or --request ID is required"
			: !job || !*job ? "--job NAME is required"
			: optind < argc ? "unexpected argument" : "give --json or --markdown, not both");
		usage(stderr);
		goto out;
	}
	buf_printf(&path, "/api/compare?a=%lld&b=%lld&job=", ka, kb);
	url_segment(&path, job);
	if (arch) {
		buf_puts(&path, "&arch=");
		url_segment(&path, arch);
	}
	if (vcpus)
		buf_printf(&path, "&vcpus=%lld", vcpus);
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: compare: %s\n", r.err);
		goto out;
	}
	if (json) {
		print_json(r.j);
		rc = EXIT_OK;
		goto out;
	}
	json_array_foreach(json_object_get(r.j, "comparisons"), i, v) {
		struct cmp_report rep;
		char err[256];

		if (cmp_report_from_json(v, &rep, err, sizeof(err)) < 0) {
			cmp_report_release(&rep);
			fprintf(stderr, "kfleet: compare: comparisons[%zu]: %s\n", i, err);
			goto out;
		}
		if (out.len)
			buf_puts(&out, "\n");
		if ((markdown ? cmp_render_markdown(&rep, cols, &out)
		     : cmp_render_text(&rep, cols, &out)) < 0) {
			cmp_report_release(&rep);
			fprintf(stderr, "kfleet: compare: out of memory\n");
			goto out;
		}
		cmp_report_release(&rep);
	}
	json_array_foreach(json_object_get(r.j, "unmatched"), i, v)
		buf_printf(&out, "%snot compared: %s has only %s runs\n", out.len ? "\n" : "",
			   or_dash(jget_str(v, "cell")), or_dash(jget_str(v, "only")));
	if (!json_array_size(json_object_get(r.j, "comparisons")))
		buf_printf(&out, "%sno passed runs of '%s' with samples on both kernels\n",
			   out.len ? "\n" : "", job);
	fputs(buf_str(&out), stdout);
	rc = EXIT_OK;
out:
	json_decref(r.j);
	buf_release(&path);
	buf_release(&out);
	free(req_job);
	return rc;
}

/* ---- parse: a job output parser on a log at hand, without the daemon ---- */

static void print_notes(const char *file, const struct job_notes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		fprintf(stderr, "%s:%zu: %s\n", file, ns->v[i].line, ns->v[i].what);
	if (ns->dropped)
		fprintf(stderr, "%s: %zu more notes not shown\n", file, ns->dropped);
}

static void print_results(const struct job_results *r, const struct tprogs_summary *sum)
{
	size_t total = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct job_result *x = &r->v[i];

		printf("%-8s %s%s%s%s\n", job_status_name(x->status), x->path,
		       x->reason ? "  (" : "", x->reason ? x->reason : "", x->reason ? ")" : "");
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		total += r->count[i];
	printf("%zu results: %zu pass, %zu fail, %zu skip, %zu xfail, %zu error, %zu timeout, "
	       "%zu missing%s\n", total, r->count[JOB_PASS], r->count[JOB_FAIL],
	       r->count[JOB_SKIP], r->count[JOB_XFAIL], r->count[JOB_ERROR],
	       r->count[JOB_TIMEOUT], r->count[JOB_MISSING],
	       r->truncated ? " (truncated: more than the result limit)" : "");
	if (sum && sum->present) {
		printf("test_progs summary: %ld", sum->passed);
		if (sum->subtests_passed >= 0)
			printf("/%ld", sum->subtests_passed);
		printf(" PASSED, ");
		if (sum->skipped >= 0)
			printf("%ld SKIPPED, ", sum->skipped);
		printf("%ld FAILED\n", sum->failed);
	}
}

static void print_samples(const struct job_samples *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct job_sample *x = &s->v[i];

		printf("%-44s %6ld  %.15g%s%s\n", x->name, x->seq, x->value, x->unit ? " " : "",
		       x->unit ? x->unit : "");
	}
	printf("%zu samples%s\n", s->n,
	       s->truncated ? " (truncated: more than the sample limit)" : "");
}

/* kfleet test: a request of base and patched runs, interleaved; with
 * --wait, the outcomes per side and the comparison of the job's metrics. */
/* Waits for request id's runs, prints each run's outcome and the
 * before/after table of job. EXIT_OK, EXIT_NOT_PASSED when a run did not
 * pass, EXIT_USAGE when the daemon cannot be asked. */
int cli_request_report(struct cli *k, long long id, const char *job, int markdown)
{
	struct resp r = { 0 };
	char path[64];
	int rc, failed = 0;

	snprintf(path, sizeof(path), "/api/requests/%lld", id);
	for (;;) {
		json_decref(r.j);
		r.j = NULL;
		if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r.err);
			rc = EXIT_USAGE;
			goto out;
		}
		if (json_is_true(json_object_get(r.j, "done")))
			break;
		sleep(2);
	}
	{
		json_t *runs = json_object_get(r.j, "runs"), *run;
		size_t i;

		json_array_foreach(runs, i, run) {
			const char *o = json_string_value(json_object_get(run, "outcome"));

			printf("  run %lld  %-7s  %s\n", jget_int(run, "id", 0),
			       json_string_value(json_object_get(run, "side")), o ? o : "-");
			failed |= !o || strcmp(o, "passed");
		}
	}
	{
		/* pass/fail per subtest across the request, the changes first */
		json_t *pf = json_object_get(r.j, "passfail"), *t;
		json_t *cls = json_object_get(pf, "classes");
		size_t i;

		if (json_array_size(json_object_get(pf, "subtests"))) {
			printf("\nsubtests: %lld new failures, %lld fixed, %lld still failing, "
			       "%lld flaky, %lld missing, %lld skipped, %lld passing\n",
			       jget_int(cls, "new-failure", 0), jget_int(cls, "fixed", 0),
			       jget_int(cls, "still-failing", 0), jget_int(cls, "flaky", 0),
			       jget_int(cls, "missing", 0), jget_int(cls, "skip", 0),
			       jget_int(cls, "pass", 0));
			json_array_foreach(json_object_get(pf, "subtests"), i, t) {
				const char *c = jget_str(t, "class");

				if (c && strcmp(c, "pass") && strcmp(c, "skip"))
					printf("  %-14s %s\n", c, jget_str(t, "path"));
			}
		}
	}
	/* a job with subtests and no metrics: the pass/fail above is its table */
	if (!json_array_size(json_object_get(r.j, "comparisons")) &&
	    json_array_size(json_object_get(json_object_get(r.j, "passfail"), "subtests"))) {
		rc = failed ? EXIT_NOT_PASSED : EXIT_OK;
		goto out;
	}
	{
		char ka[32], kb[32];
		char *cargv[] = { "compare", "--kernels", ka, kb, "--job", (char *)job,
				  markdown ? "--markdown" : NULL, NULL };
		int cargc = markdown ? 7 : 6;

		snprintf(ka, sizeof(ka), "%lld", jget_int(r.j, "base_kernel_id", 0));
		snprintf(kb, sizeof(kb), "%lld", jget_int(r.j, "patched_kernel_id", 0));
		printf("\n");
		rc = cmd_compare(k, cargc, cargv);
	}
	if (rc == EXIT_OK && failed)
		rc = EXIT_NOT_PASSED;
out:
	json_decref(r.j);
	return rc;
}

static int cmd_test(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'B' },
		{ "patched", required_argument, NULL, 'P' },
		{ "job", required_argument, NULL, 'J' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "memory", required_argument, NULL, 'm' },
		{ "wait", no_argument, NULL, 'w' },
		{ "markdown", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *base = NULL, *patched = NULL, *job = NULL, *arch = NULL;
	long long repeat = 1, vcpus = 0, memory = 0, id;
	int wait = 0, markdown = 0, c, rc = EXIT_USAGE;
	char *babs = NULL, *pabs = NULL, *token = NULL;
	json_t *body = NULL;
	struct resp r = { 0 };

	/* a series on a tree: built, then tested (cli_build.c) */
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--tree", 6) || !strncmp(argv[i], "--mbox", 6) ||
		    !strncmp(argv[i], "--url", 5) || !strncmp(argv[i], "--msgid", 7) ||
		    !strncmp(argv[i], "--patchwork", 11))
			return cli_submit(k, argc, argv, 1);
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'B': base = optarg; break;
		case 'P': patched = optarg; break;
		case 'J': job = optarg; break;
		case 'a': arch = optarg; break;
		case 'r':
			if (cli_parse_num(k->cmd, "--repeat", optarg, 1, 100, &repeat) < 0)
				goto out;
			break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &vcpus) < 0)
				goto out;
			break;
		case 'm':
			if (cli_parse_num(k->cmd, "--memory", optarg, 1, 1 << 24, &memory) < 0)
				goto out;
			break;
		case 'w': wait = 1; break;
		case 'M': markdown = 1; break;
		case 'h':
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (!base || !patched || !job || optind < argc) {
		fprintf(stderr, "kfleet: test: --base PATH, --patched PATH and --job NAME are "
			"required\n");
		goto out;
	}
	babs = path_abs(base);
	pabs = path_abs(patched);
	token = cli_read_token(k);
	if (!babs || !pabs || !token)
		goto out;
	body = json_pack("{s:s, s:s, s:s, s:I}", "kernel", babs, "patched", pabs, "job", job,
			 "repeat", (json_int_t)repeat);
	if (!body || (arch && json_object_set_new(body, "arch", json_string(arch)) < 0) ||
	    (vcpus && json_object_set_new(body, "vcpus", json_integer(vcpus)) < 0) ||
	    (memory && json_object_set_new(body, "memory_mb", json_integer(memory)) < 0)) {
		fprintf(stderr, "kfleet: test: the kernel paths and the job must be UTF-8\n");
		goto out;
	}
	if (cli_api_call(k, "POST", "/api/requests", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: test: %s\n", r.err);
		goto out;
	}
	id = jget_int(r.j, "id", 0);
	printf("request %lld queued: %lld runs of base and patched, interleaved\n", id,
	       2 * repeat);
	rc = EXIT_OK;
	if (!wait)
		goto out;
	rc = cli_request_report(k, id, job, markdown);
out:
	json_decref(r.j);
	json_decref(body);
	free(token);
	free(babs);
	free(pabs);
	return rc;
}

static int cmd_parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tprogs_summary sum = { 0 };
	struct buf in = BUF_INIT(JOB_OUTPUT_MAX);
	struct job_results r;
	struct job_samples s;
	const char *kind, *file;
	int json = 0, c, rc = EXIT_USAGE, prc = -1, results;
	json_t *j = NULL;

	job_results_init(&r, JOB_RESULTS_MAX);
	job_samples_init(&s, JOB_SAMPLES_MAX);
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "kfleet: parse: expected a parser and a file\n");
		usage(stderr);
		goto out;
	}
	kind = argv[optind];
	file = argv[optind + 1];
	results = !strcmp(kind, "ktap") || !strcmp(kind, "test_progs");
	if (!results && strcmp(kind, "bench") && strcmp(kind, "metrics")) {
		fprintf(stderr, "kfleet: parse: '%s' is not a parser (ktap, test_progs, bench, "
			"metrics)\n", kind);
		goto out;
	}
	if (read_file(strcmp(file, "-") ? file : "/dev/stdin", &in, JOB_OUTPUT_MAX) < 0) {
		fprintf(stderr, "kfleet: parse: '%s': %s\n", file, strerror(errno));
		goto out;
	}
	if (in.truncated) {
		fprintf(stderr, "kfleet: parse: '%s' is larger than %u MiB\n", file,
			JOB_OUTPUT_MAX >> 20);
		goto out;
	}
	if (!strcmp(kind, "ktap")) {
		prc = ktap_parse(in.data, in.len, &r);
	} else if (!strcmp(kind, "test_progs")) {
		size_t i = 0;

		/* the -J file or the text output */
		while (i < in.len && strchr(" \t\r\n", in.data[i]))
			i++;
		if (i < in.len && in.data[i] == '{')
			prc = tprogs_parse_json(in.data, in.len, &r, &sum);
		else
			prc = tprogs_parse(in.data, in.len, &r, &sum);
	} else if (!strcmp(kind, "bench")) {
		prc = bench_parse(in.data, in.len, &s);
	} else {
		prc = metrics_parse(in.data, in.len, &s);
	}
	print_notes(file, results ? &r.notes : &s.notes);
	if (prc < 0) {
		fprintf(stderr, "kfleet: parse: '%s': %s\n", file,
			(results ? r.notes.n : s.notes.n) ? "not parsed" : "out of memory");
		goto out;
	}
	if (!json) {
		if (results)
			print_results(&r, !strcmp(kind, "test_progs") ? &sum : NULL);
		else
			print_samples(&s);
		rc = EXIT_OK;
		goto out;
	}
	j = results ? job_results_json(&r) : job_samples_json(&s);
	if (!j || json_object_set_new(j, "parser", json_string(kind)) < 0 ||
	    (sum.present && json_object_set_new(j, "summary", json_pack("{sI sI sI sI}",
			"passed", (json_int_t)sum.passed,
			"subtests_passed", (json_int_t)sum.subtests_passed,
			"skipped", (json_int_t)sum.skipped,
			"failed", (json_int_t)sum.failed)) < 0)) {
		fprintf(stderr, "kfleet: parse: out of memory\n");
		goto out;
	}
	print_json(j);
	rc = EXIT_OK;
out:
	json_decref(j);
	job_results_release(&r);
	job_samples_release(&s);
	buf_release(&in);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli k;
	int c, rc = EXIT_USAGE;

	memset(&k, 0, sizeof(k));
	while ((c = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': k.config_path = optarg; break;
		case 'u': k.url_opt = optarg; break;
		case 'T': k.token_file = optarg; break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "series"))  /* mbox files and fetches here: no config, no daemon */
		return cli_series(argc - optind, argv + optind);
	if (!strcmp(argv[optind], "parse"))   /* works on files here: no config, no daemon */
		return cmd_parse(argc - optind, argv + optind);
	if (config_defaults(&k.cfg) < 0) {
		fprintf(stderr, "kfleet: out of memory\n");
		goto out;
	}
	if (k.config_path) {
		struct buf err = BUF_INIT(64 * 1024);

		if (config_load(&k.cfg, k.config_path, &err) < 0) {
			fprintf(stderr, "%s", buf_str(&err));
			if (!err.len)
				fprintf(stderr, "kfleet: config '%s' is not valid\n", k.config_path);
			buf_release(&err);
			goto out;
		}
		buf_release(&err);
	}
	if (resolve_url(&k) < 0) {
		fprintf(stderr, "kfleet: out of memory\n");
		goto out;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "kfleet: cannot start libcurl\n");
		goto out;
	}
	k.cmd = argv[optind];
	argc -= optind;
	argv += optind;
	if (!strcmp(k.cmd, "run"))
		rc = cmd_run(&k, argc, argv);
	else if (!strcmp(k.cmd, "runs"))
		rc = cmd_runs(&k, argc, argv);
	else if (!strcmp(k.cmd, "show"))
		rc = cmd_show(&k, argc, argv);
	else if (!strcmp(k.cmd, "jobs"))
		rc = cmd_jobs(&k, argc, argv);
	else if (!strcmp(k.cmd, "compare"))
		rc = cmd_compare(&k, argc, argv);
	else if (!strcmp(k.cmd, "test"))
		rc = cmd_test(&k, argc, argv);
	else if (!strcmp(k.cmd, "import"))
		rc = cli_import(&k, argc, argv);
	else if (!strcmp(k.cmd, "trend"))
		rc = cli_trend(&k, argc, argv);
	else if (!strcmp(k.cmd, "submit"))
		rc = cli_submit(&k, argc, argv, 0);
	else if (!strcmp(k.cmd, "tree") || !strcmp(k.cmd, "trees"))
		rc = cli_tree(&k, argc, argv);
	else if (!strcmp(k.cmd, "submission") || !strcmp(k.cmd, "submissions"))
		rc = cli_submission(&k, argc, argv);
	else if (!strcmp(k.cmd, "builds") || !strcmp(k.cmd, "build"))
		rc = cli_builds(&k, argc, argv);
	else {
		fprintf(stderr, "kfleet: '%s' is not a command\n", k.cmd);
		usage(stderr);
	}
	curl_global_cleanup();
out:
	free(k.url);
	config_release(&k.cfg);
	return rc;
}
