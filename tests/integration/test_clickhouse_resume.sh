#!/bin/sh
# Exactly once: a push cut short by killing clickhouse-server
# half-way leaves rows that no query counts; after a restart the repeated
# push completes, and the totals equal the local database's, as after
# pushing twice.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/clickhouse.sh"

HP=$(ch_port 127.0.0.1 $((25000 + $$ % 4000)))
TP=$(ch_port 127.0.0.1 $((HP + 1)))
ch_start one 127.0.0.1 "$HP" "$TP"

ch_template
# 3 hosts x 3 epochs (2 pushed) of 20 images x 1,000 addresses: 120,000 rows.
"$top_builddir/bench/mkprofdb" "$T/template.so" "$T/f" 20 1000 3 3 web >/dev/null || fail "mkprofdb"
E1=20261121000000 E2=20261121010000
local_total() {
	"$DCPICTL" -d "$T/f/db" prof --epoch $E1 --epoch $E2 --csv >"$T/local.csv" || fail "local prof"
	sum_rows "$T/local.csv"
}
want=$(local_total)

# Small batches, so that the kill lands between two; a push that still
# completes first is tried again with a fresh store and smaller batches.
batch=400 try=0 cut=
while [ -z "$cut" ]; do
	try=$((try + 1))
	[ $try -le 4 ] || fail "the push completed before the kill $try times"
	URL=clickhouse://127.0.0.1:$HP/cut$try
	"$DCPICTL" -d "$T/f/db" push --to "$URL" --all --batch-rows $batch >"$T/push.out" 2>"$T/push.err" &
	pp=$!
	# Wait for the first (host, epoch) to complete and the next one's
	# rows to come, then kill.
	i=0
	while [ "$(ch_sql 127.0.0.1 "$HP" "SELECT count() FROM cut$try.samples" 2>/dev/null || echo 0)" -lt $((20000 + batch * 3)) ]; do
		kill -0 $pp 2>/dev/null || break
		i=$((i + 1)); [ $i -lt 6000 ] || fail "no rows stored in 600 s"
		sleep 0.1
	done
	kill -KILL "$CH_PID"
	wait "$CH_PID" 2>/dev/null
	if wait $pp; then
		batch=$((batch / 4))
		ch_start one 127.0.0.1 "$HP" "$TP"
		continue
	fi
	cut=yes
done
grep -q 'not complete' "$T/push.err" || fail "the cut push did not say what failed: $(cat "$T/push.err")"
grep -q "127.0.0.1:$HP" "$T/push.err" || fail "the cut push did not name the server: $(cat "$T/push.err")"

ch_start one 127.0.0.1 "$HP" "$TP"
stored=$(ch_sql 127.0.0.1 "$HP" "SELECT count() FROM cut$try.samples")
done_n=$(ch_sql 127.0.0.1 "$HP" "SELECT count() FROM cut$try.pushes")
[ "$done_n" -lt 6 ] || fail "all 6 pushes completed although the server was killed"
[ "$stored" -gt 0 ] || fail "nothing stored before the kill"
# What is there counts only completed pushes: never more than the local
# totals of the (host, epoch) completed.
if [ "$done_n" -gt 0 ]; then
	"$DCPICTL" prof --from "$URL" --csv >"$T/partial.csv" 2>"$T/err" || fail "prof --from after the cut: $(cat "$T/err")"
	files=
	for he in $(ch_sql 127.0.0.1 "$HP" "SELECT concat(host, ':', epoch) FROM cut$try.pushes"); do
		h=${he%:*} e=${he#*:}
		"$DCPICTL" -d "$T/f/db" prof --epoch "$e" --host "$h" --csv >"$T/p-$he.csv" || fail "local prof $h $e"
		files="$files $T/p-$he.csv"
	done
	[ "$(sum_rows $files)" = "$(sum_rows "$T/partial.csv")" ] ||
	    fail "after the cut, prof --from counts rows of the incomplete push"
else
	"$DCPICTL" prof --from "$URL" 2>"$T/err" && fail "prof --from counted an incomplete push"
	grep -q 'nothing pushed yet' "$T/err" || fail "prof --from after the cut: $(cat "$T/err")"
fi

# Pushed again: completes, and the totals are the local ones.
"$DCPICTL" -d "$T/f/db" push --to "$URL" --all --batch-rows 5000 >"$T/again.out" 2>"$T/err" ||
    fail "repeated push failed: $(cat "$T/err")"
grep -q "^pushed $((6 - done_n)), already there $done_n, failed 0" "$T/again.out" ||
    fail "repeated push: $(cat "$T/again.out")"
"$DCPICTL" prof --from "$URL" --csv >"$T/r.csv" || fail "prof --from"
[ "$(sum_rows "$T/r.csv")" = "$want" ] || fail "after the repeated push the totals differ from the local ones"
total=$(ch_sql 127.0.0.1 "$HP" "SELECT count() FROM cut$try.samples")
[ "$total" -gt 120000 ] || fail "the cut push's rows are gone ($total): the test proves nothing"
# And once more: a no-op, the same totals.
"$DCPICTL" -d "$T/f/db" push --to "$URL" --all >"$T/third.out" || fail "third push failed"
grep -q '^pushed 0, already there 6, failed 0' "$T/third.out" || fail "third push: $(cat "$T/third.out")"
"$DCPICTL" prof --from "$URL" --csv >"$T/r.csv" || fail "prof --from"
[ "$(sum_rows "$T/r.csv")" = "$want" ] || fail "after pushing twice the totals differ"
echo "PASS (cut after $stored rows, $done_n of 6 pushes complete, try $try)"
