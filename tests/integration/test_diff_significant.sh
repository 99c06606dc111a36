#!/bin/sh
# diff's test and stats on a live dcpid.  One program of three functions
# of known loop counts (tests/workload/trio.c) runs as 40 label runs of
# 0.2 s of CPU each, sampled at 4 kHz: (a) diff --significant of 20 pairs
# of them finds nothing at 0.01 in at least 19 (the false-positive rate
# holds), at 0.05 in at least 16; (b) the same program with
# dcpi_trio_b's loop 20% longer is significant against the plain one, and
# the change's 99.9% interval holds the change of b's share timed apart by
# CPU time; (c) stats --by epoch over 10 epochs gives the mean and
# standard deviation Python's statistics module computes from prof --csv
# of each.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

cc_work trio "$top_srcdir/tests/workload/trio.c"
echo "label-max = 128" >"$T/dcpid.conf"
start_dcpid -e perf::cpu-clock:period=250000 --config "$T/dcpid.conf"
for i in $(seq -w 1 40); do
	ctl label run-$i -- "$T/trio" 0.2 >/dev/null || fail "label run-$i failed"
done
ctl label base -- "$T/trio" 3 || fail "label base failed"
ctl label slow -- "$T/trio" 3 1.2 || fail "label slow failed"
# The truth: each function's calls timed apart by CPU time.
"$T/trio" -t 1 >"$T/base.out" && "$T/trio" -t 1.2 >"$T/slow.out" || fail "trio -t failed"
ctl flush >/dev/null || fail "flush failed"
E=$(current_epoch)

# (a) Pairs of the same program, 20 of them, each run in one pair only.
# The program's own image: how much kernel work a run sees on the way back
# to user space (irqentry_exit_to_user_mode) is the machine's load, not the
# program, and varies between runs beyond what the counts allow (10 of 0
# samples a run, at q 0.04), which is --by's case.  A test at level L
# passes a pair of equal programs with probability 1 - L at least, so of
# 20 pairs at 0.05 one is expected, and two or more come in one suite run
# of five: at 0.01 at most one (1.7% of suite runs fail by chance), at
# 0.05 at most four (1.6%).
fp5=0 fp1=0
for k in $(seq 1 20); do
	i=$(printf %02d $((2 * k - 1))) j=$(printf %02d $((2 * k)))
	for L in 0.05 0.01; do
		ctl diff --epoch "$E" --label-a run-$i --label-b run-$j --image trio \
		    --significant $L --csv >"$T/null.csv" 2>"$T/null.err" ||
			fail "diff run-$i run-$j: $(cat "$T/null.err")"
		n=$(($(wc -l <"$T/null.csv") - 1))
		[ "$n" -gt 0 ] || continue
		echo "run-$i against run-$j: $n significant at $L:"
		cat "$T/null.csv"
		if [ $L = 0.05 ]; then fp5=$((fp5 + 1)); else fp1=$((fp1 + 1)); fi
	done
done
echo "the same program: $fp5 of 20 pairs with a significant row at 0.05, $fp1 at 0.01"
[ "$fp1" -le 1 ] || fail "$fp1 of 20 pairs of the same program had rows significant at 0.01"
[ "$fp5" -le 4 ] || fail "$fp5 of 20 pairs of the same program had rows significant at 0.05"
# Without --significant every row is there, with its test.
ctl diff --epoch "$E" --label-a run-01 --label-b run-02 --csv >"$T/all.csv" || fail "diff failed"
head -1 "$T/all.csv" | grep -qx 'A%,B%,change,ratio,A,B,procedure,image,p,q,low,high,model' ||
	fail "diff's columns: $(head -1 "$T/all.csv")"
grep -q ',dcpi_trio_b,trio,.*,counts$' "$T/all.csv" || fail "no dcpi_trio_b row: $(cat "$T/all.csv")"

# (b) b 20% slower: significant, and the interval holds the timed change.
ctl diff --epoch "$E" --label-a base --label-b slow --image trio --significant >"$T/slow.txt" ||
	fail "diff base slow failed"
cat "$T/slow.txt"
grep -q "^test: two-proportion z-test (pooled) on the counts, Newcombe's interval at 95%; correction: Benjamini-Hochberg over [0-9]* rows; level 0.05: [1-9][0-9]* significant" "$T/slow.txt" ||
	fail "no test line: $(cat "$T/slow.txt")"
# A 95% interval misses the truth in one run of twenty by design: the
# check takes the 99.9% one (--significant 0.001), which misses in one of
# a thousand, and b's change, about 5 standard errors, passes it too.
ctl diff --epoch "$E" --label-a base --label-b slow --image trio --significant 0.001 --csv \
    >"$T/slow.csv" || fail "diff --csv failed"
