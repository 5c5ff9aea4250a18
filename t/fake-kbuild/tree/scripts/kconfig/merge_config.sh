#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fake tree's merge_config.sh: the kernel's interface and messages,
# written anew for kfleet's tests (t/fake-kbuild).
#   merge_config.sh [-m] [-n] [-r] [-y] [-s] [-O DIR] BASE [FRAGMENT...]
# merges BASE and the fragments in order (a later value of a symbol replaces
# an earlier one, "Value of CONFIG_X is redefined by fragment F" says so) into
# DIR/.config (or $KCONFIG_CONFIG). With -m that is all; without, it runs
# make alldefconfig (allnoconfig with -n) on the result and reports each
# requested value that did not survive. Like the kernel's, it keeps its
# temporary files in the current directory.
set -e

usage() {
	echo "Usage: $0 [OPTIONS] [CONFIG [...]]"
	echo "  -h    display this help text"
	echo "  -m    only merge the fragments, do not execute the make command"
	echo "  -n    use allnoconfig instead of alldefconfig"
	echo "  -r    list redundant entries when merging fragments"
	echo "  -y    make builtin have precedence over modules"
	echo "  -O    dir to put generated output files.  Consider setting \$KCONFIG_CONFIG instead."
	echo "  -s    strict mode. Fail if the fragment redefines any value."
}

RUNMAKE=true ALLTARGET=alldefconfig WARNREDUN=false BUILTIN=false OUTPUT=. STRICT=false
while true; do
	case $1 in
	-n) ALLTARGET=allnoconfig; shift ;;
	-m) RUNMAKE=false; shift ;;
	-h) usage; exit ;;
	-r) WARNREDUN=true; shift ;;
	-y) BUILTIN=true; shift ;;
	-s) STRICT=true; shift ;;
	-O)
		if [ -d "$2" ]; then
			OUTPUT=$(echo "$2" | sed 's/\/*$//')
		else
			echo "output directory $2 does not exist" 1>&2
			exit 1
		fi
		shift 2 ;;
	*) break ;;
	esac
done
if [ "$#" -lt 1 ]; then
	usage
	exit
fi
if [ -z "$KCONFIG_CONFIG" ]; then
	if [ "$OUTPUT" != . ]; then
		KCONFIG_CONFIG=$(readlink -m -- "$OUTPUT/.config")
	else
		KCONFIG_CONFIG=.config
	fi
fi

INITFILE=$1
shift
if [ ! -r "$INITFILE" ]; then
	echo "The base file '$INITFILE' does not exist. Creating one..." >&2
	touch "$INITFILE"
fi

TMP_FILE=$(mktemp ./.tmp.config.XXXXXXXXXX)
trap 'rm -f "$TMP_FILE" "$TMP_FILE.new"' EXIT
echo "Using $INITFILE as base"
cat "$INITFILE" > "$TMP_FILE"

# name of the symbol a config line sets, empty if none
sym='if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) return substr($0, 8, RLENGTH - 8)
	if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) return substr($2, 8)
	return ""'

for F in "$@"; do
	echo "Merging $F"
	if [ ! -r "$F" ]; then
		echo "The merge file '$F' does not exist.  Exit." >&2
		exit 1
	fi
	# prints the messages, writes the merged file; exit 3: strict violated
	rc=0
	awk -v frag="$F" -v builtin=$BUILTIN -v warnredun=$WARNREDUN -v strict=$STRICT -v out="$TMP_FILE.new" "
	function sym() { $sym }"'
	FILENAME == ARGV[1] { base[++nb] = $0; s = sym(); if (s != "") prev[s] = $0; next }
	{ frag_l[++nf] = $0; s = sym(); if (s == "") next
		if (!(s in prev)) next
		p = prev[s]; v = $0; pv = p; sub(/^CONFIG_[A-Za-z0-9_]+=/, "", pv); nv = v; sub(/^CONFIG_[A-Za-z0-9_]+=/, "", nv)
		if (builtin == "true" && nv == "m" && pv == "y") {
			print "Previous value: " p; print "New value: " v
			print "-y passed, will not demote y to m"; print ""
			keepbase[s] = 1; dropfrag[FNR] = 1
		} else if (p != v) {
			print "Value of CONFIG_" s " is redefined by fragment " frag ":"
			print "Previous value: " p; print "New value: " v; print ""
			if (strict == "true") violated = 1
		} else if (warnredun == "true") {
			print "Value of CONFIG_" s " is redundant by fragment " frag ":"
		}
		if (!keepbase[s]) dropbase[s] = 1
	}
	END {
		for (i = 1; i <= nb; i++) { $0 = base[i]; s = sym(); if (s == "" || !dropbase[s]) print base[i] > out }
		print "" > out
		for (i = 1; i <= nf; i++) if (!dropfrag[i]) print frag_l[i] > out
		exit (violated ? 3 : 0)
	}' "$TMP_FILE" "$F" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || exit 1
	[ "$rc" = 3 ] && STRICT_MODE_VIOLATED=true
	mv -f "$TMP_FILE.new" "$TMP_FILE"
done

if [ "$STRICT_MODE_VIOLATED" = "true" ]; then
	echo "The fragment redefined a value and strict mode had been passed."
	exit 1
fi

if [ "$RUNMAKE" = "false" ]; then
	cp -T -- "$TMP_FILE" "$KCONFIG_CONFIG"
	echo "#"
	echo "# merged configuration written to $KCONFIG_CONFIG (needs make)"
	echo "#"
	exit
fi

OUTPUT_ARG=""
if [ "$OUTPUT" != "." ]; then
	OUTPUT_ARG="O=$OUTPUT"
fi
make KCONFIG_ALLCONFIG="$TMP_FILE" $OUTPUT_ARG $ALLTARGET

# report each requested value that did not make it
awk "function sym() { $sym }"'
	FILENAME == ARGV[1] { s = sym(); if (s != "") want[s] = $0; next }
	{ s = sym(); if (s != "") have[s] = $0 }
	END { for (s in want) if (want[s] != have[s]) {
		print "Value requested for CONFIG_" s " not in final .config"
		print "Requested value:  " want[s]
		print "Actual value:     " have[s]
		print ""
	} }' "$TMP_FILE" "$KCONFIG_CONFIG"
