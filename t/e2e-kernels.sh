#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernels end to end on a small git tree that behaves like kbuild for the
# calls kfleet makes (t/fake-kbuild; its "kernel" is a real one, copied, so
# the guests boot): a tree is added and cloned, series are submitted as
# mboxes, applied with git am -3 and built for x86_64 and arm64 in the
# sandbox, base and patched runs are queued interleaved, and a second
# identical submission builds nothing. A series that does not apply, a build
# that fails, an option olddefconfig drops and bad input each get their own
# clear outcome. The real kernel build is t/e2e-linux.sh.
. "$(dirname "$0")/lib.sh"

sub_id() { sed -n 's/^submission \([0-9]*\) queued.*/\1/p'; }
# wait_sub ID SECONDS: until the submission's builds are over
wait_sub() {
	for _ in $(seq 1 $(( $2 * 5 ))); do
		case $(db "select state from submissions where id = $1") in
		queued|building) sleep 0.2 ;;
		*) return 0 ;;
		esac
	done
	echo "  submission $1 still building after $2 s" >&2
	return 1
}

sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
sh "$TOP/t/fake-kbuild/mkseries.sh" "$T/tree" "$T/series" >/dev/null
kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start

# trees
out=$(kf tree add fake "$T/tree" 2>&1)
check "a local tree is added" contains "$out" "tree 'fake': added"
out=$(kf tree add fake "$T/tree" 2>&1)
check "...once: the name is taken" contains "$out" "tree 'fake': exists already"
out=$(kf tree add 'bad name' "$T/tree" 2>&1)
check "a bad tree name is refused" contains "$out" "tree name 'bad name'"
out=$(kf tree add nowhere /nonexistent/linux 2>&1)
check "a path that is not there is refused" contains "$out" "'/nonexistent/linux' is neither a directory"
for _ in $(seq 1 50); do [ "$(db "select state from trees where name = 'fake'")" = ready ] && break; sleep 0.2; done
check "the tree is cloned and its head known" equals "$(db "select state || ' ' || head from trees where name = 'fake'")" "ready $(git -C "$T/tree" rev-parse HEAD)"
check "kfleet trees lists it" contains "$(kf trees 2>&1)" "fake             ready"
check "the user's tree is left as it was" equals "$(git -C "$T/tree" status --porcelain | wc -l)" 0

# a series, built for both arches and tested; the tree comes from the subject tag
out=$(kf submit --mbox "$T/series/good.mbox" 2>&1)
check "a series naming an unknown tree in its tag is refused" contains "$out" "tree 'fake-next' (from the subject tag): no such tree"
out=$(kf test --tree fake --mbox "$T/series/good.mbox" --arch x86_64,arm64 --job metrics-demo --repeat 2 2>&1)
s1=$(db "select max(id) from submissions")
check "kfleet test: the series is built and tested" contains "$out" "submission $s1: testing"
check "...the base is the cover letter's base-commit" equals "$(db "select base_why from submissions where id = $s1")" "base-commit in the cover letter"
patched=$(db "select patched_commit from submissions where id = $s1")
check "...the patched commit has the series on the base" equals "$(git -C "$T/var/trees/fake.git" log --format=%s "$(db "select base_commit from submissions where id = $s1")..$patched" | wc -l)" 3
check "...four builds (base, patched x two arches), all done" equals "$(db "select group_concat(x, ' ') from (select b.arch || ':' || sb.side || ':' || b.state x from submission_builds sb join builds b on b.id = sb.build_id where sb.submission_id = $s1 order by 1)")" "arm64:base:done arm64:patched:done x86_64:base:done x86_64:patched:done"
check "...the patched kernel's release names its commit" equals "$(db "select release from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s1 and sb.side = 'patched' and b.arch = 'x86_64'")" "6.1.0-g$(printf %.12s "$patched")"
check "...one request per arch, 4 runs each, interleaved" equals "$(db "select group_concat(n, ' ') from (select count(*) n from runs where request_id in (select id from requests where submission_id = $s1) group by request_id)")" "4 4"
check "...every run passed" equals "$(db "select group_concat(distinct outcome) from runs where request_id in (select id from requests where submission_id = $s1)")" "passed"
check "...the arm64 runs ran arm64 guests" equals "$(db "select count(*) from runs where arch = 'arm64' and guest_release is not null and request_id in (select id from requests where submission_id = $s1)")" 4
check "...and the before/after table is printed" contains "$out" "ops"
check "...with the submission's page address" contains "$out" "/submissions/$s1"
# the series' build keeps the .config the base's build made in the slot:
# the series changes no Kconfig file, scripts/ or arch Makefile
bdir() { db "select b.dir from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $1 and sb.side = '$2' and b.arch = 'x86_64'"; }
check "...the base's build made its .config" grep -q "### kfleet: step olddefconfig" "$(bdir "$s1" base)/build.log"
check "...the series' build kept it, no config step run" sh -c "grep -q 'the slot.s .config was made from the same inputs' '$(bdir "$s1" patched)/build.log' && ! grep -q '### kfleet: step olddefconfig' '$(bdir "$s1" patched)/build.log'"
check "...the same .config in both kernels" cmp -s "$(bdir "$s1" base)/config" "$(bdir "$s1" patched)/config"
# a series that changes a Kconfig default: its .config is made again
git clone -q "$T/tree" "$T/kc" && sed -i 's/^LOG_BUF_SHIFT int 17/LOG_BUF_SHIFT int 18/' "$T/kc/Kconfig.options" &&
	git -C "$T/kc" -c user.name=Kfleet -c user.email=t@kfleet.invalid commit -qam "Kconfig: a larger log buffer" &&
	git -C "$T/kc" format-patch -1 --stdout > "$T/kconfig.mbox"
