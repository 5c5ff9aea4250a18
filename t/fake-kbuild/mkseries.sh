#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mkseries.sh TREE OUTDIR: from a tree made by mktree.sh, writes the test
# series kfleet's tests apply, as `git format-patch --cover-letter --thread
# --stdout` mboxes with fixed authors, dates and Message-Ids (the same bytes
# on every run for the same TREE). They are made on branches of a scratch
# clone: TREE is not changed.
#   good.mbox          [PATCH fake-next v2 0/3] + 1/3 src/sys.c, 2/3 new file
#                      src/getpgid_stats.c, 3/3 Documentation/fake/getpgid.rst;
#                      base-commit: TREE's master; Reviewed-by/Signed-off-by
#                      trailers. Applies with git am -3 and builds.
#   conflict.mbox      [PATCH fake-next 0/2]: 1/2 applies, 2/2 edits lines of
#                      src/string.c that only a commit missing from TREE has
#                      (base-commit: master plus its prerequisite-patch-id),
#                      so git am -3 stops at 2/2.
#   broken-build.mbox  [PATCH fake-next 0/1]: 1/1 applies but removes a ';'
#                      in src/sys.c, so the build fails with
#                      "src/sys.c:NN:NN: error: expected ';' ...".
#   with-reply.mbox    good.mbox plus a reviewer's "Re: [PATCH fake-next v2
#                      1/3] ..." reply to 1/3 (In-Reply-To/References set).
set -e
if [ $# -ne 2 ]; then
	echo "usage: $0 TREE OUTDIR" >&2
	exit 2
fi
tree=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
scratch=$(mktemp -d /tmp/kfleet-mkseries.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Fake Developer" GIT_AUTHOR_EMAIL="fake-dev@kfleet.invalid"
export GIT_COMMITTER_NAME="Fake Developer" GIT_COMMITTER_EMAIL="fake-dev@kfleet.invalid"
sob="Signed-off-by: Fake Developer <fake-dev@kfleet.invalid>"
rb="Reviewed-by: Fake Reviewer <fake-reviewer@kfleet.invalid>"
t=1700000000
# commit MESSAGE...: commits everything with the next fixed date
commit() {
	t=$((t + 60))
	git add -A
	GIT_AUTHOR_DATE="$t +0000" GIT_COMMITTER_DATE="$t +0000" git commit -q "$@"
}
# series OUTFILE RANGE FORMAT-PATCH-ARGS...: the mbox, Message-Ids fixed
series() {
	f=$1; shift
	GIT_COMMITTER_DATE="$((t + 600)) +0000" git -c core.abbrev=12 format-patch --cover-letter --thread \
		--stdout --signature=2.39.5 --cover-from-description=subject "$@" |
		sed 's/\.[0-9][0-9]*\.git\.fake-dev@/.1700000000.git.fake-dev@/g' > "$out/$f"
}

git clone -q "$tree" "$scratch/tree"
cd "$scratch/tree"
git checkout -q -b good origin/master

# good: 1/3 src/sys.c
sed -i -e 's/^static int current_pgid = 1;$/&\nunsigned long getpgid_calls;/' \
	-e 's/^long do_getpgid(int pid)$/&\n{\n\tgetpgid_calls++;/' src/sys.c
awk 'prev == "\tgetpgid_calls++;" && $0 == "{" { prev = $0; next } { print; prev = $0 }' src/sys.c > src/sys.c.new
mv src/sys.c.new src/sys.c
commit -m "fake: sys: count getpgid calls" \
	-m "Keep a count of do_getpgid() calls, so that a test can tell the
patched kernel from its base." -m "$rb
$sob"
# good: 2/3 a new file
cat > src/getpgid_stats.c <<'EOC'
// SPDX-License-Identifier: GPL-2.0
/*
 * src/getpgid_stats.c: reports how often do_getpgid() was called.
 */
#include <linux/kernel.h>

extern unsigned long getpgid_calls;

unsigned long getpgid_stats(void)
{
	pr_info("getpgid: %lu calls\n", getpgid_calls);
	return getpgid_calls;
}
EOC
commit -m "fake: add getpgid_stats()" -m "Report the count kept since the previous patch." -m "$sob"
# good: 3/3 documentation only
cat >> Documentation/fake/getpgid.rst <<'EOC'

Each call is counted; ``getpgid_stats()`` in ``src/getpgid_stats.c`` prints
and returns the count.
EOC
commit -m "Documentation: fake: describe the getpgid call count" -m "$rb
$sob"
git config branch.good.description "fake: count getpgid calls

This series counts do_getpgid() calls, reports the count and documents it.
It exists so that kfleet's tests have a series that applies and builds.

Changes in v2:
- count in do_getpgid() itself, not in its callers"
series good.mbox -v2 --subject-prefix="PATCH fake-next" --base=origin/master origin/master..good

# conflict: a commit TREE does not have, then 1/2 (applies) and 2/2 (on top
# of the missing commit's lines)
git checkout -q -b conflict-prereq origin/master
sed -i 's/while (\*a && \*a == \*b) {/while (*a != '"'\\\\0'"' \&\& *a == *b) {/' src/string.c
commit -m "fake: string: spell out the NUL test in strcmp()" -m "$sob"
git checkout -q -b conflict
sed -i 's/^static const char banner\[\] = .*/static const char banner[] = "Linux version 6.1.0 (fake kbuild, patched)";/' src/main.c
commit -m "fake: main: say the kernel is patched in the banner" -m "$sob"
sed -i 's/while (\*a != .\\0. && \*a == \*b) {/while (*a != '"'\\\\0'"' \&\& *b != '"'\\\\0'"' \&\& *a == *b) {/' src/string.c
commit -m "fake: string: stop strcmp() at the end of either string" -m "$sob"
git config branch.conflict.description "fake: strcmp and banner tweaks

Patch 2/2 needs a commit the tree does not have, so it does not apply."
series conflict.mbox --subject-prefix="PATCH fake-next" --base=origin/master conflict-prereq..conflict

# broken-build: applies, does not compile
git checkout -q -b broken origin/master
sed -i '0,/^\t\treturn current_pgid;$/s//\t\treturn current_pgid/' src/sys.c
commit -m "fake: sys: break the build" -m "Drops a semicolon: the build must fail with gcc's error." -m "$sob"
git config branch.broken.description "fake: a patch that breaks the build

It applies cleanly; src/sys.c then does not compile."
series broken-build.mbox --subject-prefix="PATCH fake-next" --base=origin/master origin/master..broken

# with-reply: good.mbox and a reply to 1/3
cover_id=$(sed -n 's/^Message-Id: *//p' "$out/good.mbox" | sed -n 1p)
p1_id=$(sed -n 's/^Message-Id: *//p' "$out/good.mbox" | sed -n 2p)
p1_subject=$(sed -n 's/^Subject: \(\[PATCH fake-next v2 1\/3\].*\)/\1/p' "$out/good.mbox")
{
	cat "$out/good.mbox"
	cat <<EOM
From fake-reviewer@kfleet.invalid Tue Nov 14 22:30:00 2023
From: Fake Reviewer <fake-reviewer@kfleet.invalid>
To: Fake Developer <fake-dev@kfleet.invalid>
Subject: Re: $p1_subject
Date: Tue, 14 Nov 2023 22:30:00 +0000
Message-Id: <reply-1.1700000000.fake-reviewer@kfleet.invalid>
In-Reply-To: $p1_id
References: $cover_id
 $p1_id
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8

On Tue, Nov 14, 2023 at 22:15:00 +0000, Fake Developer wrote:
> Keep a count of do_getpgid() calls, so that a test can tell the
> patched kernel from its base.

The counter is not atomic: two CPUs calling getpgid at once lose counts.
Fine for a test, but please say so in the commit message.

Thanks,
Fake Reviewer

EOM
} > "$out/with-reply.mbox"
ls "$out"/good.mbox "$out"/conflict.mbox "$out"/broken-build.mbox "$out"/with-reply.mbox
