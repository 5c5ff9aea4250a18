// SPDX-License-Identifier: GPL-2.0-only
/* cmd_hosts.c: `kfleet hosts`: each libvirt host kfleetd places runs on,
 * over the API's /api/hosts: its health (why not, and since when), what
 * it runs guests with and why, its slots and CPUs in use, what its storage
 * pool holds, its URI. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* What a host reached by upload holds in its storage pool, when kfleetd
 * last listed it (after each run, and every storage interval) */
static void print_pool(json_t *p)
{
	long long k, i;

	if (!json_is_object(p))
		return;
	if (!json_is_integer(json_object_get(p, "seen_at"))) {
		printf("    pool %s: not listed yet\n", cli_jstr(p, "name", "?"));
		return;
	}
	k = cli_jint(p, "kernels", 0);
	i = cli_jint(p, "images", 0);
	printf("    pool %s: %lld kernel%s, %lld image%s, %lld of runs, %.1f MiB\n",
	       cli_jstr(p, "name", "?"), k, k == 1 ? "" : "s", i, i == 1 ? "" : "s",
	       cli_jint(p, "run_files", 0), (double)cli_jint(p, "bytes", 0) / (1024.0 * 1024.0));
}

static void print_hosts(json_t *hosts)
{
	json_t *h;
	size_t i;

	printf("%-12s %-8s %-10s %-7s %-9s %-6s %s\n", "HOST", "HEALTH", "ACCEL", "SLOTS",
	       "CPUS", "DONE", "URI");
	json_array_foreach(hosts, i, h) {
		json_t *l = json_object_get(h, "live");
		char slots[24] = "-", cpus[24] = "-", accel[24];

		if (json_is_object(l)) {
			snprintf(slots, sizeof(slots), "%lld/%lld", cli_jint(l, "busy", 0),
				 cli_jint(l, "slots", 0));
			snprintf(cpus, sizeof(cpus), "%lld/%lld", cli_jint(l, "cpus_used", 0),
				 cli_jint(l, "cpus", 0));
		}
		snprintf(accel, sizeof(accel), "%s%s%s", cli_jstr(h, "accel", "-"),
			 json_is_string(json_object_get(l, "arm64")) ? "," : "",
			 json_is_string(json_object_get(l, "arm64")) ? cli_jstr(l, "arm64", "") : "");
		printf("%-12s %-8s %-10s %-7s %-9s %-6lld %s\n", cli_jstr(h, "name", "-"),
		       json_is_true(json_object_get(h, "healthy")) ? "healthy" : "DOWN", accel,
		       slots, cpus, cli_jint(h, "runs_done", 0), cli_jstr(h, "uri", "-"));
		if (!json_is_true(json_object_get(h, "healthy")))
			printf("    %s\n", cli_jstr(h, "health_detail", "out of placement"));
		if (json_is_string(json_object_get(l, "accel_why")))
			printf("    accel: %s\n", cli_jstr(l, "accel_why", ""));
		print_pool(json_object_get(l, "pool"));
		if (json_is_string(json_object_get(l, "machine")))
			printf("    machine %s; files %s; QEMU %s, libvirt %s\n",
			       cli_jstr(l, "machine", ""),
			       !strcmp(cli_jstr(l, "transfer", ""), "upload") ?
			       "sent as storage volumes" : "shared by path",
			       cli_jstr(h, "qemu_version", "?"), cli_jstr(h, "libvirt_version", "?"));
	}
}

int cli_hosts(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_help_print(stdout, "hosts");
			return CLI_OK;
		} else {
			fprintf(stderr, "kfleet: hosts: unknown argument '%s'\n", argv[i]);
			cli_help_print(stderr, "hosts");
			return CLI_USAGE;
		}
	}
	if (cli_api_call(k, "GET", "/api/hosts", NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: hosts: %s\n", r.err);
		return CLI_USAGE;
	}
	if (json)
		cli_print_json(r.j);
	else
		print_hosts(json_object_get(r.j, "hosts"));
	json_decref(r.j);
	return CLI_OK;
}
