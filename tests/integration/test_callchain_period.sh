#!/bin/sh
# Dense flat, sparse stacks (dcpid.conf callchain-period): with chains at
# 10x the event's period,
#   - status and the stack file say the chains' period (10 ms of
#     cpu-clock) and route;
#   - the flat profile of a workload gets its dense samples (about 1000 a
#     CPU-second at cpu-clock's 1 ms) and its stacks about a tenth of them;
#   - a workload with two hot functions, hot1 three times hot2, has the same
#     shares in the folded stacks as in the flat profile (within 6 points);
#   - the callers frame pointers miss are put back on fp chains only: a
#     tail call (t jumps to u, main called t) shows main;t;u on the fp
#     route, where dcpictl restores t from main's call, and exactly what
#     was unwound, main;u, on the dwarf route;
#   - after a reload to 1x in the same epoch the stack file keeps the
#     shorter period, 1 ms, the 10 ms chains' counts multiplied by 10.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cat >"$T/work.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE	__attribute__((noinline))

volatile unsigned long sink;

NOINLINE void done(unsigned long x) { sink = x; }

/* Inlined into hot1 and hot2, which the flat profile tells apart; they
 * call done, not as a tail call (the asm after it), so that on the fp
 * route they have frames of their own: a function without one hides its
 * caller, here main, which dcpictl cannot restore from libc's indirect
 * call of it. */
static inline __attribute__((always_inline)) void
spin(unsigned n)
{
	unsigned long i, x = sink;

	for (i = 0; i < n; i++)
		x += i * i ^ (x >> 3);
	done(x);
}
NOINLINE void hot1(void) { spin(60000); __asm__ volatile("" ::: "memory"); }
NOINLINE void hot2(void) { spin(20000); __asm__ volatile("" ::: "memory"); }

NOINLINE unsigned long
u(unsigned long n)
{
	unsigned long i, x = n;

	for (i = 0; i < 100000; i++)
		x += i * i ^ (x >> 3);
	done(x);
	return x;
}
/* A tail call: t's frame is gone when u runs; u returns to main. */
NOINLINE unsigned long t(unsigned long n) { return u(n * 3 + 1); }

static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 1, t0 = cpu();

	while (cpu() - t0 < secs) {
		if (argc > 1 && strcmp(argv[1], "tail") == 0)
			sink += t(sink);
		else {
			hot1();
			hot2();
		}
	}
	return 0;
}
EOF
${CC:-cc} -O2 -g -fno-omit-frame-pointer -o "$T/work" "$T/work.c" ||
    fail "cannot compile work.c"
objdump -d "$T/work" | awk '/<t>:/ { f = 1 } f && /jmp.*<u>/ { j = 1 } /^$/ { f = 0 } END { exit !j }' ||
    fail "t does not tail-call u: $(objdump -d "$T/work" | sed -n '/<t>:/,/^$/p')"

# The samples of hot1 and hot2: in the flat profile, and in the folded
# stacks as leaves under main.
flat_of() {
	ctl prof --image "$T/work" --csv >"$T/flat.csv" || fail "prof failed"
	awk -F, '$4 == "hot1" { a = $1 } $4 == "hot2" { b = $1 } END { print a + 0, b + 0 }' \
	    "$T/flat.csv"
}
folded_of() {
	awk '/;main;hot1 [0-9]+$/ { a += $NF } /;main;hot2 [0-9]+$/ { b += $NF }
	    END { print a + 0, b + 0 }' "$1"
}

printf 'callchain = fp\ncallchain-period = 10x\n' >"$T/dcpid.conf"
start_dcpid -e perf::cpu-clock --config "$T/dcpid.conf"
ctl status >"$T/status" || fail "status failed"
grep -E '^callchains +fp, depth [0-9]+, period 10x \(perf::cpu-clock 10000000\)' "$T/status" ||
    fail "status lacks the chains' period: $(grep '^callchains' "$T/status")"
grep -E '^lost-chains +[0-9]+$' "$T/status" || fail "status lacks lost-chains"
"$T/work" split 4 || fail "work split failed"
"$T/work" tail 1.5 || fail "work tail failed"
ctl flush >/dev/null || fail "flush failed"
ep=$(current_epoch)
grep -a -x 'chains 0 10000000 fp' "$DB/$ep"/*/stacks ||
    fail "no chains line for 10 ms fp chains: $(grep -a '^chains' "$DB/$ep"/*/stacks)"
ctl stacks >"$T/folded" 2>"$T/stacks.err" || fail "dcpictl stacks failed: $(cat "$T/stacks.err")"
[ ! -s "$T/stacks.err" ] || fail "one period, yet stacks says: $(cat "$T/stacks.err")"

