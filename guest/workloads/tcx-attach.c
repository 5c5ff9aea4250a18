// SPDX-License-Identifier: GPL-2.0-only
/* tcx-attach.c: workloads.md #5, run in a kfleet guest. Creates veth pairs
 * over rtnetlink and times the first tcx link per direction on a new device,
 * the first BPF_PROG_ATTACH, attach #2..N on one hook, BPF_PROG_QUERY, and
 * DEVICES pairs created with two links each, ITERATIONS times (medians).
 * tcx needs Linux 6.6: before it, and without veth, it skips saying why. */
#include "wl.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#define USAGE "[-r ITERATIONS (3)] [-n ATTACHES_PER_HOOK (8)] " \
	"[-d DEVICES (32)]"

/* enum bpf_attach_type of Linux 6.6; the UAPI headers at hand may be older */
#define TCX_INGRESS 46
#define TCX_EGRESS  47
#define TCX_NEXT    (-1)

#define ATTACH_MAX  64
#define DEVICES_MAX 256
#define QUERIES     100

/* --- rtnetlink ------------------------------------------------------------ */

static int nl_fd = -1;
static uint32_t nl_seq;

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0)
		return wl_syserr("socket NETLINK_ROUTE");
	if (bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return wl_syserr("bind NETLINK_ROUTE");
	return 0;
}

struct nl_req {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char buf[512];
	int overflow;        /* an attribute did not fit: the request is not sent */
};

static struct rtattr *nl_attr(struct nl_req *r, unsigned short type, const void *data,
			      size_t len)
{
	static struct rtattr spare;
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	if (NLMSG_ALIGN(r->n.nlmsg_len) + RTA_SPACE(len) > offsetof(struct nl_req, overflow)) {
		r->overflow = 1;
		return &spare;
	}
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	r->n.nlmsg_len = (uint32_t)(NLMSG_ALIGN(r->n.nlmsg_len) + RTA_SPACE(len));
	return a;
}

static void nl_nest_end(struct nl_req *r, struct rtattr *nest)
{
	if (!r->overflow)
		nest->rta_len = (unsigned short)((char *)r + r->n.nlmsg_len - (char *)nest);
}

/* Sends the request and waits for its ack; 0, or -1 with errno the kernel's */
static int nl_talk(struct nl_req *r)
{
	char buf[8192];
	ssize_t len;

	if (r->overflow)
		return errno = EMSGSIZE, -1;
	r->n.nlmsg_seq = ++nl_seq;
	r->n.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(nl_fd, r, r->n.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		struct nlmsghdr *h;

		len = recv(nl_fd, buf, sizeof(buf), 0);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_seq != nl_seq || h->nlmsg_type != NLMSG_ERROR)
				continue;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return errno = EPROTO, -1;
			if (e->error)
				return errno = -e->error, -1;
			return 0;
		}
	}
}

/* Creates the veth pair name/peer; 0, or -1 with errno */
static int veth_create(const char *name, const char *peer)
{
	struct nl_req r;
	struct rtattr *info, *data, *p;
	struct ifinfomsg pi = { .ifi_family = AF_UNSPEC };

	memset(&r, 0, sizeof(r));
	r.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r.n.nlmsg_type = RTM_NEWLINK;
	r.n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	r.i.ifi_family = AF_UNSPEC;
	nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	info = nl_attr(&r, IFLA_LINKINFO, NULL, 0);
	nl_attr(&r, IFLA_INFO_KIND, "veth", 4);
	data = nl_attr(&r, IFLA_INFO_DATA, NULL, 0);
	p = nl_attr(&r, VETH_INFO_PEER, &pi, sizeof(pi));
	nl_attr(&r, IFLA_IFNAME, peer, strlen(peer) + 1);
	nl_nest_end(&r, p);
	nl_nest_end(&r, data);
	nl_nest_end(&r, info);
	return nl_talk(&r);
}

/* Deletes a device (a veth's peer goes with it) */
static int link_delete(int ifindex)
{
	struct nl_req r;

	memset(&r, 0, sizeof(r));
	r.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r.n.nlmsg_type = RTM_DELLINK;
	r.i.ifi_family = AF_UNSPEC;
	r.i.ifi_index = ifindex;
	return nl_talk(&r);
}

/* The devices this run created, deleted on the way out */
static int devs[DEVICES_MAX + 8], ndevs;

static int pair_new(const char *name, const char *peer)
{
	int ifindex;

	if (veth_create(name, peer) < 0)
		return wl_syserr("rtnetlink create veth '%s'/'%s'", name, peer);
	ifindex = (int)if_nametoindex(name);
	if (!ifindex)
		return wl_syserr("if_nametoindex '%s'", name);
	if (ndevs < (int)WL_ARRAY_SIZE(devs))
		devs[ndevs++] = ifindex;
	return ifindex;
}

static void pairs_delete(void)
{
	while (ndevs > 0)
		if (link_delete(devs[--ndevs]) < 0 && errno != ENODEV)
			wl_syserr("rtnetlink delete device %d", devs[ndevs]);
}

/* --- bpf ---------------------------------------------------------------- */

