#!/bin/sh
# The control socket of a live dcpid: garbage, oversized, half-sent
# messages and 100 concurrent clients while dcpid keeps answering; the
# socket's mode and group; an unprivileged user's flush/epoch/quit denied
# with a clear message while its status is answered; a member of the
# socket's group allowed to flush.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"
require_perf

CTLRAW=$top_builddir/tests/ctlraw
[ -x "$CTLRAW" ] || fail "no $CTLRAW (make check builds it)"
command -v setpriv >/dev/null 2>&1 || fail "setpriv (util-linux) is needed"
NOBODY=65534
# An existing group as the socket's group, so the test changes nothing on
# the machine.
GROUP=users
GID=$(getent group "$GROUP" | cut -d: -f3)
[ -n "$GID" ] || fail "no group '$GROUP' on this machine"

# Others must reach the socket's directory; the socket's mode decides.
chmod 755 "$T"
printf 'group = %s\n' "$GROUP" >"$T/dcpid.conf"
start_dcpid --config "$T/dcpid.conf" -e perf::cpu-clock

[ "$(stat -c '%a %G' "$SOCK")" = "660 $GROUP" ] ||
	fail "socket mode/group: $(stat -c '%a %G' "$SOCK"), expected 660 $GROUP"

# One raw exchange: raw EXPECTED_REGEX CTLRAW_ARGS...
raw() {
	want=$1; shift
	out=$("$CTLRAW" "$@" 2>&1)
	echo "$out" | grep -Eq "$want" || fail "ctlraw $*: got '$out', expected /$want/"
}
answers() {
	ctl status >"$T/status.out" 2>&1 || fail "dcpid stopped answering: $(cat "$T/status.out")"
	grep -Eq '^samples +[0-9]+$' "$T/status.out" || fail "status without samples: $(cat "$T/status.out")"
}

# Result codes (lib/dcpi/ctl.h): 0 ok, 1 version, 2 type, 3 length,
# 6 malformed header.  Each error closes the connection.
raw '^0 lines=0 result=1 msg=protocol version mismatch' "$SOCK" 'str:GET / HTTP/1.1\r\n\r\n'
raw '^0 lines=0 result=1 msg=.*version 2, expected 1' "$SOCK" hdr:2,1,0
raw '^0 lines=0 result=3 msg=payload length 2147483647 .*maximum 16384' "$SOCK" hdr:1,1,0x7fffffff
raw '^0 lines=0 result=3 msg=.*expected 0' "$SOCK" hdr:1,2,4 str:abcd
raw '^0 lines=0 result=2 msg=unknown request type 0x63' "$SOCK" hdr:1,99,0
raw '^0 lines=0 result=2 ' "$SOCK" hdr:1,0x100,4 hex:00000000
raw '^0 lines=0 result=6 msg=malformed header: reserved' "$SOCK" hdr:1,1,0,7,1
answers
# Half-sent messages, then gone.
raw '' -n 20 -c "$SOCK" hex:010001
raw '' -n 20 -c "$SOCK" hex:01000100000000
answers

# One client stalls in mid-header (dcpid drops it after its 10 s idle
# limit) while 100 others ask for STATUS at once; all are answered.
"$CTLRAW" -w 30000 "$SOCK" hex:010001 >"$T/stalled.out" 2>&1 &
stalled=$!
"$CTLRAW" -n 100 "$SOCK" hdr:1,1,0,5 >"$T/many.out" 2>&1 ||
	fail "100 concurrent STATUS clients: $(grep -v 'result=0' "$T/many.out" | head -n 5)"
n=$(grep -c '^[0-9]* lines=[1-9][0-9]* result=0 ' "$T/many.out")
[ "$n" = 100 ] || fail "$n of 100 concurrent STATUS clients answered"
answers
wait $stalled
grep -q '^0 lines=0 result=6 msg=timed out after 10000 ms' "$T/stalled.out" ||
	fail "stalled client: $(cat "$T/stalled.out")"
answers

# Privileges.  With the default mode 0660, others cannot even connect.
# as_nobody SETPRIV_GROUP_OPTION DCPICTL_COMMAND
UCTL=$(for_all ctl dcpictl)
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY "$1" "$UCTL" --socket "$SOCK" "$2"; }
as_nobody --clear-groups status >"$T/out" 2>&1 && fail "nobody connected to a 0660 socket"
grep -q "cannot connect to $SOCK: Permission denied" "$T/out" || fail "nobody, 0660: $(cat "$T/out")"
# Opened to everyone (an admin's choice): STATUS for all, the rest not.
chmod 666 "$SOCK"
as_nobody --clear-groups status >"$T/out" 2>&1 || fail "nobody's status: $(cat "$T/out")"
grep -Eq '^samples +[0-9]+$' "$T/out" || fail "nobody's status: $(cat "$T/out")"
flushes() { ls -l --time-style=+%s.%N "$DB"/current/*/*/* 2>/dev/null | md5sum; }
ctl flush >/dev/null || fail "root's flush failed"
before=$(flushes)
for cmd in flush epoch quit; do
	as_nobody --clear-groups $cmd >"$T/out" 2>&1 && fail "nobody's $cmd was allowed"
	case $cmd in
	flush) what="flush" ;; epoch) what="rotate the epoch" ;; quit) what="stop dcpid" ;;
	esac
	grep -qx "dcpictl: $cmd: permission denied: only root or members of group $GROUP may $what" "$T/out" ||
		fail "nobody's $cmd: $(cat "$T/out")"
done
kill -0 "$DCPID_PID" || fail "dcpid stopped after a denied quit"
[ "$(flushes)" = "$before" ] || fail "a denied request changed the database"
answers
# A member of the socket's group (supplementary) may flush.
as_nobody --groups="$GID" flush >"$T/out" 2>&1 || fail "group member's flush: $(cat "$T/out")"
grep -q '^flushed ' "$T/out" || fail "group member's flush: $(cat "$T/out")"

# Root stops it; dcpid exits 0 and removes its socket.
ctl quit >"$T/out" 2>&1 || fail "quit: $(cat "$T/out")"
wait "$DCPID_PID"; rc=$?
DCPID_PID=
[ "$rc" = 0 ] || fail "dcpid exited $rc after quit"
[ ! -e "$SOCK" ] || fail "the socket is still there after quit"
ctl status >"$T/out" 2>&1 && fail "status answered after quit"
grep -q "cannot connect to $SOCK: .*(is dcpid running?)" "$T/out" || fail "status after quit: $(cat "$T/out")"
echo "PASS: control socket"
