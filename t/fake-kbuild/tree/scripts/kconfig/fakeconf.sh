#!/bin/sh
# fakeconf.sh TARGET ARCH SRCTREE CONFIG [-s]: the fake tree's Kconfig.
# Writes CONFIG (O/.config) for TARGET (tinyconfig, allnoconfig, defconfig,
# alldefconfig, olddefconfig) from Kconfig.options, the list of the symbols
# that exist: "NAME TYPE DEFAULT [depends=A,B] [arch=ARCH]". A symbol of
# another ARCH, or whose dependencies (listed earlier) are not y or m, is not
# written at all; an unknown symbol is dropped; tristate m without
# CONFIG_MODULES=y becomes y; an invalid value falls back to the default.
# KCONFIG_ALLCONFIG (allnoconfig, alldefconfig) is honoured as by kconfig.
set -e
target=$1 arch=$2 srctree=$3 config=$4 silent=$5
case $arch in x86_64) srcarch=x86 defconfig=x86_64_defconfig ;; *) srcarch=$arch defconfig=defconfig ;; esac

case $target in
allnoconfig) mode=no inputs=${KCONFIG_ALLCONFIG:-/dev/null} ;;
tinyconfig) mode=no inputs="$srctree/kernel/configs/tiny.config $srctree/arch/$srcarch/configs/tiny.config" ;;
defconfig)
	mode=def inputs=$srctree/arch/$srcarch/configs/$defconfig
	[ -n "$silent" ] || echo "*** Default configuration is based on '$defconfig'" ;;
alldefconfig) mode=def inputs=${KCONFIG_ALLCONFIG:-/dev/null} ;;
olddefconfig)
	mode=def inputs=$config
	[ -f "$config" ] || inputs=/dev/null ;;
*) echo "fakeconf.sh: unknown target '$target'" >&2; exit 1 ;;
esac
for f in $inputs; do
	[ -r "$f" ] || { echo "can't find file $f" >&2; exit 1; }
done

mkdir -p "$(dirname "$config")"
tmp=$config.fakeconf.$$
trap 'rm -f "$tmp"' EXIT
{
	echo '#'
	echo '# Automatically generated file; DO NOT EDIT.'
	echo "# Linux/$srcarch 6.1.0 Kernel Configuration"
	echo '#'
	awk -v arch="$arch" -v mode="$mode" '
	function ok(type, v) {
		if (type ~ /bool/) return v == "y" || v == "n"
		if (type == "tristate") return v == "y" || v == "m" || v == "n"
		if (type == "string") return v ~ /^".*"$/
		if (type == "int") return v ~ /^-?[0-9]+$/
		if (type == "hex") return v ~ /^0[xX][0-9a-fA-F]+$/
		return 0
	}
	phase == 1 && /^CONFIG_[A-Za-z0-9_]+=/ {
		i = index($0, "="); n = substr($0, 8, i - 8); want[n] = substr($0, i + 1); next
	}
	phase == 1 && /^# CONFIG_[A-Za-z0-9_]+ is not set$/ { want[substr($2, 8)] = "n"; next }
	phase == 1 { next }
	/^[ \t]*(#|$)/ { next }
	{
		n = $1; type = $2; def = $3; deps = ""; a = ""
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^depends=/) deps = substr($i, 9)
			else if ($i ~ /^arch=/) a = substr($i, 6)
		}
		if (a != "" && a != arch) next
		if (deps != "") {
			k = split(deps, d, ",")
			for (i = 1; i <= k; i++) if (val[d[i]] != "y" && val[d[i]] != "m") next
		}
		if (type == "def_bool") v = def
		else if ((n in want) && ok(type, want[n])) v = want[n]
		else if (mode == "no" && (type == "bool" || type == "tristate")) v = "n"
		else v = def
		if (type == "tristate" && v == "m" && val["MODULES"] != "y") v = "y"
		val[n] = v
		if (v == "n") print "# CONFIG_" n " is not set"
		else print "CONFIG_" n "=" v
	}' phase=1 $inputs phase=2 "$srctree/Kconfig.options"
} > "$tmp"
[ -f "$config" ] && cp -f "$config" "$config.old"
mv -f "$tmp" "$config"
trap - EXIT
if [ -z "$silent" ]; then
	echo '#'
	echo '# configuration written to .config'
	echo '#'
fi
