#!/bin/sh
# dcpictl flamegraph --diff A B on stacks that mkstacks writes: epoch A
# main;a;b;hot 300, main;a;c;hot 100, main;a;d 100; epoch B 300, 300 and
# 120.  B's graph: c (20% -> 41.7%) red, b (60% -> 41.7%) blue, d
# (20% -> 16.7%, z 1.5) and main (100% both) grey; each title gives the
# change and its q-value, and the script still names the frames (zoom).
# No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mkstacks
command -v nm >/dev/null || fail "nm is not installed (README's test packages)"
cat >"$T/stk.c" <<'END'
volatile unsigned long sink;
void hot(void) { for (int i = 0; i < 1000; i++) sink += i; }
void b(void) { hot(); sink++; }
void c(void) { hot(); sink++; }
void d(void) { for (int i = 0; i < 1000; i++) sink += i; }
void a(int x) { if (x > 2) d(); else if (x) b(); else c(); sink++; }
int main(int argc, char **argv) { (void)argv; a(argc - 1); return 0; }
END
${CC:-cc} -O1 -g -fno-inline -fno-omit-frame-pointer -o "$T/stk" "$T/stk.c" ||
	fail "cannot compile $T/stk.c"
W=$T/stk
addr() { nm "$W" | awk -v f="$1" '$3 == f && ($2 == "T" || $2 == "t") { print $1 }'; }
MAIN=$(addr main) A=$(addr a) B=$(addr b) C=$(addr c) D=$(addr d) HOT=$(addr hot)
[ -n "$MAIN" ] && [ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$D" ] && [ -n "$HOT" ] ||
	fail "nm finds no main, a, b, c, d or hot in $W"
E1=20260301000000 E2=20260302000000
"$MK" "$DB" $E1 h1 - "$W" "$HOT,$B,$A,$MAIN=300" "$HOT,$C,$A,$MAIN=100" "$D,$A,$MAIN=100" ||
	fail "mkstacks $E1"
"$MK" "$DB" $E2 h1 - "$W" "$HOT,$B,$A,$MAIN=300" "$HOT,$C,$A,$MAIN=300" "$D,$A,$MAIN=120" ||
	fail "mkstacks $E2"

ctl flamegraph --diff $E1 $E2 -o "$T/diff.svg" || fail "flamegraph --diff failed"
python3 - "$T/diff.svg" <<'END' || fail "flamegraph --diff: the colours are wrong"
import re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
title = root.find(NS + "text[@id='title']").text
assert title.startswith("Differential Flame Graph: perf::cpu-clock, 20260301000000 to 20260302000000"), title
frames = {}
for g in root.find(NS + "g[@id='frames']"):
    t = g.find(NS + "title").text
    m = re.match(r"^(\S+)( \[([-+][0-9.]+) points, q ([0-9.e-]+)\])? \((\d+) samples", t)
    assert m, t
    fill = tuple(int(x) for x in re.findall(r"\d+", g.find(NS + "rect").get("fill")))
    frames.setdefault(m.group(1), []).append((m.group(3), m.group(4), int(m.group(5)), fill))
def one(name):
    assert len(frames[name]) == 1, frames[name]
    return frames[name][0]
ch, q, n, fill = one("c")
assert ch == "+21.67" and float(q) < 1e-9 and n == 300 and fill[0] == 255 and fill[2] < 200, one("c")
ch, q, n, fill = one("b")
assert ch == "-18.33" and float(q) < 1e-9 and fill[2] == 255 and fill[0] < 200, one("b")
ch, q, n, fill = one("d")
assert ch == "-3.33" and float(q) > 0.05 and fill == (200, 200, 200), one("d")
ch, q, n, fill = one("main")
assert ch == "+0.00" and float(q) == 1 and fill == (200, 200, 200), one("main")
assert [f[3] for f in frames["all"]] == [(200, 200, 200)]
# The script reads a frame's name without the change (zoom=, search).
assert "( \\[[^\\]]*\\])? \\(\\d+ samples" in open(sys.argv[1]).read()
print("c", one("c"), "b", one("b"), "d", one("d"))
END
# A stricter level leaves c and b coloured; the usage errors.
ctl flamegraph --diff $E1 $E2 --significant 0.5 -o "$T/diff5.svg" || fail "--significant 0.5 failed"
grep -q 'q &lt;= 0.5' "$T/diff5.svg" || fail "the title does not give the level"
ctl flamegraph --diff $E1 -o "$T/x.svg" 2>"$T/err" && fail "--diff with one epoch succeeded"
grep -q 'two epochs' "$T/err" || fail "--diff A: $(cat "$T/err")"
ctl flamegraph --diff $E1 $E2 --significant 2 -o "$T/x.svg" 2>/dev/null && fail "--significant 2 accepted"
echo "flamegraph --diff: c red, b blue, d and main grey"
