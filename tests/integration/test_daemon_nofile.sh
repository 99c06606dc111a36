#!/bin/sh
# dcpid raises its soft limit of open files to the hard one (at most
# 2^20): it holds a perf fd per event and CPU, and the file of every image
# sampled since the last flush, which on a large host passes the soft
# limit of 1,024 that systemd gives services.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=1073741816
[ "$hard" -gt 256 ] || skip "the hard limit of open files is $hard"
want=$hard
[ "$want" -gt 1048576 ] && want=1048576
ulimit -S -n 256 || fail "cannot lower the soft limit of open files"
start_dcpid -e perf::cpu-clock
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$DCPID_PID/limits")
echo "dcpid's soft limit of open files: $soft (started at 256; hard $hard)"
[ "$soft" = "$want" ] || fail "dcpid's soft limit of open files is $soft, not $want"
# It samples as before.
build_hot nofile_hot
"$T/nofile_hot" 0.5 || fail "nofile_hot failed"
ctl flush >/dev/null || fail "flush failed"
assert_hot "$(current_epoch)" nofile_hot "$T/nofile_hot" dcpi_workload_hot 200
stop_dcpid
