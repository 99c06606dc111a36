#!/bin/sh
# dcpid as systemd runs it from contrib/dcpid.service (systemd is not PID 1
# on the test machines): the unit's ExecStart, Group= and UMask=, with
# NOTIFY_SOCKET and WATCHDOG_USEC pointing at a datagram listener.  Checks
# that READY, STATUS, WATCHDOG and STOPPING arrive, that dcpictl works
# through the socket, that the socket's group may flush and read the
# database and others may not, that dcpid makes no system call outside the
# unit's SystemCallFilter=, and that systemd-analyze finds the units valid
# and rates dcpid.service's exposure 3.0 or lower.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

require_perf

unit=$top_builddir/contrib/dcpid.service
[ -f "$unit" ] || fail "$unit is not built"
# Group members are nogroup's (nobody) and others are daemon's; where
# those do not exist the permission checks are left out.
grp=nogroup member=nobody other=daemon
getent group $grp >/dev/null && getent passwd $member >/dev/null &&
    getent passwd $other >/dev/null || grp=$(id -gn) member= other=

# ExecStart= with the built dcpid in place of the installed one, and the
# test's database and socket after the unit's own arguments.
execstart=$(sed -n 's/^ExecStart=//p' "$unit")
[ "$(printf '%s\n' "$execstart" | wc -l)" = 1 ] || fail "$unit: expected one ExecStart="
set -- $execstart
case $1 in */dcpid) ;; *) fail "$unit: ExecStart= runs $1, not dcpid" ;; esac
shift
umask_unit=$(sed -n 's/^UMask=//p' "$unit")
[ -n "$umask_unit" ] || fail "$unit: no UMask="

cat >"$T/dcpid.conf" <<EOF
event = perf::cpu-clock:period=1000000
flush-interval = 2
group = $grp
EOF

# --check-config prints a configuration that reads back to itself, and a
# bad line is reported with its number.
"$DCPID" --config "$T/dcpid.conf" --check-config >"$T/eff.conf" || fail "--check-config rejects $T/dcpid.conf"
grep -q "^group = $grp\$" "$T/eff.conf" || fail "--check-config lost the group: $(cat "$T/eff.conf")"
"$DCPID" --config "$T/eff.conf" --check-config >"$T/eff2.conf" || fail "--check-config rejects its own output"
cmp -s "$T/eff.conf" "$T/eff2.conf" || fail "--check-config output does not read back to itself"
printf 'flush-interval = 2\n\nflush-interval = soon\n' >"$T/bad.conf"
"$DCPID" --config "$T/bad.conf" --check-config >/dev/null 2>"$T/bad.err" && fail "--check-config accepted a bad file"
grep -q "bad.conf:3: flush-interval: expected a number of seconds" "$T/bad.err" ||
    fail "bad line not reported by number: $(cat "$T/bad.err")"

# The example configuration is valid, and the defaults it shows commented
# out are the real ones.
sed "s/^group = dcpi\$/group = $grp/" "$top_srcdir/contrib/dcpid.conf" >"$T/example.conf"
"$DCPID" --config "$T/example.conf" --check-config >"$T/ex1" 2>&1 || fail "contrib/dcpid.conf: $(cat "$T/ex1")"
sed 's/^#\([a-z-]* = \)/\1/; /^event = /d' "$T/example.conf" >"$T/example2.conf"
"$DCPID" --config "$T/example2.conf" --check-config >"$T/ex2" 2>&1 || fail "contrib/dcpid.conf uncommented: $(cat "$T/ex2")"
diff "$T/ex1" "$T/ex2" >&2 || fail "contrib/dcpid.conf shows defaults that are not dcpid's"

