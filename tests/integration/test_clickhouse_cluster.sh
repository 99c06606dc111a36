#!/bin/sh
# A two-shard ClickHouse cluster: two clickhouse-servers on
# loopback (127.0.0.2 and 127.0.0.3), dcpictl push ...?cluster= creates the
# local tables on both and Distributed tables on the entry server; the
# epochs of two hosts land on different shards (sharded by host), and prof
# --from through the entry server sums both, as local prof does.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/clickhouse.sh"

A=127.0.0.2 B=127.0.0.3
HP=$(ch_port 127.0.0.1 $((29000 + $$ % 4000)))
TP=$(ch_port 127.0.0.1 $((HP + 1)))
shards="<fleet><shard><replica><host>$A</host><port>$TP</port></replica></shard><shard><replica><host>$B</host><port>$TP</port></replica></shard></fleet>"
ch_start a $A "$HP" "$TP" "$shards"
ch_start b $B "$HP" "$TP" "$shards"
URL="clickhouse://$A:$HP/fleet?cluster=fleet"

# Two host names the sharding key (cityHash64(host) % 2) sends to
# different shards.
p0= p1=
for p in a b c d e f g h i j k l m n o p; do
	s=$(ch_sql $A "$HP" "SELECT cityHash64('${p}host000') % 2") || fail "cannot ask $A"
	if [ "$s" = 0 ] && [ -z "$p0" ]; then p0=${p}host; fi
	if [ "$s" = 1 ] && [ -z "$p1" ]; then p1=${p}host; fi
done
[ -n "$p0" ] && [ -n "$p1" ] || fail "no host names for both shards"

ch_template
"$top_builddir/bench/mkprofdb" "$T/template.so" "$T/f1" 5 300 1 3 "$p0" >/dev/null || fail "mkprofdb f1"
"$top_builddir/bench/mkprofdb" "$T/template.so" "$T/f2" 5 300 1 3 "$p1" >/dev/null || fail "mkprofdb f2"
E1=20261121000000 E2=20261121010000
for f in f1 f2; do
	"$DCPICTL" -d "$T/$f/db" push --to "$URL" --all >"$T/push-$f.out" 2>"$T/err" ||
	    fail "push $f to the cluster: $(cat "$T/err")"
	grep -q '^pushed 2, already there 0, failed 0' "$T/push-$f.out" || fail "push $f: $(cat "$T/push-$f.out")"
done

# Each shard holds one host's rows, completion rows beside them.
ha=$(ch_sql $A "$HP" "SELECT host FROM fleet.samples_local GROUP BY host") || fail "shard $A"
hb=$(ch_sql $B "$HP" "SELECT host FROM fleet.samples_local GROUP BY host") || fail "shard $B"
[ "$ha" = "${p0}000" ] || fail "shard $A holds hosts '$ha', expected ${p0}000"
[ "$hb" = "${p1}000" ] || fail "shard $B holds hosts '$hb', expected ${p1}000"
[ "$(ch_sql $B "$HP" "SELECT count() FROM fleet.pushes_local")" = 2 ] || fail "shard $B: no completion rows"
[ "$(ch_sql $A "$HP" "SELECT engine FROM system.tables WHERE database = 'fleet' AND name = 'samples'")" = Distributed ] ||
    fail "no Distributed samples table on the entry server"

# The fleet query sums both shards.
"$DCPICTL" -d "$T/f1/db" prof --epoch $E1 --epoch $E2 --csv >"$T/l1.csv" || fail "local prof f1"
"$DCPICTL" -d "$T/f2/db" prof --epoch $E1 --epoch $E2 --csv >"$T/l2.csv" || fail "local prof f2"
"$DCPICTL" prof --from "$URL" --csv >"$T/r.csv" 2>"$T/err" || fail "prof --from the cluster: $(cat "$T/err")"
sum_rows "$T/l1.csv" "$T/l2.csv" >"$T/want"
sum_rows "$T/r.csv" >"$T/got"
[ "$(wc -l <"$T/want")" -ge 100 ] || fail "only $(wc -l <"$T/want") rows locally"
cmp -s "$T/want" "$T/got" || fail "prof --from the cluster differs from local f1 + f2: $(diff "$T/want" "$T/got" | head)"
"$DCPICTL" prof --from "$URL" -n 3 >"$T/top.txt" || fail "prof --from -n 3"
hosts=$(printf '%s\n' "${p0}000" "${p1}000" | sort | paste -sd, - | sed 's/,/, /')
grep -q "hosts $hosts\$" "$T/top.txt" || fail "header: $(head -3 "$T/top.txt")"
# Pushing again through the cluster is a no-op.
"$DCPICTL" -d "$T/f2/db" push --to "$URL" --all >"$T/again.out" || fail "second push"
grep -q '^pushed 0, already there 2' "$T/again.out" || fail "second push: $(cat "$T/again.out")"
echo PASS
