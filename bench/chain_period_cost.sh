#!/bin/sh
# Dense flat, sparse stacks: dcpid's CPU with the flat profiles at 1 kHz a
# CPU and call chains at 100 Hz (callchain-period 10x) against chains with
# every sample (1x), on the dwarf and fp routes, and the flat profile
# alone, with every CPU busy as bench/dwarf_cost.sh keeps them (its
# nofp tree and Debian's python3, half the CPUs each), at PERIOD ns of
# cpu-clock (default 1000000), SECS seconds each (default 20) after the
# first 4 (the unwind tables built, then a flush), REPS rounds (default
# 3), the settings interleaved in each round.  cpu_s: dcpid's CPU over
# the steady stretch, without its last flush's; flat: its samples
# (dcpictl status); chains: the samples in the epoch's stacks (dcpictl
# stacks, summed, up to that flush); us/flat: cpu_s over the flat samples.
# SETTINGS (default "dwarf:1x dwarf:10x fp:1x fp:10x none:1x") picks them.
# Run by hand, as root: sh bench/chain_period_cost.sh BUILDDIR [SECS] [REPS] [PERIOD].
SECS=${2:-20}
REPS=${3:-3}
PERIOD=${4:-1000000}
SETTINGS=${SETTINGS:-dwarf:1x dwarf:10x fp:1x fp:10x none:1x}
NAME=chain_period_cost
. "$(dirname "$0")/live_common.sh"
nofp_build


printf "%-5s %-12s %7s %9s %9s %8s\n" round setting cpu_s flat chains us/flat >"$T/table"
run() {		# ROUND CALLCHAIN CALLCHAIN-PERIOD
	db=$T/db sock=$T/sock
	rm -rf "$db"
	work_start
	"$DCPID" -f -d "$db" --socket "$sock" --flush-interval 30 --aggregate ring \
	    --callchain "$2" --callchain-period "$3" -e perf::cpu-clock:period="$PERIOD" \
	    >"$T/dcpid.log" 2>&1 &
	PROF=$!
	for _ in $(seq 1 100); do "$DCPICTL" --socket "$sock" status >/dev/null 2>&1 && break; sleep 0.1; done
	# What came before the steady stretch is flushed and left out.
	sleep 4
	"$DCPICTL" --socket "$sock" flush >/dev/null
	cpu0=$(cpu_secs $PROF)
	n0=$("$DCPICTL" --socket "$sock" status | awk '$1 == "samples" { print $2 }')
	c0=0
	[ "$2" = none ] || c0=$("$DCPICTL" -d "$db" stacks 2>/dev/null | awk '{ n += $NF } END { print n + 0 }')
	sleep "$SECS"
	cpu=$(cpu_secs $PROF)
	n=$("$DCPICTL" --socket "$sock" status | awk '$1 == "samples" { print $2 }')
	"$DCPICTL" --socket "$sock" flush >/dev/null
	kill -TERM $PROF; wait $PROF; PROF=
	work_stop
	c=-
	[ "$2" = none ] || c=$(($("$DCPICTL" -d "$db" stacks 2>/dev/null | awk '{ n += $NF } END { print n + 0 }') - c0))
	st=$(echo "$cpu - $cpu0" | bc)
	printf "%-5s %-12s %7s %9s %9s %8s\n" "$1" "$2 $3" "$st" "$((n - n0))" "$c" \
	    "$(echo "scale=2; $st * 1000000 / ($n - $n0 + 1)" | bc)" >>"$T/table"
	rm -rf "$db"
}

for r in $(seq 1 "$REPS"); do
	for s in $SETTINGS; do
		run "$r" "${s%:*}" "${s#*:}"
	done
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, cpu-clock period $PERIOD ns, ${SECS} s each, all CPUs busy (nofp tree, python3), $REPS rounds"
cat "$T/table"
