// SPDX-License-Identifier: GPL-2.0-only
/* print.c: kfleetd's configuration told back: normalised, every key, as
 * `kfleetd -nv` prints it (a file it reads back the same), and the warning
 * for a listen address the network reaches. */
#include "config/config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static void print_size(FILE *out, const char *key, unsigned long long n)
{
	static const char units[] = "KMG";
	int u = -1;

	while (u < 2 && n && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	if (u < 0)
		fprintf(out, "%s = %llu\n", key, n);
	else
		fprintf(out, "%s = %llu%c\n", key, n, units[u]);
}

int config_listen_exposed(const struct config *c, char *msg, size_t n)
{
	unsigned char a[sizeof(struct in6_addr)], zero[sizeof(a)] = { 0 };
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int v6 = strchr(c->listen_addr, ':') != NULL, any = 0;

	if (!v6 && inet_pton(AF_INET, c->listen_addr, a) == 1) {
		if (a[0] == 127)
			return 0;
		any = !memcmp(a, zero, 4);
	} else if (v6 && inet_pton(AF_INET6, c->listen_addr, a) == 1) {
		if ((!memcmp(a, zero, 15) && a[15] == 1) || (!memcmp(a, mapped, 12) && a[12] == 127))
			return 0;
		any = !memcmp(a, zero, sizeof(a));
	}
	snprintf(msg, n, "listen = %s%s%s:%d is not a loopback address: the pages and the API are "
		 "reachable from the network, and the token is the only guard (of the calls that "
		 "change state; every page and read is open to whoever reaches the port)%s",
		 v6 ? "[" : "", c->listen_addr, v6 ? "]" : "", c->listen_port, any ?
		 "; a request is served only when its Host is localhost, 127.0.0.1, [::1] or "
		 "a name of [daemon] allowed_hosts" : "");
	return 1;
}

void config_print(const struct config *c, FILE *out)
{
	int v6 = strchr(c->listen_addr, ':') != NULL;

	fprintf(out, "# kfleetd configuration: %s\n", c->path ? c->path : "embedded defaults");
	fprintf(out, "[daemon]\nstate_dir = %s\n", c->state_dir);
	fprintf(out, "listen = %s%s%s:%d\n", v6 ? "[" : "", c->listen_addr, v6 ? "]" : "",
		c->listen_port);
	fprintf(out, "log_level = %s\n", log_level_name(c->log_level));
	fprintf(out, "job_dirs = %s\n", c->job_dirs);
	fprintf(out, "allowed_hosts = %s\n", c->allowed_hosts ? c->allowed_hosts : "");
	fprintf(out, "kcidb_origin = %s\n", c->kcidb_origin);
	fprintf(out, "public_url =%s%s\n", c->public_url ? " " : "", c->public_url ? c->public_url : "");
	print_size(out, "min_free_disk", c->min_free_disk);
	for (size_t i = 0; i < c->nhosts; i++) {
		const char *args = c->hosts[i].kernel_args && *c->hosts[i].kernel_args ?
				   c->hosts[i].kernel_args : NULL;
		char cpus[16];

		if (c->hosts[i].cpus < 0)
			snprintf(cpus, sizeof(cpus), "auto");
		else
			snprintf(cpus, sizeof(cpus), "%d", c->hosts[i].cpus);
		fprintf(out, "\n[host %s]\nuri = %s\nslots = %d\ncpus = %s\naccel = %s\n"
			"transfer = %s\npool = %s\npool_path = %s\nfirmware = %s\nboot = %s\n"
			"kernel_args =%s%s\nconnect_timeout = %d\n",
			c->hosts[i].name, c->hosts[i].uri, c->hosts[i].slots, cpus, c->hosts[i].accel,
			c->hosts[i].transfer, c->hosts[i].pool, c->hosts[i].pool_path,
			c->hosts[i].firmware, c->hosts[i].boot, args ? " " : "", args ? args : "",
			c->hosts[i].connect_timeout_s);
	}
	fprintf(out, "\n[run]\nmemory_mb = %d\ntimeout = %d\nboot_timeout = %d\n"
		"silence_timeout = %d\nmax_attempts = %d\nreserve_after = %d\n", c->run_memory_mb,
		c->run_timeout_s, c->boot_timeout_s, c->silence_timeout_s, c->max_attempts,
		c->reserve_after_s);
	print_size(out, "console_max", c->console_max);
	print_size(out, "output_max", c->output_max);
	print_size(out, "results_stream", c->results_stream);
	fprintf(out, "\n[image]\nbusybox = %s\nbusybox_arm64 = %s\nagent_dir = %s\nmodules_path = %s\n"
		"programs_dir = %s\ndebian_suite = %s\ndebian_mirror = %s\n", c->busybox,
		c->busybox_arm64, c->agent_dir, c->modules_path, c->programs_dir, c->debian_suite,
		c->debian_mirror);
	fprintf(out, "\n[build]\njobs = %d\ntimeout = %d\nsandbox = %s\nccache = %s\nconfig = %s\n"
		"configs_dir = %s\narches = %s\nspeculate = %s\n", c->build_jobs, c->build_timeout_s,
		c->build_sandbox ? "yes" : "no", c->build_ccache ? "yes" : "no", c->build_config,
		c->configs_dir, c->build_arches, c->build_speculate < 0 ? "auto" :
		c->build_speculate ? "yes" : "no");
	fprintf(out, "user = %s\n", c->build_user);
	print_size(out, "log_max", c->build_log_max);
	print_size(out, "disk_max", c->build_disk_max);
	fprintf(out, "\n[quiet]\npin = %s\nbusy = %s\nbuilds = %s\nreserve = %d\n",
		c->quiet_pin == QUIET_PIN_AUTO ? "auto" : c->quiet_pin == QUIET_PIN_YES ? "yes" : "no",
		c->quiet_busy_wait ? "wait" : "share", c->quiet_builds == QUIET_BUILDS_AVOID ? "avoid" :
		c->quiet_builds == QUIET_BUILDS_PAUSE ? "pause" : "share", c->quiet_reserve);
	fprintf(out, "\n[storage]\n");
	print_size(out, "budget", c->storage_budget);
	fprintf(out, "keep_days = %d\n", c->storage_keep_days);
	print_size(out, "large", c->storage_large);
	fprintf(out, "interval = %d\nkeep_initrd = %s\n", c->storage_interval_s,
		c->storage_keep_initrd ? "yes" : "no");
	config_watch_print(c, out);
}
