#!/bin/sh
# An image whose file is gone by the time prof runs, with its separate
# debug file installed where Debian's -dbgsym packages put them
# (/usr/lib/debug/.build-id/NN/REST.debug): prof names its hot function.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v objcopy >/dev/null || skip "no objcopy (binutils)"

build_hot dbgonly -Wl,--build-id=sha1
bid=$(readelf -n "$T/dbgonly" | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "dbgonly has no build-id"
dir=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)
dbg=$dir/$(echo "$bid" | cut -c3-).debug
[ -e "$dbg" ] && fail "$dbg exists already"
done_dbg() { rm -f "$dbg"; rmdir "$dir" 2>/dev/null; cleanup; }
trap done_dbg EXIT

start_dcpid -e perf::cpu-clock
"$T/dbgonly" 2 || fail "dbgonly failed"
ctl flush || fail "dcpictl flush failed"
stop_dcpid
mkdir -p "$dir"
objcopy --only-keep-debug "$T/dbgonly" "$dbg" || fail "objcopy --only-keep-debug failed"
rm "$T/dbgonly"
ctl prof --image dbgonly -n 1 --csv >"$T/prof.csv" || fail "prof --image dbgonly failed"
row=$(sed -n 2p "$T/prof.csv")
echo "prof --image dbgonly: $row"
echo "$row" | grep -q ',dcpi_workload_hot,dbgonly$' || fail "prof does not name dcpi_workload_hot: $row"
