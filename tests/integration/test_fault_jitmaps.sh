#!/bin/sh
# A JIT's way with memory at its worst: one process makes 30,000
# executable anonymous mappings, each below the last as mmap places them,
# none mergeable with the next.  Each one's MMAP2 once moved dcpid's whole
# sorted array of the process's mappings (60,000 took seconds of dcpid's
# CPU and overflowed the sideband buffer: 13,465 records of every process
# lost).  Now an anonymous mapping beside another lengthens it: the
# attribution's memory grows by little while the process lives, no
# sideband record is lost, the code run in two of the mappings is counted
# as the process's JIT code, and a program started meanwhile is attributed.
# Then 30,000 executable mappings of one file page, each below the last
# and none joinable (their file offsets are all 0): each is a map of its
# own, and each insertion moved every map above it.  The array now moves
# its shorter side (test_attr's test_many_maps checks it against a model):
# dcpid's CPU for the flood went from 31 clock ticks to 11, and at 60,000
# from 78 ticks and 11,846 sideband records lost to 19 ticks and none.
# The test stays at 30,000, where a slow host keeps up too.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "manymaps copies x86-64 code"
[ "$(sysctl -n vm.max_map_count)" -ge 61000 ] || skip "vm.max_map_count below 61,000"

stat_field() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }
cc_work manymaps "$top_srcdir/tests/workload/manymaps.c"
cc_work ctiny "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"jitmaps"'
cc_work ctinyf "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"jitmapsf"'
start_dcpid -e perf::cpu-clock
ctl flush >/dev/null || fail "flush failed"
m0=$(stat_field memory-attribution)
"$T/manymaps" 30000 2500 "$T/mapped" & w=$!
for _ in $(seq 1 300); do [ -e "$T/mapped" ] && break; sleep 0.1; done
[ -e "$T/mapped" ] || fail "manymaps did not map its 30,000 regions in 30 s"
"$T/ctiny" 300 || [ $? = 1 ] || fail "ctiny failed"
# The records up to now handed to the attribution, while manymaps lives.
ctl flush >/dev/null || fail "flush failed"
m1=$(stat_field memory-attribution)
echo "attribution memory $m0 -> $m1 bytes with 30,000 anonymous mappings"
[ "$m1" -le $((m0 + 262144)) ] || fail "attribution memory grew from $m0 to $m1 bytes"
wait $w || fail "manymaps failed"
ctl flush >/dev/null || fail "flush failed"
ctl status >"$T/status.txt" || fail "status failed"
grep -E '^(lost|sideband-watch)' "$T/status.txt"
[ "$(awk '$1 == "lost-sideband" { print $2 }' "$T/status.txt")" = 0 ] ||
    fail "sideband records lost: $(grep '^lost-sideband' "$T/status.txt")"
assert_hot "$(current_epoch)" ctiny "$T/ctiny" ctiny_hot 150
ctl prof -i >"$T/images.txt" || fail "prof -i failed"
n=$(awk '/\[jit:manymaps\]$/ { print $1 }' "$T/images.txt")
[ "${n:-0}" -ge 500 ] || fail "[jit:manymaps]: only ${n:-0} samples: $(cat "$T/images.txt")"
echo "[jit:manymaps]: $n samples"

ticks() { awk '{ print $14 + $15 }' "/proc/$DCPID_PID/stat"; }
t0=$(ticks)
"$T/manymaps" f30000 1500 "$T/fmapped" & w=$!
for _ in $(seq 1 300); do [ -e "$T/fmapped" ] && break; sleep 0.1; done
[ -e "$T/fmapped" ] || fail "manymaps did not map its 30,000 file pages in 30 s"
"$T/ctinyf" 300 || [ $? = 1 ] || fail "ctinyf failed"
wait $w || fail "manymaps f30000 failed"
ctl flush >/dev/null || fail "flush failed"
t1=$(ticks)
ctl status >"$T/status.txt" || fail "status failed"
grep -E '^(lost|sideband-watch)' "$T/status.txt"
echo "30,000 file mappings: dcpid $((t1 - t0)) clock ticks of CPU"
[ "$(awk '$1 == "lost-sideband" { print $2 }' "$T/status.txt")" = 0 ] ||
    fail "sideband records lost to file mappings: $(grep '^lost-sideband' "$T/status.txt")"
assert_hot "$(current_epoch)" ctinyf "$T/ctinyf" ctiny_hot 150
stop_dcpid
