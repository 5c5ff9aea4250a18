// SPDX-License-Identifier: GPL-2.0-only
/* sched_test.c: the workers' lifecycle against libvirt's test:///default
 * driver, which keeps its domains per process: the test plays the guest by
 * writing the agent channel and the console into the run's directory and
 * by destroying the domain (a poweroff), then checks the outcome stored.
 * The real path, with QEMU, is in t/e2e-run.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <sqlite3.h>
#include <time.h>

#include "common/frame.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"
#include "config/config.h"
#include "orchestrator/orchestrator.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"
#include "t/unit/orchestrator/orch_testutil.h"

struct fx {
	char dir[256];
	char kernel[300];
	struct config c;
	struct orch *o;
	struct db *db;
	virConnectPtr conn;   /* the test driver's domains, as the workers see them */
};

static void quiet(void *u, virErrorPtr e) { (void)u; (void)e; }

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *e = NULL;

	tu_tmpdir(f->dir, sizeof(f->dir), "sched");
	/* as if kfleet built it: a request's kernel in the state directory is
	 * taken only from builds/ */
	snprintf(f->kernel, sizeof(f->kernel), "%s/builds", f->dir);
	mkdir(f->kernel, 0755);
	snprintf(f->kernel, sizeof(f->kernel), "%s/builds/bzImage", f->dir);
	otu_fake_bzimage(f->kernel);
	otu_config(&f->c, f->dir);
	f->c.console_max = 64 * 1024;
	virSetErrorFunc(NULL, quiet);
	log_set_level(LOG_LVL_WARN);
	f->o = orch_new(&f->c, &e);
	if (!f->o)
		fail_msg("orch_new: %s", e);
	f->db = db_open(orch_db_path(f->o), &e);
	assert_non_null(f->db);
	f->conn = virConnectOpen("test:///default");
	assert_non_null(f->conn);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	orch_free(f->o);
	db_close(f->db);
	virConnectClose(f->conn);
	config_release(&f->c);
	tu_rmrf(f->dir);
	free(f);
	return 0;
}

static int64_t submit(struct fx *f, const char *cmd)
{
	struct run_spec s = { .kernel = f->kernel, .arch = "x86_64", .vcpus = 1, .command = cmd };
	int64_t id = 0;
	char *e = NULL;

	if (orch_submit(f->o, &s, &id, &e) != 0)
		fail_msg("submit: %s", e);
	return id;
}

/* Waits until the run's domain is active; returns the run (release it). */
static void wait_domain(struct fx *f, int64_t id, struct run *r)
{
	for (int i = 0; i < 200; i++) {
		assert_int_equal(db_run_get(f->db, id, r), 1);
		if (r->state == RUN_RUNNING && r->run_dir && r->domain) {
			virDomainPtr d = virDomainLookupByName(f->conn, r->domain);
			int active = d && virDomainIsActive(d) == 1;

			if (d)
				virDomainFree(d);
			if (active)
				return;
		}
		run_release(r);
		usleep(50000);
	}
	fail_msg("run %lld: its domain never became active", (long long)id);
}

static void wait_done(struct fx *f, int64_t id, struct run *r, int seconds)
{
	for (int i = 0; i < seconds * 20; i++) {
		assert_int_equal(db_run_get(f->db, id, r), 1);
		if (r->state == RUN_DONE)
			return;
		run_release(r);
		usleep(50000);
	}
	fail_msg("run %lld: not done in %d s", (long long)id, seconds);
}

/* Appends frames to the run's agent channel, as the agent would. */
static void agent_says(const struct run *r, uint32_t seq, enum frame_type t, const char *payload)
{
	char line[FRAME_MAX_LINE + 1], *path = tu_path(r->run_dir, RUN_FILE_AGENT);
	int n = frame_encode(line, seq, t, payload, strlen(payload));

	assert_true(n > 0);
	tu_write(path, line, (size_t)n, 1);
	free(path);
}

static void poweroff(struct fx *f, const struct run *r)
{
	virDomainPtr d = virDomainLookupByName(f->conn, r->domain);

	assert_non_null(d);
	assert_int_equal(virDomainDestroy(d), 0);
	virDomainFree(d);
}

