#!/bin/sh
# One image whose profile cannot be written (a directory stands at its
# path) never stops the others: the flush writes the other image, reports
# the bad one by path in its answer, the log and status, keeps its counts
# in memory, and the next flush, the path cleared, writes them all.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_good
build_hot hot_bad
start_dcpid -e perf::cpu-clock
"$T/hot_good" 1 & p=$!
"$T/hot_bad" 1 || fail "hot_bad failed"
wait $p || fail "hot_good failed"
ctl flush || fail "first flush failed"
e=$(current_epoch)
good=$(profile_file "$e" hot_good)
bad=$(profile_file "$e" hot_bad)
[ -n "$good" ] && [ -n "$bad" ] || fail "no profiles after the first flush"
g1=$("$DCPICTL" cat --summary "$good" | sed -n "s/^total_samples //p")
b1=$("$DCPICTL" cat --summary "$bad" | sed -n 's/^total_samples //p')
rm "$bad"
mkdir "$bad"

"$T/hot_good" 1 & p=$!
"$T/hot_bad" 1 || fail "hot_bad failed"
wait $p || fail "hot_good failed"
ctl flush >"$T/flush.out" 2>&1 && fail "the flush succeeded over a directory"
grep -q "$(basename "$bad")" "$T/flush.out" || fail "the answer does not name the image: $(cat "$T/flush.out")"
ctl status | grep '^last-flush-result' | grep -q "$(basename "$bad")" ||
    fail "status does not name the image"
grep -q "$(basename "$bad")" "$DCPID_LOG" || fail "the log does not name the image"
g2=$("$DCPICTL" cat --summary "$good" | sed -n 's/^total_samples //p')
echo "hot_good: $g1 then $g2 samples written while hot_bad failed"
[ "$g2" -ge $((g1 + 200)) ] || fail "the good image was not written: $g1 then $g2"

rmdir "$bad"
ctl flush || fail "the flush after clearing the path failed"
b2=$("$DCPICTL" cat --summary "$bad" | sed -n 's/^total_samples //p')
echo "hot_bad: $b1 before, $b2 kept and written after the failure"
# The first interval's file was removed: what is there now is what was
# kept in memory, about one second of samples.
[ "$b2" -ge 200 ] || fail "hot_bad's counts were lost: $b2"
stop_dcpid
