#!/bin/sh
# A flush on a slow disk (every fsync 150 ms late, through a preloaded
# shim) while 4,000 processes are churned: the flush takes seconds, in
# which the churn's MMAP2, COMM, FORK and EXIT records would overflow the
# sideband buffers (512 KiB a CPU hold about half a second of it here).
# dcpid holds them, and the samples, out of the buffers between the
# flush's files, so no record is lost and status says how long the oldest
# waited.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work churn "$top_srcdir/tests/workload/churn.c"
cc_work slowio.so "$top_srcdir/tests/workload/slowio.c" -shared -fPIC -ldl
build_hot slow_hot

# ASan wants to be the first library; the shim only wraps fsync.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# Unlabelled: other tests' storms of cgroups would make a file each.
echo "label-by = none" >"$T/dcpid.conf"
LD_PRELOAD="$T/slowio.so" DCPI_TEST_FSYNC_MS=150 start_dcpid -e perf::cpu-clock \
    --config "$T/dcpid.conf"
# Images to write: the workload's, true's, libc's and ld.so's, the kernel's.
"$T/slow_hot" 1 || fail "slow_hot failed"
"$T/churn" 200 /bin/true || fail "churn failed"
"$T/churn" 4000 /bin/true & pc=$!
sleep 0.2
t0=$(date +%s%N)
ctl flush >"$T/flush.out" || fail "flush failed: $(cat "$T/flush.out")"
t1=$(date +%s%N)
wait $pc || fail "churn failed"
echo "the flush took $(((t1 - t0) / 1000000)) ms while the churn ran: $(cat "$T/flush.out")"
# The churn's records waited through the slow flush: held, not lost.
stop_expect_held "slow flush"
exit 0
