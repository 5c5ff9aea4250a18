// SPDX-License-Identifier: GPL-2.0-only
/* run.c: one claimed run, from its files to its outcome, as a sequence of
 * stages over one context: the run's directory, its root disk, its initrd,
 * the upload to a remote host, the domain, the start, the watch (agent
 * channel, console, timers, lifecycle events) and the conclusion (the
 * outcome from outcome.c, the job's results from results.c). A user's
 * cancel is looked for before the start and while the guest runs. Whatever
 * stage a run reached, run_release_ctx() destroys its guest and frees it;
 * a guest that powered off after its exit frame is concluded at once and
 * released after its outcome is stored (run_guest_end). */
#include "orchestrator/orchint.h"
#include "orchestrator/quiet.h"
#include "orchestrator/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "images/images.h"
#include "kernels/kernels.h"

#define POLL_MS 250
/* A local guest's agent socket wakes the watch as soon as it has data (a
 * hello, an exit, a results archive in flight), at most this often */
#define WAKE_MIN_MS 10
#define CONSOLE_SCAN_MAX (24u << 20)   /* the head and virtlogd's backups: ~8.5 MiB */
#define EXIT_GRACE_MS 30000   /* after the agent's own timeout, before ours */
#define POWEROFF_GRACE_MS 5000 /* from the agent's exit frame to the guest gone */
#define CANCEL_POLL_MS 1000    /* how often the watch looks for a user's cancel */

/* The moments of a run's time, for RUN_FILE_TIMINGS: from the claim to
 * the guest made (prepare), the domain's creation (create), to the agent's
 * hello (boot), the command (command), the exit frame to the guest gone
 * (stop) and what the conclusion takes (conclude) */
enum { TM_CLAIMED, TM_CREATE, TM_CREATED, TM_HELLO, TM_EXIT, TM_GONE, TM_CONCLUDED,
       TM_COUNT };

struct run_ctx {
	struct orch *o;
	struct host *h;
	struct db *db;
	const struct config *c;
	const struct run *r;
	const struct job_def *job;   /* NULL for a plain command */
	struct outcome *out;
	int arm;                     /* an arm64 guest */
	int up;                      /* h is reached by upload */
	/* the run's directory and its files */
	char *dir, *console, *chan, *outp, *xmlp, *initrd_path;
	struct run_disk disk;        /* a job's root disk (disk.overlay set) */
	struct run_initrd initrd;
	struct upload_files rf;      /* what the guest boots, on a remote host */
	/* the guest */
	struct guest_spec gs;
	struct buf xml;
	char *sock;                  /* the virtio channel's socket (a local host) */
	char *emulator;              /* single-threaded TCG, or NULL */
	char *pvh;                   /* boot = fast, x86_64: the bzImage's kernel unpacked,
					entered at its PVH entry (kernels/pvh.c), held in the
					cache while the run lasts; or NULL */
	long long chan_max;
	struct pump pump;            /* the agent channel, into chan */
	struct pump con;             /* the console, as a stream (a remote host) */
	struct channel ch;
	struct watch w;
	int watching;
	virDomainPtr d;
	int64_t t0;                  /* mono_ms() at the start */
	int64_t tm[TM_COUNT];        /* mono_ms() as each moment came; 0 not reached */
	int destroyed;               /* the watch ended the guest */
	int off_early;               /* concluded at the guest's poweroff, before
				      * libvirt had ended its QEMU */
	struct conlog conlog;        /* the console file, across virtlogd's rotations */
	int conlog_done;
	int qemu_log_werr;           /* errno of the copy of QEMU's log that failed */
	struct outcome_facts facts;
};

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : (long long)st.st_size;
}

/* Ends the stage as an infrastructure failure: -1 */
static int infra(struct run_ctx *x, const char *what, const char *why)
{
	outcome_set(x->out, RUN_OUT_INFRA, "%s%s", what, why ? why : "?");
	return -1;
}

/* The first of the run's own files that could not be written (a full
 * disk, a quota): "runs/ID/aN/FILE: error" into why (the path under the
 * state directory); 0 when every write went through */
static int write_fault(const struct run_ctx *x, char *why, size_t n)
{
	char head[PATH_MAX], qlog[PATH_MAX];
	const struct { int err; const char *file; } v[] = {
		{ x->ch.out_werr, x->outp }, { x->pump.werr, x->chan },
		{ x->con.werr, x->console }, { x->ch.res_werr, x->ch.res_path },
		{ x->conlog.head_werr, head }, { x->qemu_log_werr, qlog },
	};
	size_t sd = strlen(x->o->state_dir);

	snprintf(head, sizeof(head), "%s.head", x->console ? x->console : "?");
	snprintf(qlog, sizeof(qlog), "%s/%s", x->dir ? x->dir : "?", RUN_FILE_QEMU_LOG);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *f = v[i].file ? v[i].file : "?";

		if (!v[i].err)
			continue;
		if (!strncmp(f, x->o->state_dir, sd) && f[sd] == '/')
			f += sd + 1;
		snprintf(why, n, "%s: %s", f, strerror(v[i].err));
		return 1;
	}
	return 0;
}

