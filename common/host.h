/* SPDX-License-Identifier: GPL-2.0-only */
/* host.h: what the machine kfleetd runs on can do (host side only). */
#ifndef KF_HOST_H
#define KF_HOST_H

#include <stddef.h>

/* This machine's KVM is usable: /dev/kvm opens and the CPU shows VMX or
 * SVM (nested setups expose a /dev/kvm whose guests never run). 1, or 0
 * with why (when why is not NULL). */
int kvm_usable_here(char *why, size_t n);

#endif
