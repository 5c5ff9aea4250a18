/* SPDX-License-Identifier: GPL-2.0-only */
/* orchint.h: the orchestrator's own structures, shared by its files. From
 * the top down: orch.c (start-up, shutdown) starts builder.c (submissions
 * into kernels) and sched.c (the workers); submit.c checks and queues
 * work; a worker runs a run through run.c's stages, which use disk.c,
 * initrd.c, upload.c, pump.c, channel.c, results.c and outcome.c (with
 * console.c); hosts.c, place.c, paths.c and guest.c (libvirt) are below. */
#ifndef KF_ORCHINT_H
#define KF_ORCHINT_H

#include <libvirt/libvirt.h>
#include <pthread.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/frame.h"
#include "db/db.h"
#include "images/images.h"
#include "jobs/jobs.h"
#include "config/config.h"
#include "orchestrator/orchestrator.h"

/* --- guest.c: domain XML and libvirt hosts ------------------------------- */

struct guest_spec {
	const char *name;        /* libvirt domain name */
	int64_t run_id;
	int attempt;
	const char *arch;        /* "x86_64" */
	const char *accel;       /* "kvm", "tcg", or "test" (libvirt's test driver) */
	int vcpus;
	int memory_mb;
	const char *kernel;
	const char *initrd;
	const char *cmdline;     /* appended to kfleet's own kernel arguments, may be NULL */
	const char *console;     /* file the serial console is written to */
	const char *channel;     /* file the agent channel (second serial port) is written to */
	const char *emulator;    /* QEMU binary to use instead of libvirt's, or NULL */
	int sockets, cores, threads;  /* 0: QEMU's default topology */
	int numa_nodes;          /* >1: vCPUs and memory split evenly over the nodes */
	int pvpanic;             /* x86_64: an ISA pvpanic device, panics end as CRASHED */
	int virtio;              /* the agent channel is a virtio-serial port instead ... */
	const char *socket;      /* ... on this unix socket, which QEMU listens on */
	const char *disk;        /* a qcow2 root disk (virtio-blk, vda), or NULL */
	const char *bios;        /* x86_64: a BIOS ROM in place of QEMU's SeaBIOS (<loader
				    type='rom'>, QEMU's -bios), or NULL */
	int fast;                /* [host] boot = fast: GUEST_FAST_ARGS(_X86) on the command
				    line (and, set by the caller, qboot as bios) */
	int pvh;                 /* kernel is a bzImage's ELF kernel, entered by QEMU at
				    its PVH entry (kernels/pvh.c; set by the caller) */
	int streams;             /* console and channel reach kfleetd as libvirt streams (a
				    remote host): serial ports are ptys, and the virtio
				    channel's socket is libvirt's own, not socket */
	const int *pin;          /* host cores of its own (quiet.c): vCPU i on pin[i], the */
	int npin;                /* emulator threads on all npin of them (<cputune>) */
	const char *cpuset;      /* else the cores it may use ("0", "0-3,6"), NULL any */
};

/* What boot = fast adds to the kernel's command line, before the run's
 * own arguments (which may undo them): loglevel=5 keeps warnings and worse
 * on the console (each character is a trapped UART write under TCG; the
 * console scan's markers are all KERN_WARNING or worse, dmesg in the guest
 * keeps everything); nokaslr spares the relocation and, on arm64, the KPTI
 * that KASLR forces on (a page-table switch at every kernel entry). On
 * x86_64 tsc=reliable: Linux finds the TSC of TCG's qemu64 (an AMD CPU
 * without an invariant TSC) unsynchronized and keeps time with the HPET,
 * an emulated MMIO read per clock read, while TCG's TSC is the host's, one
 * counter for every vCPU (KVM's host-passthrough has a stable TSC too) */
#define GUEST_FAST_ARGS "loglevel=5 nokaslr"
#define GUEST_FAST_ARGS_X86 GUEST_FAST_ARGS " tsc=reliable"

struct host;
/* The guest setup of spec as a run records it: "default", or "fast: "
 * and what it changed ("fast: qboot pvh loglevel=5 nokaslr tsc=reliable"),
 * then the host's kernel_args, if any ("default; args: mitigations=off") */
