#!/bin/sh
# Profiles written by the tools themselves (gperftools' libprofiler, a -pg
# program's gmon.out) import into a database and list; valgrind's Callgrind
# output reads as callgrind_annotate reads it; DCPI -> pprof ->
# DCPI and DCPI -> gmon -> DCPI through dcpictl keep the counts; malformed
# files in each format fail with one line naming the file and where.
# No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

for tool in google-pprof gprof valgrind callgrind_annotate; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: google-perftools, binutils, valgrind)"
done
HOT=$top_srcdir/tests/workload/hot.c

# gperftools: the real profiler writes the file.
cc_work prof_hot "$HOT" -Wl,--no-as-needed -lprofiler
CPUPROFILE=$T/hot.prof CPUPROFILE_FREQUENCY=1000 "$T/prof_hot" 1 2>/dev/null || fail "prof_hot failed"
[ -s "$T/hot.prof" ] || fail "libprofiler wrote no profile"
want=$(google-pprof --text "$T/prof_hot" "$T/hot.prof" 2>/dev/null | awk '$6 == "dcpi_workload_hot" { print $1 }')
[ -n "$want" ] && [ "$want" -gt 10 ] || fail "google-pprof sees '$want' samples in dcpi_workload_hot"
ctl cat "$T/hot.prof" >"$T/hot.cat" || fail "cat of a gperftools profile failed"
grep -q "^format   pprof" "$T/hot.cat" || fail "cat does not recognize the gperftools profile"
ctl import "$T/hot.prof" --image "$T/prof_hot" --epoch 20260101000000 >/dev/null || fail "import of the gperftools profile failed"
got=$(ctl prof --csv --epoch 20260101000000 | awk -F, '$4 == "dcpi_workload_hot" { print $1 }')
[ "$got" = "$want" ] || fail "imported gperftools profile: dcpi_workload_hot has '$got' samples, google-pprof $want"
ctl list --epoch 20260101000000 dcpi_workload_hot >"$T/list.txt" || fail "list of the imported profile failed"
grep -q "hot.c:" "$T/list.txt" || fail "list shows no source lines"
echo "gperftools: $got samples in dcpi_workload_hot, as google-pprof says"

# gprof: a -pg program writes gmon.out in its working directory.
cc_work pg_hot "$HOT" -pg -no-pie
(cd "$T" && ./pg_hot 1) || fail "pg_hot failed"
[ -s "$T/gmon.out" ] || fail "the -pg program wrote no gmon.out"
secs=$(gprof -b -p "$T/pg_hot" "$T/gmon.out" | awk '$NF == "dcpi_workload_hot" { print $3; exit }')
[ -n "$secs" ] || fail "gprof shows no dcpi_workload_hot"
ctl cat "$T/gmon.out" >"$T/gmon.cat" || fail "cat of gmon.out failed"
rate=$(awk '$1 == "rate" { print $2 }' "$T/gmon.cat")
ctl import "$T/gmon.out" --image "$T/pg_hot" --epoch 20260102000000 >/dev/null || fail "import of gmon.out failed"
got=$(ctl prof --csv --epoch 20260102000000 | awk -F, '$4 == "dcpi_workload_hot" { print $1 }')
[ -n "$got" ] || fail "imported gmon.out: no dcpi_workload_hot"
awk -v g="$got" -v s="$secs" -v r="$rate" 'BEGIN { d = g / r - s; exit !(d < 0.006 && d > -0.006) }' ||
	fail "imported gmon.out: $got samples at $rate/s, gprof says $secs s"
ctl list --epoch 20260102000000 dcpi_workload_hot >/dev/null || fail "list of the imported gmon.out failed"
echo "gmon.out: $got samples in dcpi_workload_hot, gprof $secs s at $rate/s"

