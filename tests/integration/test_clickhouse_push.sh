#!/bin/sh
# dcpictl push and prof --from: two databases of two hosts each,
# pushed to a clickhouse-server on loopback; prof --from equals the sum of
# local prof over both, row for row (procedures, images, -n, --host);
# pushing again is a no-op; the current epoch goes only when named.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/clickhouse.sh"

HP=$(ch_port 127.0.0.1 $((21000 + $$ % 4000)))
TP=$(ch_port 127.0.0.1 $((HP + 1)))
ch_start one 127.0.0.1 "$HP" "$TP"
URL=clickhouse://127.0.0.1:$HP/fleet

ch_template
"$top_builddir/bench/mkprofdb" "$T/template.so" "$T/f1" 6 400 2 3 alpha >/dev/null || fail "mkprofdb f1"
"$top_builddir/bench/mkprofdb" "$T/template.so" "$T/f2" 6 400 2 3 beta >/dev/null || fail "mkprofdb f2"
E1=20261121000000 E2=20261121010000 E3=20261121020000
[ "$(readlink "$T/f1/db/current")" = $E3 ] || fail "mkprofdb: current is not $E3"

dbsum() { (cd "$T/$1/db" && find . -type f | sort | xargs md5sum | md5sum); }
before=$(dbsum f1)

# Bad URLs are refused with a message, nothing sent.
"$DCPICTL" -d "$T/f1/db" push --to "http://127.0.0.1:$HP/fleet" --all 2>"$T/err" && fail "push took an http:// URL"
grep -q 'expected clickhouse://' "$T/err" || fail "bad URL message: $(cat "$T/err")"
"$DCPICTL" -d "$T/f1/db" push --to "clickhouse://127.0.0.1:1/fleet" --all 2>"$T/err" && fail "push to a closed port succeeded"
grep -q '127.0.0.1:1' "$T/err" || fail "refused connection not named: $(cat "$T/err")"

# --all: every epoch but the current one.
for f in f1 f2; do
	"$DCPICTL" -d "$T/$f/db" push --to "$URL" --all >"$T/push-$f.out" 2>"$T/push-$f.err" ||
	    fail "push $f: $(cat "$T/push-$f.err")"
done
grep -q "^$E1 alpha000: pushed " "$T/push-f1.out" || fail "push: $(cat "$T/push-f1.out")"
grep -q "$E3" "$T/push-f1.out" && fail "push --all pushed the current epoch: $(cat "$T/push-f1.out")"
grep -q '^pushed 4, already there 0, failed 0' "$T/push-f2.out" || fail "push f2: $(cat "$T/push-f2.out")"

check_equal() {	# check_equal WHAT [prof options]: --from vs local f1 + f2
	what=$1; shift
	"$DCPICTL" -d "$T/f1/db" prof --epoch $E1 --epoch $E2 --csv "$@" >"$T/l1.csv" 2>"$T/err" || fail "local prof f1: $(cat "$T/err")"
	"$DCPICTL" -d "$T/f2/db" prof --epoch $E1 --epoch $E2 --csv "$@" >"$T/l2.csv" 2>"$T/err" || fail "local prof f2: $(cat "$T/err")"
	"$DCPICTL" prof --from "$URL" --epoch $E1 --epoch $E2 --csv "$@" >"$T/r.csv" 2>"$T/err" || fail "prof --from: $(cat "$T/err")"
	sum_rows "$T/l1.csv" "$T/l2.csv" >"$T/want"
	sum_rows "$T/r.csv" >"$T/got"
	[ "$(wc -l <"$T/want")" -ge 100 ] || fail "$what: only $(wc -l <"$T/want") rows locally"
	cmp -s "$T/want" "$T/got" || fail "$what: prof --from differs from local f1 + f2: $(diff "$T/want" "$T/got" | head -10)"
}
check_equal "procedures"
grep -q ',ch_fn_[0-9]*,libbench0000.so$' "$T/r.csv" || fail "no procedure named: $(head -3 "$T/r.csv")"
# The same order: by samples, then procedure and image.
sort -t, -k1,1nr -k4,4 -k5,5 "$T/r.csv" | grep -v '^perf' | cut -d, -f1,4,5 >"$T/sorted"
tail -n +2 "$T/r.csv" | cut -d, -f1,4,5 >"$T/asis"
cmp -s "$T/sorted" "$T/asis" || fail "prof --from rows not in prof's order"

# -i: per image.
"$DCPICTL" -d "$T/f1/db" prof --epoch $E1 --epoch $E2 --csv -i >"$T/l1.csv" || fail "local prof -i"
"$DCPICTL" -d "$T/f2/db" prof --epoch $E1 --epoch $E2 --csv -i >"$T/l2.csv" || fail "local prof -i"
"$DCPICTL" prof --from "$URL" --all --csv -i >"$T/r.csv" || fail "prof --from -i"
awk -F, 'FNR > 1 { n[$4] += $1 } END { for (k in n) print n[k], k }' "$T/l1.csv" "$T/l2.csv" | sort >"$T/want"
awk -F, 'FNR > 1 { print $1, $4 }' "$T/r.csv" | sort >"$T/got"
cmp -s "$T/want" "$T/got" || fail "prof --from -i differs: $(diff "$T/want" "$T/got" | head)"

