#!/bin/sh
# Call chains on a live dcpid: with -g, a program where hot()
# is called from b() three times as often as from c() gives, through the
# epoch's stack file, `dcpictl stacks` with the chain main;a;b;hot and
# `prof --callers hot` b 75% and c 25% (within 5 points); a getppid(2)
# loop gives kernel frames under the user ones in one stack; and the flat
# profile with -g is the flat profile without it, within sampling noise.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work chain "$top_srcdir/tests/workload/chain.c" -fno-omit-frame-pointer
# A chain with every sample (callchain-period 1x): the split is checked
# within 5 points, which a tenth of the samples would not hold; jittered
# periods, as the b, b, b, c loop can fall in step with a fixed 1 ms (81%
# for b once on a loaded host).
start_dcpid -e perf::cpu-clock -g --callchain-period 1x --period-jitter 20
"$T/chain" 2 || fail "chain failed"
"$T/chain" 1 sys || fail "chain sys failed"
ctl flush >/dev/null || fail "flush failed"
ctl status | grep -E '^(callchains|memory-stacks)' || fail "status failed"
ep=$(current_epoch)
ls "$DB/$ep"/*/stacks >/dev/null 2>&1 || fail "no stack file in $DB/$ep"

ctl stacks >"$T/folded" || fail "dcpictl stacks failed"
# Folded: frames, a blank, the count (flamegraph.pl splits at the last
# blank: C++ names may hold blanks).
awk '!/^[^;]+(;[^;]+)* [0-9]+$/ { bad = 1 } END { exit bad }' "$T/folded" ||
    fail "not folded stacks: $(grep -Ev ' [0-9]+$' "$T/folded" | head -3)"
grep -E '(^|;)main;a;b;hot [0-9]+$' "$T/folded" || fail "no main;a;b;hot: $(head -5 "$T/folded")"
grep -E '(^|;)main;a;c;hot [0-9]+$' "$T/folded" || fail "no main;a;c;hot"

ctl prof --callers hot --csv >"$T/callers.csv" || fail "prof --callers hot failed"
cat "$T/callers.csv"
# chain's own rows, as shares of their sum: a tagged copy of chain.c that
# another test runs beside this one (test_export_proto.sh) has procedures
# of the same names in its own image, which the percentages include.
nb=$(awk -F, '$3 == "b" && $4 == "chain" { print $1 }' "$T/callers.csv")
nc=$(awk -F, '$3 == "c" && $4 == "chain" { print $1 }' "$T/callers.csv")
[ -n "$nb" ] && [ -n "$nc" ] || fail "prof --callers hot lacks b or c of chain"
pb=$((100 * nb / (nb + nc))) pc=$((100 * nc / (nb + nc)))
awk -v b="$pb" -v c="$pc" 'BEGIN { exit !(b >= 70 && b <= 80 && c >= 20 && c <= 30) }' ||
    fail "callers of hot: b $pb%, c $pc%, expected 75 and 25"

# The syscall loop: one stack holding the user frames and the kernel's
# below them, nearer the leaf.  libc's getppid has no frame pointer of its
# own, so the chain skips sys(), its caller, as perf's does; dcpictl puts
# sys back from main's direct call of it.
line=$(grep -E '(^|;)main;sys;getppid;([^;]*;)*do_syscall_64' "$T/folded" | head -1)
[ -n "$line" ] || fail "no stack of getppid with kernel frames: $(grep 'getppid' "$T/folded" | head -3)"
echo "kernel under user: $line"
stop_dcpid

# Flat profiles with -g are those without: the share of hot in chain's
# samples (the same runs), with and without, within 5 points.
share() {
	ctl prof --image "$T/chain" --csv >"$T/flat.csv" || fail "prof failed"
	awk -F, 'NR > 1 { t += $1; if ($4 == "hot") h = $1 } END { printf "%d\n", h * 100 / t }' "$T/flat.csv"
}
with=$(share)
mv "$DB" "$T/db-g"
start_dcpid -e perf::cpu-clock
"$T/chain" 2 || fail "chain failed"
"$T/chain" 1 sys || fail "chain sys failed"
ctl flush >/dev/null || fail "flush failed"
stop_dcpid
[ -z "$(ls "$DB"/*/*/stacks 2>/dev/null)" ] || fail "a stack file without -g"
without=$(share)
echo "hot's share of chain's samples: $with% with -g, $without% without"
[ $((with - without)) -le 5 ] && [ $((without - with)) -le 5 ] ||
    fail "flat profile differs with -g: $with% against $without%"
