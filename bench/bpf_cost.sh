#!/bin/sh
# In-kernel aggregation (aggregate = bpf) against the ring-buffer path
# (aggregate = ring) and perf record, the same run for all three:
#  1. CPU: dcpid with aggregate=bpf, dcpid with aggregate=ring and
#     `perf record -a -e cpu-clock -c 100000 --no-buildid`, at 10 kHz per
#     CPU, SECS seconds each (default 30) with every CPU busy (one hot
#     workload per CPU); the profiler's threads' CPU time
#     (live_common.sh cpu_secs); dcpid with the shipped flush interval
#     (FLUSH=600 s), its flush at the end timed apart.  For bpf, the
#     program's own cost: kernel.bpf_stats_enabled=1 and bpftool prog show
#     (run_time_ns / run_cnt), and the samples that still took the ring.
#  2. Slowdown at 5 kHz per CPU: NCPU copies of a fixed job, wall time,
#     REPS rounds (default 5) each interleaved: none, bpf, ring, perf.
# Run by hand, as root: sh bench/bpf_cost.sh BUILDDIR [SECS] [REPS].
# WARM=1: each dcpid starts on a database an earlier dcpid (run a second
# before, stopped) has already written this kernel's symbols and images
# into, as a service's restart finds it (kallsyms stored once per kernel:
# gzip of /proc/kallsyms is most of a first start's CPU); default: a new
# database, a first start.
SECS=${2:-30}
REPS=${3:-5}
NAME=bpf_cost
. "$(dirname "$0")/live_common.sh"
command -v bpftool >/dev/null || { echo "bpf_cost: no bpftool" >&2; exit 1; }
wait_sock() { for _ in $(seq 1 100); do "$DCPICTL" --socket "$1" status >/dev/null 2>&1 && return; sleep 0.1; done; }

# The statistics (run_time_ns, run_cnt) of the dcpi_sample program loaded
# last (bpftool here cannot name the process that holds a program: run
# nothing else that loads one meanwhile).
prog_stats() {
	bpftool prog show | awk '/ name dcpi_sample / { t = 0; c = 0;
	    for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t = $(i+1);
	    if ($i == "run_cnt") c = $(i+1) } last = t " " c } END { if (last != "") print last }'
}

# cpu_s: the profiler's CPU over the whole run; steady_s: from 2 s after
# it answered (start-up, the /proc scan and first images, left out) to
# the end; ring: samples that came through the ring buffers.
# flush_s: one flush at the end (dcpictl flush) of the counts of the run,
# left out of steady_s: dcpid runs with the shipped flush interval
# (FLUSH, default 600 s), where a flush every ten minutes costs a few
# microseconds a second.
printf "%-10s %7s %8s %7s %9s %9s %s\n" tool cpu_s steady_s flush_s samples ring extra >"$T/table"
run_dcpid() {	# MODE
	mode=$1 db=$T/db.$1 sock=$T/sock.$1
	if [ "${WARM:-0}" = 1 ]; then
		"$DCPID" -f -d "$db" --socket "$sock" --aggregate "$mode" \
		    -e perf::cpu-clock:period=100000 >/dev/null 2>&1 &
		PROF=$!
		wait_sock "$sock"
		sleep 1
		kill -TERM $PROF; wait $PROF; PROF=
	fi
	busy_start
	"$DCPID" -f -d "$db" --socket "$sock" --flush-interval "${FLUSH:-600}" --aggregate "$mode" \
	    -e perf::cpu-clock:period=100000 >"$T/dcpid.$mode.log" 2>&1 &
	PROF=$!
	wait_sock "$sock"
	# bpftool before the steady stretch: a new program, whose images
	# dcpid would read inside it (as dcpictl's, above).
	st0=$(prog_stats)
	sleep 2
	cpu0=$(cpu_secs $PROF)
	sleep "$SECS"
	cpu=$(cpu_secs $PROF)
	st=$(prog_stats)
	"$DCPICTL" --socket "$sock" flush >/dev/null
	cpuf=$(cpu_secs $PROF)
	"$DCPICTL" --socket "$sock" status >"$T/status.$mode"
	kill -TERM $PROF; wait $PROF; PROF=
	busy_stop
	n=$(awk '$1 == "samples" { print $2 }' "$T/status.$mode")
	k=$(awk '$1 == "aggregate-bpf" { print $2 }' "$T/status.$mode")
	extra=
	if [ -n "$st" ] && [ -n "$st0" ]; then
		# Over the steady stretch only, as cpu_s.
		set -- $st $st0
		extra="bpf: $(($2 - $4)) runs, $(echo "scale=1; ($1 - $3) / ($2 - $4 + ($2 == $4))" | bc) ns/run"
	fi
	printf "%-10s %7s %8s %7s %9s %9s %s\n" "dcpid-$mode" "$cpuf" \
	    "$(echo "$cpu - $cpu0" | bc)" "$(echo "$cpuf - $cpu" | bc)" "$n" \
	    "$((n - ${k:-0}))" "$extra" >>"$T/table"
}
run_perf() {
	perf_steady 100000
	printf "%-10s %7s %8s %7s %9s %9s\n" perf "$perf_cpu" "$perf_steady" - \
	    "${perf_samples:-?}" "${perf_samples:-?}" >>"$T/table"
}

old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
run_dcpid bpf
run_dcpid ring
run_perf
sysctl -qw kernel.bpf_stats_enabled="$old"
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, 10 kHz per CPU, ${SECS} s each, all CPUs busy, $([ "${WARM:-0}" = 1 ] && echo "databases warm (a restart)" || echo "new databases (a first start)")"
cat "$T/table"

# Slowdown at 5 kHz per CPU (period 200,000 ns), interleaved rounds.
ITER=${ITER:-1000000000}
round() {
	t0=$(date +%s%N); pids=
	for _ in $(seq 1 "$NCPU"); do "$T/fixed" "$ITER" & pids="$pids $!"; done
	wait $pids
	echo "scale=3; ($(date +%s%N) - $t0) / 1000000000" | bc
}
with() {	# none|bpf|ring|perf
	case $1 in
	none) round ;;
	perf)
		"$PERF" record --no-buildid -a -e cpu-clock -c 200000 -o "$T/perf.slow" >/dev/null 2>&1 &
		PROF=$!; sleep 1; round; kill -INT $PROF; wait $PROF; PROF=; rm -f "$T/perf.slow" ;;
	*)
		"$DCPID" -f -d "$T/db.slow" --socket "$T/sock.slow" --aggregate "$1" \
		    -e perf::cpu-clock:period=200000 >"$T/dcpid.slow.log" 2>&1 &
		PROF=$!; wait_sock "$T/sock.slow"; round
		kill -TERM $PROF; wait $PROF; PROF= ;;
	esac
}
for m in none bpf ring perf; do eval "r_$m="; done
for _ in $(seq 1 "$REPS"); do
	for m in none bpf ring perf; do eval "r_$m=\"\$r_$m \$(with $m)\""; done
done
med() { echo $* | tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], "(" a[1] "-" a[NR] ")" }'; }
echo "== slowdown at 5 kHz per CPU, $NCPU copies of a fixed job, wall s, $REPS interleaved rounds"
for m in none bpf ring perf; do eval "echo \"$m: \$r_$m   median (range) \$(med \$r_$m)\""; done
