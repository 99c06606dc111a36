#!/bin/sh
# dcpid's start-up scan of /proc on a host of many processes (every
# /proc/PID/maps up to 40 ms late, through a preloaded shim, and 64 more
# processes to scan: about 3 s) while 4,000 processes are churned: the
# churn's records would overflow the sideband buffers (512 KiB a CPU hold
# about half a second of it here) before dcpid's loop first reads them.
# The scan holds them out of the buffers after each process, so none is
# lost and status says how long the oldest waited.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work churn "$top_srcdir/tests/workload/churn.c"
cc_work slowio.so "$top_srcdir/tests/workload/slowio.c" -shared -fPIC -ldl

# ASan wants to be the first library; the shim only wraps fsync and fopen.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
echo "label-by = none" >"$T/dcpid.conf"
sleepers=
for _ in $(seq 64); do
	sleep 120 & sleepers="$sleepers $!"
done
"$T/churn" 4000 /bin/true & pc=$!
sleep 0.2
t0=$(date +%s%N)
# About 3 s of scan whatever the host's processes (start_dcpid waits 10 s
# at most): 40 ms a process, less on a host of more than 100.
n=$(ls -d /proc/[0-9]* | wc -l)
ms=$((4000 / n))
[ "$ms" -le 40 ] || ms=40
[ "$ms" -ge 1 ] || ms=1
LD_PRELOAD="$T/slowio.so" DCPI_TEST_MAPS_MS=$ms start_dcpid -e perf::cpu-clock \
    --config "$T/dcpid.conf"
t1=$(date +%s%N)
grep 'scanned' "$DCPID_LOG"
echo "dcpid answered $(((t1 - t0) / 1000000)) ms after its start ($n processes, $ms ms each), the churn running"
wait $pc || fail "churn failed"
kill $sleepers 2>/dev/null
# The churn's records waited through the scan: held, not lost.
stop_expect_held "scan"
exit 0