/* A write fault ends the run as an infrastructure failure (whatever the
 * guest did: what it sent is not all on disk) and takes the hosts out of
 * placement until the disk has room: 1 then */
static int end_on_write_fault(struct run_ctx *x)
{
	char why[PATH_MAX + 128];

	if (!write_fault(x, why, sizeof(why)))
		return 0;
	if (x->out->o != RUN_OUT_INFRA || !strstr(x->out->detail, why)) {
		log_warn("run %" PRId64 ": %s", x->r->id, why);
		outcome_set(x->out, RUN_OUT_INFRA, "%s", why);
		orch_disk_fault(x->o, x->db, why);
	}
	return 1;
}

/* --- the run's directory ------------------------------------------------- */

static int ctx_init(struct run_ctx *x, struct orch *o, struct host *h, struct db *db,
		    const struct run *r, struct outcome *out)
{
	char rel[64];

	memset(x, 0, sizeof(*x));
	x->tm[TM_CLAIMED] = mono_ms();
	x->o = o;
	x->h = h;
	x->db = db;
	x->c = o->conf;
	x->r = r;
	x->out = out;
	x->arm = !strcmp(r->arch, "arm64");
	x->up = h->upload;
	x->job = r->job ? job_set_find(&o->jobs, r->job) : NULL;
	/* frames are hex: twice the output, and twice a results archive */
	x->chan_max = (long long)(2 * x->c->output_max + (4u << 20));
	if (x->job && x->job->results)
		x->chan_max += (long long)(2 * x->c->results_stream + (1u << 20));
	buf_init(&x->xml, 1 << 20);
	pump_init(&x->pump);
	pump_init(&x->con);
	/* no file of the channel's open until channel_open(): a run that
	 * ends before it (a root disk that cannot be built) would close fd 0
	 * from the zeroed context, and whatever then took fd 0 with it. When
	 * that was SQLite opening kfleet.db, SQLite closed it again (it never
	 * keeps a database on fds 0-2), which dropped every POSIX lock
	 * kfleetd held on the file: a `sqlite3` reader closing after it then
	 * took itself for the last connection and deleted the live WAL. */
	channel_init(&x->ch);
	snprintf(rel, sizeof(rel), "%" PRId64 "/a%d", r->id, r->attempt);
	x->dir = path_join(o->runs_dir, rel);
	/* a directory there is another run's (a database restored from an
	 * older copy): kept aside, never written into */
	if (x->dir && access(x->dir, F_OK) == 0) {
		char aside[PATH_MAX];

		snprintf(aside, sizeof(aside), "%s.stale-%" PRId64, x->dir, now_ms());
		if (rename(x->dir, aside) < 0) {
			outcome_set(out, RUN_OUT_INFRA, "run directory '%s' exists and cannot be moved "
				    "aside: %s", x->dir, strerror(errno));
			return -1;
		}
		log_warn("run %" PRId64 ": '%s' existed (another run's?): moved to '%s'", r->id,
			 x->dir, aside);
	}
	if (!x->dir || mkdir_p(x->dir, 0755) < 0) {
		outcome_set(out, RUN_OUT_INFRA, "run directory '%s': %s", x->dir ? x->dir : "?",
			    strerror(errno));
		return -1;
	}
	x->console = path_join(x->dir, RUN_FILE_CONSOLE);
	x->chan = path_join(x->dir, RUN_FILE_AGENT);
	x->outp = path_join(x->dir, RUN_FILE_OUTPUT);
	x->xmlp = path_join(x->dir, RUN_FILE_XML);
	x->initrd_path = path_join(x->dir, RUN_FILE_INITRD);
	if (!x->console || !x->chan || !x->outp || !x->xmlp || !x->initrd_path)
		return infra(x, "out of memory", "");
	unlink(x->console);
	unlink(x->chan);
	if (r->job && !x->job) {
		outcome_set(out, RUN_OUT_INFRA, "job '%s' is not known to this kfleetd", r->job);
		return -1;
	}
	return 0;
}

/* --- what the guest boots ------------------------------------------------ */

