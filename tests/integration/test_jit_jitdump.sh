#!/bin/sh
# JIT code named by a jitdump: node --perf-prof writes jit-PID.dump in its
# working directory (and no perf map) and announces it by mapping it
# executable.  dcpid follows the mapping to the file, reads it through the
# process's root while node runs and at its exit, and names the samples of
# hotJsFunction under [jit:COMM].  The dump's mapping
# itself is not an image: no profile is written for it.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v node >/dev/null 2>&1 || skip "node is not installed (Debian package nodejs)"

# A command name of our own, as in test_jit_node.sh.
cmd=dcpijit-dump
ln -s "$(command -v node)" "$T/$cmd" || fail "cannot link node"
mkdir "$T/cwd" || fail "cannot make $T/cwd"

start_dcpid -e perf::cpu-clock
# --perf-prof writes the dump; --interpreted-frames-native-stack gives
# bytecode its own code too, so the function is named before it is
# optimized.
(cd "$T/cwd" && exec "$T/$cmd" --perf-prof --interpreted-frames-native-stack \
    --no-turbo-inlining "$top_srcdir/tests/workload/jit_hot.js" 4) \
    >"$T/node.out" 2>&1 & np=$!
sleep 2
ls "$T/cwd"/jit-*.dump >/dev/null 2>&1 || fail "node wrote no jitdump: $(ls "$T/cwd")"
[ ! -e "/tmp/perf-$np.map" ] || fail "node --perf-prof wrote a perf map too: the test would not test the dump"
ctl flush >/dev/null || fail "dcpictl flush failed while node runs"
# While node runs, its JIT samples are seen and its dump read; samples the
# dump does not name yet (node writes it through a buffer) wait for a
# later read rather than go to [anon], so whether a profile exists at this
# flush depends on node's buffering.
ctl status >"$T/status1" || fail "dcpictl status failed"
n=$(awk '$1 == "jit" && $2 == "samples" { print $3 }' "$T/status1")
[ "${n:-0}" -gt 0 ] || fail "status while node runs: no JIT samples ($(grep '^jit ' "$T/status1"))"
n=$(awk '$1 == "jit" && $2 == "dumps-read" { print $3 }' "$T/status1")
[ "${n:-0}" -ge 1 ] || fail "status while node runs: the jitdump was not read at the flush"
wait $np || fail "node failed: $(cat "$T/node.out")"
ctl flush >/dev/null || fail "dcpictl flush failed"
e=$(current_epoch)
f=$(profile_file "$e" "jit:$cmd")
[ -n "$f" ] || fail "no profile of [jit:$cmd] after node's exit: $(ls "$DB/$e"/*/*/)"
ctl status >"$T/status" || fail "dcpictl status failed"
grep '^jit ' "$T/status"
set -- $(awk '$1 == "jit" && $2 ~ /^dump/ { printf "%s ", $3 }' "$T/status")
[ "${1:-0}" -ge 1 ] || fail "status: no jitdump announced (jit dumps ${1:-none})"
[ "${2:-0}" -ge 2 ] || fail "status: jitdump read ${2:-no} times, expected at the flush and at exit"
[ "${3:-1}" = 0 ] || fail "status: jit dump-errors ${3:-none}"
# The dump's own mapping is no image.
ls "$DB/$e"/*/*/ | grep -q '^jit-[0-9]*\.dump\.' &&
    fail "a profile was written for the jitdump's mapping: $(ls "$DB/$e"/*/*/)"

id=$(sed -n 's/^image //p' "$f")
pm=$DB/buildid/$id/perf-map
[ -s "$pm" ] || fail "no perf-map for $id in the build-id cache"
grep -q 'hotJsFunction' "$pm" || fail "$pm: hotJsFunction not named: $(head "$pm")"
set -- $(jit_samples "$pm" "$f" hotJsFunction)
echo "[jit:$cmd]: $1 of $3 samples in hotJsFunction, $2 in [anon]"
[ "$3" -ge 400 ] || fail "[jit:$cmd]: only $3 samples"
[ $(($1 * 100)) -ge $(($3 * 80)) ] || fail "[jit:$cmd]: only $1 of $3 samples in hotJsFunction"

ctl prof -n 20 >"$T/prof.txt" || fail "prof failed"
grep "hotJsFunction.*\[jit:$cmd\]" "$T/prof.txt" ||
    fail "prof does not name hotJsFunction: $(grep "\[jit:$cmd\]" "$T/prof.txt")"
assert_db_valid
stop_dcpid