# The service manager's end of NOTIFY_SOCKET: one line per assignment.
NOTIFY_LOG=$T/notify.log
: >"$NOTIFY_LOG"
cat >"$T/listen.c" <<'EOF'
/* listen SOCKET LOG: appends each datagram's lines to LOG, for 120 s. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 120 };
	char buf[65536];
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	FILE *log = fopen(argv[2], "a");

	(void)argc;
	strncpy(sa.sun_path, argv[1], sizeof(sa.sun_path) - 1);
	if (fd < 0 || log == NULL || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return perror(argv[1]), 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) >= 0) {
		buf[n] = '\0';
		fprintf(log, "%s%s", buf, n > 0 && buf[n - 1] != '\n' ? "\n" : "");
		fflush(log);
	}
	return 0;
}
EOF
cc_work listen "$T/listen.c"
"$T/listen" "$T/notify.sock" "$NOTIFY_LOG" &
LISTENER_PID=$!
trap 'kill $LISTENER_PID 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 50); do [ -S "$T/notify.sock" ] && break; sleep 0.1; done
[ -S "$T/notify.sock" ] || fail "notify listener did not start"

# Waits up to $2 tenths of a second for a line matching $1 in the log.
await() {
	for _ in $(seq 1 "$2"); do
		grep -q "$1" "$NOTIFY_LOG" && return 0
		kill -0 "$DCPID_PID" 2>/dev/null || fail "dcpid exited while waiting for $1"
		sleep 0.1
	done
	fail "no $1 from dcpid within $(($2 / 10)) s; got: $(tr '\n' ' ' <"$NOTIFY_LOG")"
}

# Group= is the gid dcpid runs with; the uid stays root as in the unit.
chmod 0711 "$T"
(umask "$umask_unit" && exec env NOTIFY_SOCKET="$T/notify.sock" WATCHDOG_USEC=2000000 \
    setpriv --regid="$grp" --keep-groups \
    "$DCPID" "$@" --config "$T/dcpid.conf" -d "$DB" --socket "$SOCK") >"$DCPID_LOG" 2>&1 &
DCPID_PID=$!
await '^READY=1$' 100
await '^STATUS=.' 10
await '^WATCHDOG=1$' 50

ctl status >"$T/status" || fail "dcpictl status through $SOCK"
grep -q '^samples ' "$T/status" || fail "status has no samples line: $(cat "$T/status")"
[ "$(stat -c '%a %G' "$SOCK")" = "660 $grp" ] || fail "socket is $(stat -c '%a %G' "$SOCK"), expected 660 $grp"

# Tagged: an untagged copy of hot.c built by another test at the same time
# would be the same file, build-id and image, named by that test's path.
cc_work hot "$top_srcdir/tests/workload/hot.c" -DWORKLOAD_TAG='"service_hot"'
"$T/hot" 1 || fail "workload failed"
ctl flush >/dev/null || fail "dcpictl flush through $SOCK"
profile=$(find "$DB/" -name 'hot.*' -type f | head -n 1)
[ -n "$profile" ] || fail "no profile of the workload in $DB after a flush"

if [ -n "$member" ]; then
	# The group may flush and read the database; others may do neither.
	"$DCPICTL" --help >/dev/null 2>&1	# a libtool wrapper builds its program as root
	as() { u=$1; shift; setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"; }
	uctl=$(for_all ctl dcpictl)
	as $member "$uctl" --socket "$SOCK" flush >/dev/null 2>"$T/m.err" ||
	    fail "group member $member cannot flush: $(cat "$T/m.err")"
	as $member cat "$profile" >/dev/null 2>"$T/m.err" ||
	    fail "group member $member cannot read $profile: $(cat "$T/m.err")"
	as $other "$uctl" --socket "$SOCK" flush >/dev/null 2>&1 &&
	    fail "$other, not in $grp, could flush"
	as $other cat "$profile" >/dev/null 2>&1 && fail "$other, not in $grp, could read $profile"
fi

# systemctl reload (ExecReload=, dcpictl reload) re-reads the file: a new
# event set is sampled from then on; a file dcpid refuses fails the reload
# with dcpid's reason, and the old configuration stays.
grep -q '^ExecReload=.*/dcpictl reload$' "$unit" || fail "$unit: ExecReload= is not dcpictl reload"
sed -i 's/^event = .*/event = perf::task-clock:period=1000000/' "$T/dcpid.conf"
ctl reload >"$T/reload.out" 2>&1 || fail "dcpictl reload of a good file failed: $(cat "$T/reload.out")"
ctl status | grep '^event' >"$T/events"
grep -q 'task-clock' "$T/events" && ! grep -q 'cpu-clock' "$T/events" ||
    fail "after dcpictl reload dcpid samples: $(cat "$T/events")"
cp "$T/dcpid.conf" "$T/good.conf"
echo 'flush-interval = soon' >>"$T/dcpid.conf"
ctl reload >"$T/reload.out" 2>&1 && fail "dcpictl reload of a bad file succeeded: $(cat "$T/reload.out")"
grep -q 'flush-interval.*keeping the old configuration' "$T/reload.out" ||
    fail "dcpictl reload of a bad file says: $(cat "$T/reload.out")"
echo "bad reload: $(cat "$T/reload.out")"
# SIGHUP does the same without a reply.
cp "$T/good.conf" "$T/dcpid.conf"
sed -i 's/^event = .*/event = perf::cpu-clock:period=1000000/' "$T/dcpid.conf"
kill -HUP "$DCPID_PID"
for _ in $(seq 1 100); do
	ctl status 2>/dev/null | grep -q '^event .*cpu-clock' && break
	sleep 0.1
done
ctl status | grep '^event' >"$T/events"
grep -q 'cpu-clock' "$T/events" && ! grep -q 'task-clock' "$T/events" ||
    fail "after SIGHUP dcpid samples: $(cat "$T/events")"

