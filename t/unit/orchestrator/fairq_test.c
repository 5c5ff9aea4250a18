// SPDX-License-Identifier: GPL-2.0-only
/* fairq_test.c: the fair queue (orchestrator/fairq.c) on made-up queues:
 * people's runs before watch work, two watches where one is busy, a
 * watch's cap, a run that waited for room holding the host; then whole
 * queues played on a made-up 2-CPU host through the real SQL
 * (db_queue_classes()) with a clock of the test's own: watches taking
 * turns on one slot, a 16-vCPU run behind a stream of 1-vCPU runs
 * (started within reserve_after and a run's length, and starved without
 * it), and 1- and 16-vCPU runs packed by CPUs and memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <cmocka.h>

#include "orchestrator/fairq.h"
#include "t/unit/db/dbtest.h"
#include "db/watches.h"

/* --- the choice alone ---------------------------------------------------- */

static struct queue_class cls(const char *watch, int64_t fit, int64_t held, int64_t oldest,
			      int running, int64_t last_start, int cap)
{
	struct queue_class c = {
		.watch = (char *)watch, .fit_id = fit, .held_id = held, .oldest_id = oldest,
		.queued = 1, .max_running = cap, .running = running, .last_start = last_start,
	};

	return c;
}

static void pick(struct queue_class *v, size_t n, struct fairq_choice *c)
{
	fairq_order(v, n);
	fairq_pick(v, n, c);
}

static void test_people_first(void **state)
{
	/* the watch's run is older; the person's goes first */
	struct queue_class v[] = {
		cls("bpf", 1, 0, 1, 0, 0, 0),
		cls(NULL, 5, 0, 5, 0, 0, 0),
	};
	struct fairq_choice c;

	(void)state;
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_TAKE);
	assert_int_equal(c.run_id, 5);
	assert_null(c.watch);
	assert_non_null(strstr(c.why, "for a person"));
	/* nothing of people's fits this host: the watch's */
	v[0] = cls(NULL, 0, 0, 5, 0, 0, 0);
	v[1] = cls("bpf", 1, 0, 1, 0, 0, 0);
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_TAKE);
	assert_int_equal(c.run_id, 1);
	assert_string_equal(c.watch, "bpf");
}

static void test_busy_watch_does_not_starve(void **state)
{
	/* net has older runs and two going; bpf none going: bpf's turn */
	struct queue_class v[] = {
		cls("net", 1, 0, 1, 2, 900, 0),
		cls("bpf", 40, 0, 40, 0, 500, 0),
	};
	struct fairq_choice c;

	(void)state;
	pick(v, 2, &c);
	assert_int_equal(c.run_id, 40);
	/* fewer going first, though its last run started later */
	v[0] = cls("net", 1, 0, 1, 0, 900, 0);
	v[1] = cls("bpf", 40, 0, 40, 2, 500, 0);
	pick(v, 2, &c);
	assert_int_equal(c.run_id, 1);
	/* as many going: the one whose last run started longest ago */
	v[0] = cls("net", 1, 0, 1, 1, 900, 0);
	v[1] = cls("bpf", 40, 0, 40, 1, 500, 0);
	pick(v, 2, &c);
	assert_int_equal(c.run_id, 40);
	/* a watch that never ran goes before one that did */
	v[0] = cls("net", 1, 0, 1, 0, 900, 0);
	v[1] = cls("bpf", 40, 0, 40, 0, 0, 0);
	pick(v, 2, &c);
	assert_int_equal(c.run_id, 40);
	/* all else equal: the older queue */
	v[0] = cls("net", 41, 0, 41, 0, 0, 0);
	v[1] = cls("bpf", 40, 0, 40, 0, 0, 0);
	pick(v, 2, &c);
	assert_int_equal(c.run_id, 40);
}

static void test_cap(void **state)
{
	struct queue_class v[] = {
		cls("net", 1, 0, 1, 1, 0, 1),   /* at its cap of 1 */
		cls("bpf", 40, 0, 40, 3, 800, 0),
	};
	struct fairq_choice c;

	(void)state;
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_TAKE);
	assert_int_equal(c.run_id, 40);
	assert_non_null(strstr(c.why, "another watch at its cap"));
	/* only the capped one: nothing */
	v[0] = cls("net", 1, 0, 1, 1, 0, 1);
	pick(v, 1, &c);
	assert_int_equal(c.act, FAIRQ_NONE);
	assert_non_null(strstr(c.why, "at its cap"));
	/* under the cap it runs */
	v[0] = cls("net", 1, 0, 1, 1, 0, 2);
	pick(v, 1, &c);
	assert_int_equal(c.act, FAIRQ_TAKE);
}