static int stage_disk(struct run_ctx *x)
{
	char *err = NULL;
	int rc = 0;

	if (!x->job || (!x->job->nrootfs && !x->job->image))
		return 0;
	if (disk_prepare(x->o, x->job, x->r->arch, x->dir, !x->up, &x->disk, &err) < 0)
		rc = infra(x, "", err);
	free(err);
	return rc;
}

static int stage_initrd(struct run_ctx *x)
{
	char *err = NULL;
	int rc = 0;

	if (initrd_prepare(x->o, x->r, x->job, x->disk.overlay ? &x->disk : NULL, x->initrd_path,
			   &x->initrd, &err) < 0)
		rc = infra(x, "", err);
	free(err);
	return rc;
}

static int boot_fast(const struct run_ctx *x)
{
	return x->h->conf->boot && !strcmp(x->h->conf->boot, "fast");
}

/* boot = fast on a local x86_64 host: the kernel the bzImage carries, for
 * QEMU to enter directly (no real-mode setup, no unpacking in the guest:
 * under TCG most of a small guest's boot). A kernel without a PVH entry
 * boots as it is; one whose payload cannot be read too, with a warning. */
static int stage_kernel(struct run_ctx *x)
{
	char *err = NULL;

	if (x->up || x->arm || !boot_fast(x))
		return 0;
	storage_lock_cache(x->o);   /* the pass deletes nothing between lookup and hold */
	if (kimage_pvh(x->r->kernel_path, x->o->cache_dir, &x->pvh, &err) < 0)
		log_warn("run %" PRId64 ": %s: it boots as a bzImage", x->r->id, err);
	if (x->pvh)
		storage_hold(x->o, (const char *const *)&x->pvh, 1);
	storage_unlock_cache(x->o);
	free(err);
	return 0;
}

static int stage_upload(struct run_ctx *x)
{
	char *err = NULL;
	int rc = 0;

	if (!x->up)
		return 0;
	if (upload_run_files(x->h, x->r, x->initrd_path, x->disk.image, &x->disk.di, &x->rf,
			     &err) < 0) {
		outcome_set(x->out, RUN_OUT_INFRA, "host '%s': upload: %s", x->h->conf->name,
			    err ? err : "out of memory");
		rc = -1;
	}
	free(err);
	return rc;
}

/* --- the guest ----------------------------------------------------------- */

/* The agent's virtio port on a local host: a unix socket QEMU listens on,
 * copied into agent.log as it comes */
static int open_socket(struct run_ctx *x)
{
	/* sun_path holds 107 bytes */
	x->sock = path_join(x->dir, "agent.sock");
	if (x->sock && strlen(x->sock) > 100) {
		free(x->sock);
		if (asprintf(&x->sock, "/tmp/kfleet-%s-%" PRId64 ".sock", x->o->instance,
			     x->r->id) < 0)
			x->sock = NULL;
	}
	if (!x->sock)
		return infra(x, "out of memory", "");
	unlink(x->sock);
	if (pump_open_socket(&x->pump, x->sock, x->chan, x->chan_max) < 0) {
		outcome_set(x->out, RUN_OUT_INFRA, "channel '%s': %s", x->chan, strerror(errno));
		return -1;
	}
	return 0;
}

static void fill_spec(struct run_ctx *x)
{
	struct guest_spec *gs = &x->gs;
	const struct run *r = x->r;

	memset(gs, 0, sizeof(*gs));
	gs->name = r->domain;
	gs->run_id = r->id;
	gs->attempt = r->attempt;
	gs->arch = r->arch;
	gs->accel = x->arm ? x->h->accel_arm64 : x->h->accel;
	gs->vcpus = r->vcpus;
	gs->memory_mb = r->memory_mb;
	gs->kernel = x->up ? x->rf.kernel : x->pvh ? x->pvh : r->kernel_path;
	gs->pvh = x->pvh != NULL;
	gs->initrd = x->up ? x->rf.initrd : x->initrd_path;
	gs->streams = x->up;
	gs->console = x->console;
	gs->channel = x->chan;
	gs->virtio = x->initrd.ir.virtio;
	gs->pvpanic = !x->arm;
	gs->numa_nodes = r->numa_nodes;
	if (r->topology && sscanf(r->topology, "%d:%d:%d", &gs->sockets, &gs->cores,
				  &gs->threads) != 3)
		gs->sockets = gs->cores = gs->threads = 0;
	x->emulator = guest_tcg1_emulator(x->o, x->h, r->arch, gs->accel, r->vcpus);
	gs->emulator = x->emulator;
	gs->socket = x->sock;
	gs->disk = x->up ? x->rf.disk : x->disk.overlay;
	gs->fast = boot_fast(x);
	gs->cmdline = x->h->conf->kernel_args && *x->h->conf->kernel_args ?
		      x->h->conf->kernel_args : NULL;
	/* boot = fast: qboot whatever the firmware key says */
	gs->bios = !x->arm && (gs->fast || (x->h->conf->firmware &&
					    !strcmp(x->h->conf->firmware, "qboot"))) ?
		   CONFIG_QBOOT_ROM : NULL;
	quiet_spec(x->o, r->id, gs);
}