static int domain_exists(struct fx *f, const char *name)
{
	virDomainPtr d = virDomainLookupByName(f->conn, name);
	int active = d && virDomainIsActive(d) == 1;

	if (d)
		virDomainFree(d);
	virResetLastError();
	return active;
}

static void test_pass(void **state)
{
	struct fx *f = *state;
	struct run r;
	int64_t id = submit(f, "echo hello");
	char *out, *text;

	assert_int_equal(orch_start(f->o), 0);
	wait_domain(f, id, &r);
	assert_string_equal(r.accel, "test");
	agent_says(&r, 0, FRAME_HELLO, "release=6.1.0-test\nnproc=1\nmem_kb=400000\n");
	agent_says(&r, 1, FRAME_OUT, "hello\n");
	agent_says(&r, 2, FRAME_EXIT, "code=0");
	poweroff(f, &r);
	run_release(&r);
	wait_done(f, id, &r, 10);
	assert_string_equal(run_outcome_name(r.outcome), "passed");
	assert_true(r.has_exit_code);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.guest_release, "6.1.0-test");
	assert_true(r.booted_at >= r.started_at && r.ended_at >= r.booted_at);
	out = tu_path(r.run_dir, RUN_FILE_OUTPUT);
	text = tu_slurp(out, NULL);
	assert_string_equal(text, "hello\n");
	free(text);
	free(out);
	run_release(&r);
}

static void test_no_boot(void **state)
{
	struct fx *f = *state;
	struct run r;
	int64_t id = submit(f, "true");

	assert_int_equal(orch_start(f->o), 0);
	wait_done(f, id, &r, 10);
	assert_string_equal(run_outcome_name(r.outcome), "no-boot");
	assert_non_null(strstr(r.detail, "no agent hello within 1 s"));
	assert_false(domain_exists(f, r.domain));
	run_release(&r);
}

static void test_crash_in_console(void **state)
{
	struct fx *f = *state;
	struct run r;
	int64_t id = submit(f, "echo c > /proc/sysrq-trigger");
	char *console;
	static const char panic[] =
		"[    1.50] sysrq: Trigger a crash\r\n"
		"[    1.51] Kernel panic - not syncing: sysrq triggered crash\r\n"
		"[    1.52] CPU: 0 PID: 75 Comm: sh Not tainted 6.1.0 #1\r\n"
		"[    1.53] Call Trace:\r\n";

	assert_int_equal(orch_start(f->o), 0);
	wait_domain(f, id, &r);
	agent_says(&r, 0, FRAME_HELLO, "release=6.1.0-test\nnproc=1\n");
	console = tu_path(r.run_dir, RUN_FILE_CONSOLE);
	tu_write(console, panic, sizeof(panic) - 1, 1);
	poweroff(f, &r);
	run_release(&r);
	wait_done(f, id, &r, 10);
	assert_string_equal(run_outcome_name(r.outcome), "crash");
	assert_non_null(strstr(r.detail, "kernel panic: "));
	assert_null(strchr(r.detail, '\r'));
	assert_non_null(strstr(r.splat, "Call Trace:"));
	assert_false(r.has_exit_code);
	free(console);
	run_release(&r);
}

/* The agent said exit, but the guest never powers off: it is destroyed
 * after a few seconds, and the exit status stands. */
static void test_exit_without_poweroff(void **state)
{
	struct fx *f = *state;
	struct run r;
	int64_t id = submit(f, "exit 5");
	char *name;

	assert_int_equal(orch_start(f->o), 0);
	wait_domain(f, id, &r);
	agent_says(&r, 0, FRAME_HELLO, "release=x\n");
	agent_says(&r, 1, FRAME_EXIT, "code=5");
	name = strdup(r.domain);
	run_release(&r);
	wait_done(f, id, &r, 15);
	assert_string_equal(run_outcome_name(r.outcome), "failed");
	assert_int_equal(r.exit_code, 5);
	assert_false(domain_exists(f, name));
	free(name);
	run_release(&r);
}

