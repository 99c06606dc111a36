#!/bin/sh
# SIGHUP re-reads the configuration file: a new event set flushes the old
# events' counts and restarts sampling with the new one.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_old
build_hot hot_new
echo "event = perf::cpu-clock" >"$T/dcpid.conf"
start_dcpid --config "$T/dcpid.conf"
"$T/hot_old" 1 || fail "workload failed"
echo "event = perf::task-clock" >"$T/dcpid.conf"
kill -HUP "$DCPID_PID"
for _ in $(seq 1 50); do
	ctl status 2>/dev/null | grep -q 'perf::task-clock' && break
	sleep 0.1
done
ctl status | grep -q '^event *perf::task-clock' || fail "SIGHUP did not switch to perf::task-clock"
"$T/hot_new" 1 || fail "workload failed"
ctl flush || fail "dcpictl flush failed"
e=$(current_epoch)
# The old event's counts were flushed by the reload.
assert_hot "$e" hot_old "$T/hot_old" dcpi_workload_hot 50
f=$(profile_file "$e" hot_new perf::task-clock)
[ -n "$f" ] || fail "no perf::task-clock profile for hot_new"
[ -z "$(profile_file "$e" hot_new perf::cpu-clock)" ] || fail "hot_new sampled with the old event"
# A bad file keeps the running configuration.
echo "event = no_such_event" >"$T/dcpid.conf"
kill -HUP "$DCPID_PID"
sleep 1
kill -0 "$DCPID_PID" || fail "dcpid died on a bad configuration"
ctl status | grep -q '^event *perf::task-clock' || fail "a bad configuration changed the events"
assert_db_valid
stop_dcpid