void guest_boot_setup(const struct guest_spec *s, char *out, size_t n);
/* The CPU model the guest of spec gets on h ("qemu64", "cortex-a57",
 * "host-passthrough (MODEL)") */
void guest_cpu_model(const struct host *h, const struct guest_spec *s, char *out, size_t n);

/* Appends the domain XML for spec to out. 0 / -1 */
int guest_domain_xml(const struct guest_spec *spec, struct buf *out);

#define GUEST_VCPUS_MAX 16384
/* The N of <vcpu max='N'/> in libvirt's domain capabilities; 0 when it is
 * missing or not a number from 1 to GUEST_VCPUS_MAX */
int guest_caps_max_vcpus(const char *caps);

struct host {
	const struct config_host *conf;
	virConnectPtr conn;      /* NULL while disconnected */
	int callback_id;
	char accel[8];           /* what x86_64 runs here use: "kvm", "tcg" or "test" */
	int max_vcpus;
	char accel_arm64[8];     /* the same for arm64; "" when the host has no arm64 */
	int max_vcpus_arm64;
	int64_t memory_kb;
	int cpus;                /* the host's logical CPUs */
	char qemu_version[32];
	char libvirt_version[32];
	char why_accel[160];     /* why accel was chosen, for the log */
	char cpu_model[64];      /* the host's CPU model as libvirt names it ("" unknown) */
	char machine[128];       /* the machine libvirt runs on ("HOSTNAME HOST-UUID"), which
				    two host entries may share: their cores are one machine's */
	int busy;                /* workers with a run, under orch's lock ... */
	int mem_used_mb;         /* ... and the memory their guests were given ... */
	int cpus_used;           /* ... and the CPUs they take (place_cpus_of()) */
	int64_t held_for;        /* the run the host is kept for (fairq.c), 0 none;
				    under claim_lock, for the log */
	int upload;              /* files reach it as storage volumes in conf->pool,
				    console and channel come back as streams */
	pthread_mutex_t lock;    /* guards conn changes: reconnecting */
	struct hostconn *conn_try;   /* an open under way (hostconn.c), under lock */
	int64_t retry_at;        /* mono_ms() of the next reconnect try */
	int connected_once;      /* set up once: its row written, leftovers destroyed */
	int healthy;             /* in placement; with health, under o->health_lock: */
	char health[512];        /* why not, as /hosts shows it (orch_host_health()) */
	int64_t down_since;      /* now_ms() it became unreachable, 0 reachable */
	int health_dirty;        /* not in the database yet: a write failed (a full disk) */
	int disk_full;           /* the state directory lacks min_free_disk */
	int64_t disk_at;         /* mono_ms() of the next look at it */
	char **orphans;          /* domains left when the connection died: */
	size_t norphans;         /* destroyed once it is back */
	int probing;             /* 1 while its KVM probe runs (kvmprobe.c): accel is
				    "probing" and the host out of placement; atomic */
	pthread_t probe_thread;  /* ... in this thread, joined by kvmprobe_join() */
	int probe_started;
	struct pool_seen {       /* what its pool held at the last sweep (upload_sweep()), */
		int kernels, images, run_files;   /* under o->health_lock; at 0: not looked */
		long long bytes;         /* on the host's disk */
		int64_t at;              /* now_ms() */
	} pool_seen;
};

struct orch;

/* Takes conn, just opened to h's URI (hostconn.c), as h's connection:
 * registers the lifecycle callback and reads its capabilities. 0, or -1
 * with *err (caller frees) and conn closed. */
int guest_host_setup(struct orch *o, struct host *h, virConnectPtr conn, char **err);
void guest_host_disconnect(struct host *h);
/* Destroys every domain on h whose name starts with prefix (left over from a
 * daemon that died) but those a worker watches. Returns how many, or -1. */
int guest_sweep(struct orch *o, struct host *h, const char *prefix);
/* Destroys the named domain if it exists; 0 also when it does not exist. */
int guest_destroy_name(struct host *h, const char *name);
/* Writes the QEMU wrappers that turn libvirt's "-accel tcg" into
 * "-accel tcg,thread=single" into dir. 0 / -1 */