static int prog_load(char *log, size_t logn)
{
	struct bpf_insn p[] = { WL_MOV64_IMM(BPF_REG_0, TCX_NEXT), WL_EXIT() };

	return wl_prog_load(BPF_PROG_TYPE_SCHED_CLS, p, WL_ARRAY_SIZE(p), 0, 0, log, logn);
}

static int tcx_link(int prog, int ifindex, int type)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.target_ifindex = (uint32_t)ifindex;
	a.link_create.attach_type = (uint32_t)type;
	return (int)wl_bpf(BPF_LINK_CREATE, &a, sizeof(a));
}

static int tcx_prog_attach(int prog, int ifindex, int type)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)ifindex;
	a.attach_bpf_fd = (uint32_t)prog;
	a.attach_type = (uint32_t)type;
	return (int)wl_bpf(BPF_PROG_ATTACH, &a, sizeof(a));
}

/* The number of programs on the hook, or -1 */
static int tcx_query(int ifindex, int type)
{
	uint32_t ids[ATTACH_MAX + 8];
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.query.target_fd = (uint32_t)ifindex;
	a.query.attach_type = (uint32_t)type;
	a.query.prog_ids = (uint64_t)(uintptr_t)ids;
	a.query.prog_cnt = WL_ARRAY_SIZE(ids);
	if (wl_bpf(BPF_PROG_QUERY, &a, sizeof(a)) < 0)
		return -1;
	return (int)a.query.prog_cnt;
}

/* --- the scenarios --------------------------------------------------------- */

static int progs[ATTACH_MAX];

struct sample {
	double first_in, first_eg, first_fd, attach_n, query, bulk, bulk_attach, bulk_create;
};

static double us_since(uint64_t t0)
{
	return (double)(wl_now_ns() - t0) / 1e3;
}

/* Times a link attach; the link fd, or -1 */
static int timed_link(int prog, int ifindex, int type, const char *dev, double *us)
{
	uint64_t t0 = wl_now_ns();
	int fd = tcx_link(prog, ifindex, type);

	*us = us_since(t0);
	if (fd < 0)
		wl_syserr("BPF_LINK_CREATE tcx_%s on '%s'", type == TCX_INGRESS ? "ingress" :
			  "egress", dev);
	return fd;
}

static int iteration(int it, int nattach, int ndev, struct sample *s)
{
	int links[ATTACH_MAX + 2 + 2 * DEVICES_MAX], nlinks = 0, a, b, i, rc = -1, fd;
	char n0[IFNAMSIZ], n1[IFNAMSIZ];
	double us, sum = 0, attach_sum = 0, create_sum = 0;
	uint64_t t0, tb;

	/* first link per direction on a new device */
	if ((a = pair_new("kfxa0", "kfxa1")) < 0)
		goto out;
	if ((links[nlinks] = timed_link(progs[0], a, TCX_INGRESS, "kfxa0", &s->first_in)) < 0)
		goto out;
	nlinks++;
	if ((links[nlinks] = timed_link(progs[0], a, TCX_EGRESS, "kfxa0", &s->first_eg)) < 0)
		goto out;
	nlinks++;
	/* attach #2..N on the same hook, each with its own program */
	for (i = 1; i < nattach; i++) {
		if ((links[nlinks] = timed_link(progs[i], a, TCX_INGRESS, "kfxa0", &us)) < 0)
			goto out;
		nlinks++;
		sum += us;
	}
	s->attach_n = nattach > 1 ? sum / (nattach - 1) : 0;
	t0 = wl_now_ns();
	for (i = 0; i < QUERIES; i++)
		if (tcx_query(a, TCX_INGRESS) != nattach) {
			wl_syserr("BPF_PROG_QUERY tcx_ingress on 'kfxa0' (expected %d programs)",
				  nattach);
			goto out;
		}
	s->query = us_since(t0) / QUERIES;
	/* first attach through the fd API on another new device */
	if ((b = pair_new("kfxb0", "kfxb1")) < 0)
		goto out;
	t0 = wl_now_ns();
	if (tcx_prog_attach(progs[0], b, TCX_INGRESS) < 0) {
		wl_syserr("BPF_PROG_ATTACH tcx_ingress on 'kfxb0'");
		goto out;
	}
	s->first_fd = us_since(t0);
	/* bulk: ndev new pairs, ingress and egress links on each */
	tb = wl_now_ns();
	for (i = 0; i < ndev; i++) {
		snprintf(n0, sizeof(n0), "kfxd%d", i);
		snprintf(n1, sizeof(n1), "kfxe%d", i);
		t0 = wl_now_ns();
		if ((b = pair_new(n0, n1)) < 0)
			goto out;
		create_sum += us_since(t0);
		t0 = wl_now_ns();
		for (int dir = TCX_INGRESS; dir <= TCX_EGRESS; dir++) {
			if ((fd = tcx_link(progs[0], b, dir)) < 0) {
				wl_syserr("BPF_LINK_CREATE tcx_%s on '%s'",
					  dir == TCX_INGRESS ? "ingress" : "egress", n0);
				goto out;
			}
			links[nlinks++] = fd;
		}
		attach_sum += us_since(t0);
	}
	s->bulk = us_since(tb) / 1e3;
	s->bulk_attach = ndev ? attach_sum / ndev : 0;
	s->bulk_create = ndev ? create_sum / ndev / 1e3 : 0;
	printf("iteration %d: first link ingress %.1f us, egress %.1f us, first prog attach "
	       "%.1f us, attach #2..%d avg %.1f us, query %.2f us, %d devices created and "
	       "attached in %.1f ms (attach %.1f us, create %.2f ms per device)\n", it,
	       s->first_in, s->first_eg, s->first_fd, nattach, s->attach_n, s->query, ndev,
	       s->bulk, s->bulk_attach, s->bulk_create);
	rc = 0;
out:
	while (nlinks-- > 0)
		close(links[nlinks]);
	pairs_delete();
	return rc;
}

