#!/bin/sh
# Under systemd (NOTIFY_SOCKET set): READY=1 once sampling, STATUS= with the
# sample rate, WATCHDOG=1 at half WATCHDOG_USEC, STOPPING=1 on SIGTERM, and
# log lines with sd-daemon priority prefixes.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work notify_listen "$top_srcdir/tests/workload/notify_listen.c"
build_hot hot_notify
"$T/notify_listen" "$T/notify" 15 >"$T/notes" & listener=$!
sleep 0.5
NOTIFY_SOCKET=$T/notify WATCHDOG_USEC=500000 \
    "$DCPID" -d "$DB" --socket "$SOCK" -e perf::cpu-clock >"$DCPID_LOG" 2>&1 &
DCPID_PID=$!
for _ in $(seq 1 100); do
	grep -q '^READY=1' "$T/notes" && break
	kill -0 "$DCPID_PID" 2>/dev/null || fail "dcpid exited during start-up"
	sleep 0.1
done
grep -q '^READY=1' "$T/notes" || fail "no READY=1: $(cat "$T/notes")"
ctl status >/dev/null || fail "no control socket after READY=1"
"$T/hot_notify" 6 || fail "workload failed"
stop_dcpid
sleep 0.5
kill "$listener" 2>/dev/null
cat "$T/notes"
grep -q '^STATUS=[0-9][0-9]* samples/s' "$T/notes" || fail "no STATUS= with the sample rate"
[ "$(grep -c '^WATCHDOG=1' "$T/notes")" -ge 6 ] || fail "too few WATCHDOG=1 for 6 s at 250 ms"
grep -q '^STOPPING=1' "$T/notes" || fail "no STOPPING=1"
grep -q '^<5>' "$DCPID_LOG" || fail "log lines lack sd-daemon prefixes: $(head -3 "$DCPID_LOG")"
grep -q '^dcpid:' "$DCPID_LOG" && fail "log lines under systemd carry the program name"
exit 0