int guest_write_tcg1(const char *dir);
/* The wrapper for arch when a guest of vcpus on h is better off with
 * single-threaded TCG (more vCPUs than host CPUs, TCG, a local host), else
 * NULL. Returns a string the caller frees. */
char *guest_tcg1_emulator(const struct orch *o, const struct host *h, const char *arch,
			  const char *accel, int vcpus);
/* Reads libvirt's last error as a string, caller frees. */
char *guest_last_error(void);

/* kvmprobe.c: boots kernel with initrd (paths on the host conn reaches)
 * in a 1-vCPU guest of domain type ("kvm", "qemu") whose init powers it off,
 * and waits up to timeout_ms for it to go, or for *stop (may be NULL) to
 * be set. 1 when it did; 0 when the guest did not start or did not power
 * off (why says which); -1 when it could not be tried or was stopped (why). */
int kvmprobe_boot(virConnectPtr conn, const char *type, const char *kernel, const char *initrd,
		  int timeout_ms, const int *stop, char *why, size_t n);
/* Whether KVM boots guests on h, whose paused KVM guest started: the
 * answer kept for h's URI, QEMU and libvirt versions and the probe kernel
 * (the newest /boot/vmlinuz-*): 1, or 0 with why. With none kept, 2: a
 * thread boots it with the base initramfs (as files or uploaded to h's
 * pool), h->probing is 1 until guest_accel_settle() puts the answer in
 * h and the thread records it in the database. */
int kvmprobe_host(struct orch *o, struct host *h, char *why, size_t n);
/* Waits for h's probe thread, if one was started */
void kvmprobe_join(struct host *h);
/* 1 when KFLEET_TEST_KVM=starts-no-boot: KVM starts paused guests but
 * boots no kernel, as on some machines (for the tests) */
int kvmprobe_seam(void);
/* h's x86_64 accel once its probe answered: kvm when boots, else
 * tcg with why, its vCPU limit from conn's capabilities for that accel;
 * h->probing back to 0 and the workers woken, under o->lock */
void guest_accel_settle(struct orch *o, struct host *h, virConnectPtr conn, int boots,
			const char *why);

/* --- watching domains: the lifecycle callback fills these ---------------- */

struct watch {
	char name[64];
	struct host *host;       /* where the guest runs: only its connection's
				  * events are the guest's (another host may have a
				  * domain of the same name: an earlier attempt's) */
	int stopped;             /* a STOPPED/CRASHED event arrived */
	int powered_off;         /* a SHUTDOWN event: the guest powered off, and
				  * libvirt is ending its QEMU (on_poweroff) */
	int detail;              /* the event's detail */
	int crashed;             /* VIR_DOMAIN_EVENT_CRASHED or STOPPED_CRASHED */
	struct watch *next;
};

void watch_add(struct orch *o, struct watch *w);
void watch_remove(struct orch *o, struct watch *w);
/* Waits at most ms for an event on any watch; returns at once if w stopped
 * (or, with off, powered off). */
void watch_wait(struct orch *o, struct watch *w, int ms);
void watch_wait_off(struct orch *o, struct watch *w, int ms);

/* --- channel.c: the agent channel, read as it grows ---------------------- */

/* The hello's numbers are taken when within these, else left 0 */
#define CHANNEL_NPROC_MAX 16384
#define CHANNEL_MEM_KB_MAX (1LL << 40)

