// SPDX-License-Identifier: GPL-2.0-only
/* hosts_test.c: unit tests for db/hosts.c: a host upserted by name, taken
 * out of placement and back with why, and the hosts page's listing by
 * name with its running and finished runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "db/query.h"
#include "t/unit/db/dbtest.h"

static void test_hosts(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/a", DBT_SHA_A, "j", 2);
	struct dbq_host *v;
	struct run r;
	int64_t id;
	size_t n;

	assert_int_equal(dbq_hosts(f->db, &v, &n), 0);
	assert_int_equal(n, 0);
	dbq_hosts_free(v, n);
	dbt_host(f->db, "zeta");
	assert_int_equal(db_host_upsert(f->db, "alpha", "qemu+ssh://a/system", "kvm", "9.0.0",
					"10.0.0", 96, 1LL << 32), 0);
	assert_int_equal(db_host_upsert(f->db, "alpha", "qemu+ssh://a/system", "kvm", "9.1.0",
					"10.0.0", 96, 1LL << 33), 0);
	assert_int_equal(db_host_health(f->db, "zeta", 0, "libvirt: connection refused"), 0);
	dbt_run_done(f->db, "alpha", &a, RUN_OUT_PASSED);
	dbt_run_done(f->db, "alpha", &a, RUN_OUT_FAILED);
	assert_int_equal(db_run_insert(f->db, &a, &id), 0);
	assert_int_equal(db_run_claim(f->db, "zeta", &r), 1);
	run_release(&r);

	assert_int_equal(dbq_hosts(f->db, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "alpha");
	assert_string_equal(v[0].uri, "qemu+ssh://a/system");
	assert_string_equal(v[0].accel, "kvm");
	assert_string_equal(v[0].qemu_version, "9.1.0");
	assert_string_equal(v[0].libvirt_version, "10.0.0");
	assert_int_equal(v[0].max_vcpus, 96);
	assert_int_equal(v[0].memory_kb, 1LL << 33);
	assert_int_equal(v[0].healthy, 1);
	assert_null(v[0].health_detail);
	assert_true(v[0].updated_at > 0);
	assert_int_equal(v[0].running, 0);
	assert_int_equal(v[0].done, 2);
	assert_string_equal(v[1].name, "zeta");
	assert_int_equal(v[1].healthy, 0);
	assert_string_equal(v[1].health_detail, "libvirt: connection refused");
	assert_int_equal(v[1].running, 1);
	assert_int_equal(v[1].done, 0);
	dbq_hosts_free(v, n);

	assert_int_equal(db_host_health(f->db, "zeta", 1, NULL), 0);
	assert_int_equal(dbq_hosts(f->db, &v, &n), 0);
	assert_int_equal(v[1].healthy, 1);
	assert_null(v[1].health_detail);
	dbq_hosts_free(v, n);
}

static void test_host_upsert(void **state)
{
	struct dbt *f = *state;
	char *uri;

	dbt_host(f->db, "local");
	assert_int_equal(db_host_upsert(f->db, "local", "qemu:///system", "kvm", "9.0.0", "10.0.0",
					64, 1 << 30), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM hosts"), 1);
	uri = dbt_sql_text(f->db, "SELECT uri || ' ' || accel || ' ' || max_vcpus FROM hosts");
	assert_string_equal(uri, "qemu:///system kvm 64");
	free(uri);
	dbt_host(f->db, "big");
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM hosts"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_upsert, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_hosts, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