kill -TERM "$DCPID_PID"
wait "$DCPID_PID"; rc=$?
DCPID_PID=
[ "$rc" = 0 ] || fail "dcpid exited $rc after SIGTERM"
grep -q '^STOPPING=1$' "$NOTIFY_LOG" || fail "no STOPPING=1 before exit"
echo "notify: $(sort -u "$NOTIFY_LOG" | sed 's/=.*//' | sort -u | tr '\n' ' ')"

# Every system call dcpid makes from start to quit is in the unit's filter.
if ! command -v strace >/dev/null; then
	echo "strace is not installed: SystemCallFilter= not checked"
else
	allowed() {	# expands the filter's groups, as systemd does
		for g in "$@"; do
			case $g in
			@*) allowed $(systemd-analyze syscall-filter "$g" | sed -n 's/^    \([@a-z0-9_-]*\).*/\1/p') ;;
			*) echo "$g" ;;
			esac
		done
	}
	# In order: the first line's allow list, then each line takes its
	# calls out (~) or puts them back in.
	: >"$T/filter"
	sed -n 's/^SystemCallFilter=//p' "$unit" >"$T/filters"
	while read -r l; do
		case $l in
		~*) allowed ${l#\~} | sort -u | comm -23 "$T/filter" - >"$T/filter.new" ;;
		*) { cat "$T/filter"; allowed $l; } | sort -u >"$T/filter.new" ;;
		esac
		mv "$T/filter.new" "$T/filter"
	done <"$T/filters"
	[ -s "$T/filter" ] || fail "could not expand SystemCallFilter= of $unit"
	# libtool runs strace on the program itself, not on its wrapper; the
	# gid and umask are the unit's (Group=, UMask=), as they decide
	# whether dcpid has to chown.
	# Nor has it CAP_SETUID or CAP_SETGID, as under the unit (another
	# test's user FUSE mount would have it open a binary as its user).
	(umask "$umask_unit" && exec setpriv --regid="$grp" --keep-groups \
	    --bounding-set=-setuid,-setgid --inh-caps=-setuid,-setgid \
	    "$top_builddir/libtool" --mode=execute strace -f -qq -o "$T/strace" "$DCPID" "$@" --config "$T/dcpid.conf" -d "$DB" --socket "$SOCK") \
	    >"$DCPID_LOG" 2>&1 &
	DCPID_PID=$!
	for _ in $(seq 1 100); do ctl status >/dev/null 2>&1 && break; sleep 0.1; done
	ctl flush >/dev/null && ctl epoch >/dev/null && ctl quit >/dev/null || fail "dcpid under strace"
	wait "$DCPID_PID"; DCPID_PID=
	sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$T/strace" | sort -u >"$T/used"
	# execve is systemd's, before the filter applies.
	grep -v -x -e execve "$T/used" | comm -23 - "$T/filter" >"$T/outside"
	[ -s "$T/outside" ] && fail "dcpid calls outside SystemCallFilter=: $(tr '\n' ' ' <"$T/outside")"
	echo "system calls: $(wc -l <"$T/used") used, all in SystemCallFilter="
fi

# The units as installed, with the built programs at their paths and the
# man pages they name reachable.
mkdir -p "$T/units" "$T/man/man1" "$T/man/man5" "$T/man/man8"
for p in "$top_srcdir"/man/*.[158]; do ln -s "$p" "$T/man/man${p##*.}/"; done
sed -e "s|^ExecStart=[^ ]*|ExecStart=$DCPID|" -e "s|^ExecReload=[^ ]*|ExecReload=$DCPICTL|" \
    "$unit" >"$T/units/dcpid.service"
sed "s|^ExecStart=\(-*\)[^ ]*|ExecStart=\1$DCPICTL|" "$top_builddir/contrib/dcpi-epoch.service" \
    >"$T/units/dcpi-epoch.service"
cp "$top_srcdir/contrib/dcpi-epoch.timer" "$T/units/"
(cd "$T/units" && MANPATH=$T/man SYSTEMD_LOG_LEVEL=notice systemd-analyze verify \
    dcpid.service dcpi-epoch.service dcpi-epoch.timer) >"$T/verify" 2>&1 ||
    fail "systemd-analyze verify: $(cat "$T/verify")"
[ -s "$T/verify" ] && fail "systemd-analyze verify: $(cat "$T/verify")"

systemd-analyze security --offline=yes "$T/units/dcpid.service" >"$T/security" 2>&1 ||
    fail "systemd-analyze security: $(tail -n 3 "$T/security")"
level=$(sed -n 's/.*Overall exposure level for dcpid.service: \([0-9.]*\).*/\1/p' "$T/security")
[ -n "$level" ] || fail "no exposure level in: $(tail -n 3 "$T/security")"
awk "BEGIN { exit !($level <= 3.0) }" || { grep '✗' "$T/security" >&2; fail "exposure $level is over 3.0"; }
echo "PASS: dcpid.service exposure $level"
