#!/bin/sh
# What an unprivileged user's JIT can make dcpid hold.  One user runs two
# small JITs whose perf maps have 256 symbols of 250,000-byte names (64 MB
# each, under the 64 MiB a map may have): dcpid kept every name whole and
# for good (its JIT memory 128 MB, RSS 14 -> 142 MB, the build-id cache's
# perf-map as large), counted it against the counts' memory cap and so
# flushed early every second from then on, and another user's JIT, whose
# map is written just before it exits, lost its samples to [anon] at
# those flushes (956 of 3,038 named).  Now names are cut at jit-name-max
# (JIT memory 1.1 MB, RSS 14 -> 15.6 MB, peak 19.6 MB), what a process, a
# user and all JIT code may hold is bounded (jit-memory: 16 MiB by
# default), JIT symbols are not counts, an image's symbols are freed once
# its processes exited and its counts were written, and the other user's
# samples are named; so they are while the first user's process has a map
# of 60,000 names of 1,000 bytes, over its process's bound.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "jitmap runs x86-64 code"

cc_work jitmap "$top_srcdir/tests/workload/jitmap.c"
# A flooding user and another.
U1=dcpi-jitf-$$ U2=dcpi-jitv-$$
test_user "$U1"
test_user "$U2"
maps=
trap 'for p in $maps; do rm -f "/tmp/perf-$p.map"; done; cleanup' EXIT
chmod 755 "$T" && mkdir "$T/bin" || fail "cannot make $T/bin"
# Commands of their own: the [jit:COMM] images are per command.
for c in dcpijitflood dcpijitlate dcpijitmany dcpijitlate2; do
	cp "$T/jitmap" "$T/bin/$c" || fail "cannot copy jitmap"
done
chmod -R a+rX "$T/bin"

stat_field() { awk -v k="$1" '$1 == k { print $2; exit }' "$T/status.txt"; }
# 90% and 100 at least of [jit:CMD]'s samples named jit_late_hot.
assert_named() {
	f=$(profile_file "$(current_epoch)" "jit:$1")
	[ -n "$f" ] || fail "no profile of [jit:$1]"
	id=$(sed -n 's/^image //p' "$f")
	set -- "$1" $(jit_samples "$DB/buildid/$id/perf-map" "$f" jit_late_hot)
	echo "[jit:$1]: $2 of $4 samples in jit_late_hot, $3 in [anon]"
	[ "$4" -ge 100 ] || fail "[jit:$1]: only $4 samples"
	[ $(($2 * 100)) -ge $(($4 * 90)) ] || fail "[jit:$1]: only $2 of $4 samples named"
}
no_early_flush() {
	if grep 'flushing early' "$DCPID_LOG"; then
		fail "dcpid flushed early $(grep -c 'flushing early' "$DCPID_LOG") times"
	fi
}
rss_kb() { awk -v k="${1:-VmRSS}:" '$1 == k { print $2 }' "/proc/$DCPID_PID/status"; }

start_dcpid -e perf::cpu-clock
ctl flush >/dev/null || fail "flush failed"
rss0=$(rss_kb)

# The flood: two processes, each with a 64 MB map read at a flush, the
# code of every symbol sampled.
(exec_as "$U1" "$T/bin/dcpijitflood" flood 250000 256 4) & f1=$!
(exec_as "$U1" "$T/bin/dcpijitflood" flood 250000 256 4) & f2=$!
maps="$f1 $f2"
sleep 3
ctl flush >/dev/null || fail "flush failed"
ctl status >"$T/status.txt" || fail "status failed"
jm0=$(stat_field memory-jit)
wait $f1 || fail "jitmap flood failed"
wait $f2 || fail "jitmap flood failed"
ctl flush >/dev/null || fail "flush failed"
ctl status >"$T/status.txt" || fail "status failed"
grep -E '^(memory|jit )' "$T/status.txt"
jm=$(stat_field memory-jit)
rss1=$(rss_kb) hwm1=$(rss_kb VmHWM)
echo "two 64 MB maps: JIT memory ${jm0:-?} bytes while they run, ${jm:-?} after;" \
    "dcpid's RSS $rss0 -> $rss1 kB, peak $hwm1 kB"
for m in "$jm0" "$jm"; do
	[ -n "$m" ] && [ "$m" -le $((16 << 20)) ] ||
	    fail "JIT memory ${m:-?} bytes, over the bound of 16 MiB"
done
# AddressSanitizer's shadow and quarantine make RSS meaningless.
if grep -q libasan "/proc/$DCPID_PID/maps"; then
	echo "ASan build: RSS not checked"
else
	[ "$rss1" -le $((rss0 + 32768)) ] || fail "dcpid's RSS grew from $rss0 to $rss1 kB"
	[ "$hwm1" -le $((rss0 + 65536)) ] || fail "dcpid's RSS peaked at $hwm1 kB (from $rss0)"
fi
e=$(current_epoch)
f=$(profile_file "$e" "jit:dcpijitflood")
[ -n "$f" ] || fail "no profile of [jit:dcpijitflood]"
id=$(sed -n 's/^image //p' "$f")
pm=$(wc -c <"$DB/buildid/$id/perf-map") || fail "no perf-map for $id"
echo "perf-map of [jit:dcpijitflood]: $pm bytes"
[ "$pm" -le $((1 << 20)) ] || fail "perf-map of [jit:dcpijitflood]: $pm bytes"

# The other user's JIT, its map written as it exits, with the flood's
# processes gone and dcpid idle between: no early flush, its samples named.
(exec_as "$U2" "$T/bin/dcpijitlate" late 3) & v=$!
maps="$maps $v"
wait $v || fail "jitmap late failed"
ctl flush >/dev/null || fail "flush failed"
no_early_flush
assert_named dcpijitlate

# The same user's map of 60,000 names of 1,000 bytes (60 MB), the code
# of each sampled: past the process's bound its entries are dropped,
# logged, and its user's symbols stay within theirs, while the other
# user's JIT, run meanwhile, is named.
(exec_as "$U1" "$T/bin/dcpijitmany" flood 1000 60000 5) & f3=$!
maps="$maps $f3"
sleep 2
(exec_as "$U2" "$T/bin/dcpijitlate2" late 3) & v=$!
maps="$maps $v"
wait $v || fail "jitmap late failed"
ctl flush >/dev/null || fail "flush failed"
ctl status >"$T/status.txt" || fail "status failed"
grep -E '^(memory-jit|jit-symbols|jit  *(names-cut|symbols-dropped))' "$T/status.txt"
jm=$(stat_field memory-jit)
wait $f3 || fail "jitmap flood failed"
echo "60,000 names: JIT memory ${jm:-?} bytes"
[ -n "$jm" ] && [ "$jm" -le $((16 << 20)) ] || fail "JIT memory ${jm:-?} bytes, over the bound of 16 MiB"
grep 'dcpijitmany.*dropped: over jit-process-' "$DCPID_LOG" ||
    fail "no log line of the symbols dropped over the process's bound"
assert_named dcpijitlate2
no_early_flush
assert_db_valid
stop_dcpid
