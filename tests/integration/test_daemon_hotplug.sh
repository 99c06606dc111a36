#!/bin/sh
# CPU hotplug.  An event on a CPU that goes offline is taken off it for
# good, so a CPU taken offline and brought back (an operator's SMT switch,
# a VM's CPU hot-add, maintenance) was never sampled again, while status
# still counted it.  dcpid now opens the CPU's events anew when it is back
# online, and a CPU offline at start when it comes online: a program
# pinned to it afterwards has its samples, status and the log say so.
# (Holds the tests' lock alone, lib.sh: no other test runs meanwhile.)
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v taskset >/dev/null || fail "taskset is missing (Debian package util-linux)"
# The highest CPU that can go offline (CPU 0 usually cannot).
cpu= onf=
for d in /sys/devices/system/cpu/cpu[1-9]*; do
	[ -w "$d/online" ] && [ "$(cat "$d/online")" = 1 ] && { cpu=${d##*/cpu}; onf=$d/online; }
done
if [ -z "$cpu" ]; then echo "SKIP: no CPU here can go offline"; exit 77; fi
# Alone: the other tests finish first (their shared locks), and the CPU
# comes back whatever happens.
lock_alone
trap 'echo 1 >"$onf" 2>/dev/null; cleanup' EXIT
# (onf: lib.sh's functions use f.)
set_online() {
	for _ in $(seq 1 50); do
		echo "$1" >"$onf" 2>"$T/online.err" && [ "$(cat "$onf")" = "$1" ] && return 0
		sleep 0.1
	done
	fail "cannot set CPU $cpu's online to $1: $(cat "$T/online.err"), it reads $(cat "$onf")"
}
offline() { set_online 0; }
online() { set_online 1; }
# Waits (up to 20 s) for status's cpus line to match a pattern.
wait_cpus() {
	for _ in $(seq 1 200); do
		ctl status >"$T/status" 2>&1 || fail "status failed: $(cat "$T/status")"
		grep -Eq "^cpus +$1" "$T/status" && return 0
		sleep 0.1
	done
	fail "status never said cpus '$1': $(grep '^cpus' "$T/status")"
}

src=$top_srcdir/tests/workload/ctiny.c
cc_work backagain "$src" -DWORKLOAD_TAG='"backagain"'
cc_work cameonline "$src" -DWORKLOAD_TAG='"cameonline"'
ncpu=$(nproc)

# Offline and back while dcpid runs.
start_dcpid -e perf::cpu-clock
offline
wait_cpus "$((ncpu - 1)), 1 offline"
online
wait_cpus "$ncpu, 0 offline, 1 opened after coming online"
taskset -c "$cpu" "$T/backagain" 1000 || [ $? = 1 ] || fail "backagain failed"
grep -q "CPU $cpu went offline" "$DCPID_LOG" || fail "no word of CPU $cpu going offline"
grep -q "CPU $cpu is back online: sampled again" "$DCPID_LOG" || fail "no word of CPU $cpu coming back"
ctl flush >/dev/null || fail "flush failed"
assert_hot "$(current_epoch)" backagain "$T/backagain" ctiny_hot 500
stop_dcpid

# Offline when dcpid starts, online later.
offline
start_dcpid -e perf::cpu-clock
wait_cpus "$((ncpu - 1)), 1 offline, 0 opened"
online
wait_cpus "$ncpu, 0 offline, 1 opened after coming online"
grep -q "CPU $cpu came online: sampled from now on" "$DCPID_LOG" || fail "no word of CPU $cpu coming online"
taskset -c "$cpu" "$T/cameonline" 1000 || [ $? = 1 ] || fail "cameonline failed"
ctl flush >/dev/null || fail "flush failed"
assert_hot "$(current_epoch)" cameonline "$T/cameonline" ctiny_hot 500
assert_db_valid
stop_dcpid
