#!/bin/sh
# Call chains walked in the kernel (aggregate = bpf with -g on the dwarf
# route): the BPF program walks the user stack at each chain sample with
# the images' unwind tables, copied into its maps, and hands dcpid the
# frames; where it cannot walk as dcpid would, the sample takes the ring
# with its stack copy.  The programs of test_callchain_dwarf.sh (nofp.c's
# -O2 tree, the tree on a thread, Debian's zlib, a signal handler, and
# Debian's python3):
#   - in one run where every sample the kernel walked also takes the ring
#     (DCPID_TEST_BPF_WALK=check), dcpid compares the two walks of each
#     sample: at least 99% of at least 300 compared are the same, every
#     process on the host included;
#   - in a plain run the kernel walks 1,000 chains or more, and the
#     stacks are whole as on the ring's route: the tree's leaf under
#     main;tree;outer;middle;inner, the thread's from start_thread, zlib's
#     under main;compress2, python3's from main;
#   - a walk the verifier refuses (DCPID_TEST_BPF_WALK=reject) leaves the
#     flat counts in the kernel and the chains to the ring, which says so
#     in the log and status, with the tree's chains still whole;
#   - on the frame pointer route, with aggregate = auto, the flat
#     samples are counted in the kernel and the chains come through the
#     ring;
#   - chains with every sample (callchain-period 1x) are refused with
#     aggregate = bpf, with why.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

${CC:-cc} -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -pthread \
    -o "$T/nofp" "$top_srcdir/tests/workload/nofp.c" -lz ||
    fail "cannot compile nofp.c"
PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian's python3)"

require_bpf

# Chains at 2x the flat period, jittered (the signal handler's phase,
# as in test_callchain_dwarf.sh).
CHAINS="-e perf::cpu-clock -g --aggregate bpf --callchain-period 2x --period-jitter 20"
run() { ctl label bpf-walk -- "$@" >/dev/null; }
workloads() {
	run "$T/nofp" tree "$1" || fail "nofp tree failed"
	run "$T/nofp" zlib "$1" || fail "nofp zlib failed"
	run "$T/nofp" thread "$1" || fail "nofp thread failed"
	run "$T/nofp" signal "$1" || fail "nofp signal failed"
	run "$PY" -c '
i = 0
while i < 10000000:
    i += 1' || fail "python3 failed"
}

# collect: flush, status in $T/st, the workloads' stacks in $T/folded,
# dcpid stopped.
collect() {
	ctl flush >/dev/null || fail "flush failed"
	ctl status >"$T/st" || fail "status failed"
	ctl stacks --label bpf-walk >"$T/folded" || fail "dcpictl stacks failed"
	stop_dcpid
}

export DCPID_TEST_BPF_WALK=check
start_dcpid $CHAINS
unset DCPID_TEST_BPF_WALK
workloads 1
collect
grep -E '^callchains-(walk|bpf|check) ' "$T/st"
grep -qE '^callchains-walk +bpf .*checked' "$T/st" || fail "not checking: $(grep callchains-walk "$T/st")"
set -- $(awk '$1 == "callchains-check" { print $2, $5 }' "$T/st")
[ "${1:-0}" -ge 300 ] || fail "check: ${1:-0} walks compared, expected 300 or more"
[ $(($2 * 100)) -ge $(($1 * 99)) ] || fail "check: $2 of $1 walks the same in the kernel and in dcpid"
echo "check: $2 of $1 samples' chains the same on both routes"
mv "$DB" "$T/db-check"

start_dcpid $CHAINS
workloads 1
collect
grep -E '^(aggregate|callchains-walk|callchains-bpf|unwind-tables-bpf) ' "$T/st"
grep -qE '^aggregate +bpf' "$T/st" || fail "flat samples not counted in the kernel"
n=$(awk '$1 == "callchains-bpf" { print $2 }' "$T/st")
[ "${n:-0}" -ge 1000 ] || fail "the kernel walked ${n:-0} chains, expected 1000 or more"
grep -qE '^unwind-tables-bpf +[1-9][0-9]* files' "$T/st" || fail "no tables in the kernel"

TREE=';leaf [0-9]+$'
WHOLE='(^|;)main;tree;outer;middle;inner;leaf [0-9]+$'
check_whole tree "$TREE" "$WHOLE" 'start_thread|on_prof'
check_whole thread 'start_thread;[^ ]*leaf [0-9]+$' 'clone3?;start_thread;tree;outer;middle;inner;leaf [0-9]+$'
check_whole zlib 'compress2;' '(^|;)main;compress2;'
check_whole python3 '_PyEval_EvalFrameDefault' '(^|;)(Py_BytesMain|main);'
mv "$DB" "$T/db-bpf"

# The walk refused by the verifier: the chains are dcpid's, with why.
export DCPID_TEST_BPF_WALK=reject
start_dcpid $CHAINS
unset DCPID_TEST_BPF_WALK
run "$T/nofp" tree 1 || fail "nofp tree failed"
collect
grep -E '^(aggregate|callchains-walk) ' "$T/st"
grep -qE '^aggregate +bpf' "$T/st" || fail "reject: flat samples not counted in the kernel"
grep -qE '^callchains-walk +ring \(loading the BPF walk: ' "$T/st" ||
    fail "reject: $(grep callchains-walk "$T/st")"
grep -q 'call chains walked by ring (loading the BPF walk: ' "$DCPID_LOG" ||
    fail "reject: no log line"
! grep -q '^callchains-bpf ' "$T/st" || fail "reject: the walk ran"
check_whole "tree (walked by dcpid)" "$TREE" "$WHOLE"
mv "$DB" "$T/db-reject"

# Frame pointers, and auto: the flat samples in the kernel, the chains the
# kernel's own, through the ring (the tree's callers lost, as without BPF).
start_dcpid -e perf::cpu-clock --callchain fp --aggregate auto --callchain-period 2x
run "$T/nofp" tree 0.5 || fail "nofp tree failed"
collect
grep -E '^(aggregate|callchains-walk) ' "$T/st"
grep -qE '^aggregate +bpf' "$T/st" || fail "fp: flat samples not counted in the kernel"
grep -qE '^callchains-walk +ring \(frame pointers' "$T/st" || fail "fp: $(grep callchains-walk "$T/st")"
grep -qE ';leaf [0-9]+$' "$T/folded" || fail "fp: no chains of the tree's leaf"
mv "$DB" "$T/db-fp"

# Chains with every sample cannot leave the flat samples in the kernel.
"$DCPID" -f -d "$DB" --socket "$SOCK" -e perf::cpu-clock -g --aggregate bpf \
    --callchain-period 1x >"$T/1x.log" 2>&1 && fail "1x with aggregate = bpf started"
grep -q 'aggregate = bpf: call chains with every sample need the ring buffers' "$T/1x.log" ||
    fail "1x: $(cat "$T/1x.log")"
exit 0
