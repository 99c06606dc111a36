#!/bin/sh
# Live cost of dcpid against `perf record -a`: the same event (cpu-clock)
# at the same period (1 kHz and 10 kHz per CPU), each for SECS seconds
# (default 60) with every CPU busy (one hot workload per CPU).  For each
# profiler: its own CPU seconds (utime + stime from /proc/PID/stat, read
# just before it is stopped), its peak RSS (VmHWM), lost samples (dcpictl
# status; perf report --stats), bytes written (the database; perf.data).
# Then the slowdown of a fixed CPU-bound job (one copy per CPU, wall time)
# with dcpid at 1 kHz against no profiler, REPS (default 3) runs each.
# Run by hand, as root: sh bench/live_cost.sh BUILDDIR [SECS] [REPS].
# perf record runs with -B (no build-id pass at the end): this machine's
# perf 6.1 aborts in that pass; -B only makes perf cheaper.
SECS=${2:-60}
REPS=${3:-3}
NAME=live_cost
. "$(dirname "$0")/live_common.sh"
hwm_mb() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# bytes: all written; profiles: without the epoch's copy of kallsyms (a
# fixed cost per epoch, not per sample).
printf "%-6s %-6s %8s %8s %8s %10s %12s %10s\n" tool rate cpu_s rss_MB lost samples bytes profiles >"$T/table"

run_dcpid() {	# PERIOD LABEL
	db=$T/db.$2 sock=$T/sock.$2
	busy_start
	"$DCPID" -f -d "$db" --socket "$sock" --flush-interval 30 \
	    -e "perf::cpu-clock:period=$1" >"$T/dcpid.$2.log" 2>&1 &
	PROF=$!
	sleep "$SECS"
	"$DCPICTL" --socket "$sock" flush >/dev/null
	cpu=$(cpu_secs $PROF) rss=$(hwm_mb $PROF)
	"$DCPICTL" --socket "$sock" status >"$T/status.$2"
	kill -TERM $PROF; wait $PROF; PROF=
	busy_stop
	lost=$(awk '$1 == "lost" { print $2 }' "$T/status.$2")
	n=$(awk '$1 == "samples" { print $2 }' "$T/status.$2")
	bytes=$(find "$db" -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')
	prof=$(find "$db" -type f ! -name kallsyms -printf '%s\n' | awk '{ n += $1 } END { print n }')
	printf "%-6s %-6s %8s %8s %8s %10s %12s %10s\n" dcpid "$2" "$cpu" "$rss" "$lost" "$n" "$bytes" "$prof" >>"$T/table"
}

run_perf() {	# PERIOD LABEL
	busy_start
	"$PERF" record -B -a -e cpu-clock -c "$1" -o "$T/perf.$2.data" >"$T/perf.$2.log" 2>&1 &
	PROF=$!
	sleep "$SECS"
	cpu=$(cpu_secs $PROF) rss=$(hwm_mb $PROF)
	kill -INT $PROF; wait $PROF; PROF=
	busy_stop
	"$PERF" report -i "$T/perf.$2.data" --stats >"$T/stats.$2" 2>&1
	lost=$(awk '/^ *LOST(_SAMPLES)? events:/ { n += $3 } END { print n + 0 }' "$T/stats.$2")
	n=$(awk '/^ *SAMPLE events:/ { print $3; exit }' "$T/stats.$2")
	bytes=$(stat -c %s "$T/perf.$2.data")
	rm -f "$T/perf.$2.data"
	printf "%-6s %-6s %8s %8s %8s %10s %12s %10s\n" perf "$2" "$cpu" "$rss" "$lost" "$n" "$bytes" "$bytes" >>"$T/table"
}

run_dcpid 1000000 1kHz
run_perf 1000000 1kHz
run_dcpid 100000 10kHz
run_perf 100000 10kHz
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, ${SECS} s each, all CPUs busy"
cat "$T/table"

# Slowdown: NCPU copies of the fixed job at once; wall seconds per round.
ITER=${ITER:-2000000000}
round() {
	t0=$(date +%s%N); pids=
	for _ in $(seq 1 "$NCPU"); do "$T/fixed" "$ITER" & pids="$pids $!"; done
	wait $pids
	echo "scale=3; ($(date +%s%N) - $t0) / 1000000000" | bc
}
none= with=
for _ in $(seq 1 "$REPS"); do
	none="$none $(round)"
	"$DCPID" -f -d "$T/db.slow" --socket "$T/sock.slow" -e perf::cpu-clock:period=1000000 \
	    >"$T/dcpid.slow.log" 2>&1 &
	PROF=$!
	sleep 1
	with="$with $(round)"
	kill -TERM $PROF; wait $PROF; PROF=
done
echo "fixed job ($NCPU copies, $ITER iterations each), wall seconds:"
echo "  no profiler:  $none"
echo "  dcpid 1 kHz:  $with"
echo "$none" "|" "$with" | awk '{ for (i = 1; $i != "|"; i++) { a += $i; na++ }
	for (i++; i <= NF; i++) { b += $i; nb++ }
	printf "  slowdown: %+.2f%% (means %.3f s, %.3f s)\n", (b / nb / (a / na) - 1) * 100, a / na, b / nb }'