out=$(kf submit --tree fake --mbox "$T/kconfig.mbox" --arch x86_64 --wait 2>&1)
sk=$(printf '%s\n' "$out" | sub_id)
check "a series that changes Kconfig: built" equals "$(db "select state from submissions where id = $sk")" done
check "...its .config made again, with the new default" sh -c "grep -q '### kfleet: step olddefconfig' '$(bdir "$sk" patched)/build.log' && grep -qx 'CONFIG_LOG_BUF_SHIFT=18' '$(bdir "$sk" patched)/config'"
check "...the base's kept its own" grep -qx 'CONFIG_LOG_BUF_SHIFT=17' "$(bdir "$sk" base)/config"
nbuilds=$(db "select count(*) from builds")

# the same series again: nothing is built
out=$(kf submit --tree fake --mbox "$T/series/good.mbox" --arch x86_64,arm64 --wait 2>&1)
s2=$(printf '%s\n' "$out" | sub_id)
check "a second identical submission builds nothing" equals "$(db "select count(*) from builds")" "$nbuilds"
check "...its four builds are the first ones, reused" equals "$(db "select count(*) || ' ' || sum(reused) from submission_builds where submission_id = $s2")" "4 4"
check "...and kfleet says so" contains "$out" "(reused)"
# a thread with a review reply in it is the same series
out=$(kf submit --tree fake --mbox "$T/series/with-reply.mbox" --wait 2>&1)
s3=$(printf '%s\n' "$out" | sub_id)
check "a reply in the thread is not a patch: same commit, nothing built" equals "$(db "select patched_commit from submissions where id = $s3") $(db "select count(*) from builds")" "$patched $nbuilds"

# a given base
out=$(kf submit --tree fake --mbox "$T/series/good.mbox" --base v6.1 --wait 2>&1)
s4=$(printf '%s\n' "$out" | sub_id)
check "--base names the base, and why is stored" equals "$(db "select base_commit || ' ' || base_why from submissions where id = $s4")" "$(git -C "$T/tree" rev-parse 'v6.1^{commit}') given: 'v6.1'"

# a series that does not apply
out=$(kf submit --tree fake --mbox "$T/series/conflict.mbox" --wait 2>&1)
s5=$(printf '%s\n' "$out" | sub_id)
check "a series that does not apply is its own outcome" equals "$(db "select state || ' ' || outcome from submissions where id = $s5")" "failed does-not-apply"
check "...naming the patch and the file" contains "$(db "select detail from submissions where id = $s5")" "patch 2/2"
check "...with git's output kept" contains "$(db "select apply_log from submissions where id = $s5")" "Patch failed at"
check "...and nothing built for it" equals "$(db "select count(*) from submission_builds where submission_id = $s5")" 0
check "...kfleet exits 1" sh -c "'$BIN/kfleet' --url '$KF_URL' --token-file '$T/var/token' submit --tree fake --mbox '$T/series/conflict.mbox' --wait >/dev/null 2>&1; test \$? -eq 1"

