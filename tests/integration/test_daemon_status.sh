#!/bin/sh
# `dcpictl status` shows the counters; a second dcpid on the same database
# refuses; bad events and a missing PMU stop start-up with a clear message.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_status
start_dcpid -e perf::cpu-clock
"$T/hot_status" 1 || fail "workload failed"
ctl status >"$T/status" || fail "dcpictl status failed"
cat "$T/status"
for k in samples samples/s lost throttled unattributed images processes memory epoch last-flush flush-errors; do
	grep -q "$k" "$T/status" || fail "status lacks $k"
done
n=$(awk '$1 == "samples" { print $2 }' "$T/status")
[ -n "$n" ] && [ "$n" -ge 50 ] || fail "status shows $n samples after 1 s of CPU"
grep -q "$(current_epoch)" "$T/status" || fail "status does not show the current epoch"

# A second daemon on the same database.
"$DCPID" -f -d "$DB" --socket "$T/other.sock" -e perf::cpu-clock >"$T/second.log" 2>&1 &&
    fail "a second dcpid on the same database started"
grep -q "in use by another dcpid" "$T/second.log" || fail "second dcpid: $(cat "$T/second.log")"
stop_dcpid

# Events that cannot be sampled stop start-up with the reason.
"$DCPID" -f -d "$T/db2" --socket "$T/s2" -e no_such_event >"$T/bad.log" 2>&1 && fail "unknown event accepted"
grep -q "no_such_event" "$T/bad.log" || fail "unknown event: $(cat "$T/bad.log")"
grep -q "perf::cpu-clock" "$T/bad.log" || fail "no suggestion of perf::cpu-clock: $(cat "$T/bad.log")"
if "$DCPID" -f -d "$T/db3" --socket "$T/s3" -e cycles >"$T/hw.log" 2>&1 & then
	sleep 2
	if kill -0 $! 2>/dev/null; then
		# This machine has a PMU: cycles opened.
		kill -TERM $!; wait $!
	else
		wait $! && fail "dcpid -e cycles exited 0"
		grep -q "cycles" "$T/hw.log" && grep -q "perf::cpu-clock" "$T/hw.log" ||
		    fail "cycles without a PMU: $(cat "$T/hw.log")"
	fi
fi
# --check-config prints the effective configuration.
"$DCPID" --check-config --config /dev/null -e perf::cpu-clock -d "$T/db4" >"$T/cc" || fail "--check-config failed"
grep -q "perf::cpu-clock" "$T/cc" || fail "--check-config: $(cat "$T/cc")"
# Without CAP_PERFMON and CAP_SYS_ADMIN, where perf_event_paranoid forbids
# system-wide sampling, the message names the way out.
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	timeout 10 setpriv --bounding-set=-perfmon,-sys_admin --inh-caps=-perfmon,-sys_admin -- \
	    "$DCPID" -f -d "$T/db5" --socket "$T/s5" -e perf::cpu-clock >"$T/perm.log" 2>&1 &&
	    fail "dcpid without CAP_PERFMON started"
	grep -q "perf_event_paranoid" "$T/perm.log" && grep -q "CAP_PERFMON" "$T/perm.log" ||
	    fail "no permission hint: $(cat "$T/perm.log")"
fi
exit 0
