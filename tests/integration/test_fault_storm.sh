#!/bin/sh
# A storm of 1,000 short-lived processes: their samples are attributed to
# their own image, and once they have exited the model of processes and
# its memory are back to their baseline.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

stat_field() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }
# Alone: the attribution keeps each new file's image until two flushes
# after its last use, and the tests beside it (Go builds: the toolchain's
# programs and theirs) would add theirs to the memory measured (CI's ASan
# pass: 163 KB more, over the 128 KB allowed for the host's other users).
lock_alone
build_hot hot_storm
start_dcpid -e perf::cpu-clock
ctl flush >/dev/null || fail "flush failed"
p0=$(stat_field processes) m0=$(stat_field memory-attribution)
# Two streams of 500 processes, about 3 ms of CPU each.
( for _ in $(seq 1 500); do "$T/hot_storm" 0.003 || exit 1; done ) & s1=$!
( for _ in $(seq 1 500); do "$T/hot_storm" 0.003 || exit 1; done ) & s2=$!
wait $s1 && wait $s2 || fail "storm workload failed"
# The flush hands every record up to now (the EXITs) to the attribution.
ctl flush >/dev/null || fail "flush failed"
p1=$(stat_field processes) m1=$(stat_field memory-attribution)
echo "processes $p0 -> $p1, attribution memory $m0 -> $m1 bytes"
assert_hot "$(current_epoch)" hot_storm "$T/hot_storm" dcpi_workload_hot 500
# Other users of the machine come and go: allow their share, far below
# the 1,000 exited processes and their maps.
[ "$p1" -le $((p0 + 100)) ] || fail "exited processes still modelled: $p0, then $p1"
[ "$m1" -le $((m0 + 131072)) ] || fail "attribution memory grew from $m0 to $m1 bytes"
ctl status | grep "unattributed"
stop_dcpid