/* The domain XML, into the run's directory, and the run's start recorded */
static int stage_domain(struct run_ctx *x)
{
	if (x->initrd.ir.virtio && !x->up && open_socket(x) < 0)
		return -1;
	fill_spec(x);
	if (guest_domain_xml(&x->gs, &x->xml) < 0 ||
	    write_file(x->xmlp, x->xml.data, x->xml.len, 0644) < 0) {
		outcome_set(x->out, RUN_OUT_INFRA, "domain XML '%s': %s", x->xmlp, strerror(errno));
		return -1;
	}
	if (db_run_started(x->db, x->r->id, x->gs.accel, x->arm ? "virt" : "q35",
			   x->h->qemu_version, x->h->libvirt_version, x->dir) < 0)
		log_warn("run %" PRId64 ": cannot record its start: %s", x->r->id,
			 db_errmsg(x->db));
	if (channel_open(&x->ch, x->chan, x->outp, x->c->output_max) < 0) {
		outcome_set(x->out, RUN_OUT_INFRA, "output '%s': %s", x->outp, strerror(errno));
		return -1;
	}
	if (x->initrd.ir.results && x->c->results_stream &&
	    results_stream_open(&x->ch, x->dir, x->c->results_stream) < 0) {
		outcome_set(x->out, RUN_OUT_INFRA, "results archive in '%s': %s", x->dir,
			    strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads the machine type libvirt chose (q35 -> pc-q35-7.2). */
static void read_machine(virDomainPtr d, char *out, size_t n)
{
	char *xml = virDomainGetXMLDesc(d, 0);
	const char *p = xml ? strstr(xml, "machine='") : NULL;

	snprintf(out, n, "q35");
	if (p) {
		const char *q = strchr(p + 9, '\'');

		if (q && (size_t)(q - p - 9) < n) {
			memcpy(out, p + 9, (size_t)(q - p - 9));
			out[q - p - 9] = '\0';
		}
	}
	free(xml);
}

/* What the guest got (machine, CPU model, boot setup), into the database and the log */
static void record_start(struct run_ctx *x)
{
	const struct run *r = x->r;
	char machine[64], cpu[96], boot[CONFIG_KERNEL_ARGS_MAX + 96];

	read_machine(x->d, machine, sizeof(machine));
	/* the firmware, with the machine as bare QEMU's -M and -bios say it */
	if (x->gs.bios && strlen(machine) + 7 < sizeof(machine))
		strcat(machine, " qboot");
	db_run_started(x->db, r->id, x->gs.accel, machine, x->h->qemu_version,
		       x->h->libvirt_version, x->dir);
	guest_cpu_model(x->h, &x->gs, cpu, sizeof(cpu));
	if (db_run_cpu_model(x->db, r->id, cpu) < 0)
		log_warn("run %" PRId64 ": cannot record its CPU model: %s", r->id,
			 db_errmsg(x->db));
	guest_boot_setup(&x->gs, boot, sizeof(boot));
	if (db_run_boot(x->db, r->id, boot) < 0)
		log_warn("run %" PRId64 ": cannot record its boot setup: %s", r->id,
			 db_errmsg(x->db));
	log_info("run %" PRId64 ": guest '%s' started on host '%s' (%s %s, %d vCPUs, %d MiB, "
		 "channel %s%s, boot %s)", r->id, r->domain, x->h->conf->name, r->arch,
		 x->gs.accel, r->vcpus, r->memory_mb, x->gs.virtio ? "virtio" : "ttyS1",
		 x->emulator ? ", single-threaded TCG" : "", boot);
}

/* Starts the guest, watched from before it exists; on a remote host it
 * starts paused until its console and channel streams are open, so not a
 * byte of the boot is missed */
static int stage_start(struct run_ctx *x)
{
	struct host *h = x->h;
	char *err = NULL, *e = NULL;
	int rc = -1;

	snprintf(x->w.name, sizeof(x->w.name), "%s", x->r->domain);
	x->w.host = h;
	watch_add(x->o, &x->w);
	x->watching = 1;
	/* a guest of an earlier attempt that outlived a lost connection */
	guest_destroy_name(h, x->r->domain);
	x->t0 = x->tm[TM_CREATE] = mono_ms();
	x->d = virDomainCreateXML(h->conn, x->xml.data, x->up ? VIR_DOMAIN_START_PAUSED : 0);
	x->tm[TM_CREATED] = mono_ms();
	if (!x->d) {
		e = guest_last_error();
		outcome_set(x->out, RUN_OUT_INFRA, "libvirt on host '%s': %s", h->conf->name, e);
		goto out;
	}
	if (x->up &&
	    (pump_open_stream(&x->con, x->d, NULL, 0, x->console,
			      (long long)x->c->console_max + 1, &err) < 0 ||
	     pump_open_stream(&x->pump, x->d, x->gs.virtio ? IMG_VIRTIO_PORT : "serial1",
			      x->gs.virtio, x->chan, x->chan_max, &err) < 0 ||
	     virDomainResume(x->d) < 0)) {
		e = err ? NULL : guest_last_error();
		outcome_set(x->out, RUN_OUT_INFRA, "host '%s': %s", h->conf->name, err ? err : e);
		goto out;
	}
	if (db_run_phase(x->db, x->r->id, RUN_PHASE_BOOTING) < 0)
		log_warn("run %" PRId64 ": cannot record it booting: %s", x->r->id,
			 db_errmsg(x->db));
	record_start(x);
	rc = 0;
out:
	free(e);
	free(err);
	return rc;
}

/* --- the watch ----------------------------------------------------------- */

static void pump_all(struct run_ctx *x)
{
	if (x->gs.virtio || x->up)
		pump_poll(&x->pump);
	if (x->up)
		pump_poll(&x->con);
}

/* The agent waits for this before it powers off */
static void ack_exit(struct run_ctx *x)
{
	if (x->gs.virtio && x->pump.sock >= 0 && write(x->pump.sock, "ack\n", 4) != 4)
		log_warn("run %" PRId64 ": cannot acknowledge the agent's exit: %s", x->r->id,
			 strerror(errno));
	if (x->gs.virtio && x->pump.st && virStreamSend(x->pump.st, "ack\n", 4) != 4)
		log_warn("run %" PRId64 ": cannot acknowledge the agent's exit through the "
			 "channel stream", x->r->id);
}

struct timers {
	int64_t boot_deadline, run_deadline, poweroff_deadline;
	long long seen;          /* console + channel bytes at the last change */
	int64_t last_output;
	int64_t last_tick, last_alive;  /* mono_ms() */
	int64_t last_cancel;            /* mono_ms() of the last look for a cancel */
};

/* 1 when a user canceled the run (db/cancel.c), the outcome set */
static int canceled(struct run_ctx *x)
{
	if (db_run_cancel_asked(x->db, x->r->id) != 1)
		return 0;
	outcome_set(x->out, RUN_OUT_CANCELED, "canceled by the user while it ran");
	log_info("run %" PRId64 ": canceled by the user: its guest is destroyed", x->r->id);
	return 1;
}

/* canceled(), asked of the database once a CANCEL_POLL_MS */
static int cancel_due(struct run_ctx *x, struct timers *t, int64_t now)
{
	if (now - t->last_cancel < CANCEL_POLL_MS)
		return 0;
	t->last_cancel = now;
	return canceled(x);
}

/* 1 when the guest is to be destroyed now: a limit passed (the facts say
 * which), kfleetd stops or the host is gone (an infrastructure failure);
 * 0 to go on watching */
static int past_limit(struct run_ctx *x, const struct timers *t, int64_t now)
{
	const struct config *c = x->c;
	struct outcome_facts *f = &x->facts;

	if (end_on_write_fault(x)) {
		;   /* the rest of what the guest does would not be kept */
	} else if ((unsigned long long)conlog_total(&x->conlog) > c->console_max) {
		f->flooded = 1;
	} else if (file_size(x->chan) >= x->chan_max) {
		f->chan_flooded = f->flooded = 1;
	} else if (!x->ch.hello && now > t->boot_deadline) {
		f->timed_out_boot = 1;
	} else if (t->run_deadline && now > t->run_deadline) {
		f->timed_out_run = 1;
	} else if (c->silence_timeout_s &&
		   now - t->last_output > (int64_t)c->silence_timeout_s * 1000) {
		f->silent = 1;
	} else if (t->poweroff_deadline && now > t->poweroff_deadline) {
		log_warn("run %" PRId64 ": guest did not power off within %d s of the "
			 "command's end", x->r->id, POWEROFF_GRACE_MS / 1000);
	} else if (x->o->stopping) {
		outcome_set(x->out, RUN_OUT_INFRA, "kfleetd stopped while the run was in flight");
	} else if (!virConnectIsAlive(x->h->conn)) {
		outcome_set(x->out, RUN_OUT_INFRA, "lost the connection to host '%s'",
			    x->h->conf->name);
	} else {
		return 0;
	}
	return 1;
}

/* 1 when the guest's poweroff ends the watch (see watch_tick) */
static int off_ends(const struct run_ctx *x)
{
	return x->ch.exited && !x->up && !x->disk.overlay;
}

/* One look at the guest: new frames, the deadlines they set, the output
 * seen. 1 when the guest stopped by itself. */
static int watch_tick(struct run_ctx *x, struct timers *t, int64_t *now)
{
	const struct run *r = x->r;
	int news, stopped, off;

	pump_all(x);
	conlog_poll(&x->conlog, x->console);
	news = channel_poll(&x->ch);
	*now = mono_ms();
	if (news > 0 && x->ch.hello && !t->run_deadline) {
		t->run_deadline = *now + (int64_t)r->timeout_s * 1000 + EXIT_GRACE_MS;
		x->tm[TM_HELLO] = *now;
		db_run_booted(x->db, r->id, now_ms(), x->ch.release, x->ch.nproc, x->ch.mem_kb);
		log_info("run %" PRId64 ": guest booted in %.1f s (%s, %d cpus)", r->id,
			 (double)(*now - x->t0) / 1000, x->ch.release, x->ch.nproc);
	}
	if (x->ch.exited && !t->poweroff_deadline) {
		t->poweroff_deadline = *now + POWEROFF_GRACE_MS;
		x->tm[TM_EXIT] = *now;
		ack_exit(x);
	}
	if (x->c->silence_timeout_s) {
		long long bytes = conlog_total(&x->conlog) + file_size(x->chan);

		if (bytes != t->seen) {
			t->seen = bytes;
			t->last_output = *now;
		}
	}
	pthread_mutex_lock(&x->o->lock);
	stopped = x->w.stopped;
	off = x->w.powered_off;
	pthread_mutex_unlock(&x->o->lock);
	t->last_tick = *now;
	if (stopped)
		return 1;
	/* the guest powered off after its exit frame: its console is whole
	 * (the UART is written as the guest runs) and the agent sent all it
	 * had before that frame, so the run is concluded while libvirt ends
	 * QEMU, ~0.2 s more. A disk's overlay waits for QEMU to close it,
	 * and a remote host's streams for their end. */
	if (off && off_ends(x)) {
		log_info("run %" PRId64 ": the guest powered off: concluded while libvirt "
			 "ends its QEMU", r->id);
		x->off_early = 1;
		return 1;
	}
	/* virDomainIsActive: an event lost with a broken connection; a call
	 * to libvirtd, so not on every wake */
	if (*now - t->last_alive < POLL_MS)
		return 0;
	t->last_alive = *now;
	return virDomainIsActive(x->d) == 0;
}

/* Until the next look at the guest: POLL_MS, or less when the guest ends
 * (the domain event) or, on a local host, as soon as the agent's socket
 * has something to read (its HUP when QEMU exits too) */
static void watch_sleep(struct run_ctx *x, const struct timers *t)
{
	const struct pump *p = &x->pump;
	int64_t since = mono_ms() - t->last_tick;
	struct pollfd pf = { .fd = p->sock, .events = POLLIN };

	if (p->st || p->sock < 0 || p->eof || p->copied >= p->max) {
		watch_wait(x->o, &x->w, POLL_MS);
		return;
	}
	/* after the exit frame nothing more is read: the poweroff's event */
	if (off_ends(x)) {
		watch_wait_off(x->o, &x->w, POLL_MS);
		return;
	}
	if (since < WAKE_MIN_MS)
		usleep((useconds_t)(WAKE_MIN_MS - since) * 1000);
	if (poll(&pf, 1, POLL_MS) < 0 && errno != EINTR)
		watch_wait(x->o, &x->w, POLL_MS);
}

/* libvirt keeps QEMU's own log (its command line, its errors) per domain
 * name on a local host; a copy goes into the run's directory, where it
 * helps to reproduce the run. 0, or the errno of a write that failed */
static int take_qemu_log(const struct host *h, const char *domain, const char *dir)
{
	struct buf b = BUF_INIT(0);
	char *src = NULL, *dst = path_join(dir, RUN_FILE_QEMU_LOG);
	int err = 0;

	if (strcmp(h->conf->uri, "qemu:///system") || !dst ||
	    asprintf(&src, "/var/log/libvirt/qemu/%s.log", domain) < 0) {
		free(dst);
		return 0;
	}
	if (read_file(src, &b, 1u << 20) == 0 &&
	    write_file(dst, b.data ? b.data : "", b.len, 0644) < 0)
		err = errno;
	buf_release(&b);
	free(src);
	free(dst);
	return err;
}

/* Follows the guest until it stops or is destroyed, then takes in what
 * it left. -1 when the run ended as an infrastructure failure or a user
 * canceled it. */
static int stage_watch(struct run_ctx *x)
{
	struct timers t = { .seen = -1 };
	int64_t now;

	t.boot_deadline = x->t0 + (int64_t)x->c->boot_timeout_s * 1000;
	for (;;) {
		if (watch_tick(x, &t, &now))
			break;
		if (!cancel_due(x, &t, now) && !past_limit(x, &t, now)) {
			watch_sleep(x, &t);
			continue;
		}
		if (virDomainDestroy(x->d) < 0 && virConnectIsAlive(x->h->conn) != 1)
			orch_host_orphan(x->h, x->r->domain);
		x->destroyed = 1;
		break;
	}
	x->tm[TM_GONE] = mono_ms();
	pump_all(x);
	conlog_poll(&x->conlog, x->console);
	channel_poll(&x->ch);
	x->qemu_log_werr = take_qemu_log(x->h, x->r->domain, x->dir);
	if (x->out->o != RUN_OUT_CANCELED)
		end_on_write_fault(x);   /* in what came last, too */
	/* a cancel is not concluded: its output says nothing of the kernel */
	return x->out->o == RUN_OUT_INFRA || x->out->o == RUN_OUT_CANCELED ? -1 : 0;
}

/* --- the conclusion ------------------------------------------------------ */

/* The job's results directory out of the overlay (back from a remote host
 * first); a failure is told in the detail and changes nothing else */
static void copy_results(struct run_ctx *x)
{
	char *e = NULL;

	if (results_stream_take(x->job, x->r->id, &x->ch, x->dir, x->out) == 0)
		return;           /* the agent sent them: no overlay to read */
	if (x->up && upload_fetch_overlay(x->h, x->r, x->disk.image, x->disk.di.fmt,
					  x->disk.overlay, &e) < 0)
		outcome_note(x->out, " (results not copied: host '%s': %s)", x->h->conf->name,
			     e ? e : "?");
	else
		results_copy_out(x->job, x->r->id, x->disk.overlay, x->dir, x->out);
	free(e);
}

static void stage_conclude(struct run_ctx *x)
{
	struct outcome_facts *f = &x->facts;
	const struct config *c = x->c;
	struct buf text;

	if (db_run_phase(x->db, x->r->id, RUN_PHASE_STORING) < 0)
		log_warn("run %" PRId64 ": cannot record it storing: %s", x->r->id,
			 db_errmsg(x->db));
	/* all that is kept of the console, across rotations, for the scan */
	buf_init(&text, 0);
	if (conlog_text(&x->conlog, x->console, &text, CONSOLE_SCAN_MAX) < 0)
		buf_reset(&text);
	pthread_mutex_lock(&x->o->lock);
	f->pvpanic = x->w.crashed;
	pthread_mutex_unlock(&x->o->lock);
	if (f->pvpanic)
		log_info("run %" PRId64 ": the guest reported a panic through pvpanic", x->r->id);
	f->console = buf_str(&text);
	f->console_len = text.len;
	f->hello = x->ch.hello;
	f->exited = x->ch.exited;
	f->exit_payload = x->ch.exit_payload;
	f->console_max = c->console_max;
	f->boot_timeout_s = c->boot_timeout_s;
	f->timeout_s = x->r->timeout_s;
	f->exit_grace_s = EXIT_GRACE_MS / 1000;
	f->chan_max = x->chan_max;
	f->silence_timeout_s = c->silence_timeout_s;
	f->output_cut = x->ch.out_capped || x->ch.truncated;
	f->output_max = c->output_max;
	outcome_decide(f, x->out);
	buf_release(&text);
	f->console = NULL;
	conlog_finish(&x->conlog, x->console, c->console_max);
	x->conlog_done = 1;
	if (x->job)
		results_take(x->o, x->db, x->job, x->r->id, x->outp, x->out);
	if (x->job && x->job->results && x->disk.overlay)
		copy_results(x);
	outcome_finish(f, x->out);
	log_info("run %" PRId64 ": %s: %s%s", x->r->id, run_outcome_name(x->out->o),
		 x->out->detail, x->destroyed ? " (guest destroyed)" : "");
	/* before the outcome is stored: once a request's runs are done, its
	 * verdict already sees the quarantine they made */
	if (x->job && x->out->o != RUN_OUT_INFRA && x->out->o != RUN_OUT_CANCELED)
		quarantine_update(x->db, x->r);
	x->tm[TM_CONCLUDED] = mono_ms();
}

/* RUN_FILE_TIMINGS: each stage the run went through, in ms */
static void write_timings(const struct run_ctx *x)
{
	static const struct { const char *name; int from, to; } st[] = {
		{ "prepare", TM_CLAIMED, TM_CREATE }, { "create", TM_CREATE, TM_CREATED },
		{ "boot", TM_CREATED, TM_HELLO }, { "command", TM_HELLO, TM_EXIT },
		{ "stop", TM_EXIT, TM_GONE }, { "conclude", TM_GONE, TM_CONCLUDED },
	};
	struct buf b = BUF_INIT(512);
	char *p;

	if (!x->dir || !(p = path_join(x->dir, RUN_FILE_TIMINGS)))
		return;
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (x->tm[st[i].from] && x->tm[st[i].to])
			buf_printf(&b, "%s %lld\n", st[i].name,
				   (long long)(x->tm[st[i].to] - x->tm[st[i].from]));
	if (b.len && write_file(p, b.data, b.len, 0644) < 0)
		log_warn("'%s': %s", p, strerror(errno));
	buf_release(&b);
	free(p);
}

/* --- whatever stage it reached ------------------------------------------- */

/* 1 when the guest stopped, or kfleetd stops (no more waiting then) */
static int watch_stopped(struct run_ctx *x)
{
	int stopped;

	pthread_mutex_lock(&x->o->lock);
	stopped = x->w.stopped || x->o->stopping;
	pthread_mutex_unlock(&x->o->lock);
	return stopped;
}

static void run_release_ctx(struct run_ctx *x)
{
	if (!x->conlog_done && x->console)
		conlog_finish(&x->conlog, x->console, x->c->console_max);
	if (x->d) {
		/* concluded at its poweroff: libvirt is ending QEMU, and
		 * virDomainDestroy() would poll for it in steps of 200 ms */
		for (int64_t end = mono_ms() + POWEROFF_GRACE_MS;
		     x->off_early && x->watching && !watch_stopped(x) && mono_ms() < end;)
			watch_wait(x->o, &x->w, POLL_MS);
		if (virDomainIsActive(x->d) == 1)
			virDomainDestroy(x->d);
		virDomainFree(x->d);
	}
	if (x->watching)
		watch_remove(x->o, &x->w);
	channel_release(&x->ch);
	pump_close(&x->pump);
	pump_close(&x->con);
	if (x->up && x->h->conn && virConnectIsAlive(x->h->conn) == 1)
		upload_drop(x->h, x->r);
	upload_release(&x->rf);
	if (x->sock)
		unlink(x->sock);
	disk_release(&x->disk);
	buf_release(&x->xml);
	free(x->sock);
	/* the guest is gone: the manifest and the run's own part stand for
	 * the initrd from now on, and the storage pass may look again */
	initrd_conclude(x->o, x->initrd_path, &x->initrd);
	initrd_release(&x->initrd);
	storage_kick(x->o);
	free(x->emulator);
	if (x->pvh)
		storage_drop(x->o, (const char *const *)&x->pvh, 1);
	free(x->pvh);
	free(x->initrd_path);
	free(x->xmlp);
	free(x->outp);
	free(x->chan);
	free(x->console);
	free(x->dir);
}

struct run_ctx *run_guest(struct orch *o, struct host *h, struct db *db, const struct run *r,
			  struct outcome *out)
{
	struct run_ctx *x = malloc(sizeof(*x));

	if (!x) {
		outcome_set(out, RUN_OUT_INFRA, "out of memory");
		return NULL;
	}
	if (ctx_init(x, o, h, db, r, out) == 0 && stage_disk(x) == 0 &&
	    stage_initrd(x) == 0 && stage_kernel(x) == 0 && stage_upload(x) == 0 &&
	    stage_domain(x) == 0 && !canceled(x) &&
	    stage_start(x) == 0 && stage_watch(x) == 0)
		stage_conclude(x);
	write_timings(x);
	if (x->off_early) {
		/* what a done run's directory holds, before it is done: QEMU
		 * read the initrd when it started */
		initrd_conclude(x->o, x->initrd_path, &x->initrd);
		return x;
	}
	run_release_ctx(x);
	free(x);
	return NULL;
}

void run_guest_end(struct run_ctx *x)
{
	if (!x)
		return;
	run_release_ctx(x);
	free(x);
}