# a build that fails
out=$(kf submit --tree fake --mbox "$T/series/broken-build.mbox" --wait 2>&1)
s6=$(printf '%s\n' "$out" | sub_id)
check "a build that fails fails the submission" equals "$(db "select state || ' ' || outcome from submissions where id = $s6")" "failed build-failed"
errs=$(db "select errors from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s6 and sb.side = 'patched'")
check "...the build keeps the compiler's first error lines" contains "$errs" "src/sys.c:"
check "...which kfleet prints" contains "$out" "error:"
check "...the base built fine (reused)" equals "$(db "select state || ' ' || reused from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s6 and sb.side = 'base'")" "done 1"
bid=$(db "select build_id from submission_builds where submission_id = $s6 and side = 'patched'")
check "the build page shows the error and the log" contains "$(curl -sf "$KF_URL/builds/$bid")" "src/sys.c"
check "the whole log is served" contains "$(curl -sf "$KF_URL/builds/$bid/log")" "  CC      src/sys.o"

# an option the config cannot keep is reported, and a fragment changes the key
printf 'CONFIG_KFLEET_NO_SUCH_OPTION=y\n' > "$T/extra.config"
out=$(kf submit --tree fake --fragment "$T/extra.config" --wait 2>&1)
s7=$(printf '%s\n' "$out" | sub_id)
check "a commit alone (no series) builds the base only" equals "$(db "select state || ' ' || count(*) from submissions s join submission_builds sb on sb.submission_id = s.id where s.id = $s7")" "done 1"
check "...a new config is a new build" equals "$(db "select reused from submission_builds where submission_id = $s7")" 0
check "...the config inputs are kept as they were for the submission" sh -c "cmp -s '$T/extra.config' '$T/var/subs/$s7/configs/file-0.config' && cmp -s '$TOP/kernels/configs/kfleet-guest.config' '$T/var/subs/$s7/configs/kfleet-guest.config'"
check "...the option olddefconfig dropped is named" contains "$(db "select dropped from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s7")" "CONFIG_KFLEET_NO_SUCH_OPTION=y (is not set)"

# a new slot starts from the objects of a sibling slot with the same tree,
# arch and .config (here the slot of extra.config: its option was dropped),
# so make compiles only the files that differ; a sibling whose last build
# failed is not one; another .config never is
blog() { cat "$(db "select b.dir from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $1")/build.log"; }
ccs() { blog "$1" | sed -n 's/^  CC[^s]*\(src\/.*\.o\)$/\1/p' | sort | tr '\n' ' '; }
# the series that failed built in an overlay of its own: the slot still
# holds the base's complete build, so it seeds the new one
check "a new slot whose sibling's series failed: seeded from the base's objects" contains "$(blog "$s7")" "slot seeded from"
printf 'CONFIG_PRINTK=y\n' > "$T/same.config"
out=$(kf submit --tree fake --base "$patched" --fragment "$T/same.config" --wait 2>&1)
s7b=$(printf '%s\n' "$out" | sub_id)
slot7=$(ls -d "$T"/var/slots/fake-x86_64-* | while read -r d; do grep -qx "commit $(git -C "$T/tree" rev-parse HEAD)" "$d/built" 2>/dev/null && basename "$d"; done | head -n 1)
check "a fragment that changes no option: a new slot, built" equals "$(db "select state || ' ' || reused from submissions s join submission_builds sb on sb.submission_id = s.id where s.id = $s7b")" "done 0"
check "...seeded from the slot of the same .config, three files away" contains "$(blog "$s7b")" "slot seeded from '$slot7' at $(git -C "$T/tree" rev-parse --short=12 HEAD): the same .config, changed files: 3"
check "...so make compiles only the two sources the series touches" equals "$(ccs "$s7b")" "src/getpgid_stats.o src/sys.o "
check "...and the kernel names the new commit, not dirty" equals "$(db "select release from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s7b")" "6.1.0-g$(printf %.12s "$patched")"
printf 'CONFIG_LOG_BUF_SHIFT=18\n' > "$T/other.config"
out=$(kf submit --tree fake --base "$patched" --fragment "$T/other.config" --wait 2>&1)
s7c=$(printf '%s\n' "$out" | sub_id)
check "another .config at the same commit: built" equals "$(db "select state from submissions where id = $s7c")" "done"
check "...the nearest slot's objects are tried, but its .config is another" contains "$(blog "$s7c")" "slot not seeded from 'fake-x86_64-"
check "...so none is seeded from" lacks "$(blog "$s7c")" "slot seeded"
check "...every source compiled" equals "$(ccs "$s7c")" "src/fake_mod.o src/getpgid_stats.o src/main.o src/string.o src/sys.o "