truth=$(awk -v a="$(awk '{ print $2 }' "$T/base.out")" '{ print $2 - a }' "$T/slow.out")
row=$(awk -F, '$7 == "dcpi_trio_b" && $8 == "trio"' "$T/slow.csv")
[ -n "$row" ] || fail "dcpi_trio_b 20% slower is not significant: $(cat "$T/slow.csv")"
echo "b's share timed: $(cat "$T/base.out") -> $(cat "$T/slow.out"), change $truth points; diff: $row"
echo "$row" | awk -F, -v t="$truth" '{ exit !($11 <= t && t <= $12 && $3 > 0) }' ||
	fail "the interval of dcpi_trio_b's change does not hold the timed $truth: $row"
ctl diff --epoch "$E" --label-a base --label-b slow --image trio --significant 0.01 --json >"$T/slow.json" ||
	fail "diff --json failed"
python3 - "$T/slow.json" <<'PY' || fail "diff --json: $(cat "$T/slow.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["test"] == "two-proportion-z" and d["correction"] == "benjamini-hochberg"
assert d["level"] == 0.01 and d["significant_only"] is True
r = [r for r in d["rows"] if r["procedure"] == "dcpi_trio_b"][0]
assert r["q"] <= 0.01 and r["low"] < r["change"] < r["high"] and r["model"] == "counts", r
PY

# Five runs a side: Welch's t on their shares, the model said per row.
ctl diff --epoch "$E" --label-a 'run-0[1-5]' --label-b 'run-0[6-9]' --label-b run-10 --by label \
    --image trio >"$T/runs.txt" || fail "diff --by label failed"
grep -q "^test: Welch's t on the shares of the runs (5 labels in A, 5 in B), t interval at 95%" \
    "$T/runs.txt" || fail "diff --by label: $(cat "$T/runs.txt")"
ctl diff --epoch "$E" --label-a 'run-0[1-5]' --label-b 'run-0[6-9]' --label-b run-10 --by label \
    --image trio --csv >"$T/runs.csv" || fail "diff --by label --csv failed"
awk -F, 'NR > 1 && $7 ~ /^dcpi_trio_/ && $13 == "runs" && $11 < $12 { n++ } END { exit n != 3 }' \
    "$T/runs.csv" || fail "diff --by label: not three rows of the runs model: $(cat "$T/runs.csv")"

# (c) stats over 10 epochs, one 0.2 s run each, against Python's
# statistics of prof --csv of each epoch.
for k in $(seq 1 10); do
	ctl epoch >/dev/null || fail "dcpictl epoch failed"
	ctl label ep -- "$T/trio" 0.2 || fail "label ep failed"
done
ctl flush >/dev/null || fail "flush failed"
set -- $(ls "$DB" | grep -x '[0-9]\{14\}' | sort | tail -n 10)
[ $# = 10 ] && [ "$(printf '%s\n' "$E" "$1" | sort | head -n 1)" = "$E" ] && [ "$1" != "$E" ] ||
	fail "not 10 new epochs: $(ls "$DB")"
sel=
for e; do sel="$sel --epoch $e"; done
ctl stats --by epoch $sel --label ep --csv >"$T/stats.csv" || fail "stats --by epoch failed"
i=0
for e; do
	i=$((i + 1))
	ctl prof --epoch $e --label ep --csv >"$T/prof-$(printf %02d $i).csv" || fail "prof $e failed"
done
python3 - "$T" <<'PY' || fail "stats differs from Python's: $(head -5 "$T/stats.csv")"
import csv, statistics, sys
t = sys.argv[1]
runs = []
for i in range(1, 11):
    # The first column is the event's samples.
    rows = list(csv.reader(open("%s/prof-%02d.csv" % (t, i))))
    h = rows[0]
    rows = [dict(zip(h, r), n=int(r[0])) for r in rows[1:]]
    total = sum(r["n"] for r in rows)
    runs.append({(r["procedure"], r["image"]): 100 * r["n"] / total for r in rows})
keys = set().union(*runs)
got = {(r["procedure"], r["image"]): r for r in csv.DictReader(open(t + "/stats.csv"))}
assert set(got) == keys, (set(got) ^ keys)
for k in keys:
    x = [r.get(k, 0.0) for r in runs]
    g = got[k]
    assert abs(float(g["mean%"]) - statistics.mean(x)) <= 0.0005 + 1e-9, (k, g, x)
    assert abs(float(g["sd"]) - statistics.stdev(x)) <= 0.0005 + 1e-9, (k, g, x)
    assert int(g["runs"]) == sum(1 for r in runs if k in r), (k, g)
    assert abs(float(g["range"]) - (max(x) - min(x))) <= 0.001 + 1e-9, (k, g, x)
print("stats of dcpi_trio_b over 10 epochs:", dict(got[("dcpi_trio_b", "trio")]))
PY
stop_dcpid
echo "stats --by epoch: mean and sd of 10 epochs as Python's statistics"
