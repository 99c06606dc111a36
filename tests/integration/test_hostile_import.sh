#!/bin/sh
# Hostile and large imported files: control bytes in
# an imported name are rejected with their byte offset and leave nothing in
# the database; dcpictl never prints a control byte from a database raw;
# periods, costs and addresses that overflow 64 bits are rejected as out of
# range; the Callgrind export of an image that no longer symbolizes and the
# cat of a Callgrind file with many compressed names take linear time.
# No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mkhostile
ESC=$(printf '\033')

# rejected FILE PATTERN [IMPORT ARGS]: import fails with one line naming
# the file and PATTERN, and the database is not even created.
rejected() {
	f=$1 pat=$2; shift 2
	if ctl import "$f" --epoch 20260101000000 "$@" >"$T/out" 2>"$T/err"; then
		fail "import accepted $f"
	fi
	[ "$(wc -l <"$T/err")" = 1 ] || fail "import of $f: not one line: $(cat -v "$T/err")"
	grep -q "$f: $pat" "$T/err" || fail "import of $f: '$(cat -v "$T/err")' lacks '$pat'"
	! grep -q "$ESC" "$T/out" "$T/err" || fail "import of $f printed a raw ESC"
	[ ! -e "$DB" ] || fail "rejected import of $f left $(find "$DB" | cat -v | tr '\n' ' ')"
}

# Item 5: an ESC sequence, and a blank the header grammar does not allow
# first, in a gmon histogram dimension (it would name an event directory).
"$MK" gmon "$T/esc.gmon" '\033[31mred' || fail "mkhostile failed"
rejected "$T/esc.gmon" "byte 45: .*0x1b" --image /bin/true
"$MK" gmon "$T/blank.gmon" ' lead' || fail "mkhostile failed"
rejected "$T/blank.gmon" "byte 45: .*0x20" --image /bin/true
echo "gmon dimensions with ESC or a leading blank: rejected at byte 45, nothing left"

