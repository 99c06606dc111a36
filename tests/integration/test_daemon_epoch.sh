#!/bin/sh
# `dcpictl epoch` flushes, makes a new epoch directory, points `current` at
# it, and later samples land only there.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_before
build_hot hot_after

start_dcpid -e perf::cpu-clock
e1=$(current_epoch)
[ -d "$DB/$e1" ] || fail "no epoch directory $e1"
"$T/hot_before" 1 || fail "workload failed"
ctl epoch || fail "dcpictl epoch failed"
e2=$(current_epoch)
[ -n "$e2" ] && [ "$e2" != "$e1" ] || fail "current did not move from $e1 (now $e2)"
[ -d "$DB/$e2/$(hostname)" ] || fail "no directory for the new epoch $e2"
kallsyms_of "$e2" | grep -q ' _stext$' || fail "no kallsyms snapshot for $e2"
# The old epoch got its samples before it ended.
assert_hot "$e1" hot_before "$T/hot_before" dcpi_workload_hot 50
"$T/hot_after" 1 || fail "workload failed"
ctl flush || fail "dcpictl flush failed"
assert_hot "$e2" hot_after "$T/hot_after" dcpi_workload_hot 50
[ -z "$(profile_file "$e1" hot_after)" ] || fail "samples after the rotation landed in the old epoch $e1"
[ -z "$(profile_file "$e2" hot_before)" ] || fail "samples before the rotation landed in the new epoch $e2"
# Two rotations in the same second still give distinct epochs.
ctl epoch >/dev/null || fail "second dcpictl epoch failed"
ctl epoch >/dev/null || fail "third dcpictl epoch failed"
[ "$(ls -d "$DB"/2* | wc -l)" -eq 4 ] || fail "expected 4 epoch directories: $(ls "$DB")"
assert_db_valid
stop_dcpid

# A start that cannot sample leaves no epoch behind (exit 78: an event this
# machine cannot open, or cannot encode), so the next start's epoch begins
# when its sampling does.
rm -rf "$DB"; mkdir -m 0750 "$DB"
"$DCPID" -f -e no::such-event -d "$DB" --socket "$SOCK" >"$T/bad.log" 2>&1; rc=$?
[ "$rc" = 78 ] || fail "dcpid with an unknown event exited $rc, expected 78: $(cat "$T/bad.log")"
[ -z "$(ls "$DB")" ] || fail "a failed start left $(ls "$DB") in the database"
# An epoch whose kernel symbols were copied without addresses (a dcpid
# without CAP_SYSLOG, or under ProtectKernelTunables=) gets them replaced
# by a reference to the kernel's snapshot.
e=20250101000000
mkdir -p "$DB/$e/$(hostname)" && : >"$DB/$e/$(hostname)/kallsyms" && ln -s "$e" "$DB/current"
start_dcpid -e perf::cpu-clock
[ "$(current_epoch)" = "$e" ] || fail "dcpid did not continue epoch $e"
[ ! -e "$DB/$e/$(hostname)/kallsyms" ] && [ -f "$DB/$e/$(hostname)/kallsyms.ref" ] ||
    fail "the empty kallsyms of $e was not replaced by a reference: $(ls "$DB/$e/$(hostname)")"
kallsyms_of "$e" | grep -q '^[0-9a-f]*[1-9a-f][0-9a-f]* [Tt] _stext$' ||
    fail "the kernel symbols of $e have no addresses"
grep -q 'replaced a copy without kernel addresses' "$DCPID_LOG" || fail "no log line about the replaced kallsyms"
stop_dcpid