# a commit's kernel tested on its own (what trends across commits are made of)
out=$(kf submit --tree fake --base v6.1 --job metrics-demo --repeat 2 --wait 2>&1)
s8=$(printf '%s\n' "$out" | sub_id)
check "a commit with jobs queues plain runs of its kernel" equals "$(db "select count(*) from runs where submission_id = $s8 and request_id is null")" 2
for id in $(db "select id from runs where submission_id = $s8"); do kf_wait_state "$id" done 120 || break; done
check "...which pass, and the submission is done" equals "$(db "select group_concat(distinct outcome) from runs where submission_id = $s8") $(curl -sf "$KF_URL/api/submissions/$s8" | grep -o '"state":"[a-z]*"' | head -1)" 'passed "state":"done"'
check "...listed on the submission's page" contains "$(curl -sf "$KF_URL/submissions/$s8")" "Runs of the commit"
check "...the kernel knows its place in history" equals "$(db "select k.commit_order from runs r join kernels k on k.id = r.kernel_id where r.submission_id = $s8 limit 1")" "$(git -C "$T/tree" rev-list --count v6.1)"

# a kselftest job: the target is built with the kernel and runs in the guest
out=$(kf test --tree fake --mbox "$T/series/good.mbox" --job kselftest-size --repeat 1 2>&1)
s9=$(db "select max(id) from submissions")
check "a kselftest job: the target is built with both kernels" sh -c "ls '$T'/var/builds/*/kselftest-size.cpio.gz | wc -l | grep -qx 2"
check "...its runs pass" equals "$(db "select group_concat(distinct outcome) from runs where request_id in (select id from requests where submission_id = $s9)")" passed
check "...with a result per test, from the tree's own runner" equals "$(db "select group_concat(path || ':' || status, ' ') from (select path, status from results where run_id = (select min(id) from runs where request_id in (select id from requests where submission_id = $s9)) order by path)")" "size/get_size.sh:pass size/uname.sh:pass"
out=$(kf run --job kselftest-size --kernel "$KERNEL" 2>&1)
check "...a kernel kfleet did not build has no selftests: refused" contains "$out" "needs the kselftest target 'size' built for this kernel"
out=$(kf test --tree fake --mbox "$T/series/good.mbox" --job kselftest-sigaltstack --repeat 1 2>&1)
s10=$(db "select max(id) from submissions")
check "...a target the tree does not have fails the submission, named" equals "$(db "select outcome from submissions where id = $s10")" build-failed
check "...and says which" contains "$(db "select detail from submissions where id = $s10")" "selftests 'sigaltstack'"

# bad input: nothing is stored
before=$(db "select count(*) from submissions")
printf 'this is not an mbox\n' > "$T/notmbox"
out=$(kf submit --tree fake --mbox "$T/notmbox" 2>&1)
check "an mbox without a series is refused" contains "$out" "400:"
out=$(kf submit --tree nosuch --mbox "$T/series/good.mbox" 2>&1)
check "an unknown tree is refused" contains "$out" "tree 'nosuch': no such tree"
out=$(kf submit --tree fake --mbox "$T/series/good.mbox" --arch sparc 2>&1)
check "an unknown arch is refused" contains "$out" "arch 'sparc': unknown"
out=$(kf submit --tree fake --mbox "$T/series/good.mbox" --job nosuch 2>&1)
check "an unknown job is refused" contains "$out" "job 'nosuch': no such job"
out=$(kf submit --tree fake --mbox "$T/series/good.mbox" --fragment no-such-fragment 2>&1)
check "an unknown fragment is refused" contains "$out" "config fragment 'no-such-fragment': not found"
out=$(curl -s -X POST -H "Authorization: Bearer $(cat "$T/var/token")" -d '{"tree":"fake","mbox_base64":"%%%"}' "$KF_URL/api/submissions")
check "bad base64 is refused" contains "$out" "not base64"
out=$(curl -s -X POST -d '{}' "$KF_URL/api/submissions")
check "a submission without the token is refused" contains "$out" "missing or wrong token"
check "...and none of these stored anything" equals "$(db "select count(*) from submissions")" "$before"

