#!/bin/sh
# dcpid's CPU on the ring-buffer path (aggregate = ring) against
# `perf record --no-buildid -a -e cpu-clock -c 100000`, at 10 kHz per CPU
# with every CPU busy (one hot workload per CPU), SECS seconds each
# (default 20), REPS rounds (default 3), the tools interleaved in each
# round.  With BEFORE=BUILDDIR, that build's dcpid runs in each round too
# (before and after a change, the same rounds).  cpu_s: the profiler's
# utime + stime over its run; steady_s: from 2 s after it answered (the
# /proc scan and first images left out) to the end; samples: dcpictl
# status (perf report --stats for perf); ns/sample: steady_s over the
# samples of the steady stretch.
# Run by hand, as root: sh bench/ring_cost.sh BUILDDIR [SECS] [REPS].
SECS=${2:-20}
REPS=${3:-3}
NAME=ring_cost
. "$(dirname "$0")/live_common.sh"
BEFORE=${BEFORE:-}
[ -z "$BEFORE" ] || [ -x "$BEFORE/daemon/dcpid" ] || { echo "$NAME: no $BEFORE/daemon/dcpid" >&2; exit 1; }
wait_sock() { for _ in $(seq 1 100); do "$DCPICTL" --socket "$1" status >/dev/null 2>&1 && return; sleep 0.1; done; }
samples_of() { "$DCPICTL" --socket "$1" status 2>/dev/null | awk '$1 == "samples" { print $2 }'; }

printf "%-5s %-12s %7s %8s %9s %9s\n" round tool cpu_s steady_s samples ns/sample >"$T/table"
run_dcpid() {	# ROUND LABEL DCPID
	db=$T/db.$2 sock=$T/sock.$2
	rm -rf "$db"
	busy_start
	"$3" -f -d "$db" --socket "$sock" --flush-interval 30 --aggregate ring \
	    -e perf::cpu-clock:period=100000 >"$T/dcpid.$2.log" 2>&1 &
	PROF=$!
	wait_sock "$sock"
	sleep 2
	cpu0=$(cpu_secs $PROF) n0=$(samples_of "$sock")
	sleep "$SECS"
	"$DCPICTL" --socket "$sock" flush >/dev/null
	cpu=$(cpu_secs $PROF) n=$(samples_of "$sock")
	kill -TERM $PROF; wait $PROF; PROF=
	busy_stop
	st=$(echo "$cpu - $cpu0" | bc)
	printf "%-5s %-12s %7s %8s %9s %9s\n" "$1" "$2" "$cpu" "$st" "$n" \
	    "$(echo "scale=0; $st * 1000000000 / ($n - $n0 + 1)" | bc)" >>"$T/table"
}
run_perf() {	# ROUND
	perf_steady 100000
	printf "%-5s %-12s %7s %8s %9s %9s\n" "$1" perf "$perf_cpu" "$perf_steady" \
	    "${perf_samples:-?}" - >>"$T/table"
}

for r in $(seq 1 "$REPS"); do
	[ -z "$BEFORE" ] || run_dcpid "$r" dcpid-before "$BEFORE/daemon/dcpid"
	run_dcpid "$r" dcpid "$DCPID"
	run_perf "$r"
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, 10 kHz per CPU, ${SECS} s each, all CPUs busy, $REPS rounds"
cat "$T/table"
