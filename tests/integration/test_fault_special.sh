#!/bin/sh
# Special files where regular files belong: nothing hangs.  A
# FIFO at a profile path makes dcpid's flush fail at once naming it, and
# status still answers; a FIFO as a profile's image path, or an event
# directory linked to /proc, do not hang prof, export or diff; cat of a
# FIFO or of /dev/zero fails at once with a message.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

MK=$top_builddir/tests/mkprofile
EV=perf::cpu-clock
# Runs dcpictl with the database; fails the test if it has not returned
# within 20 s (a hang).  Its status in rc, its output in $T/out.
bounded() {
	timeout 20 "$DCPICTL" -d "$DB" --socket "$SOCK" "$@" >"$T/out" 2>&1 </dev/null
	rc=$?
	[ $rc = 124 ] && fail "dcpictl $* hung: $(cat "$T/out")"
	return 0
}

# dcpictl: a hand-made database.
mkfifo "$T/fifo"
E1=20261121223000 E2=20261122223000
mkdir -p "$DB/$E1/h1/$EV" "$DB/$E2/h1/$EV"
"$MK" "$DB/$E1/h1/$EV/fifo.abcd" abcd "$T/fifo" || fail "mkprofile failed"
"$MK" "$DB/$E2/h1/$EV/fifo.abcd" abcd "$T/fifo" || fail "mkprofile failed"
"$MK" "$DB/$E2/h1/$EV/true.beef" beef /bin/true || fail "mkprofile failed"
ln -s /proc "$DB/$E2/h1/kmsg%2Fevent"
ln -s $E2 "$DB/current"
for cmd in "prof --all" "prof --epoch $E2" "diff $E1 $E2" \
    "export --all --format=pprof -o $T/out.pb"; do
	bounded $cmd
	echo "dcpictl $cmd: exit $rc"
done
bounded prof --epoch $E2
[ "$rc" = 0 ] || fail "prof with an event directory linked to /proc: $(cat "$T/out")"
grep -q "true" "$T/out" || fail "prof lost the good profile: $(cat "$T/out")"

start=$(date +%s)
bounded cat "$T/fifo"
[ "$rc" != 0 ] || fail "cat of a FIFO exited 0"
grep -q "$T/fifo: not a regular file" "$T/out" || fail "cat FIFO: $(cat "$T/out")"
bounded cat /dev/zero
[ "$rc" != 0 ] || fail "cat /dev/zero exited 0"
grep -q "/dev/zero: not a regular file" "$T/out" || fail "cat /dev/zero: $(cat "$T/out")"
[ $(($(date +%s) - start)) -le 5 ] || fail "cat of special files took $(($(date +%s) - start)) s"

# dcpid: a FIFO where a profile is about to be written.
rm -rf "$DB"
build_hot hot_fifo
start_dcpid -e $EV --flush-interval 3600
e=$(current_epoch)
"$T/hot_fifo" 1 || fail "workload failed"
ctl flush || fail "first flush failed"
p=$(profile_file "$e" hot_fifo)
[ -n "$p" ] || fail "no profile of hot_fifo"
rm -f "$p"
mkfifo "$p"
"$T/hot_fifo" 0.5 || fail "workload failed"
start=$(date +%s)
timeout 20 "$DCPICTL" --socket "$SOCK" flush >"$T/flush.out" 2>&1
rc=$?
[ $rc = 124 ] && fail "flush hung on a FIFO"
[ $rc != 0 ] || fail "flush with a FIFO at $p succeeded"
grep -q "$p: not a regular file (a FIFO)" "$T/flush.out" || fail "flush error: $(cat "$T/flush.out")"
timeout 5 "$DCPICTL" --socket "$SOCK" status >/dev/null || fail "status unanswered after the flush"
echo "flush with a FIFO at a profile path failed after $(($(date +%s) - start)) s"
# Nothing lost: without the FIFO the counts are written.
rm -f "$p"
ctl flush || fail "flush after removing the FIFO failed"
[ -f "$p" ] || fail "$p not written after the FIFO was removed"
stop_dcpid
