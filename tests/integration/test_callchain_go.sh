#!/bin/sh
# Call chains through a function without a frame of its own: in a Go
# program, hot() is a leaf that Go compiles without a frame, called from
# b() three times as often as from c().  The frame pointers lead from hot
# to main, past b and c (as perf record -g shows it); dcpictl puts the
# caller back from main's direct call: `prof --callers main.hot` gives
# main.b 75% and main.c 25% (within 5 points), `stacks` the chain
# main.main;main.b;main.hot, and the exports with calls the same split
# (gprof's call graph, google-pprof's cumulative counts).
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v go >/dev/null || fail "go is not installed (README's test packages: golang-go)"
for tool in gprof google-pprof; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: binutils, google-perftools)"
done

mkdir -p "$T/gochain"
cp "$top_srcdir/tests/workload/gochain.go" "$T/gochain/main.go"
(cd "$T/gochain" && HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off \
    GOFLAGS= go build -o "$T/gochain_bin" main.go) || fail "go build failed"
# What the test is about: hot pushes no frame pointer (and calls nothing).
go tool objdump -s '^main\.hot$' "$T/gochain_bin" >"$T/hot.s" || fail "go tool objdump failed"
grep -q 'RET' "$T/hot.s" || fail "no main.hot in the program: $(head -3 "$T/hot.s")"
grep -Eq 'PUSHQ BP|CALL ' "$T/hot.s" && fail "main.hot has a frame or calls: $(cat "$T/hot.s")"

# A chain with every sample (callchain-period 1x): the split is checked
# within 5 points, which a tenth of the samples would not hold.
start_dcpid -e perf::cpu-clock -g --callchain-period 1x
"$T/gochain_bin" 3 || fail "gochain failed"
ctl flush >/dev/null || fail "flush failed"

# This program's rows: another test may run a Go program of these names.
ctl prof --callers main.hot --csv >"$T/callers.csv" || fail "prof --callers main.hot failed"
cat "$T/callers.csv"
nb=$(awk -F, '$3 == "main.b" && $4 == "gochain_bin" { print $1 }' "$T/callers.csv")
nc=$(awk -F, '$3 == "main.c" && $4 == "gochain_bin" { print $1 }' "$T/callers.csv")
[ -n "$nb" ] && [ -n "$nc" ] || fail "prof --callers main.hot lacks main.b or main.c"
nm=$(awk -F, '$3 == "main.main" && $4 == "gochain_bin" { print $1 }' "$T/callers.csv")
[ -z "$nm" ] || [ "$nm" -lt $(( (nb + nc) / 50 )) ] ||
    fail "main.main still calls main.hot in $nm samples (b $nb, c $nc)"
pb=$((100 * nb / (nb + nc))) pc=$((100 * nc / (nb + nc)))
echo "callers of main.hot: main.b $pb%, main.c $pc%"
awk -v b="$pb" -v c="$pc" 'BEGIN { exit !(b >= 70 && b <= 80 && c >= 20 && c <= 30) }' ||
    fail "callers of main.hot: main.b $pb%, main.c $pc%, expected 75 and 25"

ctl stacks >"$T/folded" || fail "dcpictl stacks failed"
grep -E '(^|;)main\.main;main\.b;main\.hot [0-9]+$' "$T/folded" ||
    fail "no main.main;main.b;main.hot: $(grep 'main.hot' "$T/folded" | head -3)"
grep -E '(^|;)main\.main;main\.c;main\.hot [0-9]+$' "$T/folded" || fail "no main.main;main.c;main.hot"
ctl prof --callees main.b --csv | grep -q ',main.hot,' || fail "main.b does not call main.hot"

# A narrow selection (a label run's own stacks) gets its callers put back
# too: only its stacks are looked at.
"$DCPICTL" --socket "$SOCK" label gorun -- "$T/gochain_bin" 1 || fail "dcpictl label gorun failed"
ctl flush >/dev/null || fail "flush failed"
ctl stacks --label gorun >"$T/folded.gorun" || fail "stacks --label gorun failed"
grep -Eq '(^|;)main\.main;main\.b;main\.hot [0-9]+$' "$T/folded.gorun" ||
    fail "stacks --label gorun: no main.main;main.b;main.hot: $(grep 'main.hot' "$T/folded.gorun" | head -3)"
