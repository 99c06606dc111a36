#!/bin/sh
# dcpid's peak RSS at a flush that merges a large stack file (bench/README,
# "Call chains"), as root: stack_flush.sh BUILDDIR STACKS EPOCH HOST.
# A fresh database whose current epoch EPOCH holds a copy of STACKS under
# HOST (the name dcpid gives this host), dcpid -g continuing it, one
# `dcpictl flush`; prints dcpid's VmRSS before and VmHWM after, the flush's
# wall time and the new file's bytes.
set -e
B=$1 S=$2 E=$3 H=$4
[ $# = 4 ] || { echo "usage: stack_flush.sh BUILDDIR STACKS EPOCH HOST" >&2; exit 2; }
W=$(mktemp -d /tmp/dcpi-stack-flush.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/db/$E/$H"
cp "$S" "$W/db/$E/$H/stacks"
ln -s "$E" "$W/db/current"
"$B/daemon/dcpid" -f -d "$W/db" --socket "$W/sock" -g -e perf::cpu-clock >"$W/log" 2>&1 &
P=$!
for _ in $(seq 1 100); do
	"$B/ctl/dcpictl" --socket "$W/sock" status >/dev/null 2>&1 && break
	sleep 0.1
done
sleep 2
r0=$(awk '/^VmRSS/ { print $2 }' /proc/$P/status)
t0=$(date +%s.%N)
"$B/ctl/dcpictl" --socket "$W/sock" flush >/dev/null
t1=$(date +%s.%N)
h1=$(awk '/^VmHWM/ { print $2 }' /proc/$P/status)
kill -TERM $P
wait $P
echo "RSS before the flush $r0 kB, peak after it $h1 kB, flush $(echo "$t1 - $t0" | bc) s," \
    "file $(stat -c %s "$W/db/$E/$H/stacks") bytes"
