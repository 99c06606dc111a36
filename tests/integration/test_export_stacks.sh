#!/bin/sh
# Exports with call chains (dcpid -g's stack files): on a database of
# stacks of one program made by mkstacks (main;a;b;hot 300 samples,
# main;a;c;hot 100), the real readers must see the calls: callgrind_annotate
# --inclusive=yes gives b and c inclusive costs 3:1 and a and main all of
# hot's, gprof -q's call graph has hot called by b and c 3:1, and
# google-pprof --cum gives b and c cumulative shares 3:1.  Self costs stay
# the flat profile's.  No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mkstacks
for tool in nm google-pprof gprof callgrind_annotate; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: google-perftools, binutils, valgrind)"
done
# Aligned procedures: gprof splits a 2-byte bin that straddles two symbols.
cc_work stk "$top_srcdir/tests/workload/stacks.c" -fno-omit-frame-pointer -falign-functions=16
W=$T/stk
# A frame inside procedure $1: callers' frames are return addresses, which
# pprof moves back by a byte to find the call, so not the first byte.
addr() {
	a=$(nm "$W" | awk -v f="$1" '$3 == f && ($2 == "T" || $2 == "t") { print $1 }')
	[ -n "$a" ] || fail "nm finds no $1 in $W"
	printf '%x' $((0x$a + 4))
}
MAIN=$(addr main) A=$(addr a) B=$(addr b) C=$(addr c) HOT=$(addr hot)
E=20260301000000
"$MK" "$DB" $E h1 - "$W" "$HOT,$B,$A,$MAIN=300" "$HOT,$C,$A,$MAIN=100" ||
	fail "mkstacks failed"

# ratio3 X Y: X and Y are 3:1, X / (X + Y) within 5 points of 75%.
ratio3() {
	awk -v x="$1" -v y="$2" 'BEGIN { if (x + y == 0) exit 1; p = 100 * x / (x + y);
	    d = p - 75; if (d < 0) d = -d; exit !(d <= 5) }'
}

# Callgrind: self costs as before (hot all 400), inclusive costs from the
# calls= lines.
ctl export --format=callgrind -o "$T/cg.out" || fail "export callgrind failed"
grep -q '^calls=' "$T/cg.out" || fail "no calls= lines in the callgrind export"
callgrind_annotate --inclusive=yes "$T/cg.out" >"$T/cgi.txt" 2>&1 ||
	fail "callgrind_annotate failed: $(cat "$T/cgi.txt")"
# "400 (100.0%)  stk.c:hot [/path/stk]": the count of function $1.
cgi() { awk -v f=":$1" '{ for (i = 2; i <= NF; i++) { n = length($i); if (n >= length(f) && substr($i, n - length(f) + 1) == f) { gsub(",", "", $1); print $1; exit } } }' "$T/cgi.txt"; }
ib=$(cgi b) ic=$(cgi c) ia=$(cgi a) im=$(cgi main) ih=$(cgi hot)
echo "callgrind_annotate --inclusive=yes: main $im a $ia b $ib c $ic hot $ih"
[ "$ih" = 400 ] || fail "callgrind: hot inclusive '$ih', expected 400: $(cat "$T/cgi.txt")"
ratio3 "$ib" "$ic" || fail "callgrind: b '$ib' and c '$ic' inclusive, expected 3:1"
[ "$ia" = 400 ] && [ "$im" = 400 ] || fail "callgrind: a '$ia', main '$im' inclusive, expected 400"
callgrind_annotate "$T/cg.out" >"$T/cgs.txt" 2>&1 || fail "callgrind_annotate (self) failed"
grep -q 'PROGRAM TOTALS' "$T/cgs.txt" &&
    [ "$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' "$T/cgs.txt")" = 400 ] ||
	fail "callgrind: total is not 400: $(cat "$T/cgs.txt")"
# Our reader takes the calls too, and the totals still add up.
ctl cat "$T/cg.out" >/dev/null || fail "dcpictl cat of the callgrind export failed"

# gmon.out: arcs.  gprof -q's entry of hot: "300/400  b [N]".
ctl export --format=gmon -o "$T/gmon.out" || fail "export gmon failed"
gprof -b -q "$W" "$T/gmon.out" >"$T/gprof.txt" 2>&1 || fail "gprof failed: $(cat "$T/gprof.txt")"
called() { awk -v f="$1" 'NF >= 3 && $(NF - 1) == f && $(NF - 2) ~ /^[0-9]+\/400$/ { split($(NF - 2), v, "/"); print v[1]; exit }' "$T/gprof.txt"; }
gb=$(called b) gc=$(called c)
echo "gprof -q: hot called by b $gb, c $gc"
ratio3 "$gb" "$gc" || fail "gprof: hot called '$gb' times by b, '$gc' by c, expected 3:1: $(cat "$T/gprof.txt")"

# pprof: the chains in the records.
ctl export --format=pprof -o "$T/x.prof" || fail "export pprof failed"
google-pprof --text --cum "$W" "$T/x.prof" >"$T/pprof.txt" 2>"$T/pprof.err" ||
	fail "google-pprof failed: $(cat "$T/pprof.err")"
grep -q '^Total: 400 samples' "$T/pprof.txt" || fail "pprof total: $(head -1 "$T/pprof.txt")"
cum() { awk -v f="$1" '$6 == f { print $4; exit }' "$T/pprof.txt"; }
pb=$(cum b) pc=$(cum c) pm=$(cum main) ph=$(cum hot)
echo "google-pprof --cum: main $pm b $pb c $pc hot $ph"
ratio3 "$pb" "$pc" || fail "pprof: b '$pb' and c '$pc' cumulative, expected 3:1: $(cat "$T/pprof.txt")"
[ "$pm" = 400 ] && [ "$ph" = 400 ] || fail "pprof: main '$pm', hot '$ph' cumulative, expected 400"
exit 0
