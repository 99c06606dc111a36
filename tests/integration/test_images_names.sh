#!/bin/sh
# Names that any user can give a program: a newline, a blank, a comma and
# a quote in its file name, one ending in " (deleted)" (the kernel's word
# for an unlinked file, but this file is there), one 250 bytes long (its
# profile's file name, NAME.IMAGEID, once did not fit NAME_MAX: every
# flush failed), a newline in its command (JIT code is named
# after it), a newline and markup in a symbol.  A profile's header and a
# stack file's image row are lines, so a newline once made every flush
# fail for as long as such a program had samples.  Now the recorded path
# writes a newline \012, as /proc/PID/maps does, whether the file was
# learnt from an MMAP2 record or from the scan of /proc; every flush
# succeeds, each program's samples are in its hot function under that
# name, and the Callgrind export writes a control byte in a symbol \xHH
# (its names end at the line's end), which callgrind_annotate reads.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "the raw code of memfdexec is x86-64's"
command -v callgrind_annotate >/dev/null || skip "no callgrind_annotate (valgrind)"
command -v perl >/dev/null || skip "no perl"

nl='
'
src=$top_srcdir/tests/workload/ctiny.c
cc_work scan "$src" -DWORKLOAD_TAG='"names-scan"'
cc_work mmap "$src" -DWORKLOAD_TAG='"names-mmap"'
cc_work blank "$src" -DWORKLOAD_TAG='"names-blank"'
cc_work sym "$src" -DWORKLOAD_TAG='"names-sym"'
cc_work deleted "$src" -DWORKLOAD_TAG='"names-deleted"'
cc_work long "$src" -DWORKLOAD_TAG='"names-long"'
mv "$T/scan" "$T/nl${nl}scan"
mv "$T/mmap" "$T/nl${nl}mmap"
mv "$T/blank" "$T/sp ace,\"q"
# A name the kernel also writes for an unlinked file: this one is not.
mv "$T/deleted" "$T/x (deleted)"
# 250 bytes, of NAME_MAX's 255: the profile's file name is cut to fit
# ".IMAGEID" (214 bytes of name beside a 40-digit build-id).
long=$(printf 'L%.0s' $(seq 1 250))
long214=$(printf 'L%.0s' $(seq 1 214))
mv "$T/long" "$T/$long"
# The symbol ctiny_hot, in the symbol table and the DWARF, renamed to
# nine bytes of the same length; the program runs as before.
perl -0777 -pe 's/ctiny_hot/ct\ny;h<&t/g' "$T/sym" >"$T/symx" && chmod +x "$T/symx" ||
    fail "cannot rename the symbol"
cc_work memfdexec "$top_srcdir/tests/workload/memfdexec.c"
cp "$T/memfdexec" "$T/jit${nl}nl"

"$T/nl${nl}scan" 4000 & sp=$!
sleep 0.3
start_dcpid -e perf::cpu-clock
"$T/nl${nl}mmap" 600 || [ $? = 1 ] || fail "the program named with a newline failed"
"$T/sp ace,\"q" 600 || [ $? = 1 ] || fail "the program named with a blank failed"
"$T/symx" 600 || [ $? = 1 ] || fail "the program with a renamed symbol failed"
"$T/x (deleted)" 600 || [ $? = 1 ] || fail "the program named '... (deleted)' failed"
"$T/$long" 600 || [ $? = 1 ] || fail "the program with a 250-byte name failed"
"$T/jit${nl}nl" code 1 || fail "memfdexec code failed"
ctl flush >"$T/flush.out" 2>&1 || fail "the flush failed: $(cat "$T/flush.out")"
# Again: a name that broke a flush broke every one after it.
"$T/nl${nl}mmap" 200 || [ $? = 1 ] || fail "the program named with a newline failed"
ctl flush >"$T/flush.out" 2>&1 || fail "the second flush failed: $(cat "$T/flush.out")"
wait $sp || [ $? = 1 ] || fail "the program scanned at start failed"
ctl flush >"$T/flush.out" 2>&1 || fail "the third flush failed: $(cat "$T/flush.out")"