# pages and JSON
page=$(curl -sf "$KF_URL/submissions/$s1")
check "the submission page shows the series, base and builds" sh -c "echo '$page' | grep -q 'fake: sys: count getpgid calls' && echo '$page' | grep -q 'base-commit in the cover letter' && echo '$page' | grep -q '/requests/'"
check "the failed submission's page says why" contains "$(curl -sf "$KF_URL/submissions/$s5")" "does not apply on"
check "the JSON has the series and builds" contains "$(curl -sf "$KF_URL/api/submissions/$s1")" '"side":"patched"'
check "kfleet submissions lists them" contains "$(kf submissions 2>&1)" "failed"
check "kfleet builds lists the builds" contains "$(kf builds 2>&1)" "not kept by olddefconfig: CONFIG_KFLEET_NO_SUCH_OPTION"

# a build's progress: its log marks each step; while a build is building,
# its JSON and page say the stage and its objects against the newest done
# build of its arch and config (here: one that has its log complete)
bl=$(db "select max(id) from builds where state = 'done' and arch || config_hash in (select arch || config_hash from builds where state = 'done' group by arch, config_hash having count(*) > 1)")
check "progress: a done build with an earlier one of its arch and config" test -n "$bl"
check "progress: a done build has none" contains "$(curl -sf "$KF_URL/api/builds/$bl")" '"progress":null'
check "progress: the log marks the make step" grep -q '^### kfleet: step make$' "$(db "select dir from builds where id = $bl")/build.log"
objs=$(grep -c '^  [A-Z][A-Z0-9_]* ' "$(db "select dir from builds where id = $bl")/build.log")
last=$(sed -n 's/^### kfleet: step //p' "$(db "select dir from builds where id = $bl")/build.log" | tail -n 1)
case $last in modules_install) stage=modules ;; make) stage=make ;; *) stage="?$last" ;; esac
sqlite3 "$T/var/kfleet.db" "update builds set state = 'building' where id = $bl"
prog=$(curl -sf "$KF_URL/api/builds/$bl" | sed 's/.*"progress"/"progress"/')
check "progress: a building build has its stage (its last step's) and objects" contains "$prog" "\"progress\":{\"stage\":\"$stage\",\"objects\":$objs,"
check "progress: ...against an earlier build's of its config" sh -c "echo '$prog' | grep -q '\"expected\":[1-9][0-9]*,'"
check "progress: the build page says it" contains "$(curl -sf "$KF_URL/builds/$bl")" "$stage: $objs"
page=$(kf_dom "/builds/$bl")
check "progress: the build page in Chromium: the stage and objects" contains "$page" "$stage: $objs "
check "...and it reloads itself while the build runs" contains "$page" '<meta http-equiv="refresh" content="5">'
sb=$(db "select submission_id from submission_builds where build_id = $bl limit 1")
page=$(kf_dom "/submissions/$sb")
check "progress: the submission page in Chromium: the build's stage and objects" contains "$page" "$stage: $objs "
pd=$(db "select p.dir from builds p, builds b where b.id = $bl and p.state = 'done' and p.id != b.id and p.arch = b.arch and p.config_hash = b.config_hash order by p.ended_at desc limit 1")
check "progress: the earlier build's count is kept beside its log, read once" equals "$(cat "$pd/build.objects" 2>&1)" "$(grep -c '^  [A-Z][A-Z0-9_]* ' "$pd/build.log")"
check "progress: the log's kbuild lines were seen" test "$objs" -gt 0

# the daemon dies mid-build: the submission carries on after a restart
sqlite3 "$T/var/kfleet.db" "update builds set state = 'building' where id = (select max(id) from builds)"
kf_kill9
check "kfleetd restarts" kf_start
check "a build left building is failed as interrupted" contains "$(db "select detail from builds where id = (select max(id) from builds)")" "interrupted"
kf_done
