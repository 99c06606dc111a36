#!/bin/sh
# Links planted in the database: whoever can write into it must
# not make root truncate or create files elsewhere.  dcpid refuses a
# symlinked dcpid.lock (the victim keeps its content), an epoch that
# `current` names but that is a link to a root-only directory, and at
# flush time an event directory replaced by a link: nothing is written
# outside the database, and the message names the link.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

# dcpid must refuse rather than hang or run: at most this long.
refuses() {
	timeout 20 "$DCPID" -f -d "$DB" --socket "$SOCK" -e perf::cpu-clock \
	    >"$T/refused.log" 2>&1
	rc=$?
	[ $rc = 124 ] && fail "dcpid ran on $1"
	[ $rc != 0 ] || fail "dcpid exited 0 on $1"
	grep -q "$2" "$T/refused.log" || fail "dcpid on $1 did not say '$2': $(cat "$T/refused.log")"
}

# The lock.
mkdir -m 0755 "$DB"
echo "victim content" >"$T/victim"
ln -s "$T/victim" "$DB/dcpid.lock"
refuses "a symlinked lock" "dcpid.lock: is a symbolic link"
[ "$(cat "$T/victim")" = "victim content" ] || fail "the lock's target was overwritten: $(cat "$T/victim")"
rm -f "$DB/dcpid.lock"

# current -> E, E -> a directory outside the database.
mkdir -m 0700 "$T/rootonly"
ln -s "$T/rootonly" "$DB/20261121223000"
ln -s 20261121223000 "$DB/current"
refuses "a symlinked epoch" "20261121223000: is a symbolic link"
[ -z "$(ls -A "$T/rootonly")" ] || fail "dcpid wrote through the epoch link: $(ls -AR "$T/rootonly")"
rm -f "$DB/current" "$DB/20261121223000"

# An event directory replaced by a link under a running dcpid.
start_dcpid -e perf::cpu-clock --flush-interval 3600
e=$(current_epoch)
ctl flush || fail "first flush failed"
ev=$(ls -d "$DB/$e"/*/perf::cpu-clock) || fail "no event directory"
mkdir -m 0700 "$T/elsewhere"
rm -rf "$ev"
ln -s "$T/elsewhere" "$ev"
sleep 0.5
timeout 20 "$DCPICTL" --socket "$SOCK" flush >"$T/flush.out" 2>&1 && fail "flush through a link succeeded"
grep -q "perf::cpu-clock: is a symbolic link" "$T/flush.out" || fail "flush error: $(cat "$T/flush.out")"
[ -z "$(ls -A "$T/elsewhere")" ] || fail "dcpid wrote through the event link: $(ls -A "$T/elsewhere")"
# Nothing lost: once the link is gone the counts go where they belong.
rm -f "$ev"
ctl flush || fail "flush after removing the link failed"
[ -n "$(ls "$ev")" ] || fail "no profiles after the link was removed"
stop_dcpid
