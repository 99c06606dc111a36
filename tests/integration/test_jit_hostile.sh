#!/bin/sh
# Files dcpid reads for a process that a hostile unprivileged user can
# point elsewhere, and what the dcpi group may then read:
#  1. A JIT maps DIR/jit-PID.dump, then swaps DIR for a symbolic link to a
#     directory only root may enter, holding root's jit-PID.dump: dcpid
#     followed the link and put root's names in prof and in the build-id
#     cache's perf-map.  Now a map or dump is read only if the process's
#     own user owns it, whatever path led to it.
#  2. The same with /tmp/perf-PID.map: in a user and mount namespace of
#     its own, the user bind-mounts root's file (mode 0600) over its map.
#  3. An execute-only program (root's, mode 0711) bind-mounted over the
#     user's own file in such a namespace, and run: dcpid kept it in
#     DB/buildid/ID/executable (0640 root:dcpi), for the group to read
#     what the user may only run.  Now the build-id cache keeps only what
#     the process's user could read: a readable program mounted the same
#     way still goes in.
# Each names the file in the log.  A dump of the user's own is read.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "jitdumper is x86-64 code"
for t in useradd userdel setpriv unshare; do
	command -v $t >/dev/null || fail "$t is missing (Debian packages passwd, util-linux)"
done
cc_work jitdumper "$top_srcdir/tests/workload/jitdumper.c"
cc_work xonly "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"hostile-xonly"'
cc_work readable "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"hostile-readable"'

U=dcpi-hostile-$$
useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$U" || fail "useradd $U failed"
D=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-hostile.XXXXXX")
trap 'rm -rf "$D"; find /tmp -maxdepth 1 -name "perf-*.map" -user "$U" -delete 2>/dev/null; userdel -f "$U" 2>/dev/null; cleanup' EXIT
# D: root's, searchable; D/u: the user's; D/secret: root's alone; D/pub:
# root's files that others may look up (the sources of bind mounts).
mkdir "$D/u" "$D/secret" "$D/pub" && chmod 755 "$D" "$D/pub" && chmod 700 "$D/secret" &&
    cp "$T/jitdumper" "$D/pub/" && chmod 755 "$D/pub/jitdumper" && chown "$U:" "$D/u" ||
    fail "cannot prepare $D"
as_user() { setpriv --reuid="$U" --regid="$U" --clear-groups "$@"; }
as_user unshare -Urm true 2>/dev/null || skip "an unprivileged user cannot make a user namespace here"

secret_in() {	# secret_in FILE: no root-only name in FILE (prof output, a perf-map)
	! grep -q ROOT_SECRET "$1"
}

start_dcpid -e perf::cpu-clock

# 0. The user's own dump, left alone: its name is read (the control).
as_user "$D/pub/jitdumper" dump "$D/u" user_jit_fn "$D/u/ready0" "$D/u/go0" 1 & jp=$!
for _ in $(seq 1 100); do [ -s "$D/u/ready0" ] && break; sleep 0.1; done
[ -s "$D/u/ready0" ] || fail "jitdumper did not start"
touch "$D/u/go0"
wait $jp || fail "jitdumper (own dump) failed"
ctl flush >/dev/null || fail "flush failed"
ctl prof >"$T/prof0.txt" || fail "prof failed"
grep -q 'user_jit_fn' "$T/prof0.txt" ||
    fail "the user's own jitdump did not name its code: $(grep jit "$T/prof0.txt")"

# 1. The dump's directory swapped for a link to root's directory.
mkdir "$D/u/dir" && chown "$U:" "$D/u/dir" || fail "cannot make $D/u/dir"
as_user "$D/pub/jitdumper" dump "$D/u/dir" user_jit_fn "$D/u/ready1" "$D/u/go1" 1.5 & jp=$!
for _ in $(seq 1 100); do [ -s "$D/u/ready1" ] && break; sleep 0.1; done
[ -s "$D/u/ready1" ] || fail "jitdumper did not start"
pid=$(cat "$D/u/ready1")
"$T/jitdumper" write "$D/secret/jit-$pid.dump" ROOT_SECRET_dump && chmod 600 "$D/secret/jit-$pid.dump" ||
    fail "cannot write root's dump"
