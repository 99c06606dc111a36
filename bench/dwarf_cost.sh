#!/bin/sh
# The dwarf route's cost (callchain = dwarf: user frames unwound by dcpid
# from an 8 KiB user stack copy a sample) beside the frame-pointer route,
# the flat profile and `perf record -a --call-graph dwarf`, on every CPU
# busy with code built without frame pointers (tests/workload/nofp.c's
# tree and Debian's python3, half the CPUs each), at PERIOD ns of
# cpu-clock (default 1000000: 1 kHz a CPU), SECS seconds each (default
# 20) after the first 2, REPS rounds (default 3), the profilers
# interleaved in each round.  cpu_s: the profiler's CPU over its run;
# steady_s: from 2 s in to the end; samples: dcpictl status (perf report
# --stats for perf); us/sample: steady_s over the steady stretch's
# samples; whole%: of the tree's samples in leaf, those whose chain goes
# back to main (dcpictl stacks; perf script where it does not abort);
# disk: what the run left (the epoch, perf.data); report_s: for perf,
# the CPU of `perf report -g` over its perf.data, where perf's chains are
# unwound (dcpid has them at once); rss_kb: the profiler's peak resident
# memory (VmHWM); lost: samples lost (dcpictl status; perf report
# --stats' LOST_SAMPLES), and for dcpid the walks cut by the copy.
# MODES (default "dwarf fp none perf") picks the profilers; CHAIN_PERIOD
# (default 1x) dcpid's callchain-period.
# Run by hand, as root: sh bench/dwarf_cost.sh BUILDDIR [SECS] [REPS] [PERIOD].
SECS=${2:-20}
REPS=${3:-3}
PERIOD=${4:-1000000}
MODES=${MODES:-dwarf fp none perf}
# A chain with every sample, as perf takes them (callchain-period's
# default, 10x, is bench/chain_period_cost.sh's subject).
CHAIN_PERIOD=${CHAIN_PERIOD:-1x}
NAME=dwarf_cost
. "$(dirname "$0")/live_common.sh"
nofp_build

wait_sock() { for _ in $(seq 1 100); do "$DCPICTL" --socket "$1" status >/dev/null 2>&1 && return; sleep 0.1; done; }
samples_of() { "$DCPICTL" --socket "$1" status 2>/dev/null | awk '$1 == "samples" { print $2 }'; }
# whole% of a folded file: the tree's leaf samples under main.
whole() {
	awk '/;leaf [0-9]+$/ && !/start_thread|on_prof/ { t += $NF; if (/(^|;)main;tree;outer;middle;inner;leaf [0-9]+$/) w += $NF }
	    END { printf "%.1f", t ? 100 * w / t : 0 }' "$1"
}

