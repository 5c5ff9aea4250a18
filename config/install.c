// SPDX-License-Identifier: GPL-2.0-only
/* install.c: where kfleet finds its own files, from where its binary is:
 * installed (make install, the Debian package: PREFIX/sbin/kfleetd beside
 * PREFIX/lib/kfleet and PREFIX/share/kfleet) or in the build tree it was
 * built in (build/bin: the agents beside it, jobs/defs two up); and, once
 * installed, its config file and state directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "config/config.h"

/* PREFIX of an installed kfleet (the directory above the binary's), when
 * PREFIX/lib/kfleet holds the agent; NULL from the build tree */
static char *install_prefix(const char *exe)
{
	char *prefix = strdup(exe), *slash, *agent = NULL;

	slash = prefix ? strrchr(prefix, '/') : NULL;
	if (!slash)
		goto no;
	*slash = '\0';
	if (asprintf(&agent, "%s/lib/kfleet/kfleet-agent-x86_64", prefix) < 0)
		goto no;
	if (access(agent, X_OK) == 0) {
		free(agent);
		return prefix;
	}
no:
	free(agent);
	free(prefix);
	return NULL;
}

/* Sets agent_dir, job_dirs and configs_dir (and, installed, state_dir and
 * etc_dir) from where the running binary is. An installed kfleet keeps its
 * config and its state where make install puts them: /etc and /var for
 * PREFIX=/usr, PREFIX/etc and PREFIX/var for any other; `make sysconfdir=...
 * localstatedir=...` builds others in. 0 / -1 */
int config_find_install(struct config *c)
{
	char *exe = exe_dir(), *prefix = exe ? install_prefix(exe) : NULL;
	int r = 0;

	if (prefix) {
		c->installed = 1;
		free(c->state_dir);
		c->state_dir = NULL;
#ifdef KFLEET_LOCALSTATEDIR
		c->state_dir = strdup(KFLEET_LOCALSTATEDIR "/lib/kfleet");
#else
		if (asprintf(&c->state_dir, "%s/var/lib/kfleet",
			     strcmp(prefix, "/usr") ? prefix : "") < 0)
			c->state_dir = NULL;
#endif
		c->etc_dir = NULL;
#ifdef KFLEET_SYSCONFDIR
		c->etc_dir = strdup(KFLEET_SYSCONFDIR "/kfleet");
#else
		if (asprintf(&c->etc_dir, "%s/etc/kfleet", strcmp(prefix, "/usr") ? prefix : "") < 0)
			c->etc_dir = NULL;
#endif
		if (asprintf(&c->agent_dir, "%s/lib/kfleet", prefix) < 0)
			c->agent_dir = NULL;
		if (asprintf(&c->job_dirs, "%s/share/kfleet/jobs/defs", prefix) < 0)
			c->job_dirs = NULL;
		if (asprintf(&c->configs_dir, "%s/share/kfleet/kernels/configs", prefix) < 0)
			c->configs_dir = NULL;
	} else {
		c->agent_dir = exe ? strdup(exe) : strdup(".");
		if (c->agent_dir && asprintf(&c->job_dirs, "%s/../../jobs/defs", c->agent_dir) < 0)
			c->job_dirs = NULL;
		if (c->agent_dir && asprintf(&c->configs_dir, "%s/../../kernels/configs",
					     c->agent_dir) < 0)
			c->configs_dir = NULL;
	}
	if (!c->agent_dir || !c->state_dir || !c->job_dirs || !c->configs_dir ||
	    (c->installed && !c->etc_dir))
		r = -1;
	free(prefix);
	free(exe);
	return r;
}

char *config_default_file(const struct config *c)
{
	char *path = c->etc_dir ? path_join(c->etc_dir, "kfleetd.conf") : NULL;

	if (path && access(path, F_OK) == 0)
		return path;
	free(path);
	return NULL;
}
