#!/bin/sh
# Counts over the memory cap are flushed early, without a request; with no
# -e and no PMU, dcpid falls back to perf::cpu-clock and says so.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_cap
printf 'memory-cap = 16K\nflush-interval = 3600\n' >"$T/dcpid.conf"
start_dcpid --config "$T/dcpid.conf"
"$T/hot_cap" 1 || fail "workload failed"
# The cap is checked after each second's processing.
for _ in $(seq 1 30); do
	[ -n "$(profile_file "$(current_epoch)" hot_cap "$(ctl status | awk '$1 == "event" { print $2; exit }')")" ] && break
	sleep 0.2
done
ev=$(ctl status | awk '$1 == "event" { print $2; exit }')
f=$(profile_file "$(current_epoch)" hot_cap "$ev")
[ -n "$f" ] || fail "nothing flushed with a 16 KiB memory cap"
grep -q "over the cap" "$DCPID_LOG" || fail "no early flush in the log"
# Where cycles opens (a PMU), it is the default; elsewhere the fallback.
if [ "$ev" = perf::cpu-clock ]; then
	grep -q "cycles.*falling back to perf::cpu-clock" "$DCPID_LOG" ||
	    fail "fallback to perf::cpu-clock not logged"
fi
assert_db_valid
stop_dcpid
