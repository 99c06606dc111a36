#!/bin/sh
# Packed epochs: a live dcpid with -g, an epoch ended by
# `dcpictl epoch`; `dcpictl compress` packs the ended epoch's host
# directory into one file, HOST/pack.gz, and leaves the current epoch
# alone (and refuses it by name); prof, prof -i, list, diff, stacks,
# export and gc --dry-run print the same before and after; a crash between
# the pack and the removal of the loose files (both there) reads the same
# and is finished by compressing again; the epoch dcpid's exit leaves
# current is not packed; the uncompressed epoch, the layout of every
# database before this change, still reads (the views before packing).
. "$top_srcdir/tests/integration/lib.sh"
require_perf

h=$(hostname)
build_hot epochgz -fno-omit-frame-pointer
start_dcpid -e perf::cpu-clock -g
"$T/epochgz" 2 || fail "workload failed"
e1=$(current_epoch)
ctl epoch >/dev/null || fail "dcpictl epoch failed"
"$T/epochgz" 1 || fail "workload failed"
ctl flush >/dev/null || fail "flush failed"
e2=$(current_epoch)
[ "$e1" != "$e2" ] || fail "the epoch did not change"
ls "$DB/$e1/$h/stacks" >/dev/null || fail "no stack file in $e1"

# What each reader prints of the ended epoch: views DIR.  Only stdout is
# compared, and only the workload's rows where the output names other
# images: the sampling is system-wide, and other tests' programs whose
# files are removed meanwhile (their own copies of hot.c among them) are
# named by offset and warned about.
views() {
	mkdir -p "$1"
	ctl prof --epoch "$e1" --image "$T/epochgz" --csv >"$1/prof" 2>"$1/prof.err" ||
	    fail "prof failed: $(cat "$1/prof.err")"
	ctl prof -i --epoch "$e1" --csv >"$1/prof-i" 2>"$1/prof-i.err" || fail "prof -i failed"
	ctl list dcpi_workload_hot --epoch "$e1" --image "$T/epochgz" >"$1/list" 2>"$1/list.err" ||
	    fail "list failed: $(cat "$1/list.err")"
	ctl diff "$e1" "$e2" --image "$T/epochgz" --csv >"$1/diff" 2>"$1/diff.err" ||
	    fail "diff failed: $(cat "$1/diff.err")"
	ctl stacks --image-names --epoch "$e1" 2>"$1/stacks.err" | grep 'epochgz`' >"$1/stacks" ||
	    fail "stacks failed or lack epochgz's frames: $(cat "$1/stacks.err")"
	ctl export --format=pprof --epoch "$e1" --image "$T/epochgz" -o "$1/epochgz.prof" \
	    >"$1/export.out" 2>&1 || fail "export failed: $(cat "$1/export.out")"
	ctl gc --dry-run --keep-days 100000 >"$1/gc" 2>"$1/gc.err" || fail "gc --dry-run failed"
}
views "$T/before"
grep -q dcpi_workload_hot "$T/before/prof" || fail "no dcpi_workload_hot in prof: $(head -5 "$T/before/prof")"
cp -r "$DB/$e1" "$T/loose" || fail "cannot copy $e1"

# The current epoch by name: refused, untouched.
ctl compress "$e2" >"$T/cur.out" 2>&1 && fail "compress of the current epoch succeeded"
grep -q current "$T/cur.out" || fail "no reason given: $(cat "$T/cur.out")"
ctl compress >"$T/compress.out" || fail "compress failed: $(cat "$T/compress.out")"
cat "$T/compress.out"
grep -q "^$e1: " "$T/compress.out" || fail "compress did not say it packed $e1"
! grep -q "^$e2: " "$T/compress.out" || fail "compress packed the current epoch $e2"
[ "$(ls -A "$DB/$e1/$h")" = pack.gz ] || fail "$e1/$h holds more than pack.gz: $(ls -A "$DB/$e1/$h")"
[ "$(zcat "$DB/$e1/$h/pack.gz" | head -n 1)" = "dcpi-pack 1" ] || fail "pack.gz is not a dcpi-pack 1"
[ ! -e "$DB/$e2/$h/pack.gz" ] || fail "the current epoch was packed"
ls "$DB/$e2/$h/perf::cpu-clock" >/dev/null || fail "the current epoch lost its profiles"

views "$T/after"
for f in prof prof-i list diff stacks epochgz.prof gc; do
	cmp -s "$T/before/$f" "$T/after/$f" ||
	    fail "$f differs once packed: $(diff "$T/before/$f" "$T/after/$f" | head -30)"
done
echo "prof, list, diff, stacks, export and gc print the same once packed"

# dcpid still writes the current epoch, and rotates on.
"$T/epochgz" 0.5 || fail "workload failed"
ctl flush >/dev/null || fail "flush after compress failed"
ctl epoch >/dev/null || fail "epoch after compress failed"
stop_dcpid
# dcpid's exit leaves its epoch current, to be continued: not packed.
e3=$(current_epoch)
ctl compress >"$T/exit.out" || fail "compress after dcpid's exit failed: $(cat "$T/exit.out")"
grep -q "^$e2: " "$T/exit.out" || fail "compress did not pack $e2, ended: $(cat "$T/exit.out")"
[ ! -e "$DB/$e3/$h/pack.gz" ] || fail "the current epoch $e3 was packed after dcpid's exit"

# A crash after the pack, before the loose files went: both, read once.
cp -r "$T/loose/$h/." "$DB/$e1/$h/" || fail "cannot put the loose files back"
views "$T/crash"
for f in prof list stacks epochgz.prof; do
	cmp -s "$T/before/$f" "$T/crash/$f" ||
	    fail "$f differs with both pack and loose files: $(diff "$T/before/$f" "$T/crash/$f" | head -30)"
done
ctl compress "$e1" >"$T/again.out" || fail "compress again failed"
[ "$(ls -A "$DB/$e1/$h")" = pack.gz ] || fail "compress again left $(ls -A "$DB/$e1/$h")"
views "$T/again"
cmp -s "$T/before/prof" "$T/again/prof" ||
    fail "prof differs after compressing again: $(diff "$T/before/prof" "$T/again/prof" | head -5)"
echo "a crash between pack and removal reads the same; compress finishes it"
