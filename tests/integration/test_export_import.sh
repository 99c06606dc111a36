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

# Counts above gmon's 16-bit bins, through gprof and back: a gperftools
# profile with 200000 and 70000 samples inside dcpi_workload_hot.
cat >"$T/mkpprof.c" <<'END'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
/* mkpprof OUT PC COUNT PC COUNT MAPLINE: a 64-bit gperftools CPU profile. */
int main(int argc, char **argv) {
	uint64_t hdr[] = { 0, 3, 0, 1000, 0 }, tr[] = { 0, 1, 0 }, r[3];
	FILE *f = fopen(argv[1], "wb");
	int i;
	if (f == NULL || argc != 7) return 1;
	fwrite(hdr, 8, 5, f);
	for (i = 2; i < 6; i += 2) {
		r[0] = strtoull(argv[i + 1], NULL, 0); r[1] = 1; r[2] = strtoull(argv[i], NULL, 0);
		fwrite(r, 8, 3, f);
	}
	fwrite(tr, 8, 3, f);
	fprintf(f, "%s\n", argv[6]);
	return fclose(f) != 0;
}
END
${CC:-cc} -o "$T/mkpprof" "$T/mkpprof.c" || fail "cannot compile mkpprof"
a=$(nm "$T/prof_hot" | awk '$3 == "dcpi_workload_hot" { print "0x" $1 }')
# Mapped at 0x400000 from file offset 0: the PC is 0x400000 + the vaddr
# (PIE).  Even addresses: a gmon bin holds 2 bytes (gprof's UNIT).
"$T/mkpprof" "$T/big.prof" $((0x400000 + ((a + 4) & ~1))) 200000 $((0x400000 + ((a + 8) & ~1))) 70000 \
    "00400000-00500000 r-xp 00000000 00:00 0 $T/prof_hot" || fail "mkpprof failed"
ctl import "$T/big.prof" --image "$T/prof_hot" --epoch 20260103000000 >/dev/null || fail "import of big.prof failed"
got=$(ctl prof --csv --epoch 20260103000000 | awk -F, '$4 == "dcpi_workload_hot" { print $1 }')
[ "$got" = 270000 ] || fail "big.prof: dcpi_workload_hot has '$got' samples, not 270000"
ctl export --format=gmon --epoch 20260103000000 -o "$T/big.gmon" || fail "export of big counts failed"
set -- $(gprof -b -p "$T/prof_hot" "$T/big.gmon" | awk '$NF == "dcpi_workload_hot" { print $1, $3; exit }')
[ "${1:-}" = 100.00 ] && [ "${2:-}" = 270.00 ] || fail "gprof reads '$*' (% time, self seconds), not 100.00 270.00"
"$DCPICTL" -d "$T/db4" import "$T/big.gmon" --image "$T/prof_hot" --epoch 20260103000000 >/dev/null || fail "import of big.gmon failed"
for d in db db4; do
	"$DCPICTL" -d "$T/$d" cat "$T/$d"/20260103000000/*/*/* | grep '^0x' >"$T/$d.big"
done
[ "$(wc -l <"$T/db.big")" = 2 ] && cmp -s "$T/db.big" "$T/db4.big" || fail "DCPI -> gmon -> DCPI changed big counts: $(cat "$T/db.big" "$T/db4.big")"
echo "counts above 65,535: gprof reads 270.00 s; gmon round trip keeps $(tr '\n' ' ' <"$T/db.big")"

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
