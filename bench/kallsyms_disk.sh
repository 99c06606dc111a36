#!/bin/sh
# The database's bytes per epoch, kernel symbols included (the aim: at
# most 1 MB for a busy host-day): bench/kallsyms_disk.sh BUILDDIR
# [EPOCHS] [SECONDS], as root.  Runs BUILDDIR's dcpid on a fresh database
# while both CPUs are busy (a compiler in a loop, and a shell running short
# processes that make system calls), rotates the epoch with `dcpictl epoch`
# every SECONDS (default 30) until EPOCHS (default 6) epochs have ended,
# and prints the bytes (file sizes, and the blocks du counts) in all, in
# the epochs and in DB/kernels/, with the per-epoch figures; then packs
# the ended epochs with `dcpictl compress` (dcpi(5) "Packed epochs"), when
# BUILDDIR's dcpictl has it, and prints the epochs' bytes and blocks
# again, and the time it took.  BUILDDIR may be a build of any version:
# one before kallsyms was shared writes a copy into each epoch.
set -u

b=${1:?usage: kallsyms_disk.sh BUILDDIR [EPOCHS] [SECONDS]}
n=${2:-6}
secs=${3:-30}
src=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/dcpi-bench-disk.XXXXXX)
DB=$T/db
SOCK=$T/sock
busy=

stop() {
	[ -n "$busy" ] && kill $busy 2>/dev/null
	[ -n "${dpid:-}" ] && kill -TERM "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$T"
}
trap stop EXIT INT TERM

"$b/daemon/dcpid" -f -d "$DB" --socket "$SOCK" -e perf::cpu-clock >"$T/dcpid.log" 2>&1 &
dpid=$!
for _ in $(seq 1 100); do
	"$b/ctl/dcpictl" --socket "$SOCK" status >/dev/null 2>&1 && break
	sleep 0.1
done
# The busy host: one CPU compiling, one running short processes.
(while :; do ${CC:-cc} -O2 -c -o "$T/x.o" "$src/lib/profile.c" -I"$b" -I"$src/lib" 2>/dev/null; done) & busy="$busy $!"
(while :; do ls -lR /usr/lib >/dev/null 2>&1; grep -c x /etc/services >/dev/null; done) & busy="$busy $!"
i=0
while [ $i -lt "$n" ]; do
	sleep "$secs"
	"$b/ctl/dcpictl" --socket "$SOCK" epoch >/dev/null || { echo "dcpictl epoch failed" >&2; exit 1; }
	i=$((i + 1))
done
kill $busy 2>/dev/null; wait $busy 2>/dev/null; busy=
kill -TERM "$dpid"; wait "$dpid"; dpid=

bytes() { find "$@" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
blocks() { du -s --block-size=1 "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
ended=$(ls -d "$DB"/2* | head -n "$n")
all=$(bytes "$DB"); allb=$(blocks "$DB")
ep=$(bytes $ended); epb=$(blocks $ended)
k=$(bytes "$DB/kernels"); kb=$(blocks "$DB/kernels")
copies=$(bytes $(for e in $ended; do echo "$e"/*/kallsyms; done))
echo "$n epochs of $secs s: database $all bytes ($allb in blocks)"
echo "  epochs: $ep bytes ($epb), $((ep / n)) bytes per epoch ($((epb / n)) in blocks)"
echo "    of which kallsyms copies in the epochs: $copies bytes, $((copies / n)) per epoch"
echo "  kernels/: $k bytes ($kb in blocks), $(ls "$DB/kernels" 2>/dev/null | wc -l) snapshots"
echo "  build-id cache: $(bytes "$DB/buildid") bytes"
if "$b/ctl/dcpictl" -d "$DB" compress --help >/dev/null 2>&1; then
	t0=$(date +%s.%N)
	"$b/ctl/dcpictl" -d "$DB" compress >"$T/compress.out" || { echo "dcpictl compress failed" >&2; exit 1; }
	t1=$(date +%s.%N)
	pe=$(bytes $ended); peb=$(blocks $ended)
	echo "  packed: $pe bytes ($peb in blocks), $((pe / n)) bytes per epoch ($((peb / n)) in blocks), $(wc -l <"$T/compress.out") epochs in $(echo "$t1 - $t0" | bc) s"
	sed 's/^/    /' "$T/compress.out"
fi
