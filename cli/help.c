// SPDX-License-Identifier: GPL-2.0-only
/* help.c: kfleet's help, from one table: each command's words, its lines
 * in the global usage and its own help (kfleet help CMD, kfleet CMD
 * --help). The global usage is made from the table; man/mangen.c makes
 * kfleet(1) from it too. Calls nothing of the CLI above it. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "kernels/kernels.h"

static const struct cli_help helps[] = {
	{ "run",
	  "  run --kernel PATH [--arch A] [--vcpus N] [--memory MB] [--timeout S]\n"
	  "      [--wait] [--json] -- CMD...     queue a run of CMD in a guest\n"
	  "  run --job NAME --kernel PATH [--arch A] [--vcpus N] [--memory MB]\n"
	  "      [--timeout S] [--wait] [--json] queue a run of a job (its defaults\n"
	  "                                       apply where no option is given)\n"
	  "      run also takes --topology SOCKETS:CORES:THREADS, --numa NODES and\n"
	  "      --repeat N (N separate runs; with --wait, each one's result)\n",
	  "usage: kfleet run --kernel PATH [OPTIONS] -- CMD...\n"
	  "       kfleet run --job NAME --kernel PATH [OPTIONS]\n"
	  "\n"
	  "Queues a run: the kernel booted in a guest, then CMD (a shell command)\n"
	  "or the job run in it. A job's defaults apply where no option is given.\n"
	  "\n"
	  "  --kernel PATH      the kernel image (bzImage, Image) to boot\n"
	  "  --job NAME         a job the daemon knows (kfleet jobs), not a command\n"
	  "  --arch A           x86_64 or arm64 (default: the kernel's, else x86_64)\n"
	  "  --vcpus N          guest CPUs\n"
	  "  --memory MB        guest memory\n"
	  "  --timeout S        the command's limit, in seconds\n"
	  "  --topology S:C:T   sockets, cores and threads (their product: --vcpus)\n"
	  "  --numa NODES       NUMA nodes, the CPUs and memory split between them\n"
	  "  --repeat N         N separate runs\n"
	  "  --wait             wait and print the result (each run's with --repeat);\n"
	  "                     exit 0 only when every run passed, 1 when one did not\n"
	  "  --json             print the answer as JSON\n" },
	{ "runs",
	  "  runs [--limit N] [--json]            list the newest runs\n",
	  "usage: kfleet runs [--limit N] [--json]\n"
	  "\n"
	  "Lists the newest runs (50, or --limit N up to 500): id, state, outcome,\n"
	  "kernel, job or command, duration. While runs are not done, it ends with\n"
	  "where each one is: its place in the queue and expected start, or its\n"
	  "phase (preparing, booting, running, storing) and how long it has been in\n"
	  "it against its usual time.\n"
	  "\n"
	  "  --limit N          at most N runs (1 to 500)\n"
	  "  --json             print the answer as JSON\n" },
	{ "show",
	  "  show ID [--json] [--raw]             print one run: results, metrics, output\n",
	  "usage: kfleet show ID [--json] [--raw]\n"
	  "\n"
	  "Prints one run: its outcome and why, timings, host, accel, machine and\n"
	  "versions, its files, every result and metric (all pages of them), and\n"
	  "its output. A guest's control characters are shown (ESC as ^[).\n"
	  "\n"
	  "  --json             print the run as JSON\n"
	  "  --raw              print the guest's text as it wrote it\n" },
	{ "logs",
	  "  logs [-f] [--console|--output] [--raw] ID\n"
	  "                                       a run's console and its command's output\n"
	  "                                       (\"| \" marks output lines); -f follows\n"
	  "                                       them until the run ends, then its outcome.\n"
	  "                                       A guest's control characters are shown\n"
	  "                                       (ESC as ^[) unless --raw\n",
	  "usage: kfleet logs [-f] [--console | --output] [--raw] ID\n"
	  "\n"
	  "Prints a run's console and its command's output (output lines marked\n"
	  "\"| \"). A guest's control characters are shown (ESC as ^[, a bare CR as\n"
	  "^M, a byte that is not UTF-8 as \\xHH) unless --raw.\n"
	  "\n"
	  "  -f, --follow       follow both while the guest runs, through virtlogd's\n"
	  "                     rotations, then print the run's outcome (exit 0 only\n"
	  "                     when it passed)\n"
	  "  --console          the console only\n"
	  "  --output           the command's output only\n"
	  "  --raw              the guest's text as it wrote it\n" },
	{ "cancel",
	  "  cancel RUN... | cancel --request ID | cancel --submission ID\n"
	  "                                       cancel queued runs, stop running ones\n"
	  "                                       (guest destroyed); a submission's builds\n"
	  "                                       not started are not made\n",
	  "usage: kfleet cancel RUN-ID...\n"
	  "       kfleet cancel --request ID\n"
	  "       kfleet cancel --submission ID\n"
	  "Cancels runs: a queued run ends as canceled at once, a running one is\n"
	  "stopped (its guest destroyed within seconds) and ends as canceled. A\n"
	  "canceled run says nothing about its kernel and is never run again.\n"
	  "--request: every run of the request (base and patched; one run until\n"
	  "decided queues no more rounds). --submission: its builds not started are\n"
	  "not made (one in flight ends), and every run of it is canceled.\n"
	  "Canceling again is harmless; a run that ended by itself is left as it is\n"
	  "(an error saying how it ended).\n" },
	{ "repro",
	  "  repro RUN [-d DIR | -o FILE.tar.gz]  what a run booted, to boot it again by hand\n",
	  "usage: kfleet repro RUN [-d DIR | -o FILE.tar.gz]\n"
	  "\n"
	  "Writes what a run booted into a directory (repro-RUN), to share it and\n"
	  "boot it again by hand: vmlinuz, initrd.img (made again from the run's\n"
	  "manifest and checked by its hash), domain.xml, the kernel's config,\n"
	  "command, run.json and run.sh (sh run.sh: virsh create; sh run.sh qemu:\n"
	  "bare QEMU). It reads the daemon's state directory: run it on the\n"
	  "daemon's machine.\n"
	  "\n"
	  "  -d, --dir DIR      write into DIR\n"
	  "  -o, --output FILE  write a .tar.gz instead\n" },
	{ "jobs",
	  "  jobs [--json]                        list the jobs the daemon knows\n"
	  "  jobs show NAME [--json]              print one job's definition\n",
	  "usage: kfleet jobs [--json]\n"
	  "       kfleet jobs show NAME [--json]\n"
	  "\n"
	  "Lists the jobs the daemon loaded (its job_dirs), or prints one job's\n"
	  "definition, with its noise per metric and cell from the runs it has and\n"
	  "the runs a side that a change of 2%, 5% or 10% needs.\n"
	  "\n"
	  "  --json             print the answer as JSON\n" },
	{ "import",
	  "  import --kernel PATH (--job J | --parser P) [--arch A] [--vcpus N] FILE\n"
	  "                                       a log from elsewhere, parsed, kept as a run\n",
	  "usage: kfleet import --kernel PATH (--job J | --parser ktap|test_progs|bench|metrics)\n"
	  "         [--arch A] [--vcpus N] [--name NAME] FILE\n" },
	{ "compare",
	  "  compare (--kernels A B --job NAME | --request ID) [--arch A] [--vcpus N]\n"
	  "      [--columns avg,p99,max,test|all] [--margin PCT] [--markdown|--json]\n"
	  "                                       before/after table of the job's metrics\n"
	  "                                       (A == B: the noise floor, runs split);\n"
	  "                                       no change only within +-PCT (default:\n"
	  "                                       the job's margin, else 2%)\n",
	  "usage: kfleet compare --kernels A B --job NAME [OPTIONS]\n"
	  "       kfleet compare --request ID [OPTIONS]\n"
	  "\n"
	  "Prints the before/after table of a job's metrics between two kernels (by\n"
	  "their ids, as kfleet show prints them) or a request's two kernels: per\n"
	  "metric the median, the change, the least change the runs can see and a\n"
	  "verdict: better, worse, no change (only when the interval is within\n"
	  "+-margin) or uncertain, with the runs that would settle it. The same\n"
	  "kernel twice (A == B) shows the noise floor, its runs split in two.\n"
	  "Without --vcpus, one table per vCPU count and a scaling table.\n"
	  "\n"
	  "  --arch A           only the runs of this arch\n"
	  "  --vcpus N          only the runs of N vCPUs\n"
	  "  --columns LIST     avg, p99, max, test, or all\n"
	  "  --margin PCT       no change only within +-PCT (default: the job's\n"
	  "                     margin, else 2%)\n"
	  "  --markdown         a table for a commit message or a cover letter\n"
	  "  --json             print the answer as JSON\n" },
	{ "test",
	  "  test --base PATH --patched PATH --job NAME [--repeat N] [--arch A] [--vcpus N,..]\n"
	  "      [--memory MB] [--wait] [--markdown] [--margin PCT]\n"
	  "      [--until-decided [--max-runs N]]\n"
	  "                                       runs of both kernels interleaved, then\n"
	  "                                       (--wait) the before/after table; until\n"
	  "                                       decided: more pairs while a metric is\n"
	  "                                       uncertain, at most N a side (20)\n"
	  "  test --tree T --mbox F --job J ...   build base and patched (as submit), wait,\n"
	  "                                       then the tables (--until-decided\n"
	  "                                       [--max-runs N] too, for each request)\n",
	  "usage: kfleet test --base PATH --patched PATH --job NAME [--repeat N] [--arch A]\n"
	  "           [--vcpus N,M] [--memory MB] [--wait] [--markdown] [--margin PCT]\n"
	  "           [--until-decided [--max-runs N]]\n"
	  "       kfleet test [--tree T] (--mbox FILE | --url URL | --msgid ID |\n"
	  "           --patchwork URL/ID) [--base REV] [--arch x86_64,arm64]\n"
	  "           [--config tinyconfig|defconfig|allnoconfig|FILE] [--fragment F]...\n"
	  "           --job J1,J2 [--vcpus N,M] [--repeat N] [--memory MB] [--lore BASE]\n"
	  "           [--markdown] [--margin PCT] [--until-decided [--max-runs N]]\n"
	  "\n"
	  "Tests two kernels against each other. With --base and --patched, two\n"
	  "kernel files: runs of both interleaved (base, patched, base, ...), --repeat\n"
	  "times each, a request per vCPU count; with --wait, the before/after table\n"
	  "(and the scaling table for several vCPU counts). With a series (as kfleet\n"
	  "submit, see kfleet help submit): the base and the patched kernel built,\n"
	  "their runs queued, then it waits and prints each request's tables.\n"
	  "--until-decided: after each round, more pairs while a metric is\n"
	  "uncertain, at most --max-runs a side (20). Exit 0 when every run passed.\n" },
	{ "tree trees",
	  "  tree add NAME PATH-or-URL [--branch B] | tree fetch NAME | trees\n"
	  "                                       kernel git trees kfleetd builds from\n",
	  "usage: kfleet tree add NAME PATH-or-URL [--branch B]\n"
	  "       kfleet tree fetch NAME\n"
	  "       kfleet trees [--json]\n"
	  "\n"
	  "Registers a kernel git tree (a local repository or a git URL); kfleetd\n"
	  "keeps a mirror clone of it and builds in worktrees, never in the\n"
	  "original checkout.\n" },
	{ "hosts",
	  "  hosts [--json]                       the libvirt hosts: health, accel, slots\n",
	  "usage: kfleet hosts [--json]\n"
	  "\n"
	  "Each libvirt host kfleetd places runs on ([host NAME] sections of its\n"
	  "config): healthy or DOWN (with why and since when: unreachable, its disk\n"
	  "full), the accel its x86_64 (and arm64) guests get and why, slots busy\n"
	  "out of its slots, CPUs its runs take out of its CPUs, runs done, its URI\n"
	  "(a password in it masked), the machine libvirt runs on and how files\n"
	  "reach it; for a host reached by upload, what its storage pool holds\n"
	  "(kernels, root images, runs' own files, MiB on its disk) as kfleetd\n"
	  "last listed it, after each run. --json: the API's answer (/api/hosts).\n" },
	{ "watch",
	  "  watch add NAME KEY=VALUE... | watch list | watch rm NAME\n"
	  "                                       follow a patchwork project, test and report\n",
	  "usage: kfleet watch add NAME KEY=VALUE...\n"
	  "       kfleet watch list [--json]\n"
	  "       kfleet watch rm NAME\n"
	  "\n"
	  "Follows a patchwork project: each new series version the rules take is\n"
	  "built and tested like `kfleet test`, and reported back. The keys are\n"
	  "those of a [watch NAME] section of kfleetd's config, e.g.\n"
	  "  kfleet watch add bpf patchwork=https://patchwork.kernel.org \\\n"
	  "      project=netdevbpf tags=bpf-next=bpf-next,bpf=bpf jobs=test_progs \\\n"
	  "      token_file=/etc/kfleet/pw-token report_dir=/var/lib/kfleet/mail\n"
	  "Keys: patchwork, project, tags (TAG=TREE[:BRANCH],...), tree (TREE[:BRANCH]\n"
	  "for series with no tag of the rules), subject (a regex), jobs, arches, vcpus,\n"
	  "repeat, interval (s), timeout (s), token or token_file, checks (yes/no),\n"
	  "context, report_dir, send, smtp, from, to, link_base, since (a date).\n" },
	{ "submit",
	  "  submit --tree T (--mbox F | --url U | --msgid ID | --patchwork P) [--base REV]\n"
	  "      [--arch A,B] [--config C] [--fragment F]... [--job J,..] [--vcpus N,..]\n"
	  "      [--repeat N] [--wait]          build base and patched, queue their runs\n"
	  "  submit --tree T --base REV --kernel PATH --job J,.. [--arch A] [--wait]\n"
	  "                                       test a kernel built elsewhere, with the\n"
	  "                                       tree's selftests (test_progs) built for it\n",
	  "usage: kfleet submit [--tree T] (--mbox FILE | --url URL | --msgid ID |\n"
	  "           --patchwork URL/ID) [--base REV] [--arch x86_64,arm64]\n"
	  "           [--config tinyconfig|defconfig|allnoconfig|FILE] [--fragment F]...\n"
	  "           [--job J1,J2] [--vcpus N,M] [--repeat N] [--memory MB] [--lore BASE] [--wait]\n"
	  "           [--until-decided [--max-runs N] [--margin PCT]]\n"
	  "\n"
	  "Builds the base and the patched kernel of a series for each arch (what\n"
	  "is built already is reused), then queues base and patched runs of each\n"
	  "job, interleaved. The base is --base, else the series' base-commit, else\n"
	  "the head of the tree. The tree is --tree, else the one the subject tag\n"
	  "names. Without a series (submit only), --tree and --base build one commit\n"
	  "and --job runs the jobs on it (--repeat times): what trends are made of.\n"
	  "With --kernel PATH (submit only) a kernel built elsewhere (a distro's, or\n"
	  "one built by hand) is tested instead: the tree at --base gives only the\n"
	  "selftests the jobs need (test_progs, built against the kernel's BTF).\n" },
	{ "submission submissions",
	  "  submission ID | submissions [--json]\n"
	  "                                       a series: its base and why, builds, requests\n",
	  "usage: kfleet submission ID [--json]\n"
	  "       kfleet submissions [--json]\n"
	  "\n"
	  "Prints one submission (its series, the base and why, its builds and\n"
	  "requests), or lists them all.\n" },
	{ "build builds",
	  "  build ID | builds [--json]           a kernel build, or every build\n",
	  "usage: kfleet build ID [--json]\n"
	  "       kfleet builds [--json]\n"
	  "\n"
	  "Prints one kernel build (its arch, side, state, commit, release, key,\n"
	  "toolchain and directory), or lists every build.\n" },
	{ "trend",
	  "  trend --tree T --job J [--metric M] [--arch A] [--vcpus N] [--json]\n"
	  "                                       a metric across commits, change points\n",
	  "usage: kfleet trend --tree T --job J [--metric M] [--arch A] [--vcpus N] [--json]\n"
	  "\n"
	  "Prints a job's metric across the commits of tree T that kfleet built and\n"
	  "ran the job on (kfleet submit --tree T --base COMMIT --job J --repeat N):\n"
	  "per commit, in history order, the median of its runs and their spread,\n"
	  "and the change points: steps that hold for two or more commits on each\n"
	  "side (Mann-Whitney p < 0.01 and 3% or more). Without --metric, the job's\n"
	  "first metric; without --arch or --vcpus, the cell with the most runs.\n"
	  "Subtests that started or stopped failing are listed too.\n" },
	{ "flaky",
	  "  flaky [--all] [--json]               tests in quarantine: flaky on the same\n"
	  "                                       kernel, failures not counted (--all:\n"
	  "                                       released ones too)\n",
	  "usage: kfleet flaky [--all] [--json]\n"
	  "  the tests in quarantine: flaky on the same kernel, their failures not\n"
	  "  counted against a request; --all: released ones too\n" },
	{ "export",
	  "  export kcidb [--since T] [-o FILE]   checkouts, builds and tests as KCIDB data\n",
	  "usage: kfleet export kcidb [--since T] [--submission ID] [-o FILE]\n"
	  "  checkouts, builds and tests as KCIDB report data (kcidb-io schema v4.5);\n"
	  "  T: YYYY-MM-DD[THH:MM:SS] (UTC) or a time ago (30m, 12h, 7d)\n" },
	{ "bisect bisections bisection",
	  "  bisect --tree T --good REV --bad REV --job J [--test P|--metric M|--crash]\n"
	  "      [--arch A] [--vcpus N] [--repeat N] [--first-parent] [--wait]\n"
	  "                                       the commit that broke it, checked by revert\n"
	  "  bisect --from-trend T --job J --metric M | --from-request ID [--test P]\n"
	  "  bisections | bisection ID [--json|--log|--cancel]\n",
	  "usage: kfleet bisect --tree T --good REV --bad REV --job J\n"
	  "                     [--test PATH | --metric M | --crash [--signature S]]\n"
	  "                     [--arch A] [--vcpus N] [--memory MB] [--config C]\n"
	  "                     [--fragment F]... [--repeat N] [--first-parent] [--wait]\n"
	  "       kfleet bisect --from-trend TREE --job J --metric M [--arch A] [--vcpus N]\n"
	  "       kfleet bisect --from-request ID [--test PATH] [--wait]\n"
	  "       kfleet bisections\n"
	  "       kfleet bisection ID [--json | --log | --cancel]\n"
	  "Finds the first commit between good and bad that shows the symptom: the job\n"
	  "failing, one subtest failing (--test), a kernel crash (--crash: the one\n"
	  "most of bad's runs show, or the one --signature names, e.g. \"WARNING in\n"
	  "tcp_close\"; another crash is a failure for another reason) or a\n"
	  "metric getting worse (--metric). Both ends are measured first; git chooses\n"
	  "each commit; a commit that does not build or boot, or fails otherwise, is\n"
	  "skipped; the culprit is checked by reverting it on bad. --repeat: runs per\n"
	  "end and per metric step to start with (5). --wait prints a line per step\n"
	  "and then the report, and on stderr where the running step is (its builds,\n"
	  "then its runs); it exits 0 when a culprit was found and verified.\n" },
	{ "reload",
	  "  reload [--json]                      kfleetd reads its config again (as on SIGHUP)\n"
	  "                                       and says what changed: applied, or at restart\n",
	  "usage: kfleet reload [--json]\n"
	  "\n"
	  "Asks kfleetd to read its config file again, as SIGHUP does, and prints\n"
	  "each key that differs from the config it runs with (old -> new, applied\n"
	  "now or taking effect at the next restart), then a summary. log_level is\n"
	  "applied at once; every other key waits for a restart, and is listed\n"
	  "again at each reload until then. A file with errors changes nothing: its\n"
	  "errors are printed, exit 2. Needs the token.\n"
	  "\n"
	  "  --json             print the answer as JSON\n" },
	{ "shutdown",
	  "  shutdown [--no-wait] [--timeout S]   stop kfleetd as SIGTERM does; wait until it is\n"
	  "                                       gone (60 s at most)\n",
	  "usage: kfleet shutdown [--no-wait] [--timeout S]\n"
	  "\n"
	  "Stops kfleetd as SIGTERM does: the runs in flight are stopped (their\n"
	  "guests destroyed) and queued again, queued runs keep their place, and\n"
	  "kfleetd runs them when it starts again. Waits until the daemon no longer\n"
	  "answers and, when it runs on this machine, its process is gone (its pid\n"
	  "file removed), then says it stopped. Needs the token.\n"
	  "\n"
	  "  --no-wait          return once kfleetd took the request\n"
	  "  --timeout S        wait at most S seconds (1 to 3600, default 60); past\n"
	  "                     it, exit 2\n" },
	{ "series",
	  "  series show (--mbox FILE | --url URL | --msgid ID | --patchwork URL/ID)\n"
	  "      [--lore BASE] [--json]          read a patch series and print it, no daemon\n",
	  "usage: kfleet series show (--mbox FILE | --url URL | --msgid ID |\n"
	  "                           --patchwork URL/ID) [--lore BASE] [--json]\n"
	  "\n"
	  "  --mbox FILE        an mbox file (- reads stdin)\n"
	  "  --url URL          an http(s) .mbox or .mbox.gz\n"
	  "  --msgid ID         a thread from a lore-style archive: BASE/ID/t.mbox.gz\n"
	  "  --patchwork REF    a patchwork series: BASE/ID, BASE/api/series/ID/ or a\n"
	  "                     page URL with ?series=ID\n"
	  "  --lore BASE        the archive for --msgid (default: $KFLEET_LORE_BASE,\n"
	  "                     else " FETCH_LORE_BASE ")\n"
	  "  --json             print JSON\n"
	  "\n"
	  "Parses the series without building anything and prints it as kfleet\n"
	  "understood it. Exit status 2 when it cannot be read.\n" },
	{ "parse",
	  "  parse ktap|test_progs|bench|metrics FILE [--json]\n"
	  "                                       parse a job's output here, no daemon\n"
	  "                                       (FILE - reads stdin)\n",
	  "usage: kfleet parse ktap|test_progs|bench|metrics FILE [--json]\n"
	  "\n"
	  "Parses a job's output here, with no daemon: KTAP or TAP 13 (also from a\n"
	  "console log), BPF test_progs, the selftests bench tool, or METRIC lines;\n"
	  "prints each result and metric, then the counts. FILE - reads stdin.\n"
	  "\n"
	  "  --json             print the results and metrics as JSON\n" },
	{ "help",
	  "  help [COMMAND]                       this help, or a command's own\n",
	  "usage: kfleet help [COMMAND]\n"
	  "       kfleet COMMAND --help\n"
	  "\n"
	  "Prints kfleet's commands and global options, or one command's usage and\n"
	  "options. Needs neither the daemon nor a config.\n" },
};

/* word is one of the space-separated words of names */
static int has_word(const char *names, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = names; *p; ) {
		size_t l = strcspn(p, " ");

		if (l == n && !strncmp(p, word, n))
			return 1;
		p += l;
		p += strspn(p, " ");
	}
	return 0;
}

const struct cli_help *cli_helps(size_t *n)
{
	*n = sizeof(helps) / sizeof(helps[0]);
	return helps;
}

const struct cli_help *cli_help_find(const char *word)
{
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		if (has_word(helps[i].names, word))
			return &helps[i];
	return NULL;
}

int cli_help_print(FILE *f, const char *word)
{
	const struct cli_help *h = cli_help_find(word);

	if (!h)
		return -1;
	fputs(h->help, f);
	return 0;
}

void cli_usage(FILE *f)
{
	fputs(CLI_USAGE_HEAD "\n\n", f);
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		fputs(helps[i].summary, f);
	fputs("\n" CLI_USAGE_TAIL, f);
}

int cli_help(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stdout);
		return CLI_OK;
	}
	if (argc > 2) {
		fprintf(stderr, "kfleet: help: one command at most\n");
		cli_help_print(stderr, "help");
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cli_help_print(stdout, "help"), CLI_OK;
	if (cli_help_print(stdout, argv[1]) < 0) {
		fprintf(stderr, "kfleet: '%s' is not a command\n", argv[1]);
		cli_usage(stderr);
		return CLI_USAGE;
	}
	return CLI_OK;
}