# -n 20: the top 20 of the sum, in order; the header's totals too.
"$DCPICTL" prof --from "$URL" -n 20 >"$T/top.txt" || fail "prof --from -n 20"
total=$(awk -F, '{ s += $1 } END { print s }' "$T/want")
grep -q "^perf::cpu-clock *$total 1000000\$" "$T/top.txt" || fail "header total is not $total: $(head -4 "$T/top.txt")"
grep -q "hosts alpha000, alpha001, beta000, beta001" "$T/top.txt" || fail "header hosts: $(head -2 "$T/top.txt")"
"$DCPICTL" prof --from "$URL" -n 20 --csv | tail -n +2 | cut -d, -f1,4,5 >"$T/top20"
check_equal "procedures (again)"
sort -t, -k1,1nr -k2,2 -k3,3 "$T/got" | head -20 >"$T/want20"
cmp -s "$T/want20" "$T/top20" || fail "-n 20 is not the top 20: $(diff "$T/want20" "$T/top20" | head)"

# --host GLOB: one database's hosts only.
"$DCPICTL" -d "$T/f1/db" prof --epoch $E1 --epoch $E2 --csv >"$T/l1.csv" || fail "local prof f1"
"$DCPICTL" prof --from "$URL" --host 'alpha*' --csv >"$T/r.csv" || fail "prof --from --host"
[ "$(sum_rows "$T/l1.csv")" = "$(sum_rows "$T/r.csv")" ] || fail "--host alpha* differs from f1"
"$DCPICTL" prof --from "$URL" --host 'nosuch*' 2>"$T/err" && fail "--host nosuch* succeeded"
grep -q 'no pushed epoch' "$T/err" || fail "--host nosuch*: $(cat "$T/err")"

# diff --from of two epochs: per procedure, A and B are the sums of the
# local epochs.
"$DCPICTL" diff --from "$URL" $E1 $E2 --csv >"$T/diff.csv" 2>"$T/err" || fail "diff --from: $(cat "$T/err")"
col=5
for e in $E1 $E2; do
	"$DCPICTL" -d "$T/f1/db" prof --epoch $e --csv >"$T/l1.csv" || fail "local prof $e"
	"$DCPICTL" -d "$T/f2/db" prof --epoch $e --csv >"$T/l2.csv" || fail "local prof $e"
	awk -F, -v c=$col 'NR > 1 && $c > 0 { print $c "," $7 "," $8 }' "$T/diff.csv" | sort >"$T/got"
	sum_rows "$T/l1.csv" "$T/l2.csv" >"$T/want"
	cmp -s "$T/want" "$T/got" || fail "diff --from: side $e differs: $(diff "$T/want" "$T/got" | head)"
	col=6
done
"$DCPICTL" diff --from "$URL" ..2026-11-21T00:30 2026-11-21T00:30.. --csv >"$T/diff2.csv" || fail "diff --from ranges"
cmp -s "$T/diff.csv" "$T/diff2.csv" || fail "diff --from: the ranges around the epochs differ from their names"

# diff's tests and stats, from the server's sums, are local f1's to the
# digit: f1 holds the hosts alpha*.
"$DCPICTL" -d "$T/f1/db" diff $E1 $E2 --csv >"$T/want" || fail "local diff"
"$DCPICTL" diff --from "$URL" --host 'alpha*' $E1 $E2 --csv >"$T/got" || fail "diff --from --host"
cmp -s "$T/want" "$T/got" || fail "diff --from's tests differ from local: $(diff "$T/want" "$T/got" | head)"
# The runs model: each side's two hosts.
"$DCPICTL" -d "$T/f1/db" diff $E1 $E2 --by host --csv >"$T/want" || fail "local diff --by host"
"$DCPICTL" diff --from "$URL" --by host --host 'alpha*' $E1 $E2 --csv >"$T/got" 2>"$T/err" ||
	fail "diff --from --by host: $(cat "$T/err")"
grep -q ',runs$' "$T/want" && cmp -s "$T/want" "$T/got" ||
	fail "diff --from --by host differs from local: $(diff "$T/want" "$T/got" | head)"
"$DCPICTL" -d "$T/f1/db" diff -i $E1 $E2 --csv >"$T/want" || fail "local diff -i"
"$DCPICTL" diff --from "$URL" -i --host 'alpha*' $E1 $E2 --csv >"$T/got" || fail "diff --from -i"
[ "$(wc -l <"$T/want")" -ge 3 ] && cmp -s "$T/want" "$T/got" ||
	fail "diff --from -i differs from local: $(diff "$T/want" "$T/got" | head)"
for by in epoch host; do
	"$DCPICTL" -d "$T/f1/db" stats --by $by --epoch $E1 --epoch $E2 --csv >"$T/want" ||
		fail "local stats --by $by"
	"$DCPICTL" stats --from "$URL" --by $by --host 'alpha*' --epoch $E1 --epoch $E2 --csv \
	    >"$T/got" 2>"$T/err" || fail "stats --from --by $by: $(cat "$T/err")"
	[ "$(wc -l <"$T/want")" -ge 100 ] || fail "stats --by $by: $(wc -l <"$T/want") rows"
	cmp -s "$T/want" "$T/got" || fail "stats --from --by $by differs: $(diff "$T/want" "$T/got" | head)"
done
echo "diff --from's tests and stats --from --by epoch, host: as local"

# Pushing again changes nothing; the current epoch only when named.
"$DCPICTL" -d "$T/f1/db" push --to "$URL" --all >"$T/again.out" || fail "second push failed"
grep -q '^pushed 0, already there 4, failed 0' "$T/again.out" || fail "second push: $(cat "$T/again.out")"
check_equal "after pushing twice"
"$DCPICTL" -d "$T/f1/db" push --to "$URL" --epoch $E3 >"$T/cur.out" || fail "push --epoch current"
grep -q "^$E3 alpha001: pushed" "$T/cur.out" || fail "push --epoch $E3: $(cat "$T/cur.out")"
# The local database was only read.
[ "$(dbsum f1)" = "$before" ] || fail "push changed the local database"
echo PASS
