#!/bin/sh
# Labels in the analysis commands, on a database of labelled profiles of
# one program (mklabelled writes them as dcpid lays them out): prof --by
# label rows and shares, --label selecting one label, [none], several
# --label, --by label,procedure (and its CSV and JSON), diff of two labels,
# epochs --label, and the exports: callgrind_annotate reads the label line,
# google-pprof reads the pprof export.  No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mklabelled
for tool in google-pprof callgrind_annotate nm; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages)"
done
cat >"$T/work.c" <<'END'
#include <stdio.h>
void label_work_a(void) { puts("a"); }
void label_work_b(void) { puts("b"); }
void label_work_c(void) { puts("c"); }
int main(void) { label_work_a(); label_work_b(); label_work_c(); return 0; }
END
cc_work work "$T/work.c"
W=$T/work
addr() { nm "$W" | awk -v f="$1" '$3 == f { print $1 }'; }
A=$(addr label_work_a) B=$(addr label_work_b) C=$(addr label_work_c)
[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] || fail "nm finds no label_work_* in $W"

# Epoch 1: a.service is hot in label_work_a, b.service in label_work_b, the
# unlabelled samples and the cgroup path in label_work_c; the idle task's
# are left out.  Epoch 2: a.service and unlabelled samples only.
E1=20260301000000 E2=20260302000000
mk() { "$MK" "$DB" "$@" || fail "mklabelled $*"; }
mk $E1 h1 - "$W" "$C=100"
mk $E1 h1 a.service "$W" "$A=600" "$B=100"
mk $E1 h1 b.service "$W" "$B=300" "$A=50"
mk $E1 h1 /dcpitest-a "$W" "$C=40"
mk $E1 h1 '[other]' "$W" "$C=10"
mk $E1 h1 '[idle]' "$W" "$A=1000"
mk $E2 h1 a.service "$W" "$A=200"
mk $E2 h1 - "$W" "$C=50"

# prof --by label: one row per label, by samples, with its share.
ctl prof --epoch $E1 --by label --csv >"$T/bylabel.csv" || fail "prof --by label failed"
want='perf::cpu-clock,perf::cpu-clock %,cum%,label
700,58.33,58.33,a.service
350,29.17,87.50,b.service
100,8.33,95.83,[none]
40,3.33,99.17,/dcpitest-a
10,0.83,100.00,[other]'
[ "$(cat "$T/bylabel.csv")" = "$want" ] || fail "prof --by label: $(cat "$T/bylabel.csv")"
ctl prof --epoch $E1 --by label >"$T/bylabel.txt" || fail "prof --by label (text) failed"
grep -q '^ *700 58.33  58.33 a.service$' "$T/bylabel.txt" || fail "prof --by label text: $(cat "$T/bylabel.txt")"
echo "prof --by label: $(sed 1d "$T/bylabel.csv" | tr '\n' ' ')"

# --label selects one label: its hot procedure tops the rows.
top() { ctl prof --csv "$@" | sed -n 2p | cut -d, -f1,4; }
[ "$(top --epoch $E1 --label a.service)" = "600,label_work_a" ] || fail "--label a.service: $(top --epoch $E1 --label a.service)"
[ "$(top --epoch $E1 --label b.service)" = "300,label_work_b" ] || fail "--label b.service: $(top --epoch $E1 --label b.service)"
[ "$(top --epoch $E1 --label '[none]')" = "100,label_work_c" ] || fail "--label [none]: $(top --epoch $E1 --label '[none]')"
[ "$(top --epoch $E1 --label /dcpitest-a)" = "40,label_work_c" ] || fail "--label /dcpitest-a: $(top --epoch $E1 --label /dcpitest-a)"
# A glob and a union: a.service and b.service add up per procedure.
[ "$(top --epoch $E1 --label '?.service')" = "650,label_work_a" ] || fail "--label '?.service': $(top --epoch $E1 --label '?.service')"
[ "$(top --epoch $E1 --label a.service --label b.service)" = "650,label_work_a" ] ||
	fail "two --label: $(top --epoch $E1 --label a.service --label b.service)"
[ "$(top --epoch $E1 --label '[none]' --label '/*')" = "140,label_work_c" ] ||
	fail "--label [none] --label '/*': $(top --epoch $E1 --label '[none]' --label '/*')"
