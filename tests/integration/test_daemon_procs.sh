#!/bin/sh
# Processes that started before dcpid, that exec, that fork, and that live
# under 100 ms are each attributed to their own images.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

for n in hot_pre hot_exec1 hot_exec2 hot_fork hot_short; do build_hot $n; done

"$T/hot_pre" 4 & pre=$!
sleep 1
start_dcpid -e perf::cpu-clock
# hot_exec1 burns 1 s, then the same process becomes hot_exec2.
"$T/hot_exec1" 1 exec "$T/hot_exec2" 1 || fail "exec workload failed"
"$T/hot_fork" 1 fork || fail "fork workload failed"
# Fifteen processes of about 30 ms of CPU each, so short lives add up.
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	t0=$(date +%s%N)
	"$T/hot_short" 0.03 || fail "short workload failed"
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 100 ] || echo "note: a hot_short run took $(((t1 - t0) / 1000000)) ms"
done
wait $pre || fail "hot_pre failed"
ctl flush || fail "dcpictl flush failed"

e=$(current_epoch)
assert_hot "$e" hot_pre "$T/hot_pre" dcpi_workload_hot 100
assert_hot "$e" hot_exec1 "$T/hot_exec1" dcpi_workload_hot 50
assert_hot "$e" hot_exec2 "$T/hot_exec2" dcpi_workload_hot 50
assert_hot "$e" hot_fork "$T/hot_fork" dcpi_workload_hot 50
assert_hot "$e" hot_short "$T/hot_short" dcpi_workload_hot 30
assert_db_valid
stop_dcpid