static void test_hold(void **state)
{
	/* people's run 3 waited for room; 7 fits but is newer: hold */
	struct queue_class v[] = {
		cls(NULL, 7, 3, 3, 0, 0, 0),
		cls("bpf", 40, 0, 40, 0, 0, 0),
	};
	struct fairq_choice c;

	(void)state;
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_HOLD);
	assert_int_equal(c.run_id, 3);
	assert_non_null(strstr(c.why, "run 3 (for a person) has waited for room"));
	/* an older run that fits goes first */
	v[0] = cls(NULL, 2, 3, 2, 0, 0, 0);
	v[1] = cls("bpf", 40, 0, 40, 0, 0, 0);
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_TAKE);
	assert_int_equal(c.run_id, 2);
	/* a watch's run that waited holds the watches after it, not people */
	v[0] = cls(NULL, 9, 0, 9, 0, 0, 0);
	v[1] = cls("bpf", 0, 40, 40, 0, 0, 0);
	pick(v, 2, &c);
	assert_int_equal(c.run_id, 9);
	v[0] = cls("net", 50, 0, 50, 0, 0, 0);
	v[1] = cls("bpf", 0, 40, 40, 0, 0, 0);   /* bpf never ran: its turn first */
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_HOLD);
	assert_int_equal(c.run_id, 40);
	/* a watch at its cap holds nothing */
	v[0] = cls("net", 50, 0, 50, 0, 0, 0);
	v[1] = cls("bpf", 0, 40, 40, 1, 0, 1);
	pick(v, 2, &c);
	assert_int_equal(c.act, FAIRQ_TAKE);
	assert_int_equal(c.run_id, 50);
}

/* --- whole queues through the SQL, on a made-up host ---------------------- */

#define SIM_RUNS 256

struct sim {
	struct db *db;
	int64_t now;            /* the test's clock, ms */
	int cpus, slots, mem_mb;  /* the host */
	int reserve_s;          /* 0: never */
	int64_t end[SIM_RUNS];  /* a running run's end, by id; 0 not running */
	int64_t start[SIM_RUNS];/* when it started; 0 not yet */
	int weight[SIM_RUNS], mem[SIM_RUNS], len_ms[SIM_RUNS];
	int64_t order[SIM_RUNS];/* ids in the order they started */
	size_t norder;
	int holds;              /* claims that held the host */
};

static int64_t sim_queue(struct sim *s, const char *watch, int vcpus, int mem_mb, int len_ms)
{
	struct run_request req = dbt_req("/k", DBT_SHA_A, NULL, vcpus);
	char sql[160];
	int64_t id = 0;

	req.memory_mb = mem_mb;
	req.watch = watch;
	assert_int_equal(db_run_insert(s->db, &req, &id), 0);
	assert_true(id > 0 && id < SIM_RUNS);
	snprintf(sql, sizeof(sql), "UPDATE runs SET queued_at = %lld WHERE id = %lld",
		 (long long)s->now, (long long)id);
	assert_int_equal(sqlite3_exec(db_sqlite(s->db), sql, NULL, NULL, NULL), SQLITE_OK);
	s->weight[id] = vcpus < s->cpus ? vcpus : s->cpus;
	s->mem[id] = mem_mb;
	s->len_ms[id] = len_ms;
	return id;
}

static int sim_running(const struct sim *s, int *cpus, int *mem)
{
	int n = 0;

	*cpus = *mem = 0;
	for (int i = 0; i < SIM_RUNS; i++)
		if (s->end[i]) {
			n++;
			*cpus += s->weight[i];
			*mem += s->mem[i];
		}
	return n;
}

/* Ends the runs due, then claims as the workers do until the host is
 * full or the fair queue says no */
