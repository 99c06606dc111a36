#!/bin/sh
# The prof benchmark (bench/README): times `dcpictl prof` over an epoch of
# 1,000 images and 1,000,000 distinct sampled addresses.
# Usage: bench/prof.sh [BUILDDIR]   (default: the current directory)
set -eu
B=$(cd "${1:-.}" && pwd)
S=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

# The template image: a shared library of 200 functions with a symbol table.
{
	i=0
	while [ $i -lt 200 ]; do
		echo "unsigned long bench_fn_$i(unsigned long n) { unsigned long x = $i; while (n--) x = x * $((i + 3)) + (n ^ $i) + (x >> 3) * (n >> 1) - (x << 2); return x; }"
		i=$((i + 1))
	done
} >"$W/t.c"
${CC:-cc} -O1 -fPIC -shared -Wl,--build-id=sha1 -o "$W/template.so" "$W/t.c"

"$B/bench/mkprofdb" "$W/template.so" "$W" 1000 1000
echo "database: $(du -sh "$W/db" | cut -f1), images: $(du -sh "$W/images" | cut -f1)"

# The real binary rather than libtool's wrapper script (a shell and ~0.1 s).
CTL=$B/ctl/dcpictl
if [ -x "$B/ctl/.libs/dcpictl" ]; then
	CTL=$B/ctl/.libs/dcpictl
	LD_LIBRARY_PATH=$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi

run() {
	best=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$CTL" -d "$W/db" prof "$@" >"$W/out" 2>"$W/err"
		t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
			best=$t
		fi
	done
	[ -s "$W/err" ] && { echo "stderr:"; head -3 "$W/err"; }
	echo "prof $*: best of 3: ${best} s, $(wc -l <"$W/out") lines"
}
run -n 20
run
run -i