struct channel {
	const char *path;
	long long offset;        /* bytes of the file consumed */
	struct buf line;         /* a partial line (capped) */
	int overlong;            /* the current line passed FRAME_MAX_LINE: skip it */
	uint32_t next_seq;
	int hello;               /* a HELLO was read */
	char release[128];
	int nproc;
	int64_t mem_kb;
	int exited;              /* an EXIT was read */
	char exit_payload[256];
	long long truncated;     /* output bytes the agent dropped */
	long long bad_frames;    /* malformed or out-of-order frames */
	long long noise_lines;   /* lines that are not frames */
	int out_fd;              /* output.txt */
	unsigned long long out_len, out_max;
	int out_capped;
	int out_werr;            /* errno of a write into output.txt that failed */
	/* the results directory's archive, streamed by the agent (RES frames)
	 * into res_path when channel_results() asked for it */
	char *res_path;
	int res_fd;              /* -1: not wanted, or closed */
	unsigned long long res_len, res_cap;
	enum channel_res {
		CHANNEL_RES_NONE,    /* nothing came (an old agent, a crash, ttyS1) */
		CHANNEL_RES_PART,    /* RES frames came, no end yet */
		CHANNEL_RES_DONE,    /* complete: res_len bytes, as the end said */
		CHANNEL_RES_MISSING, /* the guest had no results directory */
		CHANNEL_RES_OVER,    /* past the stream's limits: copy it out instead */
		CHANNEL_RES_BROKEN,  /* a frame lost, out of order, or past res_cap */
	} res_state;
	char res_why[160];       /* what the end or the breakage said */
	int res_werr;            /* errno of a write into res_path that failed */
};

/* A channel with no file open, which channel_release() may be given
 * whether or not channel_open() came after */
void channel_init(struct channel *ch);
int channel_open(struct channel *ch, const char *path, const char *output_path,
		 unsigned long long output_max);
/* Reads what was appended since the last call and handles whole lines.
 * Returns 1 when something new (hello/exit) arrived, 0 otherwise, -1 on error. */
int channel_poll(struct channel *ch);
void channel_release(struct channel *ch);
/* Takes the agent's results archive into path (made 0600, at most cap
 * bytes) from now on; -1 when it cannot be made */
int channel_results(struct channel *ch, const char *path, unsigned long long cap);
/* Rewrites the channel file at path without its RES frames, once the
 * archive they carried is extracted: 0, or -1 (the file is left as it was) */
int channel_drop_results(const char *path);

/* --- console.c: what the console tells about the kernel ------------------ */

struct console_verdict {
	int crashed;
	char what[128];          /* "kernel panic", "Oops", "BUG", ... */
	char *splat;             /* the first lines of the report, caller frees */
};

/* Scans console text for the first kernel crash report. */
void console_scan(const char *text, size_t n, struct console_verdict *v);

/* --- conlog.c: the console file as virtlogd writes (and rotates) it ------ */

struct conlog {
	unsigned long ino;       /* of the file followed, 0 before the first look */
	long long size;          /* its size at the last look */
	long long rotated;       /* bytes in files rotated away since */
	int rotations;
	int head_werr;           /* errno of the head's copy (path.head) that failed */
};
/* One look at path (each watch tick): a new inode under the name is a
 * rotation, whose bytes are counted; the first keeps the head (the boot
 * log) as path.head */
void conlog_poll(struct conlog *l, const char *path);
/* Every byte the guest wrote to the console so far */
long long conlog_total(const struct conlog *l);
/* What is kept of it in order (head, backups, the file), at most max
 * bytes, appended to text, for the crash scan. 0 / -1 */
int conlog_text(const struct conlog *l, const char *path, struct buf *text, size_t max);
/* Leaves path as the head and the tail (at most about max bytes, with a
 * line saying how much was left out) and removes the backups; without a
 * rotation, console_cap() */
void conlog_finish(const struct conlog *l, const char *path, unsigned long long max);
/* Cuts path to max bytes, with a line saying so */
void console_cap(const char *path, unsigned long long max);

/* --- the orchestrator ---------------------------------------------------- */

struct orch {
	const struct config *conf;
	char *state_dir;         /* absolute */
	char *db_path;
	char *cache_dir;
	char *runs_dir;
	char *agent_x86_64;      /* the static agent for x86_64 guests */
	char *agent_arm64;       /* ... and for arm64 guests */
	char *tcg1_dir;          /* QEMU wrappers for single-threaded TCG (guest.c) */
	struct job_set jobs;     /* loaded at start, read-only after */
	struct db *db;           /* for submit.c, under db_lock (never under lock) */
	pthread_mutex_t db_lock;
	char instance[17];
	struct host *hosts;
	size_t nhosts;

