#!/bin/sh
# A program run from a file system whose server stops answering (a hung
# NFS server, a stuck FUSE server: tests/workload/hangfs.c).  dcpid read
# each image in its event loop at the image's first sample, so it stopped
# there with the server: status and flush went unanswered and every CPU's
# buffer filled.  Now those calls run on helper threads with a deadline.
#   1. dcpid starts while the server hangs; the program's first samples
#      want its image: status and flush still answer, a program on a local
#      disk is attributed, the program's samples are counted unreadable,
#      and once the server answers its image is read (tried every 2 s) and
#      later samples are attributed.
#   2. A second run of it, its image known: the server hangs again; the
#      samples are attributed (the image is known by its build-id), the
#      flush answers, and dcpid stops when told, the server still hung.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
require_fuse

# Alone: every dcpid samples the program on the hung file system, and
# would wait for it as this one does.
lock_alone
cc_work hangfs "$top_srcdir/tests/workload/hangfs.c" $(pkg-config --cflags --libs fuse3)
cc_work served "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"hungfs-served"'
cc_work local "$top_srcdir/tests/workload/ctiny.c" -DWORKLOAD_TAG='"hungfs-local"'
mkdir "$T/mnt"
# (The server, a daemon, would hold the tests' lock while it lives.)
"$T/hangfs" "$T/served" "$T/hang" "$T/mnt" 8>&- || fuse_skip "cannot mount a FUSE file system here"
unhang() { rm -f "$T/hang"; }
trap 'unhang; fusermount3 -u "$T/mnt" 2>/dev/null || umount -l "$T/mnt"; cleanup' EXIT
[ -x "$T/mnt/prog" ] || fail "hangfs serves no $T/mnt/prog"
# Until PID, started from the mount, sleeps waiting for its go file: its
# pages are in (exec and loading read them through the server) before
# the server hangs, since a page it faulted in meanwhile would hold it up.
wait_asleep() {
	for _ in $(seq 1 100); do
		case $(cat "/proc/$1/wchan" 2>/dev/null) in *nanosleep*) return 0 ;; esac
		sleep 0.1
	done
	fail "$T/mnt/prog did not start within 10 s: $(cat "/proc/$1/wchan" 2>/dev/null)"
}
field() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2); exit }' "$T/status.txt"; }

# 1. The image's first read, with the server hung.
"$T/mnt/prog" 60000 "$T/go1" & p1=$!
wait_asleep $p1
touch "$T/hang"
start_dcpid -e perf::cpu-clock
touch "$T/go1"
sleep 1
timeout 10 "$DCPICTL" --socket "$SOCK" status >"$T/status.txt" ||
    fail "status went unanswered while the file system hung"
"$T/local" 300 || [ $? = 1 ] || fail "the local program failed"
timeout 10 "$DCPICTL" -d "$DB" --socket "$SOCK" flush >/dev/null ||
    fail "flush went unanswered while the file system hung"
timeout 10 "$DCPICTL" --socket "$SOCK" status >"$T/status.txt" || fail "status failed"
echo "while hung: $(grep -E '^(file-system-waits|unattributed *unreadable)' "$T/status.txt" | tr -s ' ' | tr '\n' ';')"
case $(field file-system-waits) in
"1 calls past their deadline, 1 held up now, of "*) ;;
*) fail "status: file-system-waits '$(field file-system-waits)'" ;;
esac
unr=$(awk '$1 == "unattributed" && $2 == "unreadable" { print $3 }' "$T/status.txt")
[ "${unr:-0}" -ge 100 ] || fail "only '${unr:-0}' samples counted unreadable while the image could not be read"
grep -q "image $T/mnt/prog: its file system did not answer in time" "$DCPID_LOG" ||
    fail "the log does not name the image held up"
e1=$(current_epoch)
assert_hot "$e1" local "$T/local" ctiny_hot 150
unhang
for _ in $(seq 1 100); do
	grep -q "image $T/mnt/prog read: its file system answers again" "$DCPID_LOG" && break
	sleep 0.1
done
grep -q "image $T/mnt/prog read: its file system answers again" "$DCPID_LOG" ||
    fail "the image was not read within 10 s of the file system answering"
sleep 0.5
kill $p1
wait_child $p1 30
ctl flush >/dev/null || fail "flush failed"
assert_hot "$e1" prog "$T/served" ctiny_hot 100

# 2. Its image known, the server hangs again.
"$T/mnt/prog" 1500 "$T/go2" & p2=$!
wait_asleep $p2
touch "$T/hang"
ctl status >"$T/status.txt" || fail "status failed"
before=$(awk '$1 == "unattributed" && $2 == "unreadable" { print $3 }' "$T/status.txt")
ctl flush >/dev/null || fail "flush failed"
e2=$(current_epoch)
touch "$T/go2"
wait_child $p2 60 || [ $? = 1 ] || fail "the second program on the hung file system failed"
timeout 10 "$DCPICTL" -d "$DB" --socket "$SOCK" flush >/dev/null ||
    fail "flush went unanswered while the file system hung"
assert_hot "$e2" prog "$T/served" ctiny_hot 500
timeout 10 "$DCPICTL" --socket "$SOCK" status >"$T/status.txt" || fail "status failed"
after=$(awk '$1 == "unattributed" && $2 == "unreadable" { print $3 }' "$T/status.txt")
[ "$after" = "$before" ] || fail "unreadable samples went from $before to $after with the image known"
[ "$(field lost)" = 0 ] || fail "samples lost: $(field lost)"
echo "hung again: $(field file-system-waits)"
# dcpid stops at once, its final flush written, though a helper's open
# waits on in the kernel (a FUSE request the server has taken, as on a
# hard NFS mount, cannot be interrupted): the process is reaped only when
# the server answers, but its main thread exits and the database's lock
# is let go, so that a new dcpid starts on the database meanwhile.
old=$DCPID_PID
kill -TERM "$old"
for _ in $(seq 1 100); do
	st=$(awk '{ print $3 }' "/proc/$old/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] && break
	sleep 0.1
done
[ -z "$st" ] || [ "$st" = Z ] || fail "dcpid did not stop within 10 s with the file system hung (state $st)"
grep -q "flushing and exiting" "$DCPID_LOG" || fail "dcpid did not flush on its way out"
mv "$DCPID_LOG" "$T/dcpid1.log"
start_dcpid -e perf::cpu-clock
ctl status >/dev/null || fail "the new dcpid does not answer"
unhang
wait_child "$old" 60 || fail "the first dcpid exited $?"
stop_dcpid
assert_db_valid