# Its 1 s, not the 3 s run's stacks before it as well.
ctl stacks >"$T/folded.all" || fail "dcpictl stacks failed"
sr=$(awk '{ s += $NF } END { print s + 0 }' "$T/folded.gorun")
sa=$(awk '{ s += $NF } END { print s + 0 }' "$T/folded.all")
echo "stacks: $sr samples in the label run's, $sa in all"
[ $((sr * 2)) -lt "$sa" ] || fail "stacks --label gorun: $sr samples of $sa"
ctl prof --callers main.hot --label gorun --csv >"$T/callers.gorun" ||
    fail "prof --callers main.hot --label gorun failed"
nb=$(awk -F, '$3 == "main.b" { print $1 }' "$T/callers.gorun")
nc=$(awk -F, '$3 == "main.c" { print $1 }' "$T/callers.gorun")
[ -n "$nb" ] && [ -n "$nc" ] || fail "prof --callers main.hot --label gorun: $(cat "$T/callers.gorun")"
echo "callers of main.hot in the label run: main.b $nb, main.c $nc samples"
[ $((nb * 10)) -ge $((nc * 20)) ] || fail "label run: main.b $nb against main.c $nc, expected 3:1"

# gprof's call graph from the gmon export: hot's parents (the lines
# above its own in its entry) are main.b and main.c, 3:1.
ctl export --format=gmon -e perf::cpu-clock -o "$T/gmon.out" >"$T/gmon.list" ||
    fail "export --format=gmon failed"
gmon=$(grep '/gmon\.out\.gochain_bin\.' "$T/gmon.list")
[ -f "$gmon" ] || fail "no gmon.out of gochain_bin: $(cat "$T/gmon.list")"
gprof -q -b "$T/gochain_bin" "$gmon" >"$T/gprof.txt" 2>&1 || fail "gprof failed: $(head -3 "$T/gprof.txt")"
awk '/^-----/ { buf = ""; next } /^\[[0-9]+\]/ && / main\.hot \[/ { printf "%s", buf; exit } { buf = buf $0 "\n" }' \
    "$T/gprof.txt" >"$T/parents"
cat "$T/parents"
called() { awk -v f="$1" 'NF >= 3 && $(NF - 1) == f && $(NF - 2) ~ /^[0-9]+\/[0-9]+$/ { split($(NF - 2), v, "/"); print v[1] }' "$T/parents"; }
gb=$(called main.b) gc=$(called main.c)
[ -n "$gb" ] && [ -n "$gc" ] || fail "gprof -q: main.hot's parents lack main.b or main.c: $(cat "$T/gprof.txt" | head -40)"
awk -v b="$gb" -v c="$gc" 'BEGIN { p = 100 * b / (b + c); exit !(p >= 70 && p <= 80) }' ||
    fail "gprof -q: main.hot called by main.b $gb, main.c $gc, expected 3:1"
echo "gprof -q: main.hot called by main.b $gb, main.c $gc"

# google-pprof on the legacy export: main.b and main.c cumulative, 3:1 (a
# frame put back lies a byte into its procedure, so that pprof, which
# takes a caller's address for a return address and moves back a byte,
# still finds the procedure).
ctl export --format=pprof -e perf::cpu-clock -o "$T/x.prof" >"$T/pprof.list" ||
    fail "export --format=pprof failed"
google-pprof --text --cum "$T/gochain_bin" "$T/x.prof" >"$T/pprof.txt" 2>"$T/pprof.err" ||
    fail "google-pprof failed: $(cat "$T/pprof.err")"
cum() { awk -v f="$1" '$6 == f { print $4; exit }' "$T/pprof.txt"; }
pb=$(cum main.b) pc=$(cum main.c)
echo "google-pprof --cum: main.b $pb main.c $pc"
[ -n "$pb" ] && [ -n "$pc" ] || fail "google-pprof: no main.b or main.c: $(head -20 "$T/pprof.txt")"
awk -v b="$pb" -v c="$pc" 'BEGIN { p = 100 * b / (b + c); exit !(p >= 70 && p <= 80) }' ||
    fail "google-pprof: main.b $pb, main.c $pc cumulative, expected 3:1"
stop_dcpid