static double median_of(struct sample *s, int n, size_t off)
{
	double v[64];

	for (int i = 0; i < n; i++)
		v[i] = *(double *)((char *)&s[i] + off);
	return wl_percentile(v, (size_t)n, 50);
}

int main(int argc, char **argv)
{
	long iters = 3, nattach = 8, ndev = 32;
	struct sample s[64];
	struct utsname u;
	char log[256], veth[160] = "";
	int c, lo, fd, rc = 1, nprogs = 0;

	wl_init("tcx-attach");
	while ((c = getopt(argc, argv, "r:n:d:")) != -1) {
		switch (c) {
		case 'r':
			if (wl_opt_long('r', optarg, 1, 64, &iters) < 0)
				return 2;
			break;
		case 'n':
			if (wl_opt_long('n', optarg, 1, ATTACH_MAX, &nattach) < 0)
				return 2;
			break;
		case 'd':
			if (wl_opt_long('d', optarg, 1, DEVICES_MAX, &ndev) < 0)
				return 2;
			break;
		default:
			return wl_usage(USAGE);
		}
	}
	if (optind < argc)
		return wl_usage(USAGE);
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "?");
	wl_memlock_unlimited();
	if (nl_open() < 0)
		return 1;
	for (nprogs = 0; nprogs < nattach; nprogs++)
		if ((progs[nprogs] = prog_load(log, sizeof(log))) < 0) {
			if (errno == ENOSYS || errno == EPERM)
				rc = wl_skip("bpf() unavailable: BPF_PROG_LOAD sched_cls: %s",
					     wl_strerror(errno));
			else
				wl_syserr("bpf PROG_LOAD sched_cls%s%s", log[0] ? ": " : "", log);
			goto out;
		}

	/* veth first, to say so when it is missing too; then tcx, on lo */
	if (veth_create("kfxp0", "kfxp1") < 0) {
		snprintf(veth, sizeof(veth), "rtnetlink create veth: %s%s", strerror(errno),
			 errno == EOPNOTSUPP ? " (no veth driver: CONFIG_VETH, or its module "
			 "not loaded)" : "");
	} else {
		int p = (int)if_nametoindex("kfxp0");

		if (!p || link_delete(p) < 0)
			wl_syserr("rtnetlink delete veth 'kfxp0'");
	}
	printf("tcx-attach: kernel %s, veth %s\n", u.release, veth[0] ? veth : "works");
	lo = (int)if_nametoindex("lo");
	if (!lo) {
		wl_syserr("if_nametoindex 'lo'");
		goto out;
	}
	fd = tcx_link(progs[0], lo, TCX_INGRESS);
	if (fd < 0) {
		if (errno == EINVAL)
			rc = wl_skip("tcx unsupported by this kernel (%s: BPF_LINK_CREATE "
				     "tcx_ingress on 'lo': %s; tcx needs Linux 6.6)", u.release,
				     strerror(errno));
		else
			wl_syserr("BPF_LINK_CREATE tcx_ingress on 'lo'");
		goto out;
	}
	close(fd);
	if (veth[0]) {
		rc = wl_skip("%s", veth);
		goto out;
	}
	printf("tcx-attach: %ld iterations; %ld links on one hook; %ld devices in bulk\n",
	       iters, nattach, ndev);
	for (int i = 0; i < iters; i++)
		if (iteration(i + 1, (int)nattach, (int)ndev, &s[i]) < 0)
			goto out;
#define MED(field) median_of(s, (int)iters, offsetof(struct sample, field))
	wl_metric("first_link_ingress", MED(first_in), "us");
	wl_metric("first_link_egress", MED(first_eg), "us");
	wl_metric("first_prog_attach", MED(first_fd), "us");
	if (nattach > 1)
		wl_metric("attach_2_n", MED(attach_n), "us");
	wl_metric("prog_query", MED(query), "us");
	wl_metric("bulk_create_attach", MED(bulk), "ms");
	wl_metric("bulk_attach_per_device", MED(bulk_attach), "us");
	wl_metric("bulk_create_per_device", MED(bulk_create), "ms");
#undef MED
	rc = 0;
out:
	while (nprogs-- > 0)
		close(progs[nprogs]);
	pairs_delete();
	close(nl_fd);
	return rc;
}
