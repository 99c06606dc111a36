#!/bin/sh
# JIT code under dcpid: a Java program run with -XX:+DumpPerfMapAtExit
# spends its time in one method, hotJavaMethod.  The JVM writes its perf map
# only as it exits, so dcpid keeps the samples' PCs until the EXIT record
# and names them then: the pseudo-image [jit:COMM] holds most samples in
# the method's synthetic range, and the perf-map in the build-id cache
# names it.  prof names the method.  Sampled with call chains (-g): the
# chains taken since the last flush are named at the exit too, the
# method their leaf under named JIT callers, not [unknown].
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 ||
    skip "java or javac is not installed (Debian package default-jdk-headless)"

cmd=dcpijit-java
mkdir -p "$T/classes"
javac -d "$T/classes" "$top_srcdir/tests/workload/JitHot.java" ||
    fail "javac failed"
# A command name of our own (the launcher finds its JDK through
# /proc/self/exe): other tests may run java at the same time.
ln -s "$(command -v java)" "$T/$cmd" || fail "cannot link java"
map=

# A chain with every sample (callchain-period 1x): the JIT leaf's chains
# are counted against its flat samples.
start_dcpid -e perf::cpu-clock -g --callchain-period 1x
"$T/$cmd" -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
    -XX:+PreserveFramePointer -cp "$T/classes" JitHot 4 >"$T/java.out" 2>&1 & jp=$!
map=/tmp/perf-$jp.map
trap 'rm -f $map; cleanup' EXIT
sleep 2
# No map yet: a flush keeps the samples waiting rather than losing them
# to [anon].
ctl flush >/dev/null || fail "dcpictl flush failed while java runs"
pend=$(ctl status | awk '$1 == "jit" && $2 == "pending-pcs" { print $3 }')
[ "${pend:-0}" -gt 0 ] || fail "no JIT samples pending while java runs: $(ctl status | grep '^jit')"
wait $jp || fail "java failed: $(cat "$T/java.out")"
[ -s "$map" ] || fail "the JVM wrote no $map"
ctl flush >/dev/null || fail "dcpictl flush failed"
ctl status | grep '^jit '

e=$(current_epoch)
f=$(profile_file "$e" "jit:$cmd")
[ -n "$f" ] || fail "no profile of [jit:$cmd]: $(ls "$DB/$e"/*/*/)"
grep -qx "path \[jit:$cmd\]" "$f" || fail "$f: path is not [jit:$cmd]"
id=$(sed -n 's/^image //p' "$f")
pm=$DB/buildid/$id/perf-map
[ -s "$pm" ] || fail "no perf-map for $id in the build-id cache"
grep -q 'JitHot.hotJavaMethod' "$pm" || fail "$pm: hotJavaMethod not named: $(head "$pm")"

set -- $(jit_samples "$pm" "$f" hotJavaMethod)
echo "[jit:$cmd]: $1 of $3 samples in hotJavaMethod, $2 in [anon]"
[ "$3" -ge 400 ] || fail "[jit:$cmd]: only $3 samples"
# The interpreter and stubs are JIT code too; the method, compiled, has
# most of the time.
[ $(($1 * 100)) -ge $(($3 * 70)) ] || fail "[jit:$cmd]: only $1 of $3 samples in hotJavaMethod"

# prof names the method from the perf-map that dcpid kept in the
# build-id cache.
ctl prof -n 20 >"$T/prof.txt" || fail "prof failed"
grep "hotJavaMethod.*\[jit:$cmd\]" "$T/prof.txt" ||
    fail "prof does not name hotJavaMethod: $(grep "\[jit:$cmd\]" "$T/prof.txt")"

# The chains: those of the flush while java ran keep their JIT frames
# unnamed (no map then); those since, about half, are named at the exit.
ctl stacks >"$T/stacks.txt" || fail "dcpictl stacks failed"
set -- $1 $(awk '{ n = split($0, f, ";"); sub(/ [0-9]+$/, "", f[n]) }
	f[n] ~ /hotJavaMethod/ { s += $NF; if (n > 1 && f[n - 1] != "[unknown]") c += $NF }
	END { print s + 0, c + 0 }' "$T/stacks.txt")
echo "chains: $2 with hotJavaMethod as their leaf, $3 of them under a named caller"
awk '{ n = split($0, f, ";") } f[n] ~ /hotJavaMethod/ {
	print $NF " ... " f[n - 2] ";" f[n - 1] ";" f[n] }' "$T/stacks.txt" | sort -n -r | head -2
[ $(($2 * 100)) -ge $(($1 * 25)) ] ||
    fail "only $2 of $1 samples in hotJavaMethod have it as their chains' leaf"
[ $(($3 * 100)) -ge $(($2 * 90)) ] ||
    fail "only $3 of $2 chains of hotJavaMethod have a named caller"
late=$(ctl status | sed -n 's/^callchains .* \([0-9]*\) JIT frames named late$/\1/p')
[ "${late:-0}" -ge 2 ] || fail "status: ${late:-no} JIT frames named late"

# A map written on request while java runs (jcmd PID Compiler.perfmap,
# JDK 17): the chains sampled before it are named at the next flush.
# (In an epoch of their own.)
if command -v jcmd >/dev/null 2>&1; then
	ln -s "$(command -v java)" "$T/dcpijit-jcmd" || fail "cannot link java"
	ctl epoch >/dev/null || fail "dcpictl epoch failed"
	"$T/dcpijit-jcmd" -XX:+PreserveFramePointer -cp "$T/classes" JitHot 4 \
	    >"$T/java2.out" 2>&1 & jp=$!
	map="$map /tmp/perf-$jp.map"
	sleep 2
	jcmd $jp Compiler.perfmap >"$T/jcmd.out" 2>&1 || fail "jcmd failed: $(cat "$T/jcmd.out")"
	ctl flush >/dev/null || fail "dcpictl flush failed after jcmd"
	ctl stacks >"$T/stacks2.txt" || fail "dcpictl stacks failed"
	wait $jp || fail "java failed: $(cat "$T/java2.out")"
	set -- $(awk '{ n = split($0, f, ";"); sub(/ [0-9]+$/, "", f[n]) }
		f[n] ~ /hotJavaMethod/ { s += $NF; if (n > 1 && f[n - 1] != "[unknown]") c += $NF }
		END { print s + 0, c + 0 }' "$T/stacks2.txt")
	echo "jcmd: $1 chains with hotJavaMethod as their leaf, $2 of them under a named caller"
	[ "$1" -ge 300 ] || fail "jcmd: only $1 chains end in hotJavaMethod"
	[ $(($2 * 100)) -ge $(($1 * 90)) ] || fail "jcmd: only $2 of $1 have a named caller"
fi
assert_db_valid
stop_dcpid
