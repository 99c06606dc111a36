#!/bin/sh
# A JIT whose perf map is written as it exits and deleted soon after, as a
# wrapper script may clean up /tmp: dcpid read the map only when it
# handled the process's EXIT in time order, up to a tick and a half (1.5 s)
# after it arrived, and found it gone in 4 of 12 runs with the map deleted
# 0.5 s after the exit (every sample in [anon]); in this test (0.2 s),
# 0 of about 7,990 samples named in each of 3 tries.  Now the map is read
# as the EXIT record arrives: an unprivileged user's four runs, each map
# deleted 0.2 s after its process exited, have their samples named.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "jitmap runs x86-64 code"

cc_work jitmap "$top_srcdir/tests/workload/jitmap.c"
U=dcpi-jitx-$$
test_user "$U"
maps=
trap 'for p in $maps; do rm -f "/tmp/perf-$p.map"; done; cleanup' EXIT
chmod 755 "$T" && mkdir "$T/bin" && cp "$T/jitmap" "$T/bin/dcpijitgone" &&
    chmod -R a+rX "$T/bin" || fail "cannot copy jitmap"

start_dcpid -e perf::cpu-clock
for i in 1 2 3 4; do
	(exec_as "$U" "$T/bin/dcpijitgone" late 2) & v=$!
	maps="$maps $v"
	wait $v || fail "jitmap late failed"
	sleep 0.2
	rm -f "/tmp/perf-$v.map"
done
ctl flush >/dev/null || fail "flush failed"
e=$(current_epoch)
named=0 total=0
for f in "$DB/$e"/*/perf::cpu-clock/jit:dcpijitgone.*; do
	[ -f "$f" ] || fail "no profile of [jit:dcpijitgone]"
	id=$(sed -n 's/^image //p' "$f")
	set -- $(jit_samples "$DB/buildid/$id/perf-map" "$f" jit_late_hot)
	named=$((named + $1)) total=$((total + $3))
done
echo "[jit:dcpijitgone]: $named of $total samples in jit_late_hot, maps deleted after exit"
[ "$total" -ge 150 ] || fail "[jit:dcpijitgone]: only $total samples"
[ $((named * 100)) -ge $((total * 90)) ] || fail "[jit:dcpijitgone]: only $named of $total samples named"
assert_db_valid
stop_dcpid
