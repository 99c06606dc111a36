#!/bin/sh
# An image that root may not open, though the process running it may: a
# user's FUSE mount without allow_other (sshfs, an AppImage, rootless
# Podman's fuse-overlayfs), where the kernel refuses every other user,
# root included (the same as NFS with root_squash does in a home of mode
# 0700).  dcpid counted the program's samples unreadable.  Now it opens
# the file again as the process's user and groups, on a thread of its own
# that takes them: the samples are in the program's hot function, and the
# build-id cache keeps the file (read through that descriptor, as root).
# Without CAP_SETUID and CAP_SETGID it cannot: the samples are unreadable,
# as before, and the log says what is missing.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
require_fuse
for t in useradd userdel setpriv; do
	command -v $t >/dev/null || fail "$t is missing (Debian packages passwd, util-linux)"
done

cc_work hangfs "$top_srcdir/tests/workload/hangfs.c" $(pkg-config --cflags --libs fuse3)
cc_work served "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"refused-served"'
# A user of its own, and a directory it owns outside $T (root's, 0700).
U=dcpi-refused-$$
useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$U" || fail "useradd $U failed"
D=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-refused.XXXXXX")
trap 'fusermount3 -u "$D/mnt" 2>/dev/null || umount -l "$D/mnt" 2>/dev/null;
    rm -rf "$D"; userdel "$U" 2>/dev/null; cleanup' EXIT
cp "$T/hangfs" "$T/served" "$D/" && mkdir "$D/mnt" && chmod 755 "$D" &&
    chown -R "$U:" "$D" || fail "cannot prepare $D"
as_user() { setpriv --reuid="$U" --regid="$U" --init-groups "$@"; }
# (hangs never: its flag file is never made; the server, a daemon, would
# hold the tests' lock while it lives.)
as_user "$D/hangfs" "$D/served" "$D/nohang" "$D/mnt" 8>&- ||
    fuse_skip "cannot mount a FUSE file system as a user here"
grep -q " $D/mnt .* fuse\.hangfs .*user_id=" /proc/self/mountinfo ||
    fail "no user's FUSE mount at $D/mnt: $(grep "$D/mnt" /proc/self/mountinfo)"
as_user test -x "$D/mnt/prog" || fail "$U cannot run $D/mnt/prog"
# The premise: root may not even look.
cat "$D/mnt/prog" >/dev/null 2>&1 && fail "root reads $D/mnt/prog: not the case this test is about"
unr() { ctl status | awk '$1 == "unattributed" && $2 == "unreadable" { print $3 }'; }

# 1. dcpid as root: the file opened as the program's user.
start_dcpid -e perf::cpu-clock
as_user "$D/mnt/prog" 1500 || [ $? = 1 ] || fail "the program failed"
ctl flush >/dev/null || fail "flush failed"
e1=$(current_epoch)
assert_hot "$e1" prog "$D/served" ctiny_hot 500
echo "unreadable: $(unr)"
id=$(sed -n 's/^image //p' "$(profile_file "$e1" prog)")
cmp -s "$DB/buildid/$id/executable" "$D/served" ||
    fail "the build-id cache did not keep $D/mnt/prog (image $id): $(grep -i "build-id cache" "$DCPID_LOG")"
echo "build-id cache: $D/mnt/prog kept as image $id"
stop_dcpid

# 2. Without CAP_SETUID and CAP_SETGID: unreadable, and the log says why.
mv "$DCPID_LOG" "$T/dcpid1.log"
DCPID_WRAP="setpriv --bounding-set=-setuid,-setgid --inh-caps=-setuid,-setgid --" \
    start_dcpid -e perf::cpu-clock
as_user "$D/mnt/prog" 500 || [ $? = 1 ] || fail "the program failed"
ctl flush >/dev/null || fail "flush failed"
n=$(unr)
[ "${n:-0}" -ge 150 ] || fail "without CAP_SETUID: only ${n:-0} samples unreadable"
echo "without CAP_SETUID and CAP_SETGID: $n samples unreadable"
grep -q "taking a user's credentials needs CAP_SETUID and CAP_SETGID" "$DCPID_LOG" ||
    fail "the log does not say what is missing"
stop_dcpid
assert_db_valid
