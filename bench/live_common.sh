# What bench/live_cost.sh, bench/bpf_cost.sh and bench/ring_cost.sh share, sourced by them
# after setting NAME (for messages and the temporary directory) and $1
# (the build directory): paths, clean-up, the checks, the hot workload
# and the fixed job, busy CPUs, a process's CPU seconds, perf record's
# steady cost.
set -u
B=$(cd "${1:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
DCPID=$B/daemon/dcpid
DCPICTL=$B/ctl/dcpictl
PERF=${PERF:-perf}
NCPU=$(nproc)
HZ=$(getconf CLK_TCK)
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-$NAME.XXXXXX")
HOTS=
PROF=

cleanup() {
	for p in $HOTS $PROF; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || { echo "$NAME: needs root (system-wide sampling)" >&2; exit 1; }
[ -x "$DCPID" ] && [ -x "$DCPICTL" ] || { echo "$NAME: build dcpid and dcpictl in $B first" >&2; exit 1; }
command -v "$PERF" >/dev/null || { echo "$NAME: no perf (linux-perf)" >&2; exit 1; }
cc -O2 -o "$T/hot" "$SRC/tests/workload/hot.c" || exit 1
# A fixed amount of work (not of CPU time) for the slowdown.
cat >"$T/fixed.c" <<'EOF'
#include <stdlib.h>
int main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	unsigned long i, n = strtoul(argv[1], NULL, 10);
	(void)argc;
	for (i = 0; i < n; i++)
		x += i * i ^ (x >> 3);
	return x == 42;
}
EOF
cc -O2 -o "$T/fixed" "$T/fixed.c" || exit 1

busy_start() {
	HOTS=
	for _ in $(seq 1 "$NCPU"); do "$T/hot" 100000 & HOTS="$HOTS $!"; done
}
busy_stop() { for p in $HOTS; do kill "$p"; done; wait $HOTS 2>/dev/null; HOTS=; }

# A process's CPU seconds: the sum of its threads' time on a CPU in ns
# (/proc/PID/task/*/schedstat, CONFIG_SCHED_INFO), as dcpid's steady cost
# is a few clock ticks a minute; else utime + stime in ticks.  (schedstat
# leaves out threads that have exited: the profilers here keep theirs.)
# Read by the shell itself: a program run for it (cat, awk) would be a
# new process whose images dcpid reads, inside the stretch measured.
cpu_secs() {
	if [ -r "/proc/$1/schedstat" ]; then
		ns=0
		for f in /proc/"$1"/task/*/schedstat; do
			read -r run _ <"$f" 2>/dev/null && ns=$((ns + run))
		done
		printf '%d.%04d' $((ns / 1000000000)) $((ns % 1000000000 / 100000))
	else
		awk -v hz="$HZ" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
	fi
}

# perf record -a at cpu-clock period $1 (ns) on busy CPUs, SECS seconds
# after its first 2: sets perf_cpu (utime + stime, its whole run),
# perf_steady (without the first 2 s) and perf_samples (perf report
# --stats; empty if it cannot tell).  --no-buildid: this machine's perf
# 6.1 aborts in its build-id pass.
perf_steady() {
	busy_start
	"$PERF" record --no-buildid -a -e cpu-clock -c "$1" -o "$T/perf.data" >"$T/perf.log" 2>&1 &
	PROF=$!
	sleep 2
	perf_cpu0=$(cpu_secs $PROF)
	sleep "$SECS"
	perf_cpu=$(cpu_secs $PROF)
	kill -INT $PROF; wait $PROF; PROF=
	busy_stop
	perf_samples=$("$PERF" report -i "$T/perf.data" --stats 2>/dev/null |
	    awk '/^ *SAMPLE events:/ { print $3; exit }')
	rm -f "$T/perf.data"
	perf_steady=$(echo "$perf_cpu - $perf_cpu0" | bc)
}

# The dwarf route's load (bench/dwarf_cost.sh, chain_period_cost.sh): code
# built without frame pointers on every CPU, tests/workload/nofp.c's tree
# on half of them and Debian's python3 (a recursive fib) on the others.
# nofp_build compiles the tree and checks for python3; work_start and
# work_stop run and stop the load.
nofp_build() {
	cc -O2 -g -fomit-frame-pointer -pthread -o "$T/nofp" "$SRC/tests/workload/nofp.c" -lz || exit 1
	PY=/usr/bin/python3
	[ -x "$PY" ] || { echo "$NAME: no $PY" >&2; exit 1; }
}
work_start() {
	HOTS=
	for i in $(seq 1 "$NCPU"); do
		if [ $((i % 2)) = 1 ]; then
			"$T/nofp" tree 100000 & HOTS="$HOTS $!"
		else
			"$PY" -c '
def f(n):
    return n if n < 2 else f(n - 1) + f(n - 2)
while True:
    f(22)' & HOTS="$HOTS $!"
		fi
	done
}
work_stop() { for p in $HOTS; do kill "$p"; done; wait $HOTS 2>/dev/null; HOTS=; }
