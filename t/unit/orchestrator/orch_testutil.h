/* SPDX-License-Identifier: GPL-2.0-only */
/* orch_testutil.h: what the orchestrator's lifecycle tests share: a fake
 * x86_64 kernel image and a config for an orchestrator on libvirt's
 * test:///default driver under a temporary state directory. Include
 * after <cmocka.h> and t/unit/testutil.h. */
#ifndef KF_ORCH_TESTUTIL_H
#define KF_ORCH_TESTUTIL_H

#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* A file kimage_check() takes for an x86_64 bzImage */
static inline void otu_fake_bzimage(const char *path)
{
	static char img[128 * 1024];

	memset(img, 0x90, sizeof(img));
	img[0x1fe] = 0x55;
	img[0x1ff] = (char)0xaa;
	memcpy(img + 0x202, "HdrS", 4);
	tu_write(path, img, sizeof(img), 0);
}

/* The defaults, with state under dir, the one host on test:///default, a
 * 1 s boot timeout and the agent (and so the jobs) of this build */
static inline void otu_config(struct config *c, const char *dir)
{
	const char *agent = getenv("KFLEET_AGENT");
	char *slash;

	assert_int_equal(config_defaults(c), 0);
	free(c->state_dir);
	c->state_dir = strdup(dir);
	free(c->hosts[0].uri);
	c->hosts[0].uri = strdup("test:///default");
	c->boot_timeout_s = 1;
	free(c->agent_dir);
	c->agent_dir = strdup(agent ? agent : "build/bin/kfleet-agent-x86_64");
	slash = strrchr(c->agent_dir, '/');
	if (slash)
		*slash = '\0';
}

#endif
