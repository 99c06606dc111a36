#!/bin/sh
# JIT code under dcpid: a node program run with --perf-basic-prof spends
# its time in one JavaScript function, hotJsFunction.  Its samples go to the
# pseudo-image [jit:COMM] of its command, whose perf-map in the database's
# build-id cache names the function, and the function's synthetic range
# holds most of them: after a flush while node runs (its map read live) and
# after its exit.  prof names the function, and so do the call chains
# (dcpid -g) through it.  The same program without a
# map has its JIT samples counted as [anon] of its command, not lost.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v node >/dev/null 2>&1 || skip "node is not installed (Debian package nodejs)"

# A command name of our own: other tests may run node at the same time, and
# every process of a command adds to one pseudo-image.
cmd=dcpijit-node
ln -s "$(command -v node)" "$T/$cmd" || fail "cannot link node"
ln -s "$(command -v node)" "$T/dcpijit-nomap" || fail "cannot link node"
map=

# A chain with every sample (callchain-period 1x): the JIT leaf's chains
# are counted against its flat samples.
start_dcpid -e perf::cpu-clock -g --callchain-period 1x
# In $T: with --perf-basic-prof node also writes isolate-*-v8.log into
# its working directory.
(cd "$T" && exec "$T/$cmd" --perf-basic-prof --no-turbo-inlining \
    "$top_srcdir/tests/workload/jit_hot.js" 4) >"$T/node.out" 2>&1 & np=$!
map=/tmp/perf-$np.map
trap 'rm -f "$map"; cleanup' EXIT
(cd "$T" && exec "$T/dcpijit-nomap" --no-turbo-inlining "$top_srcdir/tests/workload/jit_hot.js" 1) \
    >"$T/nomap.out" 2>&1 || fail "node without a map failed: $(cat "$T/nomap.out")"
sleep 1
ctl flush >/dev/null || fail "dcpictl flush failed while node runs"
e=$(current_epoch)
f=$(profile_file "$e" "jit:$cmd")
[ -n "$f" ] || fail "no profile of [jit:$cmd] after a flush while node runs: $(ls "$DB/$e"/*/*/)"
wait $np || fail "node failed: $(cat "$T/node.out")"
ctl flush >/dev/null || fail "dcpictl flush failed"
ctl status >"$T/status" || fail "dcpictl status failed"
grep '^jit ' "$T/status"

grep -qx "path \[jit:$cmd\]" "$f" || fail "$f: path is not [jit:$cmd]"
grep -qx 'tstart 0' "$f" || fail "$f: tstart is not 0"
id=$(sed -n 's/^image //p' "$f")
echo "$id" | grep -Eqx '[0-9a-f]{16}' || fail "$f: image id '$id' is not 16 hex digits"
pm=$DB/buildid/$id/perf-map
[ -s "$pm" ] || fail "no perf-map for $id in the build-id cache"
grep -q ' \[anon\]$' "$pm" || fail "$pm: no [anon] symbol"
grep -q 'hotJsFunction' "$pm" || fail "$pm: hotJsFunction not named: $(head "$pm")"

# Samples per symbol of the perf-map: `dcpictl cat` lists offsets as
# addresses (tstart 0).
set -- $(jit_samples "$pm" "$f" hotJsFunction)
echo "[jit:$cmd]: $1 of $3 samples in hotJsFunction, $2 in [anon]"
# 4 s at 1,000 samples/s; a busy VM loses timer interrupts.
[ "$3" -ge 400 ] || fail "[jit:$cmd]: only $3 samples"
[ $(($1 * 100)) -ge $(($3 * 80)) ] || fail "[jit:$cmd]: only $1 of $3 samples in hotJsFunction"
# Call chains through JIT code name its frames as the flat samples are,
# by the map read at the flush while node ran (or since, at a miss).
ctl stacks >"$T/stacks.txt" || fail "dcpictl stacks failed"
js=$(awk '{ n = split($0, f, ";") } f[n] ~ /^JS:[^ ]*hotJsFunction / { s += $NF }
	END { print s + 0 }' "$T/stacks.txt")
echo "call chains: $js samples with hotJsFunction as their leaf"
[ $((js * 100)) -ge $(($1 * 50)) ] ||
    fail "only $js of $1 samples in hotJsFunction have it as their chains' leaf: $(grep hotJs "$T/stacks.txt" | head -3)"
named=$(awk '$1 == "jit" && $2 == "named" { print $3 }' "$T/status")
[ "${named:-0}" -ge "$1" ] || fail "status: jit named ${named:-none}, fewer than the $1 samples in hotJsFunction"

# prof names the function from the perf-map that dcpid kept in the
# build-id cache.
ctl prof -n 20 >"$T/prof.txt" || fail "prof failed"
grep "hotJsFunction.*\[jit:$cmd\]" "$T/prof.txt" ||
    fail "prof does not name hotJsFunction: $(grep "\[jit:$cmd\]" "$T/prof.txt")"
# Without a map: every sample of [jit:dcpijit-nomap] at [anon]'s offset 0.
f=$(profile_file "$e" jit:dcpijit-nomap)
[ -n "$f" ] || fail "no profile of [jit:dcpijit-nomap]: JIT samples without a map lost"
"$DCPICTL" cat "$f" >"$T/cat.out" || fail "dcpictl cat $f failed"
set -- $(awk '$1 ~ /^0x/ { total += $2; if ($1 ~ /^0x0*$/) anon += $2 }
	END { print anon + 0, total + 0 }' "$T/cat.out")
echo "[jit:dcpijit-nomap]: $1 of $2 samples in [anon]"
[ "$2" -ge 50 ] && [ "$1" = "$2" ] || fail "[jit:dcpijit-nomap]: $1 of $2 samples in [anon]"

assert_db_valid
stop_dcpid
