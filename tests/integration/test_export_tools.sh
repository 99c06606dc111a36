#!/bin/sh
# dcpid profiles a compiled workload; dcpictl exports the epoch as pprof,
# gmon.out, Callgrind and xprof_text; the real readers (google-pprof, gprof,
# callgrind_annotate) and our xprof parser must each put dcpi_workload_hot
# first with its share (and count, where they print it) as DCPI has it.
. "$top_srcdir/tests/integration/lib.sh"

require_perf
for tool in google-pprof gprof callgrind_annotate; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: google-perftools, binutils, valgrind)"
done
# A name of its own: tests running beside this one may profile hot.c too.
W=export_hot
# Aligned procedures: gprof splits a 2-byte bin that straddles two symbols.
# Its source file too: callgrind_annotate sums a function over every
# object whose file and function name are the same.
cp "$top_srcdir/tests/workload/hot.c" "$T/$W.c" || fail "cannot copy hot.c"
cc_work $W "$T/$W.c" -falign-functions=16
# pprof names it NAME@ADDRESS when another image has a procedure of that name.
addr=$(nm "$T/$W" | awk '$3 == "dcpi_workload_hot" { sub(/^0+/, "", $1); print $1 }')
[ -n "$addr" ] || fail "no dcpi_workload_hot in $W"
is_hot='$6 == "dcpi_workload_hot" || $6 == "dcpi_workload_hot@'$addr'"'

start_dcpid -e perf::cpu-clock
"$T/$W" 3 || fail "workload failed"
ctl flush >/dev/null || fail "flush failed"
stop_dcpid

# DCPI's figures: the workload's hot samples, all samples, its image's samples.
ctl prof --csv >"$T/all.csv" || fail "prof failed"
ctl prof --csv --image $W >"$T/img.csv" || fail "prof --image failed"
hot=$(awk -F, -v w=$W '$4 == "dcpi_workload_hot" && $5 == w { print $1 }' "$T/all.csv")
total=$(awk -F, 'NR > 1 { s += $1 } END { print s }' "$T/all.csv")
itotal=$(awk -F, 'NR > 1 { s += $1 } END { print s }' "$T/img.csv")
[ -n "$hot" ] && [ "$hot" -gt 100 ] || fail "dcpi saw only '$hot' samples in dcpi_workload_hot"
echo "dcpi: dcpi_workload_hot $hot of $total samples ($itotal in its image)"

# near A B TOL: |A - B| <= TOL.  The counts are compared exactly; the
# shares within a printed digit: google-pprof's percentages are of a base
# that can be a sample under its Total line (2952 of 6261 printed 47.2%,
# 47.149% exactly).
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# pprof of the whole system: several images at synthetic ranges, and
# pprof finds the workload's symbols in its own range only.
ctl export --format=pprof -o "$T/all.prof" || fail "export pprof failed"
google-pprof --text "$T/$W" "$T/all.prof" >"$T/pprof.txt" 2>"$T/pprof.err" || fail "google-pprof failed: $(cat "$T/pprof.err")"
grep -q "^Total: $total samples" "$T/pprof.txt" || fail "pprof total differs from $total: $(head -1 "$T/pprof.txt")"
set -- $(awk "$is_hot { print; exit }" "$T/pprof.txt")
echo "pprof (all images): $*"
[ "${1:-}" = "$hot" ] || fail "pprof counts '${1:-}' samples in dcpi_workload_hot, dcpi $hot"
share=$(awk -v h="$hot" -v t="$total" 'BEGIN { printf "%.1f", 100 * h / t }')
near "${2%\%}" "$share" 0.101 || fail "pprof share $2, dcpi $share%"

# Callgrind of the whole system: every image under its ob=.
ctl export --format=callgrind -o "$T/all.cg" 2>/dev/null || fail "export callgrind failed"
callgrind_annotate "$T/all.cg" >"$T/cgall.txt" 2>&1 || fail "callgrind_annotate failed: $(cat "$T/cgall.txt")"
got=$(awk -v w="/$W]" '/export_hot.c:dcpi_workload_hot / && index($0, w) { gsub(",", "", $1); print $1 }' "$T/cgall.txt")
[ "$got" = "$hot" ] || fail "callgrind_annotate (all images) counts '$got' in dcpi_workload_hot, dcpi $hot"
got=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' "$T/cgall.txt")
[ "$got" = "$total" ] || fail "callgrind_annotate (all images) total $got, dcpi $total"
echo "callgrind_annotate (all images): $hot of $got"

