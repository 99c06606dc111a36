#!/bin/sh
# The idle task's samples kept apart on a live dcpid: with both CPUs mostly
# idle and a short hot workload, prof's rows leave the idle task out (its
# top row is no idle procedure), its header gives the idle share, and
# --idle brings exactly those samples back as kernel procedures.  The
# idle profile is the kernel's under DB/EPOCH/HOST/EVENT/[idle]/ with its
# label line.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot idle_hot
start_dcpid -e perf::cpu-clock
# The idle task runs only when a CPU has nothing else to do, which other
# tests running at the same time may deny for a while: wait (up to a
# few minutes) until it has been sampled.
sleep 3
for _ in $(seq 1 180); do
	ctl flush >/dev/null || fail "flush failed"
	ls "$DB"/*/*/perf::cpu-clock/\[idle\]/kernel.kallsyms.* >/dev/null 2>&1 && break
	sleep 1
done
"$T/idle_hot" 1 || fail "idle_hot failed"
ctl status >"$T/status.txt" || fail "dcpictl status failed"
# The final flush: the database holds still while prof reads it.
stop_dcpid
ep=$(current_epoch)

f=$(ls "$DB/$ep"/*/perf::cpu-clock/\[idle\]/kernel.kallsyms.* 2>/dev/null | head -1)
[ -n "$f" ] || fail "no idle profile under $DB/$ep/*/perf::cpu-clock/[idle]/: $(ls -R "$DB/$ep" | head -20)"
ctl cat --summary "$f" >"$T/cat.txt" || fail "dcpictl cat $f failed"
grep -q '^label  *\[idle\]$' "$T/cat.txt" || fail "idle profile without its label line: $(cat "$T/cat.txt")"

ctl prof >"$T/prof.txt" 2>"$T/prof.err" || fail "prof failed: $(cat "$T/prof.err")"
line=$(grep '^idle: ' "$T/prof.txt") || fail "prof: no idle line in the header: $(head -8 "$T/prof.txt")"
echo "$line"
idle=$(echo "$line" | sed -n 's/^idle: [0-9.]*% of samples (\([0-9,]*\)), not shown; --idle includes them$/\1/p' | tr -d ,)
[ -n "$idle" ] && [ "$idle" -gt 0 ] || fail "prof: idle line '$line'"
grep -q ' dcpi_workload_hot  *idle_hot$' "$T/prof.txt" || fail "prof: dcpi_workload_hot not listed"

# The samples --idle adds, per procedure: the idle procedures.  They add
# up to the header's count.  The kernel alone, whose names hold no commas
# (user procedures of other tests may, quoted in CSV).
ctl prof --image kernel.kallsyms >"$T/kprof.txt" || fail "prof --image kernel.kallsyms failed"
idle=$(sed -n 's/^idle: [0-9.]*% of samples (\([0-9,]*\)), not shown.*/\1/p' "$T/kprof.txt" | tr -d ,)
[ -n "$idle" ] && [ "$idle" -gt 0 ] || fail "prof --image kernel.kallsyms: no idle share: $(head -5 "$T/kprof.txt")"
ctl prof --image kernel.kallsyms --csv >"$T/without.csv" || fail "prof --csv failed"
ctl prof --image kernel.kallsyms --idle --csv >"$T/with.csv" || fail "prof --idle --csv failed"
awk -F, 'NR == FNR { if (FNR > 1) n[$4 FS $5] = $1; next }
    FNR > 1 { d = $1 - n[$4 FS $5]; if (d > 0) print d, $4 }' \
    "$T/without.csv" "$T/with.csv" | sort -rn >"$T/added.txt"
added=$(awk '{ s += $1 } END { print s + 0 }' "$T/added.txt")
[ "$added" = "$idle" ] || fail "prof --idle adds $added samples, the header says $idle: $(head "$T/added.txt")"
top_idle=$(head -1 "$T/added.txt" | cut -d' ' -f2)
echo "idle procedure: $top_idle ($(head -1 "$T/added.txt" | cut -d' ' -f1) samples)"
grep -q ",$top_idle,\[kernel.kallsyms\]$" "$T/with.csv" || fail "prof --idle does not list $top_idle"
ctl prof --csv >"$T/all.csv" || fail "prof --csv failed"
top=$(sed -n 2p "$T/all.csv" | cut -d, -f4)
[ "$top" != "$top_idle" ] || fail "prof: top row is the idle procedure $top_idle: $(head -4 "$T/all.csv")"
ctl prof --idle >"$T/with.txt" || fail "prof --idle failed"
grep -q "^idle: .*included (--idle)$" "$T/with.txt" || fail "prof --idle: header does not say idle is included"

# Every unattributed sample that status counted before the final flush
# is in the epoch's unattributed file (which holds those of that flush
# too), and prof's header says so.
awk '$1 == "unattributed" && $3 > 0 { print $2, $3 }' "$T/status.txt" >"$T/unattr.txt"
u=$(ls "$DB/$ep"/*/unattributed 2>/dev/null | head -1)
if [ -s "$T/unattr.txt" ] || [ -n "$u" ]; then
	[ -n "$u" ] || fail "status counted unattributed samples, no file: $(cat "$T/unattr.txt")"
	head -1 "$u" | grep -qx 'dcpi-unattributed 1' || fail "$u: $(head -3 "$u")"
	while read -r reason n; do
		got=$(awk -v r="$reason" '$1 == r && $3 == "perf::cpu-clock" { print $2 }' "$u")
		[ "${got:-0}" -ge "$n" ] || fail "$u: $reason ${got:-0}, status counted $n"
	done <"$T/unattr.txt"
	grep -q '^not attributed: [0-9,]* samples' "$T/prof.txt" ||
	    fail "prof: no unattributed line although $u exists: $(head -6 "$T/prof.txt")"
	echo "$(grep '^not attributed: ' "$T/prof.txt")"
fi