static void test_console_flood(void **state)
{
	struct fx *f = *state;
	struct run r;
	int64_t id = submit(f, "yes > /dev/console");
	static char junk[100 * 1024];
	char *console;
	size_t len = 0;

	assert_int_equal(orch_start(f->o), 0);
	wait_domain(f, id, &r);
	agent_says(&r, 0, FRAME_HELLO, "release=x\n");
	memset(junk, 'y', sizeof(junk));
	console = tu_path(r.run_dir, RUN_FILE_CONSOLE);
	tu_write(console, junk, sizeof(junk), 1);
	run_release(&r);
	wait_done(f, id, &r, 10);
	assert_string_equal(run_outcome_name(r.outcome), "console-flood");
	free(tu_slurp(console, &len));
	assert_true(len > 64 * 1024 && len < 64 * 1024 + 200);
	free(console);
	run_release(&r);
}

/* Stopping the orchestrator with a run in flight destroys the guest and
 * puts the run back in the queue as an infrastructure failure. */
static void test_stop_requeues(void **state)
{
	struct fx *f = *state;
	struct run r;
	int64_t id = submit(f, "sleep 100");
	char *name;

	f->c.boot_timeout_s = 60;
	assert_int_equal(orch_start(f->o), 0);
	wait_domain(f, id, &r);
	agent_says(&r, 0, FRAME_HELLO, "release=x\n");
	name = strdup(r.domain);
	run_release(&r);
	orch_free(f->o);
	f->o = NULL;
	assert_int_equal(db_run_get(f->db, id, &r), 1);
	assert_string_equal(run_state_name(r.state), "queued");
	assert_int_equal(r.attempt, 1);
	assert_non_null(strstr(r.detail, "stopped while the run was in flight"));
	assert_false(domain_exists(f, name));
	free(name);
	run_release(&r);
}

/* Two slots, six runs: every run is claimed once and ends. */
static void test_many_runs_two_slots(void **state)
{
	struct fx *f = *state;
	int64_t ids[6];
	struct run r;

	for (int i = 0; i < 6; i++)
		ids[i] = submit(f, "true");
	assert_int_equal(orch_start(f->o), 0);
	for (int i = 0; i < 6; i++) {
		wait_done(f, ids[i], &r, 30);
		assert_string_equal(run_outcome_name(r.outcome), "no-boot");
		assert_int_equal(r.attempt, 1);
		run_release(&r);
	}
}

/* The fixture's orchestrator again, with a second host on uri; both
 * take one guest at a time */
static void two_hosts_on(struct fx *f, const char *uri)
{
	char *e = NULL;

	orch_free(f->o);
	f->c.hosts = realloc(f->c.hosts, 2 * sizeof(*f->c.hosts));
	assert_non_null(f->c.hosts);
	f->c.hosts[0].slots = 1;
	f->c.hosts[1] = (struct config_host){
		.name = strdup("second"), .uri = strdup(uri), .slots = 1, .cpus = -1,
		.accel = strdup("auto"), .transfer = strdup("auto"), .pool = strdup("kfleet"),
		.pool_path = strdup("/var/lib/kfleet/pool"), .firmware = strdup("seabios"), .boot = strdup("default"),
		.connect_timeout_s = 30,
	};
	f->c.nhosts = 2;
	f->o = orch_new(&f->c, &e);
	if (!f->o)
		fail_msg("orch_new: %s", e);
}

/* ... a second test-driver host */
static void two_hosts(struct fx *f)
{
	two_hosts_on(f, "test:///default");
}

/* Two hosts of one slot each: runs are placed on both, and an arch no
 * host runs is refused at submit. */
