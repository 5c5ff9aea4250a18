#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t/spdx-check.sh: every source file kfleet ships (C, headers, scripts,
# Makefile) says its licence in an SPDX line near its top, as the kernel's
# files do; the fake kernel tree (t/fake-kbuild/tree) keeps its own.
cd "$(dirname "$0")/.." || exit 1
bad=0
files=$(git ls-files '*.c' '*.h' '*.sh' '*.py' Makefile '.ci/*' debian/rules 'debian/*.init' 'debian/*.postinst' 'debian/*.postrm' 'debian/*.service' | grep -v '^t/fake-kbuild/tree/')
[ "$(echo "$files" | wc -l)" -gt 100 ] || { echo "spdx-check: git lists no sources here"; exit 1; }
for f in $files; do
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-only' && continue
	echo "spdx-check: $f: no 'SPDX-License-Identifier: GPL-2.0-only' in its first 3 lines"
	bad=1
done
[ "$bad" = 0 ] && echo "spdx-check: every source file says its licence (GPL-2.0-only)"
exit "$bad"
