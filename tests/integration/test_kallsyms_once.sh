#!/bin/sh
# kallsyms once per kernel: epochs rotated by dcpictl epoch
# share one snapshot, DB/kernels/KERNELID-HASH.gz, that each epoch's
# kallsyms.ref names; the kernel samples of a getppid(2) loop are named
# in `dcpictl prof` of every epoch and in an export; an epoch copied
# without DB/kernels/ says why its kernel samples are not named; gc of all
# epochs but the newest keeps the snapshot, gc of every epoch naming it
# removes it; a database of the older layout (a kallsyms copy in each
# epoch) still reads.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

h=$(hostname)
# Only its kernel samples matter here: which image its user code is in
# (test_callchain.sh builds chain.c too) does not.
cc_work chain_ks "$top_srcdir/tests/workload/chain.c"

# The kernel's rows of prof for an epoch, in CSV: kprof DB EPOCH OUT.
kprof() {
	"$DCPICTL" -d "$1" prof --epoch "$2" --image kernel.kallsyms --csv >"$3" 2>"$3.err" ||
	    fail "prof of $2 in $1 failed: $(cat "$3.err")"
}
# Whether the getppid loop's kernel samples are named (the system call's
# entry and exit paths), not shown as [kernel.kallsyms]+0xOFFSET.
named() {
	grep -Eq 'getppid|do_syscall_64|entry_SYSCALL|syscall_exit|syscall_enter' "$1"
}

# A module loaded or removed meanwhile (by something else on this
# machine) rightly gives a snapshot of its own: then the run is repeated.
modules() { cut -d' ' -f1 /proc/modules 2>/dev/null | sort | cksum; }
for try in 1 2 3; do
	rm -rf "$DB" && mkdir -m 0750 "$DB" || fail "cannot make $DB"
	m0=$(modules)
	start_dcpid -e perf::cpu-clock
	epochs=""
	for i in 1 2 3; do
		e=$(current_epoch)
		"$T/chain_ks" 1 sys || fail "workload failed"
		ctl epoch >/dev/null || fail "dcpictl epoch failed"
		epochs="$epochs $e"
	done
	newest=$(current_epoch)
	ctl flush >/dev/null || fail "flush failed"
	stop_dcpid
	[ "$(modules)" = "$m0" ] && break
	echo "modules changed during run $try: again"
done

# One snapshot, gzip, named by every epoch; no copy in any of them.
n=$(ls "$DB/kernels" | wc -l)
[ "$n" = 1 ] || fail "expected one kernel snapshot, found $n: $(ls "$DB/kernels")"
snap=$(ls "$DB/kernels")
case $snap in *-????????????????.gz) ;; *) fail "snapshot name $snap is not KERNELID-HASH.gz" ;; esac
zcat "$DB/kernels/$snap" | grep -q '^[0-9a-f]*[1-9a-f][0-9a-f]* [Tt] _stext$' ||
    fail "the snapshot has no kernel addresses"
for e in $epochs $newest; do
	[ "$(cat "$DB/$e/$h/kallsyms.ref")" = "kernels/$snap" ] ||
	    fail "$e/$h/kallsyms.ref: $(cat "$DB/$e/$h/kallsyms.ref" 2>&1), expected kernels/$snap"
	[ ! -e "$DB/$e/$h/kallsyms" ] || fail "$e still has its own kallsyms copy"
done
echo "$(echo $epochs $newest | wc -w) epochs, one snapshot: $(stat -c %s "$DB/kernels/$snap") bytes"

# Kernel samples named in each epoch with samples.
for e in $epochs; do
	kprof "$DB" "$e" "$T/k.$e"
	named "$T/k.$e" || fail "epoch $e: kernel samples not named: $(head -5 "$T/k.$e") $(cat "$T/k.$e.err")"
	! grep -q warning "$T/k.$e.err" || fail "epoch $e: $(cat "$T/k.$e.err")"
done
echo "kernel samples named in every epoch: $(sed -n 2p "$T/k.$e")"
set -- $epochs
first=$1

