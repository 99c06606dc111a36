#!/bin/sh
# Programs run from a memfd (fexecve, as runc and packers do): the
# mapping "/memfd:NAME (deleted)" holds a whole ELF image, whose
# build-id the kernel gives in the MMAP2 record, so it is an image like
# any other, read through the live mapping: prof names its hot function
# with >= 90% of its samples; so is one that ran before dcpid started,
# found by the scan of /proc (no build-id there: read through the mapping
# to be known for an ELF image).  One without a GNU build-id (a Go
# binary, as runc is), started after dcpid, has none in its MMAP2 either:
# it is read through the mapping too, not taken for JIT code (it was,
# all its samples under [jit:memfdnobid]).  Raw code in a memfd (a JIT's double
# mapping) stays JIT code: its samples go to the pseudo-image
# [jit:COMMAND], not to an image read from the memfd.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "the raw code of memfdexec is x86-64's"

cc_work memfdexec "$top_srcdir/tests/workload/memfdexec.c"
cc_work memfdscan "$top_srcdir/tests/workload/memfdexec.c" -DMEMFD_NAME='"memfdscan"'
cc_work memfdnobid "$top_srcdir/tests/workload/memfdexec.c" -DMEMFD_NAME='"memfdnobid"' \
    -Wl,--build-id=none
readelf -n "$T/memfdnobid" | grep -q 'Build ID' && fail "memfdnobid has a GNU build-id"
"$T/memfdscan" 4 & sp=$!
sleep 0.5
start_dcpid -e perf::cpu-clock
"$T/memfdexec" 2 || fail "memfdexec failed"
"$T/memfdnobid" 2 || fail "memfdnobid failed"
wait $sp || fail "memfdscan failed"
cp "$T/memfdexec" "$T/dcpimemfdcode"
"$T/dcpimemfdcode" code 1 || fail "memfdexec code failed"
ctl flush >/dev/null || fail "dcpictl flush failed"

e=$(current_epoch)
f=$(profile_file "$e" memfdexec)
[ -n "$f" ] || fail "no profile of memfdexec: $(ls "$DB/$e"/*/*/)"
assert_hot "$e" memfdexec "$T/memfdexec" memfd_workload_hot 300
# (Its only path, the memfd's: the profile is named after it.)
assert_hot "$e" memfd:memfdscan "$T/memfdscan" memfd_workload_hot 300
# Named by the memfd's path, or by the program's own if its parent's
# samples read the image (by content) first.
n=memfd:memfdnobid
[ -n "$(profile_file "$e" "$n")" ] || n=memfdnobid
assert_hot "$e" "$n" "$T/memfdnobid" memfd_workload_hot 300
ctl prof --image memfdexec -n 1 --csv >"$T/prof.csv" || fail "prof --image memfdexec failed"
sed -n 2p "$T/prof.csv" | grep -q ',memfd_workload_hot,' ||
    fail "prof does not name memfd_workload_hot: $(sed -n 2p "$T/prof.csv")"
# The raw code: JIT code of its command, no image of the memfd.
ctl prof -i >"$T/images.txt" || fail "prof -i failed"
grep '\[jit:dcpimemfdcode\]' "$T/images.txt" || fail "no [jit:dcpimemfdcode]: $(cat "$T/images.txt")"
n=$(awk '/\[jit:dcpimemfdcode\]/ { print $1 }' "$T/images.txt")
[ "${n:-0}" -ge 200 ] || fail "[jit:dcpimemfdcode]: only ${n:-0} samples"
grep -q 'dcpi-jitcode' "$T/images.txt" && fail "an image was read from the code's memfd"
n=$(awk '/\[jit:memfdnobid\]/ { print $1 }' "$T/images.txt")
[ "${n:-0}" -lt 20 ] || fail "[jit:memfdnobid]: ${n} samples taken for JIT code"
assert_db_valid
stop_dcpid
