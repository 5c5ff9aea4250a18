/* usage.c: kfleet's help, the list of its commands and global options;
 * printed by main() and by a command's -h or bad option. Commands with a
 * help of their own (trend, tree, submit, series) print that instead. */
#include <stdio.h>

#include "cli/cli.h"

void cli_usage(FILE *f)
{
	fputs("usage: kfleet [-c CONFIG] [--url URL] [--token-file FILE] COMMAND ...\n"
	      "\n"
	      "  run --kernel PATH [--arch A] [--vcpus N] [--memory MB] [--timeout S]\n"
	      "      [--wait] [--json] -- CMD...     queue a run of CMD in a guest\n"
	      "  run --job NAME --kernel PATH [--arch A] [--vcpus N] [--memory MB]\n"
	      "      [--timeout S] [--wait] [--json] queue a run of a job (its defaults\n"
	      "                                       apply where no option is given)\n"
	      "      run also takes --topology SOCKETS:CORES:THREADS, --numa NODES and\n"
	      "      --repeat N (N separate runs; with --wait, each one's result)\n"
	      "  test --base PATH --patched PATH --job NAME [--repeat N] [--arch A] [--vcpus N]\n"
	      "      [--memory MB] [--wait] [--markdown]\n"
	      "                                       runs of both kernels interleaved, then\n"
	      "                                       (--wait) the before/after table\n"
	      "  runs [--limit N] [--json]            list the newest runs\n"
	      "  show ID [--json]                     print one run: results, metrics, output\n"
	      "  jobs [--json]                        list the jobs the daemon knows\n"
	      "  jobs show NAME [--json]              print one job's definition\n"
	      "  import --kernel PATH (--job J | --parser P) [--arch A] [--vcpus N] FILE\n"
	      "                                       a log from elsewhere, parsed, kept as a run\n"
	      "  compare (--kernels A B --job NAME | --request ID) [--arch A] [--vcpus N]\n"
	      "      [--columns avg,p99,max,test|all] [--markdown|--json]\n"
	      "                                       before/after table of the job's metrics\n"
	      "                                       (A == B: the noise floor, runs split)\n"
	      "  tree add NAME PATH-or-URL [--branch B] | tree fetch NAME | trees\n"
	      "                                       kernel git trees kfleetd builds from\n"
	      "  submit --tree T (--mbox F | --url U | --msgid ID | --patchwork P) [--base REV]\n"
	      "      [--arch A,B] [--config C] [--fragment F]... [--job J,..] [--vcpus N,..]\n"
	      "      [--repeat N] [--wait]          build base and patched, queue their runs\n"
	      "  submit --tree T --base REV --kernel PATH --job J,.. [--arch A] [--wait]\n"
	      "                                       test a kernel built elsewhere, with the\n"
	      "                                       tree's selftests (test_progs) built for it\n"
	      "  test --tree T --mbox F --job J ...   the same, waiting, then the tables\n"
	      "  submission ID | submissions | builds | build ID [--json]\n"
	      "  trend --tree T --job J [--metric M] [--arch A] [--vcpus N] [--json]\n"
	      "                                       a metric across commits, change points\n"
	      "  bisect --tree T --good REV --bad REV --job J [--test P|--metric M|--crash]\n"
	      "      [--arch A] [--vcpus N] [--repeat N] [--first-parent] [--wait]\n"
	      "                                       the commit that broke it, checked by revert\n"
	      "  bisect --from-trend T --job J --metric M | --from-request ID [--test P]\n"
	      "  bisections | bisection ID [--json|--log|--cancel]\n"
	      "  series show (--mbox FILE | --url URL | --msgid ID | --patchwork URL/ID)\n"
	      "      [--lore BASE] [--json]          read a patch series and print it, no daemon\n"
	      "  parse ktap|test_progs|bench|metrics FILE [--json]\n"
	      "                                       parse a job's output here, no daemon\n"
	      "                                       (FILE - reads stdin)\n"
	      "\n"
	      "URL: --url, $KFLEET_URL, the config's listen address, or " CLI_DEFAULT_URL ".\n"
	      "Token: --token-file, $KFLEET_TOKEN_FILE, or the config's state_dir/token.\n",
	      f);
}