# The idle task by name; a bracketed name is never a bracket expression.
[ "$(top --epoch $E1 --label '[idle]')" = "1000,label_work_a" ] || fail "--label [idle]: $(top --epoch $E1 --label '[idle]')"
ctl prof --epoch $E1 --label '[idle]' | grep -q '^idle: .*included' || fail "--label [idle]: header does not say idle is included"
ctl prof --epoch $E1 --label 'nope.service' >/dev/null 2>"$T/nope.err" && fail "--label of no label succeeded"
grep -q "no profiles with label 'nope.service' (the epochs hold: /dcpitest-a \[idle\] \[none\] \[other\] a.service b.service)" "$T/nope.err" ||
	fail "--label of no label: $(cat "$T/nope.err")"
ctl prof --epoch $E1 --label '' >/dev/null 2>&1 && fail "--label '' was accepted"
echo "prof --label: each label's hot procedure, [none], globs, unions, [idle]"

# --by label,procedure: per label (by samples), its top -n procedures;
# cum% is of the label's samples.
ctl prof --epoch $E1 --by label,procedure -n 1 --csv >"$T/lp.csv" || fail "prof --by label,procedure failed"
want='perf::cpu-clock,perf::cpu-clock %,cum%,procedure,image,label
600,50.00,85.71,label_work_a,work,a.service
300,25.00,85.71,label_work_b,work,b.service
100,8.33,100.00,label_work_c,work,[none]
40,3.33,100.00,label_work_c,work,/dcpitest-a
10,0.83,100.00,label_work_c,work,[other]'
[ "$(cat "$T/lp.csv")" = "$want" ] || fail "prof --by label,procedure -n 1: $(cat "$T/lp.csv")"
n=$(ctl prof --epoch $E1 --by label,procedure -n 2 --csv | grep -c ',a.service$')
[ "$n" = 2 ] || fail "prof --by label,procedure -n 2: $n rows of a.service"
ctl prof --epoch $E1 --by label,procedure --json >"$T/lp.json" || fail "prof --by label,procedure --json failed"
python3 - "$T/lp.json" <<'END' || fail "prof --by label,procedure --json: $(cat "$T/lp.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [(r["label"], r["procedure"], r["perf::cpu-clock"]) for r in d["rows"]]
assert rows[0] == ("a.service", "label_work_a", 600), rows
assert ("b.service", "label_work_a", 50) in rows, rows
assert d["labels"] == ["/dcpitest-a", "[none]", "[other]", "a.service", "b.service"], d["labels"]
END
ctl prof --epoch $E1 --by image --csv | sed -n 2p | grep -qx '1200,100.00,100.00,work' || fail "prof --by image: $(ctl prof --epoch $E1 --by image --csv)"
ctl prof --epoch $E1 --by nonsense >/dev/null 2>&1 && fail "prof --by nonsense was accepted"
echo "prof --by label,procedure: top procedure per label, CSV and JSON carry the label"

# diff of two labels of one epoch: shares of each side and the change.
ctl diff --epoch $E1 --label-a a.service --label-b b.service --csv >"$T/diff.csv" || fail "diff of two labels failed"
want='A%,B%,change,ratio,A,B,procedure,image
85.71,14.29,-71.43,0.17,600,50,label_work_a,work
14.29,85.71,+71.43,6.00,100,300,label_work_b,work'
[ "$(cut -d, -f1-8 "$T/diff.csv")" = "$want" ] || fail "diff --label-a a.service --label-b b.service: $(cat "$T/diff.csv")"
ctl diff --epoch $E1 --label-a a.service --label-b b.service >"$T/diff.txt" || fail "diff (text) failed"
grep -q '^A epoch 20260301000000 label a.service: 700 samples$' "$T/diff.txt" || fail "diff header: $(head -3 "$T/diff.txt")"
# One label over two epochs.
ctl diff $E1 $E2 --label a.service --csv | cut -d, -f1-8 | grep -qx '85.71,100.00,+14.29,1.17,600,200,label_work_a,work' ||
	fail "diff E1 E2 --label a.service: $(ctl diff $E1 $E2 --label a.service --csv)"
