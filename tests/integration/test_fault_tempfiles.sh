#!/bin/sh
# A dcpid killed inside a write leaves its temporary files (.NAME.XXXXXX
# next to a profile, .current.PID next to current); the next dcpid on the
# database removes them, but not one another process holds locked (a
# dcpictl writing it).
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_tmp
start_dcpid -e perf::cpu-clock
"$T/hot_tmp" 0.5 || fail "workload failed"
ctl flush >/dev/null || fail "flush failed"
f=$(profile_file "$(current_epoch)" hot_tmp)
[ -n "$f" ] || fail "no profile of hot_tmp"
kill -KILL "$DCPID_PID"; wait "$DCPID_PID" 2>/dev/null; DCPID_PID=
# What open_temp (lib/file.c) and dcpi_db_set_current leave behind.
d=$(dirname "$f")
head -c 100 "$f" >"$d/.$(basename "$f").a1b2c3"
ln -s "$(current_epoch)" "$DB/.current.99999"
# And one that another writer (a dcpictl compress) holds locked while the
# new dcpid starts: left to it.
busy="$d/.pack.gz.d4e5f6"
: >"$busy"
flock -x "$busy" sleep 30 & holder=$!
for _ in $(seq 1 50); do flock -xn "$busy" true 2>/dev/null || break; sleep 0.1; done
start_dcpid -e perf::cpu-clock
"$T/hot_tmp" 0.5 || fail "workload failed"
ctl flush >/dev/null || fail "flush failed"
[ -f "$busy" ] || fail "dcpid removed a temporary file another process held locked"
grep -q "being written (locked), left alone" "$DCPID_LOG" ||
    fail "dcpid's log does not say it left the locked file"
kill "$holder"; wait "$holder" 2>/dev/null
rm -f "$busy"
stop_dcpid
assert_db_valid
left=$(find "$DB" -name '.*' ! -name . )
[ -z "$left" ] || fail "temporary files left after a restart and a flush: $left"