	pthread_mutex_t health_lock; /* the hosts' health as the pages show it */
	pthread_mutex_t claim_lock;  /* one worker claims at a time: placement sees
					  every other host's slots and memory as they are */
	pthread_mutex_t lock;
	pthread_cond_t work;     /* signalled when a run is queued */
	pthread_cond_t events;   /* signalled when a watched domain changes */
	struct watch *watches;
	int stopping;

	pthread_t event_thread;
	int event_thread_started;
	int event_timer;
	pthread_t *workers;
	size_t nworkers;

	struct builder *builder; /* builder.c */
	pthread_t builder_thread;
	pthread_cond_t build_work;   /* signalled when a submission or tree fetch is queued */
	struct quiet *quiet;     /* quiet.c: cores of their own, neighbours */

	struct db *decided_db;   /* decided.c's connection; NULL when it did not start */
	pthread_t decided_thread;

	struct storage *storage; /* storage.c: the pass's thread, the cache files held */

	struct watcher *watcher; /* watch.c: the watch poller; NULL when it did not start */
	char url[256];           /* public_url, else where the pages are served (orch_set_url()) */
};

/* --- hostconn.c: opening a host's connection in a thread of its own ---- */

struct hostconn;
/* Starts opening h's URI in a thread of its own, unless an attempt is
 * under way (h->lock held, or start-up). 0 / -1 (no thread) */
int hostconn_start(struct host *h);
/* The attempt's answer, waited for until mono_ms() reaches until (0: not
 * waited for) and at most h's connect_timeout from its start: 1 with *conn
 * (the caller's), -1 with *err (caller frees) when it failed, or has not
 * answered within connect_timeout (it stays under way: no other one
 * starts until it answers), 0 while it may still answer in time. */
int hostconn_take(struct host *h, int64_t until, virConnectPtr *conn, char **err);
/* Leaves an attempt under way to itself: it closes what it opens */
void hostconn_drop(struct host *h);

/* --- hosts.c: host health ------------------------------------------------ */

/* Takes h's connection attempt's answer (started if none is under way),
 * waiting for it until mono_ms() reaches until (0: not waiting): sets the
 * host up, records it and its health (the first time: the guests a dead
 * daemon left on it are destroyed; again: those its lost connection left).
 * 1 connected, 0 not answered yet, -1 down (the health says why and since
 * when; tried again RECONNECT_MS later). h->lock held, or start-up. */
int orch_host_connect(struct orch *o, struct host *h, struct db *db, int64_t until);
/* A write of kfleet's own files under the state directory failed (why:
 * the file and the error): every host leaves placement, saying so, until
 * the disk check finds min_free_disk again */
void orch_disk_fault(struct orch *o, struct db *db, const char *why);

/* 1 when h can take a run now: its connection is alive, or was made again
 * (tried at most every few seconds; the database says when a host leaves
 * or rejoins placement). db is the caller's connection. */
int orch_host_ready(struct orch *o, struct host *h, struct db *db);
/* Notes a domain that could not be destroyed because h's connection died;
 * orch_host_ready() destroys it after reconnecting. */
void orch_host_orphan(struct host *h, const char *domain);

/* --- place.c: placement -------------------------------------------------- */

/* What h may take now, into fit (o->lock held) */
void place_fit(const struct orch *o, const struct host *h, struct claim_fit *fit);
/* The CPUs runs are packed into on h ([host] cpus: auto is the host's as
 * libvirt said), 0 when they are not counted */
int place_cpus(const struct host *h);
/* The CPUs of h a run of vcpus takes: min(vcpus, place_cpus(h)) */
int place_cpus_of(const struct host *h, int vcpus);

/* --- paths.c: what others made for a run --------------------------------- */

/* A file a request names (a kernel) may be read: a regular file, not one
 * of the database's files (by inode, so no link or other name gets past),
 * and not under the state directory but in builds/ (kernels kfleet built).
 * Checked with stat() and realpath() only: opening and closing a database
 * file would drop SQLite's POSIX locks on it. 0, or -1 with *err. */
int orch_path_allowed(const char *state_dir, const char *db_path, const char *path,
		      const char *what, char **err);