# From here on, the workload's image: other processes cannot come first.
share=$(awk -v h="$hot" -v t="$itotal" 'BEGIN { printf "%.2f", 100 * h / t }')
ctl export --format=pprof --image $W -o "$T/x.prof" || fail "export pprof --image failed"
google-pprof --text "$T/$W" "$T/x.prof" >"$T/pprof1.txt" 2>"$T/pprof.err" || fail "google-pprof failed: $(cat "$T/pprof.err")"
set -- $(awk '$1 ~ /^[0-9]+$/ && NF >= 6 { print; exit }' "$T/pprof1.txt")
echo "pprof: $*"
echo "$*" | awk "$is_hot { ok = 1 } END { exit !ok }" || fail "pprof puts '${6:-}' first: $(head -5 "$T/pprof1.txt")"
[ "$1" = "$hot" ] || fail "pprof counts $1 samples in dcpi_workload_hot, dcpi $hot"
near "${2%\%}" "$share" 0.101 || fail "pprof share $2, dcpi $share%"

# gmon.out: gprof's flat profile.
ctl export --format=gmon --image $W -o "$T/gmon.out" || fail "export gmon failed"
gprof -b -p "$T/$W" "$T/gmon.out" >"$T/gprof.txt" 2>&1 || fail "gprof failed: $(cat "$T/gprof.txt")"
first=$(awk '$1 ~ /^[0-9.]+$/ { print; exit }' "$T/gprof.txt")
echo "gprof: $first"
set -- $first
[ "$(eval echo \${$#})" = dcpi_workload_hot ] || fail "gprof puts another function first: $first"
near "$1" "$share" 0.011 || fail "gprof share $1%, dcpi $share%"
# cpu-clock's period is 1 ms here: self seconds are the samples / 1000.
near "$3" "$(awk -v h="$hot" 'BEGIN { print h / 1000 }')" 0.011 || fail "gprof self seconds $3 for $hot samples"

# Callgrind, with procedure names and source lines.
ctl export --format=callgrind --image $W -o "$T/cg.out" || fail "export callgrind failed"
callgrind_annotate "$T/cg.out" >"$T/cga.txt" 2>&1 || fail "callgrind_annotate failed: $(cat "$T/cga.txt")"
first=$(awk '/file:function/ { getline; getline; print; exit }' "$T/cga.txt")
echo "callgrind_annotate: $first"
case $first in
*export_hot.c:dcpi_workload_hot\ *) ;;
*) fail "callgrind_annotate puts another function first: $first" ;;
esac
count=$(echo "$first" | awk '{ gsub(",", "", $1); print $1 }')
[ "$count" = "$hot" ] || fail "callgrind_annotate counts $count, dcpi $hot"
pct=$(echo "$first" | sed 's/.*(\([0-9.]*\)%).*/\1/')
near "$pct" "$share" 0.051 || fail "callgrind_annotate share $pct%, dcpi $share%"

# xprof_text: our parser reads back the same counts.
ctl export --format=xprof --image $W -o "$T/x.txt" || fail "export xprof failed"
grep -q '^PROFILE-FEEDBACK-DATA: ' "$T/x.txt" || fail "no xprof header"
ctl cat "$T/x.txt" >"$T/xcat.txt" || fail "cat of the xprof file failed"
got=$(awk '$1 == "proc" && $2 == "dcpi_workload_hot" { print $3 }' "$T/xcat.txt")
[ "$got" = "$hot" ] || fail "xprof re-read gives $got samples for dcpi_workload_hot, dcpi $hot"
xtotal=$(awk '$1 == "proc" { s += $3 } END { print s }' "$T/xcat.txt")
[ "$xtotal" = "$itotal" ] || fail "xprof re-read gives $xtotal samples in all, dcpi $itotal"
echo "xprof: dcpi_workload_hot $got of $xtotal"
exit 0
