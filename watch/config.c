// SPDX-License-Identifier: GPL-2.0-only
/* watch/config.c: what the [watch NAME] sections of kfleetd's config
 * mean, for the config room (config/watches.c), which keeps them as
 * written: a watch's name, each key (watch_key_check()) and the whole
 * section (watch_spec_parse()) checked. */
#include "config/config.h"
#include "watch/watch.h"

#include <jansson.h>
#include <stdio.h>

_Static_assert(WATCH_NAME_MAX == CONFIG_WATCH_NAME_MAX, "one limit for a watch's name");

static int whole(const struct config_watch *w, char *msg, size_t n)
{
	json_t *j = watch_spec_json((const char *const *)w->keys, (const char *const *)w->values,
				    w->n);
	struct watch_spec s;
	int rc = watch_spec_parse(w->name, j, &s, msg, n);

	watch_spec_release(&s);
	json_decref(j);
	return rc;
}

static const struct config_watch_checker checker = {
	.name_ok = watch_name_ok,
	.key = watch_key_check,
	.whole = whole,
};

void watch_config_register(void)
{
	config_watch_checker_set(&checker);
}
