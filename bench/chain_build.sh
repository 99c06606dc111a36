#!/bin/sh
# Call chains under a build: dcpid -g over a parallel build of dcpi itself
# (make -jNCPU from clean: hundreds of short-lived compiler processes, the
# worst case for the daemon's chain table, whose raw chains are per
# process).  For each BUILDDIR given (say main's and a change's, the runs
# interleaved ROUNDS times, default 2): the samples, dcpid's CPU seconds
# (utime + stime from /proc/PID/stat) and peak RSS (VmHWM), the largest
# memory-stacks and chains seen by polling `dcpictl status` every 0.5 s,
# the same just before the flush, the flushes made early by the memory cap
# (memory-cap, dcpid.conf(5): 64M by default), and the bytes of the epoch's
# stack file.
# PERIOD is perf::cpu-clock's in ns (default 100000: 10 kHz per CPU).
# With -f, each build also runs flat (no -g) just before its -g run, for
# the cost a sample and the RSS with and without chains.
# Run by hand, as root:
#   sh bench/chain_build.sh [-f] [-p PERIOD] [-r ROUNDS] BUILDDIR...
set -u
PERIOD=100000
ROUNDS=2
MODES=-g
USAGE="usage: chain_build.sh [-f] [-p PERIOD] [-r ROUNDS] BUILDDIR..."
while getopts fp:r: o; do
	case $o in
	f) MODES="flat -g" ;;
	p) PERIOD=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	*) echo "$USAGE" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$USAGE" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "chain_build: needs root (system-wide sampling)" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
NCPU=$(nproc)
HZ=$(getconf CLK_TCK)
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-chainbuild.XXXXXX")
PROF=

cleanup() {
	[ -n "$PROF" ] && kill -KILL "$PROF" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The workload: this source tree, configured once out of tree (untimed).
(cd "$SRC" && git archive HEAD) | (mkdir -p "$T/src" && tar -x -C "$T/src") || exit 1
(cd "$T/src" && autoreconf -fi >/dev/null 2>&1) || { echo "chain_build: autoreconf failed" >&2; exit 1; }
mkdir -p "$T/work" && (cd "$T/work" && "$T/src/configure" -q) || exit 1

cpu_secs() { awk -v hz="$HZ" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"; }
hwm_mb() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# memory-stacks bytes and chains held, from a status dump.
held() { awk '$1 == "memory-stacks" { m = $2 } $1 == "callchains" { c = $5 }
	END { printf "%d %d", m, c }' "$1"; }

printf "%-4s %-24s %-4s %10s %6s %8s %12s %9s %12s %9s %5s %11s %6s %7s\n" round build mode \
    samples cpu_s hwm_MB peak_stackB peak_ch flush_stackB flush_ch early stackfile \
    build_s us_samp >"$T/table"

run() {	# ROUND BUILDDIR MODE (-g or flat)
	b=$(cd "$2" && pwd) db=$T/db sock=$T/sock mode=$3 g=
	[ "$mode" = -g ] && g=-g
	rm -rf "$db"
	(cd "$T/work" && make clean >/dev/null 2>&1)
	"$b/daemon/dcpid" -f $g -d "$db" --socket "$sock" --flush-interval 3600 \
	    -e "perf::cpu-clock:period=$PERIOD" >"$T/dcpid.log" 2>&1 &
	PROF=$!
	for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.1; done
	(cd "$T/work" && t0=$(date +%s%N) && make -j"$NCPU" >/dev/null 2>&1 &&
	    echo "scale=1; ($(date +%s%N) - $t0) / 1000000000" | bc >"$T/build_s") &
	mk=$!
	peakm=0 peakc=0
	while kill -0 $mk 2>/dev/null; do
		"$b/ctl/dcpictl" --socket "$sock" status >"$T/st" 2>/dev/null &&
		    set -- $(held "$T/st") &&
		    { [ "$1" -gt "$peakm" ] && peakm=$1; [ "$2" -gt "$peakc" ] && peakc=$2; }
		sleep 0.5
	done
	wait $mk
	"$b/ctl/dcpictl" --socket "$sock" status >"$T/st"
	set -- $(held "$T/st")
	fm=$1 fc=$2
	[ "$fm" -gt "$peakm" ] && peakm=$fm
	[ "$fc" -gt "$peakc" ] && peakc=$fc
	n=$(awk '$1 == "samples" && NF == 2 { print $2 }' "$T/st")
	"$b/ctl/dcpictl" --socket "$sock" flush >/dev/null
	cpu=$(cpu_secs $PROF) rss=$(hwm_mb $PROF)
	kill -TERM $PROF; wait $PROF; PROF=
	sb=$(find "$db" -type f -name stacks -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	early=$(grep -c "over the cap" "$T/dcpid.log")
	printf "%-4s %-24s %-4s %10s %6s %8s %12s %9s %12s %9s %5s %11s %6s %7s\n" "$ROUND_N" \
	    "$(basename "$(dirname "$b")")/$(basename "$b")" "$mode" "$n" "$cpu" "$rss" \
	    "$peakm" "$peakc" "$fm" "$fc" "$early" "$sb" "$(cat "$T/build_s" 2>/dev/null)" \
	    "$(echo "$cpu $n" | awk '{ printf "%.2f", $2 ? $1 * 1e6 / $2 : 0 }')" >>"$T/table"
}

for r in $(seq 1 "$ROUNDS"); do
	ROUND_N=$r
	for b in "$@"; do
		for m in $MODES; do run "$r" "$b" "$m"; done
	done
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, perf::cpu-clock period $PERIOD ns, -g (depth 64) [$MODES], make -j$NCPU of dcpi from clean"
cat "$T/table"
