#!/bin/sh
# prof --from over what the real dcpid wrote: a labelled
# workload, the idle task, the kernel and samples not attributed; the
# epoch packed and pushed, then the whole listing of prof --from (header
# and rows, text and JSON, per procedure, image and label, with --idle and
# --label) is the local one, byte for byte.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
. "$top_srcdir/tests/integration/clickhouse.sh"

HP=$(ch_port 127.0.0.1 $((33000 + $$ % 4000)))
TP=$(ch_port 127.0.0.1 $((HP + 1)))
ch_start one 127.0.0.1 "$HP" "$TP"
URL=clickhouse://127.0.0.1:$HP/live

build_hot ch_live_hot
start_dcpid -e perf::cpu-clock
"$T/ch_live_hot" 1 || fail "ch_live_hot failed"
ctl label ch-live -- "$T/ch_live_hot" 1 || fail "labelled ch_live_hot failed"
sleep 1	# the idle task's samples
ctl epoch >/dev/null || fail "dcpictl epoch failed"
stop_dcpid
E=$(ls "$DB" | grep -v current | head -1)
[ -n "$E" ] && [ "$E" != "$(current_epoch)" ] || fail "no rotated epoch"
# As the epoch timer and cron do (epoch, compress, then dcpi-push): the
# ended epoch is pushed from its pack, which local prof reads too.
ctl compress "$E" >"$T/compress.out" 2>&1 || fail "compress $E: $(cat "$T/compress.out")"
[ -f "$DB/$E/$(hostname)/pack.gz" ] || fail "no pack for $E: $(ls -R "$DB/$E" | head)"

"$DCPICTL" -d "$DB" push --to "$URL" >"$T/push.out" 2>"$T/err" || fail "push: $(cat "$T/err")"
grep -q "^$E .*: pushed " "$T/push.out" || fail "push did not push $E: $(cat "$T/push.out")"

# Our image's rows without cum% (which the rows above make).
ours() {
	grep -F ch_live_hot "$1" | sed -e 's/"cum%": [0-9.]*, //' -e 's/^\([^,]*,[^,]*\),[^,]*,/\1,/' |
	    awk '!/^ *\{/ && NF >= 4 { $3 = "" } { print }'
}
# Local prof symbolizes from the files now: another test's workload,
# deleted or rebuilt meanwhile, changes a row of local prof between two
# runs (the store keeps the names it was pushed with).  Compared when two
# local runs around the fleet's agree; else, after three tries, only the
# header and our own image's rows are.
same() {	# same OPTIONS...: local prof and prof --from print the same
	try=0
	while [ $try -lt 3 ]; do
		try=$((try + 1))
		"$DCPICTL" -d "$DB" prof --epoch "$E" "$@" >"$T/local.out" 2>"$T/err" || fail "local prof $*: $(cat "$T/err")"
		"$DCPICTL" prof --from "$URL" "$@" >"$T/fleet.out" 2>"$T/err" || fail "prof --from $*: $(cat "$T/err")"
		"$DCPICTL" -d "$DB" prof --epoch "$E" "$@" >"$T/local2.out" 2>"$T/err" || fail "local prof $*: $(cat "$T/err")"
		cmp -s "$T/local.out" "$T/local2.out" || continue
		cmp -s "$T/local.out" "$T/fleet.out" && return 0
		# Stable now, but another test's binary may have gone between
		# the push and the first local run (names pushed as "hot",
		# now "chain+0x1c0"): not our image's rows.
		echo "prof $* differs (other tests' images?): $(diff "$T/local.out" "$T/fleet.out" | head -20)"
		break
	done
	echo "prof $*: local prof changed under other tests: the header and ch_live_hot's rows compared"
	[ "$(head -2 "$T/local.out")" = "$(head -2 "$T/fleet.out")" ] || fail "prof $*: the headers differ"
	[ "$(ours "$T/local.out")" = "$(ours "$T/fleet.out")" ] ||
	    fail "prof $*: ch_live_hot's rows differ"
}
same
grep -q ' dcpi_workload_hot  *ch_live_hot$' "$T/fleet.out" || fail "the workload's function is not listed: $(head -20 "$T/fleet.out")"
same -n 10
same -i
same --idle -n 15
same --by label
same --by label,procedure -n 3
same --label ch-live
# The idle task may have no samples on a busy machine: then both refuse.
if "$DCPICTL" -d "$DB" prof --epoch "$E" --label '[idle]' >/dev/null 2>&1; then
	same --label '[idle]'
else
	"$DCPICTL" prof --from "$URL" --label '[idle]' >/dev/null 2>"$T/err" &&
	    fail "prof --from --label [idle] found samples that local prof does not"
	grep -q "no profiles with label '\[idle\]'" "$T/err" || fail "prof --from --label [idle]: $(cat "$T/err")"
fi
same --json -n 20
same --csv --by label,image
echo PASS
