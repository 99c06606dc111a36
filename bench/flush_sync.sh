#!/bin/sh
# A flush on a slow disk: how long dcpid's flush takes, and how many
# fsyncs it makes, when each fsync costs MS milliseconds (a loaded disk or
# a network volume), as root:
#   sh bench/flush_sync.sh [-n PROGRAMS] [-m MS] [-r ROUNDS] BUILDDIR...
# Links PROGRAMS (default 500) copies of a 5 ms busy loop, each with its
# own build-id, once; then for each round (default 2) and each BUILDDIR
# in turn: dcpid (perf::cpu-clock, label-by none, its own database and
# socket) with tests/workload/slowio.c preloaded (every fsync MS late,
# default 5, and counted), the programs run, and one `dcpictl flush`,
# timed.  Printed: the files the flush wrote, its wall seconds, the
# fsyncs it made and the same per file.
set -u
N=500 MS=5 R=2
USAGE="usage: flush_sync.sh [-n PROGRAMS] [-m MS] [-r ROUNDS] BUILDDIR..."
while getopts n:m:r: o; do
	case $o in
	n) N=$OPTARG ;;
	m) MS=$OPTARG ;;
	r) R=$OPTARG ;;
	*) echo "$USAGE" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$USAGE" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "flush_sync: needs root (system-wide sampling)" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/flush_sync.XXXXXX") || exit 1
P=
trap 'kill "$P" 2>/dev/null; rm -rf "$T"' EXIT
cc -O1 -c -o "$T/spin.o" "$SRC/bench/spin.c" &&
    cc -shared -fPIC -o "$T/slowio.so" "$SRC/tests/workload/slowio.c" -ldl || exit 1
mkdir "$T/p"
i=0
while [ "$i" -lt "$N" ]; do
	cc -o "$T/p/s$i" "$T/spin.o" -Wl,--build-id=0x$(printf 'f5%038x' "$i") || exit 1
	i=$((i + 1))
done
echo "label-by = none" >"$T/conf"
printf "%-4s %-24s %6s %8s %7s %9s\n" round build files flush_s fsyncs per_file
r=1
while [ "$r" -le "$R" ]; do
	for b in "$@"; do
		b=$(cd "$b" && pwd)
		rm -rf "$T/db" "$T/sock" "$T/fsyncs"
		LD_PRELOAD="$T/slowio.so" DCPI_TEST_FSYNC_MS=$MS DCPI_TEST_FSYNC_LOG="$T/fsyncs" \
		    "$b/daemon/dcpid" -f -d "$T/db" --socket "$T/sock" -e perf::cpu-clock \
		    --config "$T/conf" >"$T/log" 2>&1 &
		P=$!
		for _ in $(seq 100); do
			"$b/ctl/dcpictl" --socket "$T/sock" status >/dev/null 2>&1 && break
			sleep 0.1
		done
		# The start-up's own flush of the kernel's symbols, out of the count.
		"$b/ctl/dcpictl" --socket "$T/sock" flush >/dev/null
		for f in "$T"/p/s*; do "$f"; done
		: >"$T/fsyncs"
		t0=$(date +%s%N)
		"$b/ctl/dcpictl" --socket "$T/sock" flush >"$T/out" || { cat "$T/out"; exit 1; }
		t1=$(date +%s%N)
		kill "$P"; wait "$P" 2>/dev/null; P=
		files=$(sed -n 's/.*flushed \([0-9]*\) files.*/\1/p' "$T/out")
		n=$(wc -c <"$T/fsyncs")
		printf "%-4s %-24s %6s %8s %7s %9s\n" "$r" "$(basename "$(dirname "$b")")/$(basename "$b")" \
		    "$files" "$(echo "scale=2; ($t1 - $t0) / 1000000000" | bc)" "$n" \
		    "$(echo "scale=2; $n / ${files:-1}" | bc)"
	done
	r=$((r + 1))
done