# A database already holding such names (written by an older dcpictl or
# by hand): epochs, prof and cat print \x1b, never the byte.
d=$DB/20260101000000/h/${ESC}[31mred::cloc
mkdir -p "$d" || fail "cannot make $d"
"$MK" dcpi "$T/plain.dcpi" 16 1000 || fail "mkhostile failed"
sed "s/^event perf::cpu-clock\$/event ${ESC}[31mred::cloc/" "$T/plain.dcpi" >"$d/true.abc123"
for cmd in epochs prof "prof --csv" "cat $d/true.abc123"; do
	ctl $cmd >"$T/out" 2>"$T/err" || fail "$cmd failed: $(cat -v "$T/err")"
	! grep -q "$ESC" "$T/out" "$T/err" || fail "$cmd printed a raw ESC: $(cat -v "$T/out")"
	grep -q '\\x1b\[31mred' "$T/out" || fail "$cmd does not show the name escaped: $(cat "$T/out")"
done
rm -rf "$DB"
echo "names with ESC in a database: epochs, prof and cat print \\x1b"

# Item 6: pprof periods that overflow µs -> ns, or are 0.
"$MK" pprof "$T/max.prof" 18446744073709551615 || fail "mkhostile failed"
rejected "$T/max.prof" "byte 24: sampling period 18446744073709551615 us is out of range" --image /bin/true
"$MK" pprof "$T/zero.prof" 0 || fail "mkhostile failed"
rejected "$T/zero.prof" "byte 24: sampling period 0 us is out of range" --image /bin/true
"$MK" pprof "$T/ok.prof" 1000 || fail "mkhostile failed"
ctl cat "$T/ok.prof" | grep -q '^period   1000 us' || fail "cat of a good pprof period"
echo "pprof periods 2^64-1 and 0 us: rejected at byte 24"

# A Callgrind cost above 2^64-1, and a total that passes it.
printf 'events: Ir\nfn=main\n1 18446744073709551616\n' >"$T/big.cg"
if ctl cat "$T/big.cg" >/dev/null 2>"$T/err"; then fail "cat accepted a cost above 2^64"; fi
grep -q "big.cg: line 3: cost 1 is out of range" "$T/err" || fail "cost above 2^64: $(cat "$T/err")"
printf 'events: Ir\nfn=main\n1 18446744073709551615\n2 1\n' >"$T/sum.cg"
if ctl cat "$T/sum.cg" >/dev/null 2>"$T/err"; then fail "cat accepted a total above 2^64"; fi
grep -q "sum.cg: line 4: cost 1 .*out of range" "$T/err" || fail "total above 2^64: $(cat "$T/err")"
echo "Callgrind costs above 2^64-1: out of range, with the line"

# tstart near 2^64: tstart + offset must not wrap.
"$MK" dcpi "$T/wrap.dcpi" 16 fffffffffffffff8 || fail "mkhostile failed"
if ctl cat "$T/wrap.dcpi" >"$T/out" 2>"$T/err"; then fail "cat printed wrapped addresses: $(tail -n 2 "$T/out")"; fi
grep -q "wrap.dcpi: byte [0-9]*: tstart 0xfffffffffffffff8 plus offset 0xf is past 2^64" "$T/err" ||
	fail "wrapping tstart: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "cat printed part of a file it rejects"
"$MK" dcpi "$T/top.dcpi" 16 fffffffffffffff0 || fail "mkhostile failed"
[ "$(ctl cat "$T/top.dcpi" | tail -n 1)" = "0xffffffffffffffff 1" ] || fail "cat of the last addresses below 2^64"
echo "tstart near 2^64: the last address prints, a wrapping one is rejected"

# Item 8: an ELF file whose section header table is corrupted (e_shnum
# past the end of the file) gives [unknown] with a warning naming it.
cc_work hot "$top_srcdir/tests/workload/hot.c" -fPIE -pie -DWORKLOAD_TAG='"hostile_hot"'
"$MK" gmon "$T/hot.gmon" samples || fail "mkhostile failed"
ctl import "$T/hot.gmon" --image "$T/hot" --epoch 20260101000000 >/dev/null || fail "import of hot.gmon failed"
ctl prof 2>"$T/err" | grep -q '\[unknown\]' && fail "hot's first bytes show as [unknown] before the damage"
printf '\360\377' | dd of="$T/hot" bs=1 seek=60 conv=notrunc 2>/dev/null || fail "dd failed"
ctl prof >"$T/out" 2>"$T/err" || fail "prof failed: $(cat "$T/err")"
grep -q '\[unknown\]' "$T/out" || fail "prof of a damaged image: $(cat "$T/out")"
grep -q "^dcpictl: warning: $T/hot: cannot read its symbols: section header table" "$T/err" ||
	fail "no warning naming the damaged ELF file: '$(cat "$T/err")'"
[ "$(wc -l <"$T/err")" = 1 ] || fail "the warning is not given once: $(cat "$T/err")"
rm -rf "$DB"
echo "corrupted section headers: [unknown] with a warning naming the file"

# Item 7: linear time.  timeout guards against a hang; the time of 10N
# against N must stay well below the 100x of a quadratic path (timings
# themselves are in bench/README).
now() { date +%s%N; }
# best_of K CMD...: the shortest of K runs in ns (timeout 20 s each).
best_of() {
	k=$1; shift; best=
	for _ in $(seq "$k"); do
		t0=$(now)
		timeout 20 "$@" >/dev/null 2>&1 || fail "$* failed or took over 20 s"
		t=$(( $(now) - t0 ))
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
	done
	echo "$best"
}
linear() {	# linear WHAT T_N T_10N
	echo "$1: N $(($2 / 1000000)) ms, 10N $(($3 / 1000000)) ms"
	[ "$3" -lt $(($2 * 50)) ] || fail "$1: 10N takes $(($3 / $2))x the time of N (quadratic?)"
}
for n in 100000 1000000; do
	mkdir -p "$T/db$n/20260101000000/h/perf::cpu-clock"
	"$MK" dcpi "$T/db$n/20260101000000/h/perf::cpu-clock/true.abc123" $n 1000 || fail "mkhostile failed"
	"$MK" cg "$T/$n.cg" $n || fail "mkhostile failed"
done
"$DCPICTL" -d "$T/db1000000" export --format=callgrind -o "$T/e.cg" 2>/dev/null || fail "export failed"
[ "$(grep -c '^fn=([0-9]*) 0x' "$T/e.cg")" = 1000000 ] || fail "export does not name 1M addresses"
linear "callgrind export, image with another build-id" \
    "$(best_of 3 "$DCPICTL" -d "$T/db100000" export --format=callgrind -o "$T/e.cg")" \
    "$(best_of 2 "$DCPICTL" -d "$T/db1000000" export --format=callgrind -o "$T/e.cg")"
[ "$("$DCPICTL" cat "$T/1000000.cg" | grep -c '^2 f')" = 1000000 ] || fail "cat does not read 1M names"
linear "cat of Callgrind names" "$(best_of 3 "$DCPICTL" cat "$T/100000.cg")" \
    "$(best_of 2 "$DCPICTL" cat "$T/1000000.cg")"
exit 0