set -- $(flat_of)
f1=$1 flat=$(($1 + $2))
set -- $(folded_of "$T/folded")
s1=$1 stacks=$(($1 + $2))
echo "split: flat hot1 $f1 + hot2 $((flat - f1)) = $flat samples in 4 CPU-seconds, stacks hot1 $s1 + hot2 $((stacks - s1)) = $stacks"
[ "$flat" -ge 2800 ] && [ "$flat" -le 5200 ] ||
    fail "flat profile: $flat samples of hot1 and hot2 in 4 CPU-seconds at 1 ms, expected about 4000"
[ "$stacks" -gt 0 ] || fail "no stacks of hot1 or hot2: $(head -5 "$T/folded")"
ratio=$((10 * flat / stacks))
[ "$ratio" -ge 70 ] && [ "$ratio" -le 140 ] ||
    fail "flat $flat against stacks $stacks: ratio $((ratio / 10)).$((ratio % 10)), expected about 10"
# About 400 chains: a share's standard deviation is 2 points.
p1=$((100 * s1 / stacks)) q1=$((100 * f1 / flat))
echo "hot1's share: $p1% of the folded stacks, $q1% of the flat profile"
[ $((p1 - q1)) -le 6 ] && [ $((q1 - p1)) -le 6 ] ||
    fail "hot1's share of the folded stacks $p1%, of the flat profile $q1%: more than 6 points apart"
[ "$q1" -ge 65 ] && [ "$q1" -le 85 ] || fail "flat profile: hot1 $q1%, expected about 75"

# Tail call, fp: dcpictl puts t back from main's call.
grep -E ';main;t;u [0-9]+$' "$T/folded" ||
    fail "fp: no main;t;u (the repair put t back): $(grep ';u [0-9]*$' "$T/folded" | head -3)"

# A reload to 1x in the same epoch: the file keeps 1 ms, the 10 ms counts
# times 10.
printf 'callchain = fp\ncallchain-period = 1x\n' >"$T/dcpid.conf"
ctl reload >/dev/null || fail "reload failed"
ctl status | grep -E '^callchains +fp, depth [0-9]+, with every sample' ||
    fail "after the reload: $(ctl status | grep '^callchains')"
"$T/work" split 1 || fail "work split failed"
ctl flush >/dev/null || fail "flush failed"
[ "$(current_epoch)" = "$ep" ] || fail "the reload started another epoch"
grep -a -x 'chains 0 1000000 fp' "$DB/$ep"/*/stacks ||
    fail "no chains line for 1 ms after the merge: $(grep -a '^chains' "$DB/$ep"/*/stacks)"
ctl stacks >"$T/folded2" || fail "dcpictl stacks failed"
set -- $(folded_of "$T/folded2")
echo "after the reload: hot1 $1 + hot2 $2 in 1 ms samples (before: $stacks in 10 ms samples)"
[ $(($1 + $2)) -ge $((10 * stacks)) ] ||
    fail "merged chains: $(($1 + $2)) samples at 1 ms, expected the 10 ms ones' $stacks times 10 and more"
stop_dcpid

# Tail call, dwarf: the chain as unwound, main;u, never a caller put back.
if [ "$(uname -m)" = x86_64 ]; then
	mv "$DB" "$T/db-fp"
	start_dcpid -e perf::cpu-clock --callchain dwarf --callchain-period 10x
	ctl status | grep -E '^callchains +dwarf, .*period 10x' ||
	    fail "not dwarf at 10x: $(ctl status | grep '^callchains')"
	"$T/work" tail 2 || fail "work tail failed"
	ctl flush >/dev/null || fail "flush failed"
	ep=$(current_epoch)
	grep -a -x 'chains 0 10000000 dwarf' "$DB/$ep"/*/stacks ||
	    fail "no chains line for dwarf: $(grep -a '^chains' "$DB/$ep"/*/stacks)"
	ctl stacks >"$T/folded" || fail "dcpictl stacks failed"
	stop_dcpid
	grep -E ';t;u [0-9]+$' "$T/folded" && fail "dwarf: a caller put back into main;u"
	n=$(awk '/;main;u [0-9]+$/ { n += $NF } END { print n + 0 }' "$T/folded")
	echo "dwarf: main;u $n samples, no main;t;u"
	[ "$n" -ge 80 ] || fail "dwarf: $n samples of main;u in 2 CPU-seconds at 10 ms: $(grep ';u [0-9]*$' "$T/folded" | head -3)"
fi