e=$(current_epoch)
assert_hot "$e" 'nl\012scan' "$T/nl${nl}scan" ctiny_hot 200
assert_hot "$e" 'nl\012mmap' "$T/nl${nl}mmap" ctiny_hot 200
assert_hot "$e" 'sp ace,"q' "$T/sp ace,\"q" ctiny_hot 200
assert_hot "$e" symx "$T/sym" ctiny_hot 200
assert_hot "$e" 'x (deleted)' "$T/x (deleted)" ctiny_hot 200
assert_hot "$e" "$long214" "$T/$long" ctiny_hot 200
ctl prof -i >"$T/images.txt" || fail "prof -i failed"
for name in 'nl\\012scan' 'nl\\012mmap' 'sp ace,"q' 'symx' 'x (deleted)' '\[jit:jit\\012nl\]'; do
	grep -q " $name\$" "$T/images.txt" || fail "prof -i has no image '$name': $(cat "$T/images.txt")"
done
n=$(awk '/\[jit:jit\\012nl\]$/ { print $1 }' "$T/images.txt")
[ "${n:-0}" -ge 200 ] || fail "[jit:jit\\012nl]: only ${n:-0} samples"
# The path recorded names no file: the image was kept in the build-id
# cache, from which prof names its procedures.
ctl prof --image 'nl\012mmap' -n 1 --csv >"$T/prof.csv" || fail "prof --image failed"
sed -n 2p "$T/prof.csv" | grep -q ',ctiny_hot,' ||
    fail "prof does not name ctiny_hot in nl\\012mmap: $(cat "$T/prof.csv")"
ctl prof --image symx -n 1 >"$T/sym.txt" || fail "prof --image symx failed"
grep -q 'ct\\x0ay;h<&t  *symx$' "$T/sym.txt" || fail "prof: $(cat "$T/sym.txt")"

ctl export --format=callgrind --image symx -o "$T/sym.cg" || fail "export callgrind failed"
grep -q '^fn=([0-9]*) ct\\x0ay;h<&t$' "$T/sym.cg" || fail "no escaped fn= line: $(head -20 "$T/sym.cg")"
grep -q '^y;h' "$T/sym.cg" && fail "a symbol's newline split a line of the Callgrind file"
callgrind_annotate "$T/sym.cg" >"$T/cga.txt" 2>&1 || fail "callgrind_annotate failed: $(cat "$T/cga.txt")"
grep -q 'ct\\x0ay;h<&t' "$T/cga.txt" || fail "callgrind_annotate: $(cat "$T/cga.txt")"
# gmon writes a file per image, OUTPUT.NAME.IMAGEID: the long name is cut
# further so that the whole fits NAME_MAX, and every image is written.
mkdir "$T/gmon"
ctl export --format=gmon -o "$T/gmon/gmon.out" >"$T/gmon.list" 2>"$T/gmon.err" ||
    fail "export gmon failed: $(cat "$T/gmon.err")"
g=$(grep "/gmon.out.LLLL" "$T/gmon.list") || fail "no gmon file for the long name: $(cat "$T/gmon.list")"
[ -f "$g" ] && [ ${#g} -gt 255 ] && [ $(basename "$g" | wc -c) = 256 ] ||
    fail "gmon file '$g': not a 255-byte name"
gprof -b -p "$T/$long" "$g" | awk '$NF == "ctiny_hot" { s = $3 } END { exit !(s > 0.1) }' ||
    fail "gprof reads no ctiny_hot in $g: $(gprof -b -p "$T/$long" "$g" 2>&1 | head -8)"
for name in 'x (deleted)' 'sp ace,"q'; do
	grep -qF "/gmon.out.$name." "$T/gmon.list" || fail "no gmon file for '$name': $(cat "$T/gmon.list")"
done
assert_db_valid
stop_dcpid
