#!/bin/sh
# The database removed under a running dcpid: after the next flush it has
# its current link and its lock again, so a second dcpid still refuses
# (the flush re-creates the database, its current link and its lock file,
# and takes the lock again).
. "$top_srcdir/tests/integration/lib.sh"
require_perf

start_dcpid -e perf::cpu-clock
e=$(current_epoch)
rm -rf "$DB"
ctl flush || fail "flush into a removed database failed"
[ "$(current_epoch)" = "$e" ] || fail "no current link to epoch $e after the flush"
"$DCPID" -f -d "$DB" --socket "$T/other.sock" -e perf::cpu-clock >"$T/second.log" 2>&1 &
second=$!
sleep 2
if kill -0 $second 2>/dev/null; then
	kill -TERM $second; wait $second
	fail "a second dcpid started on the re-created database"
fi
wait $second && fail "the second dcpid exited 0"
grep -q "in use by another dcpid" "$T/second.log" || fail "second dcpid: $(cat "$T/second.log")"
stop_dcpid