# Callgrind written by valgrind: our reader and callgrind_annotate agree.
cc_work vg_hot "$HOT"
valgrind --tool=callgrind --callgrind-out-file="$T/vg.cg" "$T/vg_hot" 0.1 >/dev/null 2>&1 || fail "valgrind failed"
want=$(callgrind_annotate "$T/vg.cg" | awk '/:dcpi_workload_hot / { gsub(",", "", $1); print $1; exit }')
ctl cat "$T/vg.cg" >"$T/vg.cat" || fail "cat of valgrind's callgrind file failed"
got=$(awk '$2 == "dcpi_workload_hot" { print $1 }' "$T/vg.cat")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "callgrind: cat reads '$got' Ir in dcpi_workload_hot, callgrind_annotate '$want'"
echo "valgrind's callgrind file: $got Ir in dcpi_workload_hot, as callgrind_annotate says"

# Round trips through dcpictl: every procedure keeps its count.
ctl prof --csv --epoch 20260101000000 | sort >"$T/before.csv"
ctl export --format=pprof --epoch 20260101000000 -o "$T/rt.prof" || fail "export pprof failed"
"$DCPICTL" -d "$T/db2" import "$T/rt.prof" --epoch 20260101000000 >/dev/null || fail "import of our pprof failed"
"$DCPICTL" -d "$T/db2" prof --csv | sort >"$T/after.csv"
cmp -s "$T/before.csv" "$T/after.csv" || fail "DCPI -> pprof -> DCPI changed the profile: $(diff "$T/before.csv" "$T/after.csv")"
for f in "$T"/db/20260101000000/*/*/*; do
	g=$T/db2/20260101000000/${f#"$T"/db/20260101000000/}
	ctl cat "$f" | grep '^0x' >"$T/a.txt"
	ctl cat "$g" | grep '^0x' >"$T/b.txt" || fail "no $g after the pprof round trip"
	cmp -s "$T/a.txt" "$T/b.txt" || fail "DCPI -> pprof -> DCPI changed counts of $f"
done
ctl export --format=gmon --epoch 20260101000000 -o "$T/rt.gmon" || fail "export gmon failed"
"$DCPICTL" -d "$T/db3" import "$T/rt.gmon" --image "$T/prof_hot" --epoch 20260101000000 >/dev/null || fail "import of our gmon.out failed"
"$DCPICTL" -d "$T/db3" prof --csv | sort >"$T/after.csv"
cmp -s "$T/before.csv" "$T/after.csv" || fail "DCPI -> gmon -> DCPI changed the profile: $(diff "$T/before.csv" "$T/after.csv")"
echo "round trips: pprof and gmon keep every procedure's count"

# Malformed files: a non-zero exit and one line naming the file and where.
bad() {	# bad FILE PATTERN
	if ctl cat "$1" >/dev/null 2>"$T/err"; then fail "cat accepted malformed $1"; fi
	[ "$(wc -l <"$T/err")" = 1 ] || fail "cat of $1: not one line: $(cat "$T/err")"
	grep -q "$1: $2" "$T/err" || fail "cat of $1: '$(cat "$T/err")' lacks '$1: $2'"
}
head -c 100 "$T/hot.prof" >"$T/trunc.prof"
bad "$T/trunc.prof" "byte [0-9]*: "
printf 'gmon\001\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\011' >"$T/tag.gmon"
bad "$T/tag.gmon" "byte 20: unknown record tag 9"
printf 'events: Ir\nfn=main\n1 2 3\n' >"$T/bad.cg"
bad "$T/bad.cg" "line 3: more costs"
printf 'PROFILE-FEEDBACK-DATA: 4.3 1 0 0\nOBJFILE: /x 1 0 0 0 zz\n' >"$T/bad.xprof"
bad "$T/bad.xprof" "line 2: .*signature"
if ctl import "$T/tag.gmon" --image "$T/pg_hot" 2>"$T/err"; then fail "import accepted a malformed gmon.out"; fi
grep -q "tag.gmon: byte 20" "$T/err" || fail "import error lacks the place: $(cat "$T/err")"
echo "malformed files: rejected with one line each"
exit 0
