/* SPDX-License-Identifier: GPL-2.0-only */
/* handlers.h: every handler of the route table (routes.c), by the file
 * that holds it. Each answers one method on one path pattern, with what
 * the pattern took from the path in struct web_args, and calls down only
 * (reply.c, svg.c, results.c, cache.c, analysis/, db/). Shared by the
 * files of web/ only. */
#ifndef KF_WEB_HANDLERS_H
#define KF_WEB_HANDLERS_H

#include <microhttpd.h>
#include <stdint.h>

struct web;
struct web_req;

#define WEB_SEGMENT_MAX 64   /* bytes of a {name} segment: a tree's name (KBUILD_NAME_MAX) */

/* What a route's pattern took from the path, and the request's body */
struct web_args {
	int64_t id;             /* {id} */
	const char *name;       /* {name}, {rest} or *: borrowed for the call */
	struct web_req *req;    /* the body, bounded */
};

#define WEB_HANDLER(fn) \
	enum MHD_Result fn(struct web *w, struct MHD_Connection *c, const struct web_args *arg)

/* api.c: the JSON of runs and jobs */
WEB_HANDLER(api_health);            /* GET /api/health */
WEB_HANDLER(api_runs_list);         /* GET /api/runs?limit=N&before=ID */
WEB_HANDLER(api_runs_submit);       /* POST /api/runs: a run of a command or a job */
WEB_HANDLER(api_requests_submit);   /* POST /api/requests: base and patched runs */
WEB_HANDLER(api_run);               /* GET /api/runs/ID */
/* runparts.c: a run's results and samples a page at a time, and what its
 * console and output gained past given offsets */
WEB_HANDLER(api_run_results);       /* GET /api/runs/ID/results?offset=N&limit=M */
WEB_HANDLER(api_run_samples);       /* GET /api/runs/ID/samples?offset=N&limit=M */
WEB_HANDLER(api_run_tail);          /* GET /api/runs/ID/tail?console=N&output=M */
WEB_HANDLER(api_jobs);              /* GET /api/jobs */
/* cancel.c: a user's cancel (token); {"id", "canceled", "stopping",
 * "already", "ended"} (counts of runs), a run's "state" and "outcome" too,
 * a submission's "builds_dropped"; 409 when all had ended by themselves */
WEB_HANDLER(api_run_cancel);        /* POST /api/runs/ID/cancel */
WEB_HANDLER(api_request_cancel);    /* POST /api/requests/ID/cancel: its runs */
WEB_HANDLER(api_submission_cancel); /* POST /api/submissions/ID/cancel: its builds left, runs */
WEB_HANDLER(api_job);               /* GET /api/jobs/NAME */

/* pages.c: the HTML of runs and jobs */
WEB_HANDLER(pages_status);          /* GET /?before=ID: the newest runs */
WEB_HANDLER(pages_run);             /* GET /runs/ID?page=N: results a page at a time */
WEB_HANDLER(pages_run_console);     /* GET /runs/ID/console: its tail */
WEB_HANDLER(pages_run_output);      /* GET /runs/ID/output */
WEB_HANDLER(pages_run_xml);         /* GET /runs/ID/domain.xml */
WEB_HANDLER(pages_run_result);      /* GET /runs/ID/results/PATH */
WEB_HANDLER(pages_jobs);            /* GET /jobs */
WEB_HANDLER(pages_job);             /* GET /jobs/NAME */

/* queue.c: the runs running and waiting, with expected turnarounds, and
 * the hosts, as pages and as JSON ({"runs": a page of them, "requests",
 * "running", "queued", "parallel", "truncated", "offset", "total": the
 * runs listed, "next": the next page's path or null}; {"hosts"}) */
WEB_HANDLER(pages_queue);           /* GET /queue?page=N */
WEB_HANDLER(pages_hosts);           /* GET /hosts */
WEB_HANDLER(api_queue);             /* GET /api/queue?offset=N&limit=M */
WEB_HANDLER(api_hosts);             /* GET /api/hosts */

/* request.c: a request of base and patched runs: its runs as a grid, the
 * pass/fail per subtest, the metric comparison of its passed runs and a
 * strip plot per metric; the JSON gives id, created_at, job, repeat,
 * base_kernel_id, patched_kernel_id, runs, done, passfail, comparisons
 * (cmp_report_json() per cell) and unmatched. */
WEB_HANDLER(pages_request);         /* GET /requests/ID */
WEB_HANDLER(api_request);           /* GET /api/requests/ID */

