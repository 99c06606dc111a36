#!/bin/sh
# The whole database directory removed, then made read-only (a read-only
# bind mount), under a running dcpid: flushes fail with the reason and
# keep the counts, dcpid keeps answering, and once the directory is
# usable again the next flush writes everything.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

ro=0
trap '[ $ro = 1 ] && umount "$DB"; cleanup' EXIT
stat_field() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }

build_hot hot_dbdir
start_dcpid -e perf::cpu-clock --flush-interval 3600
e=$(current_epoch)
"$T/hot_dbdir" 1 || fail "workload failed"
# Removed: lock, current and epoch all gone.  The flush recreates what it
# needs, or fails saying why; either way nothing is lost.
rm -rf "$DB"
if ctl flush >"$T/flush1.out" 2>&1; then
	assert_hot "$e" hot_dbdir "$T/hot_dbdir" dcpi_workload_hot 50
else
	grep -q "flush failed" "$T/flush1.out" || fail "flush into a removed database: $(cat "$T/flush1.out")"
	mkdir -p "$DB"
	ctl flush || fail "flush after recreating the database failed"
	assert_hot "$e" hot_dbdir "$T/hot_dbdir" dcpi_workload_hot 50
fi
before=$(samples_in "$(profile_file "$e" hot_dbdir)" 0 0 | cut -d' ' -f2)

# Read-only.
mount --bind "$DB" "$DB" || skip "cannot bind-mount"
ro=1
mount -o remount,bind,ro "$DB" || fail "cannot remount read-only"
errs=$(stat_field flush-errors)
"$T/hot_dbdir" 1 || fail "workload failed"
ctl flush >"$T/flush2.out" 2>&1 && fail "flush into a read-only database succeeded"
grep -q "Read-only file system" "$T/flush2.out" || fail "flush error does not name the cause: $(cat "$T/flush2.out")"
[ "$(stat_field flush-errors)" -gt "$errs" ] || fail "flush-errors not counted"
s0=$(stat_field samples)
"$T/hot_dbdir" 0.5 || fail "workload failed"
# Status counts what has been processed, up to a second behind.
for _ in $(seq 1 30); do
	[ "$(stat_field samples)" -gt $((s0 + 100)) ] && break
	sleep 0.1
done
[ "$(stat_field samples)" -gt $((s0 + 100)) ] || fail "dcpid stopped sampling ($s0, then $(stat_field samples))"
umount "$DB"
ro=0
ctl flush || fail "flush after the remount failed"
after=$(samples_in "$(profile_file "$e" hot_dbdir)" 0 0 | cut -d' ' -f2)
echo "hot_dbdir: $before samples before the read-only spell, $after after"
[ "$after" -ge $((before + 100)) ] || fail "samples taken while read-only were lost ($before, $after)"
assert_db_valid
stop_dcpid