/* Where a job's program is built for arch: programs_dir/ARCH/NAME. Returns
 * a string the caller frees, NULL when memory ran out. */
char *orch_program_path(const struct config *c, const char *arch, const char *name);

/* The archive of kselftest target for the kernel at kernel_path: next to
 * a kernel kfleet built (builds/KEY/kselftest-TARGET.cpio.gz), and for a
 * kernel built elsewhere under the state directory by the kernel's
 * content (selftests/SHA16/kselftest-TARGET.cpio.gz, made by a submission
 * with that kernel; sha: its SHA-256 when the caller has it, or NULL).
 * Caller frees; NULL when out of memory or the kernel cannot be read. */
char *orch_selftests_path(const char *state_dir, const char *kernel_path, const char *sha,
			  const char *target);

/* --- outcome.c: what a run's end means (pure) ---------------------------- */

struct outcome {
	enum run_outcome o;
	char detail[512];
	char *splat;             /* the console's crash report, caller frees */
	int has_exit;
	int exit_code;
};

/* What the run's watch and files say; strings borrowed */
struct outcome_facts {
	int hello;               /* the agent said hello */
	int exited;              /* ... and sent an exit frame: */
	const char *exit_payload;   /* "code=N", "signal=N", "timeout=N" */
	const char *console;     /* the console's text (need not end in NUL) */
	size_t console_len;
	int pvpanic;             /* the guest reported a panic through pvpanic */
	int flooded;             /* the console or the channel passed its cap */
	int chan_flooded;        /* ... the channel */
	int timed_out_boot;      /* no hello by the boot timeout */
	int timed_out_run;       /* no exit by the command's timeout and the grace */
	int silent;              /* no output for silence_timeout_s */
	int output_cut;          /* the command's output was cut */
	/* the limits, for the detail */
	unsigned long long console_max, output_max;
	long long chan_max;
	int boot_timeout_s, timeout_s, exit_grace_s, silence_timeout_s;
};

