#!/bin/sh
# Call chains in the analysis commands, on a database of stacks of one
# program (mkstacks writes them as dcpid lays them out): dcpictl stacks
# prints folded stacks (root first, counts of equal stacks summed, by
# count, -n, --image-names, the idle task's apart, --label), prof
# --callers and --callees (shares of the procedure's samples, [self],
# [root], a recursive stack counted once, CSV and JSON), and the errors:
# an epoch without stack files, a procedure in no stack.  The folded
# format is checked here with awk: no flame graph tool is needed.  No perf
# needed.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mkstacks
MKP=$top_builddir/tests/mklabelled
command -v nm >/dev/null || fail "nm is not installed (README's test packages)"
cc_work stk "$top_srcdir/tests/workload/stacks.c" -fno-omit-frame-pointer
W=$T/stk
addr() { nm "$W" | awk -v f="$1" '$3 == f && ($2 == "T" || $2 == "t") { print $1 }'; }
MAIN=$(addr main) A=$(addr a) B=$(addr b) C=$(addr c) HOT=$(addr hot)
[ -n "$MAIN" ] && [ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$HOT" ] ||
	fail "nm finds no main, a, b, c or hot in $W"

# Epoch 1: hot called through b 300 times (in two runs: equal stacks add
# up), through c 100 times, 20 samples in code dcpid could not attribute
# (the kernel's, without kallsyms) under main, and the idle task's 1000
# through c, left out unless asked for.  Epoch 2: profiles but no stack
# files.  Epoch 3: hot recursing once.
E1=20260301000000 E2=20260302000000 E3=20260303000000
mk() { "$MK" "$DB" "$@" || fail "mkstacks $*"; }
mk $E1 h1 - "$W" "$HOT,$B,$A,$MAIN=200" "$HOT,$C,$A,$MAIN=100" "-,-,$MAIN=20"
mk $E1 h1 - "$W" "$HOT,$B,$A,$MAIN=100"
mk $E1 h1 '[idle]' "$W" "$HOT,$C,$A,$MAIN=1000"
"$MKP" "$DB" $E2 h1 - "$W" "$HOT=10" || fail "mklabelled $E2"
mk $E3 h1 - "$W" "$HOT,$HOT,$B,$A,$MAIN=10"

# Folded stacks: root first, leaf last, by count.
ctl stacks --epoch $E1 >"$T/folded" || fail "stacks failed"
want='main;a;b;hot 300
main;a;c;hot 100
main;[unknown];[unknown] 20'
[ "$(cat "$T/folded")" = "$want" ] || fail "stacks: $(cat "$T/folded")"
# What flamegraph.pl, speedscope and inferno read: "FRAME;FRAME... COUNT".
awk '!/^[^ ]+ [0-9]+$/ { print "bad line " NR ": " $0; bad = 1 } END { exit bad }' \
    "$T/folded" || fail "stacks: not folded stacks"
echo "stacks: $(tr '\n' '|' <"$T/folded")"
# -n: the top lines only.
[ "$(ctl stacks --epoch $E1 -n 1)" = "main;a;b;hot 300" ] ||
	fail "stacks -n 1: $(ctl stacks --epoch $E1 -n 1)"
# --image-names: DTrace's module`function per frame.
ctl stacks --epoch $E1 --image-names | grep -qx 'stk`main;stk`a;stk`b;stk`hot 300' ||
	fail "stacks --image-names: $(ctl stacks --epoch $E1 --image-names)"
# The idle task's stacks: with --idle, added to the others' of the same
# names; with --label '[idle]', alone.
ctl stacks --epoch $E1 --idle | grep -qx 'main;a;c;hot 1100' ||
	fail "stacks --idle: $(ctl stacks --epoch $E1 --idle)"
[ "$(ctl stacks --epoch $E1 --label '[idle]')" = "main;a;c;hot 1000" ] ||
	fail "stacks --label [idle]: $(ctl stacks --epoch $E1 --label '[idle]')"
# The recursive stack folds as it is.
[ "$(ctl stacks --epoch $E3)" = "main;a;b;hot;hot 10" ] ||
	fail "stacks (recursion): $(ctl stacks --epoch $E3)"

# prof --callers: the frame above hot's in each stack, as shares of hot's
# samples in stacks.
ctl prof --epoch $E1 --callers hot --csv >"$T/callers.csv" || fail "prof --callers failed"
want='perf::cpu-clock,perf::cpu-clock %,caller,image
300,75.00,b,stk
100,25.00,c,stk'
[ "$(cat "$T/callers.csv")" = "$want" ] || fail "prof --callers hot: $(cat "$T/callers.csv")"
ctl prof --epoch $E1 --callers hot >"$T/callers.txt" || fail "prof --callers (text) failed"
grep -q '^callers of hot: 400 samples of perf::cpu-clock in call chains$' "$T/callers.txt" &&
    grep -Eq '^ *300 +75\.00 +b +stk$' "$T/callers.txt" &&
    grep -Eq '^ *100 +25\.00 +c +stk$' "$T/callers.txt" ||
	fail "prof --callers hot (text): $(cat "$T/callers.txt")"
echo "prof --callers hot: $(sed 1d "$T/callers.csv" | tr '\n' ' ')"
# --callees: the frames below; the procedure as the sampled PC is [self],
# a chain that ends at it has [root] for a caller.
ctl prof --epoch $E1 --callees a --csv >"$T/callees.csv" || fail "prof --callees failed"
want='perf::cpu-clock,perf::cpu-clock %,callee,image
300,75.00,b,stk
100,25.00,c,stk'
[ "$(cat "$T/callees.csv")" = "$want" ] || fail "prof --callees a: $(cat "$T/callees.csv")"
[ "$(ctl prof --epoch $E1 --callees hot --csv | sed 1d)" = "400,100.00,[self],stk" ] ||
	fail "prof --callees hot: $(ctl prof --epoch $E1 --callees hot --csv)"
[ "$(ctl prof --epoch $E1 --callers main --csv | sed 1d)" = "420,100.00,[root]," ] ||
	fail "prof --callers main: $(ctl prof --epoch $E1 --callers main --csv)"
[ "$(ctl prof --epoch $E1 --callees main --csv | sed 1d | tr '\n' ' ')" = \
    "400,95.24,a,stk 20,4.76,[unknown], " ] ||
	fail "prof --callees main: $(ctl prof --epoch $E1 --callees main --csv)"
# -n, and stacks --callers is the same command.
[ "$(ctl prof --epoch $E1 --callers hot --csv -n 1 | sed 1d)" = "300,75.00,b,stk" ] ||
	fail "prof --callers -n 1: $(ctl prof --epoch $E1 --callers hot --csv -n 1)"
[ "$(ctl stacks --epoch $E1 --callers hot --csv)" = "$(cat "$T/callers.csv")" ] ||
	fail "stacks --callers hot: $(ctl stacks --epoch $E1 --callers hot --csv)"
# Recursion: the stack counts once, its nearest caller hot itself.
[ "$(ctl prof --epoch $E3 --callers hot --csv | sed 1d)" = "10,100.00,hot,stk" ] ||
	fail "prof --callers hot (recursion): $(ctl prof --epoch $E3 --callers hot --csv)"
[ "$(ctl prof --epoch $E3 --callees hot --csv | sed 1d)" = "10,100.00,[self],stk" ] ||
	fail "prof --callees hot (recursion): $(ctl prof --epoch $E3 --callees hot --csv)"
# JSON: the procedure, its samples and the rows.
ctl prof --epoch $E1 --callers hot --json >"$T/callers.json" || fail "prof --callers --json failed"
python3 - "$T/callers.json" <<'END' || fail "prof --callers --json: $(cat "$T/callers.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["procedure"] == "hot" and d["samples"] == 400, d
assert [(r["caller"], r["perf::cpu-clock"]) for r in d["callers"]] == [("b", 300), ("c", 100)], d
END

# Errors: an epoch without stack files, a procedure no stack holds, the
# options that do not go together.
ctl stacks --epoch $E2 >"$T/out" 2>"$T/err" && fail "stacks of an epoch without stacks succeeded"
grep -q "^dcpictl: stacks: no call chains in $DB/$E2: dcpid was not run with -g" "$T/err" ||
	fail "stacks without stack files: $(cat "$T/err")"
[ -s "$T/out" ] && fail "stacks without stack files printed: $(cat "$T/out")"
ctl prof --epoch $E2 --callers hot 2>"$T/err" && fail "prof --callers without stacks succeeded"
grep -q "^dcpictl: prof: no call chains in $DB/$E2" "$T/err" ||
	fail "prof --callers without stack files: $(cat "$T/err")"
ctl prof --epoch $E1 --callers nosuch 2>"$T/err"; [ $? = 1 ] ||
	fail "prof --callers nosuch: not exit status 1"
grep -q "^dcpictl: prof: no call chain holds the procedure 'nosuch'$" "$T/err" ||
	fail "prof --callers nosuch: $(cat "$T/err")"
ctl prof -i --callers hot 2>/dev/null; [ $? = 2 ] || fail "prof -i --callers: not a usage error"
ctl stacks --csv 2>/dev/null; [ $? = 2 ] || fail "stacks --csv: not a usage error"
echo "errors: $(head -c 200 "$T/err")"

# Chains of their own period (dcpid's callchain-period, the stack file's
# chains lines), in a database of their own: an epoch of chains every
# 10 ms keeps its counts of samples; with an epoch of 1 ms chains beside
# it, each 10 ms sample counts 10, and a note says so.
D2=$T/db2
MKSTACKS_CHAINS="10000000 0" "$MK" "$D2" $E1 h1 - "$W" "$HOT,$B,$A,$MAIN=30" ||
	fail "mkstacks 10 ms"
MKSTACKS_CHAINS="1000000 0" "$MK" "$D2" $E3 h1 - "$W" "$HOT,$B,$A,$MAIN=50" "$HOT,$C,$A,$MAIN=7" ||
	fail "mkstacks 1 ms"
[ "$("$DCPICTL" -d "$D2" stacks --epoch $E1 2>"$T/err")" = "main;a;b;hot 30" ] ||
	fail "stacks of 10 ms chains: $("$DCPICTL" -d "$D2" stacks --epoch $E1)"
[ -s "$T/err" ] && fail "one period, yet a note: $(cat "$T/err")"
"$DCPICTL" -d "$D2" stacks --all >"$T/out" 2>"$T/err" || fail "stacks --all of two periods failed"
want='main;a;b;hot 350
main;a;c;hot 7'
[ "$(cat "$T/out")" = "$want" ] || fail "stacks of 10 ms and 1 ms chains: $(cat "$T/out")"
grep -qx 'dcpictl: stacks: note: call chains sampled every 1000000 to 10000000 events, counted as samples every 1000000' "$T/err" ||
	fail "no note of the periods: $(cat "$T/err")"
"$DCPICTL" -d "$D2" prof --all --callers hot --csv 2>/dev/null | grep -q '^350,98.0[0-9]*,b,' ||
	fail "prof --callers of two periods: $("$DCPICTL" -d "$D2" prof --all --callers hot --csv)"
echo "periods: $(tr '\n' '|' <"$T/out") $(cat "$T/err")"
