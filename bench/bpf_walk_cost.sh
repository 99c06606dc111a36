#!/bin/sh
# Call chains walked in the kernel (aggregate = bpf, -g on the dwarf
# route): the walk's own cost a sample at depths 8, 16 and 32, beside the
# flat program's in the same run and dcpid's CPU with the ring's walk.
# For each DEPTH: NCPU copies of bench/deep.c (a stack 40 calls deep, -O2
# without frame pointers) busy for SECS seconds, sampled at RATE Hz per
# CPU with a chain every 2nd sample (callchain-period 2x), once with
# aggregate = bpf (the walk in the kernel) and once with aggregate = ring
# (dcpid walks the copies):
#   chain_ns  dcpi_chain's run_time_ns / run_cnt over the steady stretch
#             (from 2 s after dcpid answered; kernel.bpf_stats_enabled),
#             every chain sample of the host, walked or passed to the ring;
#   flat_ns   the same of dcpi_sample, the flat program, in the same run;
#   walk_ns   the program's own time a chain it walked (status
#             callchains-bpf-ns, bpf_ktime_get_ns; the whole run);
#   walked    the chain samples it walked, to_ring those that took the
#             ring instead (status callchains-bpf);
#   cpu_s     dcpid's CPU over the steady stretch (live_common.sh cpu_secs).
# Run by hand, as root: sh bench/bpf_walk_cost.sh BUILDDIR [SECS] [RATE].
SECS=${2:-10}
RATE=${3:-1000}
NAME=bpf_walk_cost
. "$(dirname "$0")/live_common.sh"
command -v bpftool >/dev/null || { echo "$NAME: no bpftool" >&2; exit 1; }
cc -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -o "$T/deep" "$SRC/bench/deep.c" || exit 1
wait_sock() { for _ in $(seq 1 100); do "$DCPICTL" --socket "$1" status >/dev/null 2>&1 && return; sleep 0.1; done; }
# run_time_ns and run_cnt of the programs dcpi_chain and dcpi_sample
# loaded last (nothing else loading them meanwhile).
prog_stats() {
	bpftool prog show | awk '/ name dcpi_(chain|sample) / { t = 0; c = 0;
	    for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t = $(i+1);
	    if ($i == "run_cnt") c = $(i+1); if ($i == "name") n = $(i+1) }
	    last[n] = t " " c }
	    END { print (last["dcpi_chain"] != "" ? last["dcpi_chain"] : "0 0"),
	    (last["dcpi_sample"] != "" ? last["dcpi_sample"] : "0 0") }'
}
per() { [ "$2" -gt 0 ] && echo $(($1 / $2)) || echo -; }
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; cleanup' EXIT
period=$((1000000000 / RATE))
printf "%-5s %-5s %8s %7s %7s %7s %8s %6s\n" depth mode chain_ns flat_ns walk_ns walked to_ring cpu_s
for depth in 8 16 32; do
	for mode in bpf ring; do
		db=$T/db.$mode.$depth sock=$T/sock.$mode.$depth
		HOTS=
		for _ in $(seq 1 "$NCPU"); do "$T/deep" 40 $((SECS + 4)) & HOTS="$HOTS $!"; done
		printf 'callchain-depth = %s\n' "$depth" >"$T/conf"
		"$DCPID" -f -d "$db" --socket "$sock" --config "$T/conf" \
		    --aggregate "$mode" -g --callchain-period 2x \
		    -e "perf::cpu-clock:period=$period" >"$T/dcpid.log" 2>&1 &
		PROF=$!
		wait_sock "$sock"
		sleep 2
		set -- $(prog_stats)
		ct0=$1 cc0=$2 ft0=$3 fc0=$4 s0=$(cpu_secs $PROF)
		sleep "$SECS"
		set -- $(prog_stats)
		ct1=$1 cc1=$2 ft1=$3 fc1=$4 s1=$(cpu_secs $PROF)
		"$DCPICTL" --socket "$sock" status >"$T/status"
		kill -TERM $PROF; wait $PROF; PROF=
		busy_stop
		walk=$(awk '$1 == "callchains-bpf-ns" { print $2 }' "$T/status")
		set -- $(awk '$1 == "callchains-bpf" { print $2, $9 }' "$T/status") - -
		printf "%-5s %-5s %8s %7s %7s %7s %8s %6s\n" "$depth" "$mode" \
		    "$(per $((ct1 - ct0)) $((cc1 - cc0)))" "$(per $((ft1 - ft0)) $((fc1 - fc0)))" \
		    "${walk:--}" "$1" "$2" "$(echo "$s0 $s1" | awk '{ printf "%.2f", $2 - $1 }')"
	done
done