/* Sets the outcome and its detail (printf) */
void outcome_set(struct outcome *out, enum run_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends to the detail (printf), cut at its size */
void outcome_note(struct outcome *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The outcome from the exit frame, the console and the stop, in that order
 * of weight: a crash in the console beats everything. out->splat is set
 * for a crash report. */
void outcome_decide(const struct outcome_facts *f, struct outcome *out);
/* What a job's results say: exit 4 is a skip (kselftest's code; the
 * "SKIP:" line of text, which may be NULL, says why), and an exit 0 with
 * results that did not pass is a failure */
void outcome_from_results(const struct job_results *res, const char *text,
			  struct outcome *out);
/* What weighs after the results: a flooded channel, a silent guest, and a
 * note when the output was cut */
void outcome_finish(const struct outcome_facts *f, struct outcome *out);

/* --- results.c: a job's output and files, into the database -------------- */

struct job_output {
	struct buf text;         /* output.txt */
	struct job_results res;
	struct job_samples smp;
	struct result_row *rows;     /* borrowing from res and smp */
	struct sample_row *srows;
};

/* Reads and parses the job's output outp (no database, no lock). 0, or -1
 * (unreadable, out of memory); release jo either way. */
int results_parse(const struct job_def *d, int64_t run_id, const char *outp,
		  struct job_output *jo);
/* Stores the parsed rows as run_id's results and samples (logs a failure;
 * a locked database is waited out, orch_store_retry()) */
void results_store(struct orch *o, struct db *db, int64_t run_id, const struct job_output *jo);
void results_release(struct job_output *jo);
/* All three, then outcome_from_results(): a run's job output */
void results_take(struct orch *o, struct db *db, const struct job_def *d, int64_t run_id,
		  const char *outp, struct outcome *out);
/* After a store of run_id's what failed (try 0, 1, ...): 1 when it is worth
 * another try, the database being locked by another process or its disk
 * full (SQLITE_FULL: the write may go through once there is room) and kfleetd
 * not stopping (it has waited a while, longer each try, and said so once);
 * 0 to give up. A run's outcome is kept until stored: its files are on
 * disk, and a run left "running" would never end. */
int orch_store_retry(struct orch *o, struct db *db, int64_t run_id, const char *what, int try);
/* Copies the job's results directory out of the stopped guest's overlay
 * (libguestfs reads it) into dir/results; a failure is noted in out */
void results_copy_out(const struct job_def *d, int64_t run_id, const char *overlay,
		      const char *dir, struct outcome *out);
/* The results archive the agent streams before its exit (guest/agent_tar.h),
 * at most the config's results_stream bytes; a bigger directory is copied
 * out of the overlay */
#define RUN_FILE_RESULTS_TAR "results.tar"
/* Has ch keep the agent's archive, at most cap bytes, in dir; 0, or -1
 * with errno */
int results_stream_open(struct channel *ch, const char *dir, unsigned long long cap);
/* Extracts a complete archive the agent sent into dir/results, with the
 * rules of any archive from a guest (images/copyout.h): 0 when that settled
 * the results (copied, missing, or the archive refused and noted in out),
 * 1 when they are still to be copied out of the overlay (nothing came, the
 * stream broke or the directory was past its limits) */
int results_stream_take(const struct job_def *d, int64_t run_id, struct channel *ch,
			const char *dir, struct outcome *out);

/* --- quarantine.c: flaky tests, after a run's results are stored --------- */

/* Measures the flips of r's tests in r's cell (job, arch, vCPUs) with r's
 * stored results counted, and quarantines or releases them by
 * analysis/flaky.h's rule (logs what it did and any failure). For a run of
 * a job whose outcome is neither infra nor canceled; r need not be done
 * yet. */
void quarantine_update(struct db *db, const struct run *r);

/* --- pump.c: a guest's streams into the run's files ---------------------- */

struct pump {
	const char *path;        /* the unix socket QEMU listens on ... */
	int sock;
	virStreamPtr st;         /* ... or a libvirt stream (a host reached by upload) */
	int out;                 /* agent.log (or console.log), append */
	int werr;                /* errno of a write into out that failed, 0 none */
	int eof;
	long long copied, max;
};

void pump_init(struct pump *p);
/* Copies into file what sock (connected at the first poll that finds it
 * listening) sends, up to max bytes; a write that fails stops the copy
 * (p->werr). 0 / -1 (errno) */
int pump_open_socket(struct pump *p, const char *sock, const char *file, long long max);
/* The same from d's console (channel 0; dev NULL: the first) or the
 * channel dev, as a stream. 0 / -1 with *err */
int pump_open_stream(struct pump *p, virDomainPtr d, const char *dev, int channel,
		     const char *file, long long max, char **err);
/* Copies what is there now, never blocking */
void pump_poll(struct pump *p);
void pump_close(struct pump *p);

/* --- disk.c: a job's root disk ------------------------------------------- */

struct disk_image {
	char fmt[8];             /* "raw", "qcow2" */
	char key[65];            /* a job's own image: from path, size and mtime */
	char dev[32];            /* its root: "/dev/vda1" */
	char fstype[16];
};

struct run_disk {
	char *image;             /* what the overlay is on */
	struct disk_image di;
	char *overlay;           /* the run's qcow2 overlay, in its directory */
};

/* The job's image (made or inspected once, then cached) and, when local,
 * the run's overlay on it in dir; dir/disk.base names the image for `kfleet
 * repro` (cli/cmd_repro.c): "FORMAT SIZE MTIME-NS PATH". 0 / -1 with *err
 * (for the outcome) */
#define RUN_FILE_DISK_BASE "disk.base"
int disk_prepare(struct orch *o, const struct job_def *d, const char *arch, const char *dir,
		 int local, struct run_disk *rd, char **err);
/* qemu-img on a local overlay: "create" a new one on image, or "rebase" it
 * (only the pointer changes) onto image. 0 / -1 with *err */
int disk_overlay(const char *verb, const char *image, const char *fmt, const char *overlay,
		 char **err);
/* Removes the overlay and frees rd */
void disk_release(struct run_disk *rd);

/* --- upload.c: a run's files on a host reached by upload ----------------- */

struct upload_files {
	char *kernel, *initrd, *disk;    /* their paths on the host */
};

/* Uploads what r's guest boots (image NULL: no root disk) to h. 0 / -1 with *err */
int upload_run_files(struct host *h, const struct run *r, const char *initrd, const char *image,
		     const struct disk_image *di, struct upload_files *rf, char **err);
/* The run's overlay back from h into disk, onto the local image. 0 / -1 with *err */
int upload_fetch_overlay(struct host *h, const struct run *r, const char *image,
			 const char *fmt, const char *disk, char **err);
/* Deletes the run's own volumes on h (logs a failure) */
void upload_drop(struct host *h, const struct run *r);
/* Deletes the volumes of o's runs on h for which over(id) says the run is
 * over (left by a lost connection or a crash), and notes what the pool
 * holds in h->pool_seen (kfleet hosts shows it). How many were deleted,
 * or -1 when h's pool could not be listed */
int upload_sweep(struct orch *o, struct host *h, int (*over)(int64_t id, void *arg), void *arg);
void upload_release(struct upload_files *rf);

/* --- initrd.c: a run's initrd -------------------------------------------- */

struct run_initrd {
	char *base, *moddir, *mods, *progs, *kselftests;
	struct img_run ir;       /* ir.virtio: the agent uses the virtio port */
	int manifest;            /* its manifest is written: the whole initrd may go */
	int held;                /* its parts are held (storage_hold()) */
};

/* Writes r's initrd to path (rd: the root disk, or NULL). 0 / -1 with
 * *err (for the outcome); release ri either way. */
int initrd_prepare(struct orch *o, const struct run *r, const struct job_def *job,
		   const struct run_disk *rd, const char *path, struct run_initrd *ri, char **err);
/* After the run: the initrd's copy of the shared parts goes, unless
 * [storage] keep_initrd (dir: the run's directory); the parts are let go */
void initrd_conclude(struct orch *o, const char *path, struct run_initrd *ri);
void initrd_release(struct run_initrd *ri);

/* --- run.c: one run ------------------------------------------------------ */

/* Runs the claimed run r on h to its end; out gets the outcome to store.
 * A guest that powered off after its exit frame has all it wrote in the
 * run's files while libvirt still ends its QEMU (~0.2 s): what is left of
 * the run is returned then, for run_guest_end() once the outcome is
 * stored, so that waiting for the teardown does not delay the outcome.
 * NULL when nothing is left. */
struct run_ctx;
struct run_ctx *run_guest(struct orch *o, struct host *h, struct db *db, const struct run *r,
			  struct outcome *out);
/* Waits for that guest to be gone (destroys it if it is not soon) and
 * frees the rest; NULL: nothing */
void run_guest_end(struct run_ctx *x);

/* --- sched.c: the workers ------------------------------------------------ */

/* Starts the workers (slots per host); stops and joins them, which ends
 * guests in flight as infrastructure failures. */
int sched_start(struct orch *o);
void sched_stop(struct orch *o);

/* --- builder.c ----------------------------------------------------------- */

/* stop.c: wakes the threads waiting on cond (o->work: the workers,
 * o->build_work: the builder and the other background threads), all of
 * them or one, under o->lock */
void orch_wake(struct orch *o, pthread_cond_t *cond, int all);
/* Sets o->stopping (if not set yet) and wakes the threads that wait on
 * o->build_work, so a background thread can be joined */
void orch_ask_stop(struct orch *o);
/* Whether the daemon is stopping (orch_ask_stop() was called) */
int orch_stopping(struct orch *o);

/* The thread that clones trees and builds submissions (o->build_work
 * wakes it); stop cancels a build in flight (the submission carries on
 * after a restart). */
int builder_start(struct orch *o);
void builder_stop(struct orch *o);

/* --- decided.c: requests run until decided -------------------------------- */

/* Starts the thread that queues their rounds and stops them. 0 / -1 */
int decided_start(struct orch *o);
/* Stops it (sets o->stopping). Accepts one that did not start. */
void decided_stop(struct orch *o);
/* submit.c: a submission's vCPU count: 1 to 4096, else 0 (the job's default) */
int builder_vcpus(const char *s);

#endif
