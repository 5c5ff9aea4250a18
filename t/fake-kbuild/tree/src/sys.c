// SPDX-License-Identifier: GPL-2.0
/*
 * src/sys.c: the fake tree's stand-in for kernel/sys.c, the file kfleet's
 * test series patch (getpgid and friends).
 */
#include <linux/kernel.h>

static int current_pid = 1;
static int current_pgid = 1;

static bool pid_valid(int pid)
{
	return pid >= 0 && pid < PID_MAX_DEFAULT;
}

long do_getpgid(int pid)
{
	if (!pid_valid(pid))
		return -EINVAL;
	if (!pid || pid == current_pid)
		return current_pgid;
	return -ESRCH;
}

long do_setpgid(int pid, int pgid)
{
	if (!pid_valid(pid) || pgid < 0)
		return -EINVAL;
	if (pid && pid != current_pid)
		return -ESRCH;
	current_pgid = pgid ? pgid : current_pid;
	return 0;
}

long do_getpid(void)
{
	return current_pid;
}