/* comparisons.c: GET /api/compare?a=K&b=K&job=J[&arch=A][&vcpus=N]
 * [&format=json|text|markdown][&columns=...]: one job's metrics on two
 * kernels, cell by cell */
WEB_HANDLER(api_compare);

/* kernel_builds.c: trees, submissions and builds */
WEB_HANDLER(api_trees);             /* GET /api/trees */
WEB_HANDLER(api_trees_add);         /* POST /api/trees */
WEB_HANDLER(api_tree_fetch);        /* POST /api/trees/NAME/fetch */
WEB_HANDLER(api_submissions);       /* GET /api/submissions */
WEB_HANDLER(api_submissions_add);   /* POST /api/submissions: a series (an upload) */
WEB_HANDLER(api_submission);        /* GET /api/submissions/ID */
WEB_HANDLER(api_builds);            /* GET /api/builds */
WEB_HANDLER(api_build);             /* GET /api/builds/ID */
WEB_HANDLER(api_import);            /* POST /api/import: a log from elsewhere (an upload) */
WEB_HANDLER(pages_trees);           /* GET /trees */
WEB_HANDLER(pages_submissions);     /* GET /submissions */
WEB_HANDLER(pages_submission);      /* GET /submissions/ID */
WEB_HANDLER(pages_submission_log);  /* GET /submissions/ID/log: the checkout, plain text */
WEB_HANDLER(pages_build);           /* GET /builds/ID */
WEB_HANDLER(pages_build_log);       /* GET /builds/ID/log */

/* trends.c: a job's metric and its tests' pass rates across a tree's
 * commits; ?tree=T&job=J[&metric=M][&arch=A][&vcpus=N]. The JSON is
 * analysis/trend.h's trend_json() plus tree, job, metric, unit, arch,
 * vcpus, picked, cells, commits_dropped, runs_dropped, rows_truncated and
 * results_truncated. */
WEB_HANDLER(pages_trends);          /* GET /trends: what has data */
WEB_HANDLER(pages_trend);           /* GET /trends/view?... */
WEB_HANDLER(api_trend);             /* GET /api/trend?... */

/* bisections.c: bisections (bisect/) as JSON and pages */
WEB_HANDLER(api_bisections_list);   /* GET /api/bisections */
WEB_HANDLER(api_bisections_add);    /* POST /api/bisections: start one (token) */
WEB_HANDLER(api_bisection);         /* GET /api/bisections/ID[?format=text] */
WEB_HANDLER(api_bisection_cancel);  /* POST /api/bisections/ID/cancel (token) */
WEB_HANDLER(pages_bisections);      /* GET /bisections */
WEB_HANDLER(pages_bisection);       /* GET /bisections/ID */

/* flaky.c: the tests in quarantine */
WEB_HANDLER(pages_flaky);           /* GET /flaky: each with its history per kernel */
WEB_HANDLER(api_flaky);             /* GET /api/flaky[?all=1]: released ones too */

/* watches.c: watches (watch/watch.h), their series and checks */
WEB_HANDLER(pages_watches);         /* GET /watches */
WEB_HANDLER(api_watches);           /* GET /api/watches */
WEB_HANDLER(api_watches_add);       /* POST /api/watches: {"name", "spec": {...}} */
WEB_HANDLER(api_watch_remove);      /* POST /api/watches/NAME/remove */
/* export.c: KCIDB report data (export/kcidb.h) of the runs, builds and
 * submissions since a time (?since=2024-05-01, ?since=7d; all without it),
 * or of one submission's (?submission=ID) */
WEB_HANDLER(api_export_kcidb);      /* GET /api/export/kcidb */
/* control.c: the daemon's (token; 501 when the server has no daemon) */
WEB_HANDLER(api_reload);            /* POST /api/reload: its config re-read, as on SIGHUP:
				       {"path", "summary", "changed", "applied", "restart",
				       "kept", "changes": [{"section", "key", "old", "new",
				       "when": "now"|"restart"|"kept", "line"}]}; 409 with
				       the file's errors when it has some (nothing changed) */
WEB_HANDLER(api_shutdown);          /* POST /api/shutdown: {"pid", "stopping": true}, then
				       it stops as on SIGTERM */
/* Where a watch took the submission from and where it reported it (the
 * checks, their states, the mail), as a section of its page; nothing
 * when no watch made it */
struct buf;
struct db;
void web_watch_reported_html(struct buf *b, struct db *db, int64_t submission_id);

#endif
