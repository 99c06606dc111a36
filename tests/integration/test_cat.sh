#!/bin/sh
# dcpictl cat on a profile written by libdcpi (tests/mkprofile), on the
# hand-written golden files, and on malformed files.  No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

G=$top_srcdir/tests/golden
MK=$top_builddir/tests/mkprofile

"$MK" "$T/p.prof" || fail "mkprofile failed"
cat >"$T/p.want" <<'END'
version pdb-0.07
image abc123
epoch 20261121223000
platform Linux test x86_64
event perf::cpu-clock
period 250000
tstart 7f0000001000
tsize 8192
cpuspeed 2000
path /bin/true
x-tool mkprofile
samples
0x7f0000001000 1
0x7f0000001001 2
0x7f0000001004 3
0x7f0000001008 4
0x7f0000002fff 4294967295
END
"$DCPICTL" cat "$T/p.prof" >"$T/p.out" 2>"$T/p.err" || fail "cat exited $?: $(cat "$T/p.err")"
diff -u "$T/p.want" "$T/p.out" || fail "cat of a library-written file"
[ ! -s "$T/p.err" ] || fail "stderr: $(cat "$T/p.err")"

# The file's layout: the header (as cat printed it) padded to a multiple
# of 4 bytes, then chunks [0,5) [8,9) [8191,8192) and the footer: 15 words.
h=$(sed -n '1,/^samples$/p' "$T/p.want" | wc -c)
h=$(( (h + 3) / 4 * 4 ))
[ "$(wc -c <"$T/p.prof")" = $((h + 60)) ] || fail "size $(wc -c <"$T/p.prof"), want $((h + 60))"

"$DCPICTL" cat --summary "$T/p.prof" >"$T/s.out" || fail "cat --summary exited $?"
{ sed -n '1,/^samples$/p' "$T/p.want"; printf 'total_offsets 5\ntotal_samples 4294967295\n'; } >"$T/s.want"
diff -u "$T/s.want" "$T/s.out" || fail "cat --summary"

for g in unknown epoch10 empty blanks; do
	"$DCPICTL" cat "$G/$g.prof" >"$T/$g.out" 2>"$T/$g.err" || fail "cat $g.prof exited $?: $(cat "$T/$g.err")"
	diff -u "$G/$g.cat" "$T/$g.out" || fail "cat $g.prof"
done

# Malformed files: one line on stderr naming file and place, exit 1, and
# the good files around them still printed.
check_bad() {	# FILE EXPECTED-STDERR
	rc=0
	"$DCPICTL" cat "$G/empty.prof" "$1" "$G/blanks.prof" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" = 1 ] || fail "cat $1 exited $rc, want 1"
	[ "$(wc -l <"$T/bad.err")" = 1 ] || fail "cat $1: stderr is not one line: $(cat "$T/bad.err")"
	[ "$(cat "$T/bad.err")" = "$2" ] || fail "cat $1: stderr '$(cat "$T/bad.err")', want '$2'"
	cat "$G/empty.cat" "$G/blanks.cat" | diff -u - "$T/bad.out" || fail "cat $1: good files not printed"
}
check_bad "$G/bad-overlap.prof" \
	"dcpictl: $G/bad-overlap.prof: byte 148: chunk at offset 0x2 overlaps the previous chunk (ends at 0x4)"
check_bad "$G/bad-noterm.prof" \
	"dcpictl: $G/bad-noterm.prof: line 4: end of file before the 'samples' line that ends the header"
head -c -4 "$T/p.prof" >"$T/short.prof"
check_bad "$T/short.prof" "dcpictl: $T/short.prof: byte $((h + 40)): truncated chunk: 1 counts need 4 bytes, 0 left before the footer"
sed 's/^tsize 8192/tsize 8191/' "$T/p.prof" >"$T/tsize.prof"
check_bad "$T/tsize.prof" "dcpictl: $T/tsize.prof: byte $((h + 40)): chunk at offset 0x1fff with 1 counts ends at 0x2000, past tsize 8191"
sed 's/^period 250000/period 25x000/' "$T/p.prof" >"$T/period.prof"
check_bad "$T/period.prof" "dcpictl: $T/period.prof: line 6: 'period' value '25x000' is not a decimal number"
check_bad "$T/missing.prof" "dcpictl: $T/missing.prof: No such file or directory"

rc=0
"$DCPICTL" cat >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "cat without files exited $rc, want 2"
exit 0