static void test_two_hosts(void **state)
{
	struct fx *f = *state;
	static char image[128 * 1024];
	char arm_kernel[300];
	struct run_spec arm = { .kernel = arm_kernel, .arch = "arm64", .vcpus = 1,
				.command = "true" };
	char *e = NULL;
	int64_t ids[4], id;
	struct run r;
	char hosts[2][16] = { "", "" };

	snprintf(arm_kernel, sizeof(arm_kernel), "%s/builds/Image", f->dir);
	memcpy(image + 0x38, "ARM\x64", 4);
	tu_write(arm_kernel, image, sizeof(image), 0);
	two_hosts(f);
	for (int i = 0; i < 4; i++)
		ids[i] = submit(f, "true");
	assert_int_equal(orch_start(f->o), 0);
	for (int i = 0; i < 4; i++) {
		wait_done(f, ids[i], &r, 20);
		assert_non_null(r.host);
		if (!hosts[0][0] || !strcmp(hosts[0], r.host))
			snprintf(hosts[0], sizeof(hosts[0]), "%s", r.host);
		else
			snprintf(hosts[1], sizeof(hosts[1]), "%s", r.host);
		run_release(&r);
	}
	/* both hosts took runs */
	assert_true(hosts[0][0] && hosts[1][0]);
	assert_int_equal(orch_submit(f->o, &arm, &id, &e), -1);
	if (!strstr(e, "arch 'arm64': no host here runs it"))
		fail_msg("unexpected: %s", e);
	free(e);
}

/* Placement: a host that runs x86_64 under TCG leaves runs to an idle KVM
 * host, and no host takes a run its free memory cannot hold. The first
 * test-driver host plays the KVM host. */
static void test_placement(void **state)
{
	struct fx *f = *state;
	struct run_spec big = { .kernel = f->kernel, .arch = "x86_64", .vcpus = 1,
				.memory_mb = 1024, .command = "true" };
	char *e = NULL;
	int64_t id;
	struct run r;

	two_hosts(f);
	snprintf(f->o->hosts[0].accel, sizeof(f->o->hosts[0].accel), "kvm");
	assert_int_equal(orch_start(f->o), 0);
	/* one at a time, so the KVM host is idle each time: it gets them all,
	 * though the other host's worker is just as free */
	for (int i = 0; i < 4; i++) {
		id = submit(f, "true");
		wait_done(f, id, &r, 20);
		assert_string_equal(r.host, f->c.hosts[0].name);
		run_release(&r);
	}
	/* 256 MiB left on the KVM host (less its reserve): a 1 GiB guest goes
	 * to the other host */
	pthread_mutex_lock(&f->o->lock);
	f->o->hosts[0].memory_kb = (512 + 256) * 1024;
	pthread_mutex_unlock(&f->o->lock);
	assert_int_equal(orch_submit(f->o, &big, &id, &e), 0);
	wait_done(f, id, &r, 20);
	assert_string_equal(r.host, "second");
	run_release(&r);
}

/* A host that cannot be reached at start does not stop kfleetd: it is
 * down, saying why and since when (in memory and in the database), and
 * the other host serves */
