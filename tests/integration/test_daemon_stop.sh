#!/bin/sh
# SIGTERM flushes before exiting 0; kill -9 during repeated flushes leaves
# every file valid, and the lock lets a new dcpid continue the database.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_term
build_hot hot_kill

start_dcpid -e perf::cpu-clock
"$T/hot_term" 1 || fail "workload failed"
stop_dcpid
e=$(current_epoch)
assert_hot "$e" hot_term "$T/hot_term" dcpi_workload_hot 50
before=$(samples_in "$(profile_file "$e" hot_term)" 0 0 | cut -d' ' -f2)

# Restart on the same database: the epoch continues and counts add up.
start_dcpid -e perf::cpu-clock
[ "$(current_epoch)" = "$e" ] || fail "a restarted dcpid did not continue epoch $e"
"$T/hot_term" 1 || fail "workload failed"
"$T/hot_kill" 3 & w=$!
i=0
while kill -0 $w 2>/dev/null && [ $i -lt 200 ]; do
	ctl flush >/dev/null 2>&1 &
	sleep 0.0$((i % 7 + 1))
	i=$((i + 1))
	[ $i = 25 ] && kill -KILL "$DCPID_PID"
	[ $i -ge 30 ] && break
done
wait "$DCPID_PID" 2>/dev/null
DCPID_PID=
wait $w
after=$(samples_in "$(profile_file "$e" hot_term)" 0 0 | cut -d' ' -f2)
[ "$after" -gt "$before" ] || fail "hot_term's samples did not grow across the restart ($before, $after)"
assert_db_valid
# The dead daemon's lock is gone with it.
start_dcpid -e perf::cpu-clock
stop_dcpid
