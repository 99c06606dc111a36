#!/bin/sh
# A loop of clock_gettime spends its time in the vdso, which exists only in
# memory: dcpid keeps its image in the build-id cache, and prof names
# __vdso_clock_gettime (as perf report does).
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work vdsoloop "$top_srcdir/tests/workload/vdsoloop.c"
start_dcpid -e perf::cpu-clock
"$T/vdsoloop" 2 || fail "vdsoloop failed"
ctl flush || fail "dcpictl flush failed"
e=$(current_epoch)
f=$(profile_file "$e" vdso)
[ -n "$f" ] || fail "no [vdso] profile"
id=$(sed -n 's/^image //p' "$f")
[ -s "$DB/buildid/$id/executable" ] || fail "the vdso (image $id) is not in the build-id cache"
ctl prof --image '[vdso]' -n 3 --csv >"$T/prof.csv" || fail "prof --image [vdso] failed"
cat "$T/prof.csv"
row=$(sed -n 2p "$T/prof.csv")
case $row in
*,__vdso_clock_gettime,*|*,clock_gettime,*) ;;
*) fail "prof does not name __vdso_clock_gettime first: $row" ;;
esac
stop_dcpid