# An epoch archived without the database's kernels/: the kernel samples
# are shown by offset, and the warning says which file is missing.
mkdir -p "$T/arch" && cp -r "$DB/$first" "$T/arch/" || fail "cannot copy $first"
kprof "$T/arch" "$first" "$T/arch.csv"
grep -q "kernels/$snap" "$T/arch.csv.err" && grep -q 'copied without' "$T/arch.csv.err" ||
    fail "an epoch copied without kernels/ gives no clear warning: $(cat "$T/arch.csv.err")"
echo "archived epoch: $(head -1 "$T/arch.csv.err")"
# With the snapshot copied along it reads again.
mkdir -p "$T/arch/kernels" && cp "$DB/kernels/$snap" "$T/arch/kernels/" || fail "cannot copy the snapshot"
kprof "$T/arch" "$first" "$T/arch2.csv"
named "$T/arch2.csv" || fail "the archived epoch with its snapshot: kernel samples not named"

# Exported, the kernel's procedures keep their names (the exporters
# symbolize through the same reference).
ctl export --format=callgrind --epoch "$first" --image kernel.kallsyms -o "$T/k.cg" ||
    fail "export of $first failed"
named "$T/k.cg" || fail "export: kernel samples not named: $(grep '^fn=' "$T/k.cg" | head -3)"
echo "export names them: $(grep -m1 -E '^fn=.*(getppid|syscall|SYSCALL)' "$T/k.cg")"

# The older layout: each epoch its own plain copy, no reference.
mkdir -p "$T/old" && cp -r "$DB/$first" "$T/old/" || fail "cannot copy $first"
rm "$T/old/$first/$h/kallsyms.ref"
zcat "$DB/kernels/$snap" >"$T/old/$first/$h/kallsyms" || fail "cannot write the old layout"
kprof "$T/old" "$first" "$T/old.csv"
named "$T/old.csv" || fail "old layout: kernel samples not named: $(cat "$T/old.csv.err")"
echo "old layout reads: $(sed -n 2p "$T/old.csv")"

# gc: a snapshot younger than 10 minutes may be about to be named (its
# grace, as the build-id cache's): aged here.
touch -d '1 hour ago' "$DB/kernels/$snap"
out=$(ctl gc --keep-days 0 --keep-min 1) || fail "gc failed: $out"
[ "$(ls -d "$DB"/2* | wc -l)" = 1 ] || fail "gc kept $(ls "$DB")"
echo "$out" | grep -q '^kernel symbols: removed 0 snapshots, 0 bytes; 1 kept$' ||
    fail "gc of all but the newest: $out"
[ -f "$DB/kernels/$snap" ] || fail "gc removed the snapshot the newest epoch names"
kprof "$DB" "$newest" "$T/newest.csv"
# A later epoch without kernel symbols ends the newest one: gc deletes it,
# and with it the last reference.
sleep 1
later=$(date -u -d '1 second ago' +%Y%m%d%H%M%S)
[ "$later" \> "$newest" ] || { sleep 1; later=$(date -u -d '1 second ago' +%Y%m%d%H%M%S); }
mkdir -p "$DB/$later/$h" && ln -sfn "$later" "$DB/current" || fail "cannot make epoch $later"
out=$(ctl gc --keep-days 0 --keep-min 1 --dry-run) || fail "gc --dry-run failed"
echo "$out" | grep -q "^kernel symbols: would remove 1 snapshots, $(stat -c %s "$DB/kernels/$snap") bytes; 0 kept$" ||
    fail "gc --dry-run: $out"
[ -f "$DB/kernels/$snap" ] || fail "gc --dry-run removed the snapshot"
out=$(ctl gc --keep-days 0 --keep-min 1) || fail "gc failed: $out"
echo "$out" | grep -q "^deleted $newest$" || fail "gc did not delete $newest: $out"
echo "$out" | grep -q '^kernel symbols: removed 1 snapshots' || fail "gc of all: $out"
[ -z "$(ls -A "$DB/kernels")" ] || fail "left in kernels/: $(ls -A "$DB/kernels")"
echo "gc: kept while named, removed when no epoch names it"
