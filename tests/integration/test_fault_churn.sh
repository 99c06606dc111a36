#!/bin/sh
# 10,000 processes churned (fork and exec of true, two at a time): dcpid's
# resident memory stays bounded and its model of processes does not keep
# the dead ones.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work churn "$top_srcdir/tests/workload/churn.c"
stat_field() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$DCPID_PID/status"; }

start_dcpid -e perf::cpu-clock:period=100000
# A first round, so the images of true and its libraries are known.
"$T/churn" 200 /bin/true || fail "churn failed"
ctl flush >/dev/null || fail "flush failed"
r0=$(rss_kb) p0=$(stat_field processes)
t0=$(date +%s)
"$T/churn" 10000 /bin/true || fail "churn failed"
ctl flush >/dev/null || fail "flush failed"
r1=$(rss_kb) p1=$(stat_field processes)
hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$DCPID_PID/status")
echo "10,000 processes in $(($(date +%s) - t0)) s: RSS $r0 -> $r1 kB (peak $hwm kB), processes $p0 -> $p1"
# AddressSanitizer's shadow and quarantine make RSS meaningless.
if grep -q libasan "/proc/$DCPID_PID/maps"; then
	echo "ASan build: RSS not checked"
else
	[ "$r1" -le $((r0 + 4096)) ] || fail "RSS grew from $r0 to $r1 kB"
	[ "$hwm" -le 32768 ] || fail "peak RSS $hwm kB over 32 MB"
fi
[ "$p1" -le $((p0 + 100)) ] || fail "exited processes still modelled: $p0, then $p1"
ctl status | grep -E "^(samples|lost|unattributed|memory)"
stop_dcpid
