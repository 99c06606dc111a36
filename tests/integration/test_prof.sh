#!/bin/sh
# dcpictl's analysis on a live dcpid: prof names the hot workload's function
# first with >= 90% of its image's samples; list shows the loop carrying the
# most samples, with source lines; diff between an epoch running workload A
# (hot) and one running workload B (other) shows A falling and B rising.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

# Other tests may run their own "hot" at the same time: a name of our own,
# and --image by path.
# Tagged: an untagged copy of hot.c built by another test at the same time
# would be the same file, build-id and image, named by that test's path.
cc_work prof_hot "$top_srcdir/tests/workload/hot.c" -DWORKLOAD_TAG='"prof_hot"'
cc_work prof_other "$top_srcdir/tests/workload/other.c"

start_dcpid -e perf::cpu-clock
"$T/prof_hot" 2 || fail "prof_hot failed"
ctl flush >/dev/null || fail "dcpictl flush failed"
ea=$(readlink "$DB/current")
[ -n "$ea" ] || fail "no current epoch"

# prof: first row of the workload's image is its hot function, >= 90%.
ctl prof --image "$T/prof_hot" --csv >"$T/prof.csv" 2>"$T/prof.err" || fail "prof failed: $(cat "$T/prof.err")"
row=$(sed -n 2p "$T/prof.csv")
proc=$(echo "$row" | cut -d, -f4)
pct=$(echo "$row" | cut -d, -f2)
[ "$proc" = dcpi_workload_hot ] || fail "prof: first procedure is '$proc': $(cat "$T/prof.csv")"
awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' || fail "prof: dcpi_workload_hot has only $pct% of hot's samples"
# Over all images it is named too, and the text listing has its header.
ctl prof >"$T/prof.txt" || fail "prof (all images) failed"
grep -q '^perf::cpu-clock ' "$T/prof.txt" || fail "prof: no event header: $(head -5 "$T/prof.txt")"
grep -q ' dcpi_workload_hot  *prof_hot$' "$T/prof.txt" || fail "prof: dcpi_workload_hot not listed"

# list: the instruction with the most samples lies on the loop's lines.
ctl list dcpi_workload_hot --image "$T/prof_hot" >"$T/list.txt" || fail "list failed"
grep -q '^hot\.c:[0-9]' "$T/list.txt" || fail "list: no source lines: $(cat "$T/list.txt")"
loop=$(grep -n 'for (i = 0; i < n; i++)' "$top_srcdir/tests/workload/hot.c" | head -1 | cut -d: -f1)
body=$((loop + 1))
hotline=$(awk '/^hot\.c:[0-9]+/ { split($1, a, ":"); line = a[2]; next }
    $1 ~ /^[0-9]+$/ && $3 ~ /^[0-9a-f]+$/ && $1 + 0 > max { max = $1 + 0; at = line }
    END { print at }' "$T/list.txt")
[ "$hotline" = "$loop" ] || [ "$hotline" = "$body" ] ||
    fail "list: most samples on hot.c:$hotline, not the loop ($loop-$body): $(cat "$T/list.txt")"

# diff: a new epoch running the other workload.
ctl epoch >/dev/null || fail "dcpictl epoch failed"
eb=$(readlink "$DB/current")
[ "$eb" != "$ea" ] || fail "epoch did not change"
"$T/prof_other" 2 || fail "prof_other failed"
ctl flush >/dev/null || fail "dcpictl flush failed"
ctl diff "$ea" "$eb" --csv >"$T/diff.csv" || fail "diff failed"
change() { awk -F, -v p="$1" -v i="$2" '$7 == p && $8 == i { print $3; exit }' "$T/diff.csv"; }
ca=$(change dcpi_workload_hot prof_hot)
cb=$(change dcpi_workload_other prof_other)
awk -v c="$ca" 'BEGIN { exit !(c + 0 < -1) }' || fail "diff: dcpi_workload_hot changed by '$ca': $(head "$T/diff.csv")"
awk -v c="$cb" 'BEGIN { exit !(c + 0 > 1) }' || fail "diff: dcpi_workload_other changed by '$cb': $(head "$T/diff.csv")"

# epochs lists both; gc keeps them (young) and never the current one.
ctl epochs >"$T/epochs.txt" || fail "epochs failed"
grep -q "^$ea  " "$T/epochs.txt" && grep -q "^$eb yes " "$T/epochs.txt" || fail "epochs: $(cat "$T/epochs.txt")"
ctl gc --keep-days 0 --keep-min 0 >/dev/null || fail "gc failed"
[ -d "$DB/$eb" ] || fail "gc deleted the current epoch"
[ ! -d "$DB/$ea" ] || fail "gc kept $ea with --keep-days 0 --keep-min 0"
stop_dcpid
