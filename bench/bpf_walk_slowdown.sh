#!/bin/sh
# Call chains walked in the kernel against the ring's dwarf route and
# `perf record --call-graph dwarf`, side by side in one run: what each
# costs a workload that does a fixed amount of work on every CPU.
# The work: NCPU copies of bench/deep.c (a stack 40 calls deep, -O2 without
# frame pointers) doing UNITS units each, UNITS chosen so that one copy
# takes about SECS seconds of CPU; or, with WORK=python, Debian's python3
# computing fib(N) a fixed number of times.  At RATE Hz a CPU (cpu-clock):
#   none      no profiler
#   bpf       dcpid -g, aggregate = bpf: flat counts in the kernel, a
#             chain every 2nd sample (callchain-period 2x) walked there
#   ring      the same with aggregate = ring: the kernel copies 8 KiB of
#             stack a chain, dcpid walks it
#   perf/2    perf record -a --call-graph dwarf at half RATE: as many
#             chains as dcpid's, no flat samples besides
#   perf      perf record -a --call-graph dwarf at RATE: as many samples
# The profilers interleaved in each of REPS rounds (default 3).  Columns:
#   wall_s    until the last copy of the work ended
#   slow%     against none's wall_s in the same round
#   prof_s    the profiler's CPU over the work (dcpid's, perf record's;
#             perf report's unwinding, later, is not counted)
#   chains    chains recorded, every process's (dcpictl stacks; perf
#             report --stats)
#   walked    chains the kernel walked (status callchains-bpf), bpf only
#   chain_ns  dcpi_chain's run_time_ns / run_cnt (kernel.bpf_stats_enabled)
# Run by hand, as root: sh bench/bpf_walk_slowdown.sh BUILDDIR [SECS] [RATE] [REPS].
SECS=${2:-10}
RATE=${3:-1000}
REPS=${4:-3}
WORK=${WORK:-deep}
MODES=${MODES:-none bpf ring perf/2 perf}
NAME=bpf_walk_slowdown
. "$(dirname "$0")/live_common.sh"
command -v bpftool >/dev/null || { echo "$NAME: no bpftool" >&2; exit 1; }
cc -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -o "$T/deep" "$SRC/bench/deep.c" || exit 1
PY=/usr/bin/python3
if [ "$WORK" = python ]; then
	# fib(22) repeated: about SECS seconds of one CPU
	n=$("$PY" -c '
import time
def f(n):
    return n if n < 2 else f(n - 1) + f(n - 2)
t = time.process_time(); k = 0
while time.process_time() - t < 1:
    f(22); k += 1
print(k)')
	UNITS=$((n * SECS))
else
	UNITS=$(($("$T/deep" 40 1 -c) * SECS))
fi
work() {
	pids=
	for _ in $(seq 1 "$NCPU"); do
		if [ "$WORK" = python ]; then
			"$PY" -c "
def f(n):
    return n if n < 2 else f(n - 1) + f(n - 2)
for _ in range($UNITS):
    f(22)" &
		else
			"$T/deep" 40 0 "$UNITS" &
		fi
		pids="$pids $!"
	done
	wait $pids
}
wait_sock() { for _ in $(seq 1 100); do "$DCPICTL" --socket "$1" status >/dev/null 2>&1 && return; sleep 0.1; done; }
chain_stats() {
	bpftool prog show | awk '/ name dcpi_chain / { for (i = 1; i <= NF; i++) {
	    if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) } }
	    END { print t + 0, c + 0 }'
}
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; cleanup' EXIT
period=$((1000000000 / RATE))
now() { date +%s.%N; }

printf "%-5s %-7s %7s %6s %7s %8s %8s %8s\n" round mode wall_s slow% prof_s chains walked chain_ns >"$T/table"
run() {	# ROUND MODE
	chains=- walked=- cns=- cpu=-
	case $2 in
	none)
		t0=$(now); work; t1=$(now) ;;
	bpf|ring)
		db=$T/db.$2 sock=$T/sock.$2
		rm -rf "$db"
		"$DCPID" -f -d "$db" --socket "$sock" --aggregate "$2" -g --callchain-period 2x \
		    -e "perf::cpu-clock:period=$period" >"$T/dcpid.$2.log" 2>&1 &
		PROF=$!
		wait_sock "$sock"
		set -- "$1" "$2" $(chain_stats)
		c0=$(cpu_secs $PROF)
		t0=$(now); work; t1=$(now)
		cpu=$(echo "$(cpu_secs $PROF) - $c0" | bc)
		set -- "$1" "$2" "$3" "$4" $(chain_stats)
		[ "$2" = bpf ] && [ "$6" -gt "$4" ] && cns=$((($5 - $3) / ($6 - $4)))
		"$DCPICTL" --socket "$sock" flush >/dev/null
		"$DCPICTL" --socket "$sock" status >"$T/status.$2"
		kill -TERM $PROF; wait $PROF; PROF=
		chains=$("$DCPICTL" -d "$db" stacks 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
		[ "$2" = bpf ] && walked=$(awk '$1 == "callchains-bpf" { print $2 }' "$T/status.$2")
		rm -rf "$db" ;;
	perf|perf/2)
		p=$period
		[ "$2" = perf/2 ] && p=$((period * 2))
		"$PERF" record --no-buildid -N -a --call-graph dwarf -e cpu-clock -c "$p" \
		    -o "$T/perf.data" >"$T/perf.log" 2>&1 &
		PROF=$!
		sleep 1
		c0=$(cpu_secs $PROF)
		t0=$(now); work; t1=$(now)
		cpu=$(echo "$(cpu_secs $PROF) - $c0" | bc)
		kill -INT $PROF; wait $PROF; PROF=
		chains=$("$PERF" report -i "$T/perf.data" --stats 2>/dev/null |
		    awk '/^ *SAMPLE events:/ { print $3; exit }')
		rm -f "$T/perf.data" ;;
	esac
	wall=$(echo "$t1 - $t0" | bc)
	[ "$2" = none ] && base=$wall
	slow=$(echo "$wall $base" | awk '{ printf "%.1f", 100 * ($1 / $2 - 1) }')
	printf "%-5s %-7s %7.2f %6s %7s %8s %8s %8s\n" "$1" "$2" "$wall" "$slow" "$cpu" \
	    "${chains:--}" "$walked" "$cns" >>"$T/table"
}

for r in $(seq 1 "$REPS"); do
	base=
	for m in $MODES; do run "$r" "$m"; done
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, $WORK x $NCPU ($UNITS units each), cpu-clock at $RATE Hz a CPU, $REPS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$T/table"
grep -h '^callchains-bpf' "$T/status.bpf" 2>/dev/null