static void sim_step(struct sim *s)
{
	char sql[160];

	for (int i = 0; i < SIM_RUNS; i++)
		if (s->end[i] && s->end[i] <= s->now) {
			s->end[i] = 0;
			assert_int_equal(db_run_finish(s->db, i, RUN_OUT_PASSED, NULL, NULL, 1, 0), 0);
		}
	for (;;) {
		int cpus, mem, n = sim_running(s, &cpus, &mem);
		struct claim_fit fit = {
			.max_vcpus_x86_64 = 64, .max_vcpus_arm64 = 64,
			.max_memory_mb = s->mem_mb - mem, .cpus = s->cpus, .cpus_free = s->cpus - cpus,
			.memory_total_mb = s->mem_mb,
			.hold_before = s->reserve_s ? s->now - s->reserve_s * 1000LL : 0,
		};
		struct queue_class *v;
		struct fairq_choice c;
		struct run r;
		size_t nc;

		if (n >= s->slots)
			return;
		assert_int_equal(db_queue_classes(s->db, &fit, &v, &nc), 0);
		fairq_order(v, nc);
		fairq_pick(v, nc, &c);
		queue_classes_free(v, nc);
		s->holds += c.act == FAIRQ_HOLD;
		if (c.act != FAIRQ_TAKE)
			return;
		assert_int_equal(db_run_claim_id(s->db, "h1", c.run_id, &r), 1);
		snprintf(sql, sizeof(sql), "UPDATE runs SET started_at = %lld WHERE id = %lld",
			 (long long)s->now, (long long)r.id);
		assert_int_equal(sqlite3_exec(db_sqlite(s->db), sql, NULL, NULL, NULL), SQLITE_OK);
		s->start[r.id] = s->now;
		s->end[r.id] = s->now + s->len_ms[r.id];
		s->order[s->norder++] = r.id;
		run_release(&r);
	}
}

static void sim_init(struct sim *s, struct dbt *f, int cpus, int slots, int mem_mb, int reserve_s)
{
	memset(s, 0, sizeof(*s));
	s->db = f->db;
	s->now = 1000000;
	s->cpus = cpus;
	s->slots = slots;
	s->mem_mb = mem_mb;
	s->reserve_s = reserve_s;
	dbt_host(f->db, "h1");
}

/* One slot, two watches: net posts six series' runs, bpf two, later; they
 * take turns, and people's run queued midway goes next */
static void test_sim_turns(void **state)
{
	struct sim *s = malloc(sizeof(*s));
	int64_t net[6], bpf[2], me;

	sim_init(s, *state, 2, 1, 8192, 0);
	for (int i = 0; i < 6; i++)
		net[i] = sim_queue(s, "net", 1, 512, 1000);
	s->now += 100;
	for (int i = 0; i < 2; i++)
		bpf[i] = sim_queue(s, "bpf", 1, 512, 1000);
	sim_step(s);                  /* net first: older, neither ran */
	s->now += 500;
	me = sim_queue(s, NULL, 1, 512, 1000);
	for (int t = 0; t < 20; t++, s->now += 500)
		sim_step(s);
	assert_int_equal(s->norder, 9);
	assert_int_equal(s->order[0], net[0]);
	assert_int_equal(s->order[1], me);      /* the person's, at the first free slot */
	assert_int_equal(s->order[2], bpf[0]);  /* then turns */
	assert_int_equal(s->order[3], net[1]);
	assert_int_equal(s->order[4], bpf[1]);
	for (int i = 5; i < 9; i++)
		assert_int_equal(s->order[i], net[i - 3]);
	free(s);
}

/* A watch capped at 1 on a host of 4 slots leaves the rest to the other */
static void test_sim_cap(void **state)
{
	struct dbt *f = *state;
	struct sim *s = malloc(sizeof(*s));
	int going = 0;

	sim_init(s, f, 8, 4, 8192, 0);
	assert_int_equal(db_watch_add(f->db, "net", "{\"max_running\": \"1\"}", "2026-01-01"), 0);
	for (int i = 0; i < 6; i++)
		sim_queue(s, "net", 1, 512, 1000);
	sim_queue(s, "bpf", 1, 512, 1000);
	sim_step(s);
	for (int i = 0; i < SIM_RUNS; i++)
		going += s->end[i] != 0;
	assert_int_equal(going, 2);   /* one of net's, bpf's */
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM runs WHERE watch = 'net'"
				     " AND state = 'running'"), 1);
	free(s);
}

