#!/bin/sh
# Who may write into the database: dcpid refuses a database
# directory others may write into, at start-up and at a flush; it creates
# a new database with the configured group, directories 0750 and files
# 0640 (the kernel symbols' snapshot and reference too), whatever umask it
# was started with.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

G=dcpitest$$
groupadd "$G" 2>/dev/null || skip "cannot groupadd"
trap 'groupdel "$G" 2>/dev/null; cleanup' EXIT

# 0777: refused at start-up, with a message naming it.
mkdir -m 0777 "$DB"
timeout 20 "$DCPID" -f -d "$DB" --socket "$SOCK" -e perf::cpu-clock >"$T/refused.log" 2>&1
rc=$?
[ $rc = 124 ] && fail "dcpid ran on a 0777 database"
[ $rc != 0 ] || fail "dcpid exited 0 on a 0777 database"
grep -q "$DB: mode 0777.*writable by others" "$T/refused.log" || fail "message: $(cat "$T/refused.log")"
[ ! -e "$DB/dcpid.lock" ] || fail "dcpid wrote into a 0777 database"
rmdir "$DB"

# A new database, with `group =`, under a careless umask.
cat >"$T/dcpid.conf" <<CONF
group = $G
CONF
(umask 0; exec "$DCPID" -f --config "$T/dcpid.conf" -d "$DB" --socket "$SOCK" \
    -e perf::cpu-clock --flush-interval 3600 >"$DCPID_LOG" 2>&1) &
DCPID_PID=$!
for _ in $(seq 1 100); do
	"$DCPICTL" --socket "$SOCK" status >/dev/null 2>&1 && break
	kill -0 "$DCPID_PID" 2>/dev/null || fail "dcpid exited during start-up"
	sleep 0.1
done
sleep 1
ctl flush || fail "flush failed"
e=$(current_epoch)
n=0
for d in "$DB" "$DB/$e" "$DB/$e"/* "$DB/$e"/*/perf::cpu-clock "$DB/kernels"; do
	[ "$(stat -c '%a %G' "$d")" = "750 $G" ] || fail "$d: $(stat -c '%a %G' "$d"), expected 750 $G"
	n=$((n + 1))
done
for f in "$DB/$e"/*/kallsyms.ref "$DB"/kernels/*.gz "$DB/$e"/*/perf::cpu-clock/* "$DB/dcpid.lock"; do
	[ -f "$f" ] || continue
	[ "$(stat -c '%a %G' "$f")" = "640 $G" ] || fail "$f: $(stat -c '%a %G' "$f"), expected 640 $G"
	n=$((n + 1))
done
echo "$n directories and files: modes 0750/0640, group $G"
[ -f "$DB/$e"/*/kallsyms.ref ] && ls "$DB"/kernels/*.gz >/dev/null || fail "no kernel symbols snapshot"

# Made group-writable for another group and others while running: the
# flush refuses, names the reason, and keeps the counts.
chmod 0777 "$DB"
timeout 20 "$DCPICTL" --socket "$SOCK" flush >"$T/flush.out" 2>&1 && fail "flush into a 0777 database succeeded"
grep -q "writable by others" "$T/flush.out" || fail "flush error: $(cat "$T/flush.out")"
chmod 0750 "$DB"
ctl flush || fail "flush after chmod 0750 failed"
stop_dcpid
