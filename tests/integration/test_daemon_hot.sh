#!/bin/sh
# The hot workload, as a PIE and with the hot function in a shared library,
# runs under dcpid: after a flush at least 90% of each image's samples lie in
# dcpi_workload_hot, the kernel has a profile, every file passes the reader.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

src=$top_srcdir/tests/workload/hot.c
build_hot hot_pie
cc_work libdcpihot.so "$src" -fPIC -shared -DHOT_LIB_ONLY
cc_work hot_lib "$src" -fPIE -pie -DHOT_IN_LIB -DWORKLOAD_TAG='"hot_lib"' \
    -L"$T" -ldcpihot -Wl,-rpath,"$T"

start_dcpid -e perf::cpu-clock
"$T/hot_pie" 2 & p1=$!
"$T/hot_lib" 2 & p2=$!
wait $p1 || fail "hot_pie failed"
wait $p2 || fail "hot_lib failed"
ctl flush || fail "dcpictl flush failed"

e=$(current_epoch)
[ -n "$e" ] || fail "no current epoch"
# 2 s of CPU at 1,000 samples/s; a VM whose host is busy loses timer
# interrupts (steal time), hence the low minimum.
assert_hot "$e" hot_pie "$T/hot_pie" dcpi_workload_hot 200
assert_hot "$e" libdcpihot.so "$T/libdcpihot.so" dcpi_workload_hot 200
k=$(profile_file "$e" kernel.kallsyms)
[ -n "$k" ] || fail "no kernel profile in epoch $e"
grep -q '^path \[kernel.kallsyms\]' "$k" || fail "$k: path is not [kernel.kallsyms]"
kallsyms_of "$e" | grep -q ' _stext$' || fail "no kallsyms snapshot for epoch $e"
assert_db_valid
stop_dcpid