/* A stream of 1-vCPU runs on 2 CPUs, one queued every 1.5 s, 3 s each,
 * so one of the two CPUs frees every 1.5 s and a 1-vCPU run is there to
 * take it; a 16-vCPU run, queued behind the first ones, needs both.
 * Returns its wait (ms), or -1 if it had not started in 60 s. */
static int64_t big_behind_stream(struct dbt *f, int reserve_s, int *holds)
{
	struct sim *s = malloc(sizeof(*s));
	int64_t big = 0, q = 0, wait, t0;

	sim_init(s, f, 2, 8, 16384, reserve_s);
	t0 = s->now;
	for (int t = 0; t < 80 && !(big && s->start[big]); t++) {
		int cpus, mem;

		s->now = t0 + t * 750LL;
		if (t % 2 == 0)
			sim_queue(s, NULL, 1, 512, 3000);
		if (t == 3) {
			big = sim_queue(s, NULL, 16, 2048, 3000);
			q = s->now;
		}
		sim_step(s);
		/* never more CPUs than the host's */
		sim_running(s, &cpus, &mem);
		assert_true(cpus <= 2);
	}
	wait = s->start[big] ? s->start[big] - q : -1;
	*holds = s->holds;
	free(s);
	return wait;
}

static void test_sim_big_not_starved(void **state)
{
	struct dbt *f = *state;
	int holds = 0;
	int64_t w = big_behind_stream(f, 10, &holds);

	/* it waits reserve_after, then the host drains (a run's 3 s) */
	assert_true(w >= 10000);
	assert_true(w <= 10000 + 3000 + 750);
	assert_true(holds > 0);
}

static void test_sim_big_starved_without_reserve(void **state)
{
	struct dbt *f = *state;
	int holds = 0;

	assert_int_equal(big_behind_stream(f, 0, &holds), -1);
	assert_int_equal(holds, 0);
}

/* Packing: 1- and 16-vCPU runs on 2 CPUs and memory for three 1 GiB
 * guests: two 1-vCPU runs at once, a 16-vCPU run alone, memory binding
 * before the slots do */
static void test_sim_packing(void **state)
{
	struct dbt *f = *state;
	struct sim *s = malloc(sizeof(*s));
	int cpus, mem, most = 0;

	sim_init(s, f, 2, 8, 2048, 30);
	for (int i = 0; i < 4; i++)
		sim_queue(s, NULL, 1, 512, 1000);
	sim_queue(s, NULL, 16, 1024, 1000);
	for (int i = 0; i < 4; i++)
		sim_queue(s, NULL, 1, 512, 1000);
	for (int t = 0; t < 40 && s->norder < 9; t++, s->now += 250) {
		int going;

		sim_step(s);
		going = sim_running(s, &cpus, &mem);
		most = going > most ? going : most;
		assert_true(cpus <= 2);
		assert_true(mem <= 2048);
	}
	assert_int_equal(s->norder, 9);
	assert_int_equal(most, 2);
	/* in order: the 16-vCPU run was not overtaken (it fits when the two
	 * before it end, at the same time) */
	for (size_t i = 0; i < s->norder; i++)
		assert_int_equal(s->order[i], (int64_t)i + 1);
	/* 4 pairs and one alone, a second each: the ideal 5 s */
	assert_true(s->start[9] - s->start[1] == 4000);
	free(s);
}

/* Memory binds before CPUs: 4 CPUs, 2 GiB for guests of 1 GiB each */
static void test_sim_memory(void **state)
{
	struct sim *s = malloc(sizeof(*s));
	int cpus, mem;

	sim_init(s, *state, 4, 8, 2048, 30);
	for (int i = 0; i < 4; i++)
		sim_queue(s, NULL, 1, 1024, 1000);
	sim_step(s);
	assert_int_equal(sim_running(s, &cpus, &mem), 2);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_people_first),
		cmocka_unit_test(test_busy_watch_does_not_starve),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_hold),
		cmocka_unit_test_setup_teardown(test_sim_turns, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_sim_cap, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_sim_big_not_starved, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_sim_big_starved_without_reserve, dbt_setup,
						dbt_teardown),
		cmocka_unit_test_setup_teardown(test_sim_packing, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_sim_memory, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
