#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mkbisect.sh DIR: the fake kbuild tree (mktree.sh) with a history to bisect
# on top of v6.1: ten commits with fixed dates (the same hashes everywhere),
# tagged where a test should find them:
#   culprit-test    the fake kselftest size/probe.sh starts failing
#   culprit-flaky   size/flaky.sh starts failing in about 70% of runs
#   culprit-metric  size/metric.sh's "ops" drops from 1000 to 800 (noise 1%)
#   nobuild         src/sys.c does not compile (fixed by the next commit)
# and after v6.1-end, from crash-base to crash-end, size/crash.sh's kernel
# WARNING: other-crash one in fake_other (fixed by the next commit),
# culprit-crash one in fake_fn from there on.
# bisect-base (the first, which adds the scripts) and v6.1-end (the last). Every change sits in a file of its own, so
# each culprit's revert applies on the last commit. Prints DIR's path.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=$(sh "$here/mktree.sh" "$1")
cd "$dir"
export GIT_AUTHOR_NAME="Fake Kbuild" GIT_AUTHOR_EMAIL="fake-kbuild@kfleet.invalid"
export GIT_COMMITTER_NAME="Fake Kbuild" GIT_COMMITTER_EMAIL="fake-kbuild@kfleet.invalid"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -c core.autocrlf=false -c commit.gpgsign=false -c core.hooksPath=/dev/null "$@"; }
t=1670800000
commit() {   # commit SUBJECT [TAG]
	t=$((t + 3600))
	g add -A
	GIT_AUTHOR_DATE="$t +0000" GIT_COMMITTER_DATE="$t +0000" g commit -q -m "$1"
	[ -z "$2" ] || g tag "$2"
}
st=tools/testing/selftests/size
# a byte of randomness from the guest, 0..255
rnd='od -An -N1 -tu1 /dev/urandom | tr -d " "'
printf '#!/bin/sh\n# passes until culprit-test\nexit 0\n' > $st/probe.sh
printf '#!/bin/sh\n# passes until culprit-flaky\nexit 0\n' > $st/flaky.sh
printf '#!/bin/sh\n# METRIC ops, 1000 until culprit-metric, 1%% noise\nbase=1000\nr=$(%s)\necho "METRIC ops=$((base * (1000 + (r - 128) * 10 / 128) / 1000)) Mops/s"\n' "$rnd" > $st/metric.sh
chmod 755 $st/probe.sh $st/flaky.sh $st/metric.sh
commit "selftests: size: probe, flaky and metric scripts for bisections" bisect-base
echo "one" > Documentation/bisect-1.txt 2>/dev/null || { mkdir -p Documentation; echo one > Documentation/bisect-1.txt; }
commit "Documentation: a first note"
sed -i 's/^base=1000$/base=800/' $st/metric.sh
commit "sys: a slower path for getpgid" culprit-metric
echo "two" > Documentation/bisect-2.txt
commit "Documentation: a second note"
printf 'int broken(void) { return }\n' > src/bisect_nobuild.c
commit "src: a change that does not compile" nobuild
rm src/bisect_nobuild.c
commit "src: fix the build"
printf '#!/bin/sh\n# fails from culprit-test on\necho "probe: broken"\nexit 1\n' > $st/probe.sh
commit "mm: break the probe" culprit-test
echo "three" > Documentation/bisect-3.txt
commit "Documentation: a third note"
printf '#!/bin/sh\n# fails in about 70%% of runs from culprit-flaky on\nr=$(%s)\n[ "$r" -ge 77 ] && { echo "flaky: failed ($r)"; exit 1; }\nexit 0\n' "$rnd" > $st/flaky.sh
commit "net: a flaky failure" culprit-flaky
echo "four" > Documentation/bisect-4.txt
commit "Documentation: a fourth note" v6.1-end
# after v6.1-end (so the commits above keep their ids): a kernel report
# that crash.sh writes to the console through /dev/kmsg, first from another
# function (one commit, fixed by the next), then from fake_fn for good
warn() {   # warn FUNCTION: crash.sh reports a WARNING in it
	printf '#!/bin/sh\n# a kernel WARNING in %s\necho "<4>WARNING: CPU: 0 PID: $$ at lib/fake_crash.c:12 %s+0x1c/0x40" > /dev/kmsg\necho "<4>RIP: 0010:%s+0x1c/0x40" > /dev/kmsg\nexit 0\n' "$1" "$1" "$1" > $st/crash.sh
}
printf '#!/bin/sh\n# no kernel report until culprit-crash\nexit 0\n' > $st/crash.sh
chmod 755 $st/crash.sh
commit "selftests: size: a crash script" crash-base
echo "five" > Documentation/bisect-5.txt
commit "Documentation: a fifth note"
warn fake_other
commit "lib: a WARNING in fake_other" other-crash
printf '#!/bin/sh\n# no kernel report until culprit-crash\nexit 0\n' > $st/crash.sh
commit "lib: fix the WARNING in fake_other"
warn fake_fn
commit "lib: a WARNING in fake_fn" culprit-crash
echo "six" > Documentation/bisect-6.txt
commit "Documentation: a sixth note" crash-end
echo "$dir"
