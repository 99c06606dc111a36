#!/bin/sh
# A flush that fails (the epoch's host directory replaced by a file) keeps
# the counts in memory, shows in status and in dcpictl's answer, and the
# next flush writes them all; a directory removed under dcpid is recreated.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_ff
start_dcpid -e perf::cpu-clock
e=$(current_epoch)
h=$DB/$e/$(hostname)
"$T/hot_ff" 1 || fail "workload failed"
rm -rf "$h"
echo "not a directory" >"$h"
ctl flush >"$T/flush.out" 2>&1 && fail "flush into a file succeeded: $(cat "$T/flush.out")"
grep -q "flush failed" "$T/flush.out" || fail "flush error not reported: $(cat "$T/flush.out")"
ctl status >"$T/status" || fail "dcpictl status failed"
awk '$1 == "flush-errors" && $2 == 1 { ok = 1 } END { exit !ok }' "$T/status" || fail "status does not show the failed flush: $(cat "$T/status")"
grep -q "^last-flush-result *flush failed" "$T/status" || fail "status lacks the last result"
rm -f "$h"
ctl flush || fail "flush after the fix failed"
assert_hot "$e" hot_ff "$T/hot_ff" dcpi_workload_hot 50
# A database directory removed while dcpid runs comes back at the next flush.
rm -rf "${DB:?}/$e"
"$T/hot_ff" 0.5 || fail "workload failed"
ctl flush || fail "flush into a removed epoch failed"
assert_hot "$e" hot_ff "$T/hot_ff" dcpi_workload_hot 25
assert_db_valid
stop_dcpid