printf "%-5s %-11s %7s %8s %8s %9s %7s %10s %8s %6s %8s\n" round tool cpu_s steady_s samples us/sample \
    whole% disk report_s rss_kb lost >"$T/table"
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }
run_dcpid() {	# ROUND LABEL CALLCHAIN
	db=$T/db.$2 sock=$T/sock.$2
	rm -rf "$db"
	work_start
	"$DCPID" -f -d "$db" --socket "$sock" --flush-interval 30 --aggregate ring \
	    --callchain "$3" --callchain-period "$CHAIN_PERIOD" -e perf::cpu-clock:period="$PERIOD" >"$T/dcpid.$2.log" 2>&1 &
	PROF=$!
	wait_sock "$sock"
	sleep 2
	cpu0=$(cpu_secs $PROF) n0=$(samples_of "$sock")
	sleep "$SECS"
	"$DCPICTL" --socket "$sock" flush >/dev/null
	cpu=$(cpu_secs $PROF) n=$(samples_of "$sock")
	"$DCPICTL" --socket "$sock" status >"$T/status.$2"
	rss=$(hwm $PROF)
	kill -TERM $PROF; wait $PROF; PROF=
	work_stop
	w=-
	if [ "$3" != none ]; then
		"$DCPICTL" -d "$db" stacks >"$T/folded.$2" 2>/dev/null && w=$(whole "$T/folded.$2")
	fi
	st=$(echo "$cpu - $cpu0" | bc)
	lost=$(awk '$1 == "lost" { l = $2 } $1 == "callchains-walks" { for (i = 1; i < NF; i++) if ($i == "truncated" && $(i + 1) ~ /^[0-9]+,$/) c = $(i + 1) }
	    END { sub(/,/, "", c); printf "%s/%s", l, c }' "$T/status.$2")
	printf "%-5s %-11s %7s %8s %8s %9s %7s %10s %8s %6s %8s\n" "$1" "$2" "$cpu" "$st" "$n" \
	    "$(echo "scale=2; $st * 1000000 / ($n - $n0 + 1)" | bc)" "$w" \
	    "$(du -sb "$db" | cut -f1)" - "$rss" "$lost" >>"$T/table"
	rm -rf "$db"
}
run_perf() {	# ROUND
	work_start
	"$PERF" record --no-buildid -N -a --call-graph dwarf -e cpu-clock -c "$PERIOD" \
	    -o "$T/perf.data" >"$T/perf.log" 2>&1 &
	PROF=$!
	sleep 2
	cpu0=$(cpu_secs $PROF)
	sleep "$SECS"
	cpu=$(cpu_secs $PROF)
	rss=$(hwm $PROF)
	kill -INT $PROF; wait $PROF; PROF=
	work_stop
	"$PERF" report -i "$T/perf.data" --stats >"$T/perf.stats" 2>/dev/null
	n=$(awk '/^ *SAMPLE events:/ { print $3; exit }' "$T/perf.stats")
	lost=$(awk '/^ *LOST_SAMPLES events:/ { print $3; exit }' "$T/perf.stats")
	# perf report -g unwinds every sample's stack copy: the other half of
	# perf's cost of a chain (user + system CPU of the report).
	/usr/bin/time -o "$T/report.time" -f '%U %S' "$PERF" report -i "$T/perf.data" -g \
	    --stdio >/dev/null 2>&1
	rep=$(awk 'END { print $1 + $2 }' "$T/report.time")
	w=-
	if "$PERF" script -i "$T/perf.data" -F comm,ip,sym >"$T/perf.txt" 2>/dev/null; then
		w=$(awk 'NF == 0 { if (c == "nofp" && s ~ /^;leaf/) { t++; if (s ~ /;leaf;inner;middle;outer;tree;main(;|$)/) ok++ } s = ""; c = ""; next }
		    /^[^ \t]/ { c = $1; next } { s = s ";" $2 } END { printf "%.1f", t ? 100 * ok / t : 0 }' "$T/perf.txt")
	fi
	st=$(echo "$cpu - $cpu0" | bc)
	printf "%-5s %-11s %7s %8s %8s %9s %7s %10s %8s %6s %8s\n" "$1" perf-dwarf "$cpu" "$st" \
	    "${n:-?}" - "$w" "$(stat -c %s "$T/perf.data")" "$rep" "$rss" "${lost:-0}" >>"$T/table"
	rm -f "$T/perf.data" "$T/perf.txt"
}

for r in $(seq 1 "$REPS"); do
	for m in $MODES; do
		case $m in
		dwarf) run_dcpid "$r" dcpid-dwarf dwarf ;;
		fp) run_dcpid "$r" dcpid-fp fp ;;
		none) run_dcpid "$r" dcpid-flat none ;;
		perf) run_perf "$r" ;;
		esac
	done
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs, cpu-clock period $PERIOD ns, ${SECS} s each, all CPUs busy (nofp tree, python3), $REPS rounds"
cat "$T/table"
[ -f "$T/status.dcpid-dwarf" ] && grep -h '^\(callchains-walks\|unwind-tables\)' "$T"/status.dcpid-dwarf | tail -2