# The test: 600 of 700 against 50 of 350 is significant (Newcombe's
# interval -75.49 .. -66.51 points); -i, per image: all of each side in
# work, no change (p 1), left out by --significant.
ctl diff --epoch $E1 --label-a a.service --label-b b.service -i --csv |
	grep -qx '100.00,100.00,+0.00,1.00,700,350,,work,1,1,-1.086,+0.546,counts' ||
	fail "diff -i: $(ctl diff --epoch $E1 --label-a a.service --label-b b.service -i --csv)"
[ "$(ctl diff --epoch $E1 --label-a a.service --label-b b.service -i --significant --csv | wc -l)" = 1 ] ||
	fail "diff -i --significant kept a row of no change"
ctl diff --epoch $E1 --label-a a.service --label-b b.service --csv |
	grep -qx '85.71,14.29,-71.43,0.17,600,50,label_work_a,work,8.55e-112,8.55e-112,-75.491,-66.508,counts' ||
	fail "diff's test of label_work_a: $(ctl diff --epoch $E1 --label-a a.service --label-b b.service --csv)"
ctl diff --label-a a.service >/dev/null 2>&1 && fail "diff with one side's label only was accepted"
echo "diff: a.service against b.service, a.service over two epochs"

# epochs --label: only epochs with those labels, their samples only.
ctl epochs --label b.service --csv | cut -d, -f1,7 >"$T/ep.csv" || fail "epochs --label failed"
[ "$(cat "$T/ep.csv")" = "epoch,samples
$E1,350" ] || fail "epochs --label b.service: $(cat "$T/ep.csv")"
[ "$(ctl epochs --label a.service --csv | cut -d, -f7 | tr '\n' ' ')" = "samples 700 200 " ] ||
	fail "epochs --label a.service: $(ctl epochs --label a.service --csv)"
echo "epochs --label: $(tr '\n' ' ' <"$T/ep.csv")"

# Exports: the label travels with the file.
ctl export --format=callgrind --epoch $E1 --label a.service -o "$T/a.cg" || fail "export callgrind failed"
grep -qx 'desc: Label: a.service' "$T/a.cg" || fail "callgrind export without its label line: $(head -8 "$T/a.cg")"
callgrind_annotate "$T/a.cg" >"$T/a.ann" || fail "callgrind_annotate cannot read the export"
grep -qx 'Label: a.service' "$T/a.ann" || fail "callgrind_annotate shows no label: $(head -8 "$T/a.ann")"
grep -q '^600 .*label_work_a' "$T/a.ann" || fail "callgrind_annotate: $(cat "$T/a.ann")"
ctl export --format=callgrind --epoch $E1 --label '?.service' -o "$T/ab.cg" || fail "export callgrind of two labels failed"
grep -qx 'desc: Label: several (a.service, b.service)' "$T/ab.cg" || fail "two labels: $(grep desc "$T/ab.cg")"
ctl export --format=callgrind --epoch $E2 --label '[none]' -o "$T/none.cg" || fail "export of [none] failed"
grep -q '^desc: Label' "$T/none.cg" && fail "unlabelled export has a label line"
ctl export --format=pprof --epoch $E1 --label b.service -o "$T/b.prof" || fail "export pprof failed"
google-pprof --text "$W" "$T/b.prof" >"$T/b.txt" 2>/dev/null || fail "google-pprof cannot read the export"
awk '$6 == "label_work_b" { print $1 }' "$T/b.txt" | grep -qx 300 || fail "google-pprof: $(cat "$T/b.txt")"
grep -a -q "^dcpi-label: [0-9a-f]* b.service$" "$T/b.prof" || fail "pprof export without its dcpi-label line"
ctl export --format=gmon --epoch $E1 --label a.service --label /dcpitest-a -o "$T/g" >"$T/g.txt" ||
	fail "export gmon failed"
grep -q "^$T/g\.a\.service\.work\.[0-9a-f]*$" "$T/g.txt" && grep -q "^$T/g\.%2Fdcpitest-a\.work\.[0-9a-f]*$" "$T/g.txt" ||
	fail "gmon files are not named by label: $(cat "$T/g.txt")"
echo "exports: callgrind desc: Label, google-pprof reads the pprof export, gmon names"