static void test_unreachable_host(void **state)
{
	struct fx *f = *state;
	struct dbq_host *h = NULL;
	char why[512];
	int healthy = 1;
	size_t n = 0;
	struct run r;
	int64_t id;

	two_hosts_on(f, "test:///nonexistent/kfleet-test-host.xml");
	assert_int_equal(orch_host_health(f->o, "second", &healthy, why, sizeof(why)), 1);
	assert_int_equal(healthy, 0);
	if (!strstr(why, "unreachable since ") || !strstr(why, "host 'second' (test:///nonexistent"))
		fail_msg("health: %s", why);
	assert_int_equal(orch_host_health(f->o, f->c.hosts[0].name, &healthy, why, sizeof(why)), 1);
	assert_int_equal(healthy, 1);
	assert_int_equal(orch_host_health(f->o, "no-such-host", &healthy, why, sizeof(why)), 0);
	assert_int_equal(dbq_hosts(f->db, &h, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(h[1].name, "second");
	assert_int_equal(h[1].healthy, 0);
	assert_non_null(strstr(h[1].health_detail, "unreachable since "));
	dbq_hosts_free(h, n);
	id = submit(f, "true");
	assert_int_equal(orch_start(f->o), 0);
	wait_done(f, id, &r, 20);
	assert_string_equal(r.host, f->c.hosts[0].name);
	run_release(&r);
}

/* A domain of the same name stopping on another host (an earlier
 * attempt's guest, destroyed there when its host came back) is not the
 * run's guest stopping: only the events of the run's own host's
 * connection count. The second host is a test driver of its own (a
 * custom file: a private instance), so the name can exist on both. */
static void test_same_name_other_host(void **state)
{
	struct fx *f = *state;
	char uri[400], xml[600], *path;
	struct host *other = NULL;
	virDomainPtr d;
	struct run r;
	int64_t id;

	path = tu_path(f->dir, "second-host.xml");
	tu_write(path, "<node/>\n", 8, 0);
	snprintf(uri, sizeof(uri), "test://%s", path);
	free(path);
	two_hosts_on(f, uri);
	id = submit(f, "echo hello");
	assert_int_equal(orch_start(f->o), 0);
	/* the run's guest is up on one host (the fixture's conn sees the
	 * test:///default one; the run may be on either) */
	for (int i = 0; i < 200; i++) {
		assert_int_equal(db_run_get(f->db, id, &r), 1);
		if (r.state == RUN_RUNNING && r.run_dir && r.domain && r.host)
			break;
		run_release(&r);
		usleep(50000);
	}
	assert_non_null(r.host);
	usleep(300000);   /* its guest made, its watch set */
	for (size_t i = 0; i < f->o->nhosts; i++)
		if (strcmp(f->o->hosts[i].conf->name, r.host))
			other = &f->o->hosts[i];
	assert_non_null(other);
	assert_non_null(other->conn);
	agent_says(&r, 0, FRAME_HELLO, "release=6.1.0-test\nnproc=1\nmem_kb=400000\n");
	/* the same name started and destroyed on the other host */
	snprintf(xml, sizeof(xml), "<domain type='test'><name>%s</name><memory>65536</memory>"
		 "<os><type>hvm</type></os></domain>", r.domain);
	d = virDomainCreateXML(other->conn, xml, 0);
	assert_non_null(d);
	assert_int_equal(virDomainDestroy(d), 0);
	virDomainFree(d);
	usleep(500000);   /* the events delivered */
	run_release(&r);
	assert_int_equal(db_run_get(f->db, id, &r), 1);
	assert_int_equal(r.state, RUN_RUNNING);
	/* and the run's own guest ends it as it should */
	agent_says(&r, 1, FRAME_OUT, "hello\n");
	agent_says(&r, 2, FRAME_EXIT, "code=0");
	{
		struct host *mine = other == &f->o->hosts[0] ? &f->o->hosts[1] : &f->o->hosts[0];

		d = virDomainLookupByName(mine->conn, r.domain);
		assert_non_null(d);
		assert_int_equal(virDomainDestroy(d), 0);
		virDomainFree(d);
	}
	run_release(&r);
	wait_done(f, id, &r, 10);
	assert_string_equal(run_outcome_name(r.outcome), "passed");
	run_release(&r);
}

/* A store that failed on a full disk (SQLITE_FULL; max_page_count plays
 * it) is tried again, the outcome kept meanwhile, as for a locked
 * database; not once kfleetd stops (its restart's recovery takes over) */
static void test_store_waits_for_room(void **state)
{
	struct fx *f = *state;
	sqlite3 *sql = db_sqlite(f->db);
	char *err = NULL;

	assert_int_equal(sqlite3_exec(sql, "CREATE TABLE filler (x BLOB)", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql, "PRAGMA max_page_count = 1", NULL, NULL, &err),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql, "INSERT INTO filler VALUES (zeroblob(100000))", NULL,
				      NULL, NULL), SQLITE_FULL);
	assert_true(db_full(f->db));
	assert_int_equal(orch_store_retry(f->o, f->db, 1, "outcome", 0), 1);
	pthread_mutex_lock(&f->o->lock);
	f->o->stopping = 1;
	pthread_mutex_unlock(&f->o->lock);
	assert_int_equal(orch_store_retry(f->o, f->db, 1, "outcome", 0), 0);
	pthread_mutex_lock(&f->o->lock);
	f->o->stopping = 0;
	pthread_mutex_unlock(&f->o->lock);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_pass),
		T(test_no_boot),
		T(test_crash_in_console),
		T(test_exit_without_poweroff),
		T(test_console_flood),
		T(test_stop_requeues),
		T(test_many_runs_two_slots),
		T(test_two_hosts),
		T(test_placement),
		T(test_unreachable_host),
		T(test_same_name_other_host),
		T(test_store_waits_for_room),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
