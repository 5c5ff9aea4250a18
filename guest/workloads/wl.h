/* SPDX-License-Identifier: GPL-2.0-only */
/* wl.h: what the workload programs under guest/workloads/ share. Each is a
 * small static program that runs inside a kfleet guest, takes its sizes from
 * the guest and argv, and prints "METRIC name=value unit" lines (read by
 * jobs/metrics.c) among human-readable ones; a missing kernel feature is
 * "SKIP: reason" and exit WL_EXIT_SKIP. No libbpf: bpf(2) is called directly. */
#ifndef KFLEET_WL_H
#define KFLEET_WL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#define WL_EXIT_SKIP 4          /* kselftest's skip code */

/* Error and result lines. wl_init() names the program in every message. */
void wl_init(const char *name);
/* "name: what: strerror(errno)" on stderr; returns -1 */
int wl_syserr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* strerror(), which also names the kernel-internal codes that reach user
 * space from bpf(2) and perf_event_open(2) (524 ENOTSUPP) */
const char *wl_strerror(int e);
/* "name: what" on stderr; returns -1 */
int wl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "SKIP: reason" on stdout; returns WL_EXIT_SKIP for main() to return */
int wl_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "METRIC name=value unit" on stdout; a value that is not finite is not
 * printed (a line says so instead) */
void wl_metric(const char *name, double value, const char *unit);
/* "name: usage: ..." on stderr; returns 2 */
int wl_usage(const char *usage);

/* Sizes and time */
uint64_t wl_now_ns(void);                  /* CLOCK_MONOTONIC */
int wl_nproc(void);                        /* online CPUs, at least 1 */
int wl_possible_cpus(void);                /* for per-CPU map values; -1 on error */
long wl_mem_available_mib(void);           /* MemAvailable, or -1 */
/* Parses a decimal option value in [min, max] into *out; 0, or -1 with a message */
int wl_opt_long(char opt, const char *s, long min, long max, long *out);
/* Sorts v and returns its p-th percentile (0 <= p <= 100), nearest rank; 0 for n = 0 */
double wl_percentile(double *v, size_t n, double p);
double wl_mean(const double *v, size_t n);

/* Files: reads at most n - 1 bytes of path into buf, NUL-terminated; returns
 * the length, or -1 with errno set */
long wl_read_file(const char *path, char *buf, size_t n);
/* Reads an unsigned decimal from a small file; 0, or -1 with errno set */
int wl_read_ulong(const char *path, unsigned long *out);
/* The tracefs directory (mounted at /sys/kernel/tracing if nothing is), into
 * dir; 0, or -1 with a message in why */
int wl_tracefs(char *dir, size_t n, char *why, size_t whyn);

/* bpf(2) and perf_event_open(2), checked by the caller (-1 and errno) */
long wl_bpf(int cmd, union bpf_attr *attr, unsigned int size);
int wl_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group, unsigned long flags);
/* Loads a program; the fd, or -1 with errno set and, when the verifier said
 * why, its last line in log (log may be NULL) */
int wl_prog_load(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n,
		 uint32_t expected_attach_type, uint32_t attach_btf_id, char *log, size_t logn);
/* Raises RLIMIT_MEMLOCK for kernels that still charge BPF memory to it */
void wl_memlock_unlimited(void);

/* BPF instructions, as the kernel's own filter.h writes them, as initializers
 * of struct bpf_insn array elements */
#define WL_INSN(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), \
	.off = (o), .imm = (i) }
#define WL_MOV64_IMM(d, i)    WL_INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define WL_MOV64_REG(d, s)    WL_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define WL_ALU64_IMM(op, d, i) WL_INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define WL_ALU64_REG(op, d, s) WL_INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define WL_LDX_MEM(sz, d, s, o) WL_INSN(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define WL_STX_MEM(sz, d, s, o) WL_INSN(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define WL_ST_MEM(sz, d, o, i) WL_INSN(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define WL_JMP_IMM(op, d, i, o) WL_INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define WL_CALL(f)            WL_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define WL_EXIT()             WL_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* two instructions: d = the map whose fd is f */
#define WL_LD_MAP_FD(d, f) \
	WL_INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, f), WL_INSN(0, 0, 0, 0, 0)

#define WL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
