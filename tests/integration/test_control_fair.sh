#!/bin/sh
# The control socket under hostile neighbours: one unprivileged
# member of the socket's group opening far more connections than its share
# while root's status is still answered; that user's extra dcpictl told
# the daemon's "too many control connections"; 200 concurrent dcpictl
# loops, root's and the user's, each call answered or told it is busy,
# never a sequence or pipe error.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"
require_perf

CTLRAW=$top_builddir/tests/ctlraw
[ -x "$CTLRAW" ] || fail "no $CTLRAW (make check builds it)"
command -v setpriv >/dev/null 2>&1 || fail "setpriv (util-linux) is needed"
NOBODY=65534
# An existing group as the socket's group, so the test changes nothing on
# the machine; nobody is given it as a supplementary group.
GROUP=users
GID=$(getent group "$GROUP" | cut -d: -f3)
[ -n "$GID" ] || fail "no group '$GROUP' on this machine"
# dcpid's defaults (daemon/control.h, dcpid(8) SECURITY).
PER_UID=16

chmod 755 "$T"
printf 'group = %s\n' "$GROUP" >"$T/dcpid.conf"
start_dcpid --config "$T/dcpid.conf" -e perf::cpu-clock
UCTL=$(for_all ctl dcpictl)
URAW=$(for_all tests ctlraw)
as_member() { setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$GID" "$@"; }

# 128 connections and 8 more from one user, held open without a request
# (dcpid closes the accepted ones after its 10 s idle limit).
as_member "$URAW" -n 136 -w 30000 "$SOCK" str: >"$T/hold.out" 2>&1 &
holder=$!
i=0
while :; do
	ctl status >"$T/status.out" 2>&1 || fail "root's status while a user holds connections: $(cat "$T/status.out")"
	n=$(awk '$1 == "control-connections" { print $2 }' "$T/status.out")
	[ "${n:-0}" -gt $PER_UID ] && break
	i=$((i + 1))
	[ $i -lt 50 ] || fail "the user's connections never showed: $(cat "$T/status.out")"
	sleep 0.1
done
[ "$n" = $((PER_UID + 1)) ] || fail "control-connections $n while one user held $PER_UID and root asked"
grep -Eq '^samples +[0-9]+$' "$T/status.out" || fail "root's status: $(cat "$T/status.out")"
# Root may still do more than ask.
ctl flush >"$T/out" 2>&1 || fail "root's flush while a user holds connections: $(cat "$T/out")"
# The same user once more: told why, exit 1.
as_member "$UCTL" --socket "$SOCK" status >"$T/out" 2>&1 && fail "the user's extra status was answered"
grep -qx "dcpictl: status: busy: too many control connections from uid $NOBODY ($PER_UID open, the limit per user); try again later" "$T/out" ||
	fail "the user's extra status: $(cat "$T/out")"
wait $holder
busy=$(grep -c "^[0-9]* lines=0 result=7 msg=too many control connections from uid $NOBODY" "$T/hold.out")
timedout=$(grep -c '^[0-9]* lines=0 result=6 msg=timed out after 10000 ms' "$T/hold.out")
[ "$busy" = $((136 - PER_UID)) ] && [ "$timedout" = $PER_UID ] ||
	fail "held connections: $busy refused, $timedout timed out: $(grep -v 'result=7' "$T/hold.out" | head -n 5)"
ctl status >"$T/status.out" 2>&1 || fail "status after the user let go: $(cat "$T/status.out")"
grep -Eq "^control-refused +$((136 - PER_UID + 1))\$" "$T/status.out" ||
	fail "control-refused: $(grep control-refused "$T/status.out")"

# 200 concurrent loops of 3 dcpictl status, half root's, half the user's.
loop() {
	for k in 1 2 3; do
		if "$@" "$UCTL" --socket "$SOCK" status >"$T/loop.$j.$k" 2>&1; then
			echo ok
		else
			echo "fail $j.$k"
		fi
	done
}
j=0
pids=
while [ $j -lt 200 ]; do
	if [ $((j % 2)) = 0 ]; then
		loop env >"$T/res.$j" &
	else
		loop as_member >"$T/res.$j" &
	fi
	pids="$pids $!"
	j=$((j + 1))
done
# Not a bare wait: dcpid is a child too.
wait $pids
calls=$(cat "$T"/res.* | wc -l)
ok=$(cat "$T"/res.* | grep -c '^ok$')
[ "$calls" = 600 ] || fail "$calls of 600 calls ran"
for f in $(cat "$T"/res.* | sed -n 's/^fail //p'); do
	grep -Eqx 'dcpictl: status: busy: too many control connections .*; try again later' "$T/loop.$f" ||
		fail "call $f failed otherwise: $(cat "$T/loop.$f")"
done
! grep -l -e 'bad reply' -e 'Broken pipe' "$T"/loop.* >/dev/null ||
	fail "sequence or pipe errors: $(cat $(grep -l -e 'bad reply' -e 'Broken pipe' "$T"/loop.* | head -n 3))"
echo "200 loops: $ok of $calls calls answered, the rest told dcpid was busy"
ctl status >/dev/null || fail "dcpid stopped answering"
echo "PASS: control socket fairness"
