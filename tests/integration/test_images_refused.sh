#!/bin/sh
# An image that root may not open, though the process running it may: a
# user's FUSE mount without allow_other (sshfs, an AppImage, rootless
# Podman's fuse-overlayfs), where the kernel refuses every other user,
# root included (the same as NFS with root_squash does in a home of mode
# 0700).  dcpid counted the program's samples unreadable.  Now it opens
# the file again as the process's user and groups, on a thread of its own
# that takes them: the samples are in the program's hot function, and the
# build-id cache keeps the file (read through that descriptor, as root).
# The same through sshfs, a FUSE client nobody here wrote, from Debian's
# sshd on loopback, with Debian's python3 (stripped) run from the mount.
# Without CAP_SETUID and CAP_SETGID it cannot: the samples are unreadable,
# as before, and the log says what is missing.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
require_fuse
for t in useradd userdel usermod setpriv; do
	command -v $t >/dev/null || fail "$t is missing (Debian packages passwd, util-linux)"
done
command -v sshfs >/dev/null && command -v ssh-keygen >/dev/null && [ -x /usr/sbin/sshd ] ||
    fail "sshfs or sshd is missing (README's test packages: sshfs, openssh-server)"

cc_work hangfs "$top_srcdir/tests/workload/hangfs.c" $(pkg-config --cflags --libs fuse3)
cc_work served "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"refused-served"'
# A user of its own, and a directory it owns outside $T (root's, 0700).
U=dcpi-refused-$$
useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$U" || fail "useradd $U failed"
D=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-refused.XXXXXX")
S=$D/ssh
trap 'for m in "$D/mnt" "$S/mnt"; do fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
    [ -f "$S/sshd.pid" ] && kill "$(cat "$S/sshd.pid")"
    rm -rf "$D"; userdel -f "$U" 2>/dev/null; cleanup' EXIT
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
# sshd on a free loopback port, the user's key its only way in (the
# account unlocked, with no password), sftp inside sshd (the user's shell
# is nologin); sshfs mounts, as the user, a directory of the user's own.
mkdir -p "$S/srv" "$S/mnt" /run/sshd && usermod -p '*' "$U" &&
    ssh-keygen -q -t ed25519 -N '' -f "$S/hostkey" &&
    ssh-keygen -q -t ed25519 -N '' -f "$S/userkey" &&
    cp "$S/userkey.pub" "$S/authorized_keys" &&
    cp "$(readlink -f /usr/bin/python3)" "$S/srv/python3" || fail "cannot prepare sshd"
port=2222
while grep -qi ":$(printf '%04X' $port) " /proc/net/tcp; do port=$((port + 1)); done
cat >"$S/sshd_config" <<EOF
ListenAddress 127.0.0.1:$port
HostKey $S/hostkey
PidFile $S/sshd.pid
AuthorizedKeysFile $S/authorized_keys
AllowUsers $U
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
EOF
chown -R "$U:" "$S/srv" "$S/mnt" "$S/userkey" || fail "cannot prepare sshd"
/usr/sbin/sshd -f "$S/sshd_config" -E "$S/sshd.log" 8>&- || fail "sshd did not start"
as_user sshfs -o "IdentityFile=$S/userkey,port=$port,BatchMode=yes" \
    -o StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null \
    "$U@127.0.0.1:$S/srv" "$S/mnt" 8>&- 2>"$T/sshfs.err" ||
    fail "sshfs did not mount: $(cat "$T/sshfs.err" "$S/sshd.log")"
grep -q " $S/mnt .* fuse\.sshfs .*user_id=" /proc/self/mountinfo ||
    fail "no user's sshfs mount at $S/mnt"
cat "$S/mnt/python3" >/dev/null 2>&1 && fail "root reads $S/mnt/python3 over sshfs"
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
# Two seconds of its CPU (a fixed loop took half as long on a faster day).
as_user "$S/mnt/python3" -c 'import time
end = time.process_time() + 2
i = 0
while time.process_time() < end:
    for _ in range(100000):
        i += 1' || fail "python3 from sshfs failed"
ctl flush >/dev/null || fail "flush failed"
e2=$(current_epoch)
ctl prof --epoch "$e2" -n 100 >"$T/py.txt" || fail "prof failed"
n=$(awk '$NF == "python3" { s += $1 } END { print s + 0 }' "$T/py.txt")
[ "$n" -ge 500 ] || fail "python3 over sshfs: $n samples in its procedures: $(cat "$T/py.txt")"
grep -q '_PyEval_EvalFrameDefault *python3$' "$T/py.txt" ||
    fail "python3 over sshfs: no _PyEval_EvalFrameDefault: $(cat "$T/py.txt")"
echo "python3 over sshfs: $n samples in its top procedures; unreadable: $(unr)"
stop_dcpid

# 2. Without CAP_SETUID and CAP_SETGID: unreadable, and the log says why.
# (A database of its own: nothing of step 1's in it.)
mv "$DCPID_LOG" "$T/dcpid1.log"
DB=$T/db2
DCPID_WRAP="setpriv --bounding-set=-setuid,-setgid --inh-caps=-setuid,-setgid --" \
    start_dcpid -e perf::cpu-clock
# (Long enough to be alive when its first samples are read: the user is
# that of a live process.)
as_user "$D/mnt/prog" 1500 || [ $? = 1 ] || fail "the program failed"
ctl flush >/dev/null || fail "flush failed"
[ -z "$(profile_file "$(current_epoch)" prog)" ] ||
    fail "without CAP_SETUID: $D/mnt/prog was read"
echo "without CAP_SETUID and CAP_SETGID: unreadable $(unr) (the program's and others')"
grep -q "taking a user's credentials needs CAP_SETUID and CAP_SETGID" "$DCPID_LOG" ||
    fail "the log does not say what is missing"
stop_dcpid
assert_db_valid