as_user sh -c "mv '$D/u/dir' '$D/u/dir.old' && ln -s '$D/secret' '$D/u/dir'" ||
    fail "the user cannot swap its directory"
as_user test -r "$D/u/dir/jit-$pid.dump" && fail "the user reads root's dump: not the case this test is about"
touch "$D/u/go1"
wait $jp || fail "jitdumper (swapped directory) failed"
ctl flush >/dev/null || fail "flush failed"
ctl prof >"$T/prof1.txt" || fail "prof failed"
secret_in "$T/prof1.txt" || fail "prof shows root's dump's names: $(grep ROOT_SECRET "$T/prof1.txt")"
grep -q "jit-$pid.dump: ignored: not a regular file owned by pid $pid's user (another user's, owner uid 0)" "$DCPID_LOG" ||
    fail "no log line for root's dump: $(grep "jit-$pid" "$DCPID_LOG")"

# 2. /tmp/perf-PID.map bound over with root's file, in the user's own
# user and mount namespace.
printf '3e0000000000 1000 ROOT_SECRET_map\n' >"$D/pub/secret.map" && chmod 600 "$D/pub/secret.map" ||
    fail "cannot write root's map"
# The map is read at the flush, while the process (and its mount
# namespace) lives.
as_user unshare -Urm sh -c 'm=/tmp/perf-$$.map; : >"$m" && mount --bind "$1" "$m" && exec "$2" run 2' \
    sh "$D/pub/secret.map" "$D/pub/jitdumper" & jp=$!
sleep 1
ctl flush >/dev/null || fail "flush failed"
wait $jp || fail "jitdumper (bound map) failed"
find /tmp -maxdepth 1 -name 'perf-*.map' -user "$U" -delete
ctl flush >/dev/null || fail "flush failed"
ctl prof >"$T/prof2.txt" || fail "prof failed"
secret_in "$T/prof2.txt" || fail "prof shows root's map's names: $(grep ROOT_SECRET "$T/prof2.txt")"
grep -q "/tmp/perf-\([0-9]*\)\.map: ignored: not a regular file owned by pid \1's user (another user's, owner uid 0)" "$DCPID_LOG" ||
    fail "no log line for root's map: $(grep "perf-" "$DCPID_LOG")"
for f in "$DB"/buildid/*/perf-map; do
	[ -f "$f" ] || continue
	secret_in "$f" || fail "$f holds root's names"
done

# 3. Root's execute-only program, and a readable one, each bind-mounted
# over a file of the user's and run there.
cp "$T/xonly" "$T/readable" "$D/pub/" && chmod 711 "$D/pub/xonly" && chmod 755 "$D/pub/readable" &&
    as_user sh -c ": >'$D/u/mine1' && : >'$D/u/mine2' && chmod 755 '$D/u/mine1' '$D/u/mine2'" ||
    fail "cannot prepare the programs"
as_user cat "$D/pub/xonly" >/dev/null 2>&1 && fail "the user reads the execute-only program"
for p in xonly:mine1 readable:mine2; do
	as_user unshare -Urm sh -c 'mount --bind "$1" "$2" && exec "$2" 400' sh \
	    "$D/pub/${p%%:*}" "$D/u/${p#*:}"
	[ $? -le 1 ] || fail "${p%%:*} did not run"
done
ctl flush >/dev/null || fail "flush failed"
bid() { readelf -n "$1" | awk '/Build ID/ { print $3; exit }'; }
bx=$(bid "$T/xonly") br=$(bid "$T/readable")
ctl prof -i >"$T/images.txt" || fail "prof -i failed"
grep -q "mine1" "$T/images.txt" && grep -q "mine2" "$T/images.txt" ||
    fail "the programs' samples are not there: $(cat "$T/images.txt")"
[ -f "$DB/buildid/$br/executable" ] ||
    fail "the readable program is not in the build-id cache: $(ls "$DB/buildid")"
[ ! -e "$DB/buildid/$bx/executable" ] ||
    fail "the execute-only program was copied into the build-id cache"
grep -q "mine1 (image $bx, mode 0711, owner 0): its process's user may not read it: not kept in the build-id cache" "$DCPID_LOG" ||
    fail "no log line for the execute-only program: $(grep "$bx\|mine1" "$DCPID_LOG")"
stop_dcpid
echo "root's dump and map unread, the execute-only program not cached, the readable one cached"
