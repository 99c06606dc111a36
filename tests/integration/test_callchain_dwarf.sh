#!/bin/sh
# Call chains of code built without frame pointers (callchain = dwarf; -g
# picks it): a program built -O2 -fomit-frame-pointer as Debian builds
# its packages, Debian's zlib under compress2, the same tree on a thread
# and under a signal handler, and Debian's python3.  Each sample's user
# frames are unwound by dcpid from the user stack copy with the images'
# CFI, so whole chains are expected where frame pointers give none:
#   - at least 95% of the tree's samples in leaf have the chain
#     _start;...;main;tree;outer;middle;inner;leaf (the thread's:
#     ...clone3;start_thread;tree;outer;middle;inner;leaf);
#   - at least 95% of zlib's samples in libz go back to main;compress2;
#   - samples in the signal handler have on_prof under the signal frame
#     (glibc's __restore_rt, unnamed in Debian's stripped libc) under the
#     interrupted spin and main;
#   - at least 90% of python3's samples reach its main;
#   - status says the route, how the walks ended and the tables held;
#   - with a user stack copy of 64 bytes (callchain-stack, from the
#     configuration file) the tree's chains are cut, each ending in
#     [truncated: stack-copy] above callers that are right as far as they
#     go (a suffix of the whole chain), never a guessed one;
#   - with callchain = fp the same tree gives chains without main (the
#     reason the route exists).
. "$top_srcdir/tests/integration/lib.sh"
require_perf

${CC:-cc} -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -pthread \
    -o "$T/nofp" "$top_srcdir/tests/workload/nofp.c" -lz ||
    fail "cannot compile nofp.c"
if objdump -d "$T/nofp" | awk '/<(leaf|inner|middle|outer)>:/ { f = 1 } f && /push +%rbp/ { b = 1 } /^$/ { f = 0 } END { exit !b }'; then
	fail "nofp's functions push rbp: built with frame pointers"
fi
PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian's python3)"

# The handler runs just after each scheduler tick (ITIMER_PROF is checked
# on the tick) and a fixed 1 ms cpu-clock period keeps one phase against a
# 4 ms tick: the handler's samples were all or none depending on the run
# (0 of 376 handler runs sampled).  Jittered periods, as a user wanting
# such work seen would set, sweep the phase.  A chain with every sample
# (callchain-period 1x), for the counts below in runs of a second or two.
start_dcpid -e perf::cpu-clock -g --period-jitter 20 --callchain-period 1x
ctl status >"$T/status" || fail "status failed"
grep -E '^callchains +dwarf' "$T/status" || fail "-g did not take the dwarf route: $(grep callchains "$T/status")"
# Each run is a label run: the stacks read are this test's processes',
# not those of tests running beside it (python3's, other nofp builds').
run() { ctl label dwarf-test -- "$@" >/dev/null; }
run "$T/nofp" tree 2 || fail "nofp tree failed"
run "$T/nofp" zlib 2 || fail "nofp zlib failed"
run "$T/nofp" thread 1.5 || fail "nofp thread failed"
run "$T/nofp" signal 1.5 || fail "nofp signal failed"
run "$PY" -c '
i = 0
while i < 30000000:
    i += 1' || fail "python3 failed"
ctl flush >/dev/null || fail "flush failed"
ctl status | grep -E '^(callchains|unwind-tables|memory-unwind)' | tee "$T/status" ||
    fail "status failed"
ctl stacks --label dwarf-test >"$T/folded" || fail "dcpictl stacks failed"

# share ALL WHOLE [OTHER]: percent of the samples of the stacks matching
# ALL (and not OTHER: another mode's) that also match WHOLE, and their
# count.
share() {
	awk -v all="$1" -v whole="$2" -v other="${3:-^$}" \
	    '$0 ~ all && $0 !~ other { n = $NF; t += n; if ($0 ~ whole) w += n }
	    END { printf "%d %d\n", t ? 100 * w / t : 0, t }' "$T/folded"
}
set -- $(share ';leaf [0-9]+$' '(^|;)main;tree;outer;middle;inner;leaf [0-9]+$' 'start_thread|on_prof')
echo "tree: $1% of $2 samples in leaf under main;tree;outer;middle;inner"
[ "$2" -ge 500 ] || fail "tree: $2 samples in leaf, expected 500 or more"
[ "$1" -ge 95 ] || fail "tree: $1% whole chains: $(grep ';leaf ' "$T/folded" | sort -t' ' -k2 -nr | head -5)"
grep -qE '^_start;[^ ]*main;tree;outer;middle;inner;leaf [0-9]+$' "$T/folded" ||
    fail "tree: no chain from _start: $(grep ';leaf ' "$T/folded" | head -3)"
set -- $(share 'start_thread;[^ ]*leaf [0-9]+$' 'clone3?;start_thread;tree;outer;middle;inner;leaf [0-9]+$')
echo "thread: $1% of $2 samples in leaf from clone;start_thread;tree"
[ "$2" -ge 200 ] && [ "$1" -ge 95 ] || fail "thread: $1% of $2: $(grep 'start_thread' "$T/folded" | head -3)"

set -- $(share 'compress2;' '(^|;)main;compress2;')
echo "zlib: $1% of $2 samples under compress2 from main"
[ "$2" -ge 500 ] && [ "$1" -ge 95 ] || fail "zlib: $1% of $2: $(grep compress "$T/folded" | head -3)"
grep -qE ';compress2;deflate' "$T/folded" || fail "zlib: no compress2;deflate"

set -- $(share 'on_prof;leaf [0-9]+$' '(^|;)main;spin;([^;]*;)*on_prof;leaf [0-9]+$')
echo "signal: $1% of $2 samples in the handler from main;spin"
[ "$2" -ge 5 ] && [ "$1" -ge 90 ] || fail "signal: $1% of $2: $(grep on_prof "$T/folded" | head -3)"

set -- $(awk '/_PyEval_EvalFrameDefault/ { n = $NF; t += n; if ($0 ~ /(^|;)(Py_BytesMain|main);/) w += n }
    END { printf "%d %d\n", t ? 100 * w / t : 0, t }' "$T/folded")
echo "python3: $1% of $2 samples in the interpreter reach main"
[ "$2" -ge 300 ] && [ "$1" -ge 90 ] || fail "python3: $1% of $2: $(grep _PyEval "$T/folded" | sort -t' ' -k2 -nr | head -3)"

grep -qE '^callchains-walks +[0-9]+ truncated' "$T/status" || fail "no callchains-walks line"
grep -qE '^unwind-tables +[1-9][0-9]* tables' "$T/status" || fail "no unwind tables held"
stop_dcpid

# A copy too small for the chain: cut, with the reason, never guessed.
mv "$DB" "$T/db-dwarf"
printf 'callchain = dwarf\ncallchain-stack = 64\ncallchain-period = 1x\n' >"$T/small.conf"
start_dcpid -e perf::cpu-clock --config "$T/small.conf"
run "$T/nofp" tree 1 || fail "nofp tree failed"
ctl flush >/dev/null || fail "flush failed"
ctl status | grep -E '^callchains +dwarf, depth [0-9]+, user stack 64 bytes' ||
    fail "callchain-stack = 64 not in status: $(ctl status | grep '^callchains')"
ctl stacks --label dwarf-test >"$T/folded" || fail "dcpictl stacks failed"
stop_dcpid
set -- $(share ';leaf [0-9]+$' '^\[truncated: stack-copy\];')
echo "64-byte copy: $1% of $2 samples in leaf cut at the copy"
[ "$2" -ge 300 ] && [ "$1" -ge 90 ] || fail "64-byte copy: $1% of $2 cut: $(grep ';leaf ' "$T/folded" | head -3)"
bad=$(awk '/;leaf [0-9]+$/ { s = $0; sub(/ [0-9]+$/, "", s); sub(/^\[truncated: [a-z-]+\];/, "", s)
    w = "_start;__libc_start_main@@GLIBC_2.34;__libc_start_call_main;main;tree;outer;middle;inner;leaf"
    if (substr(w, length(w) - length(s) + 1) != s || (length(s) < length(w) && substr(w, length(w) - length(s), 1) != ";")) print }' "$T/folded" | head -3)
[ -z "$bad" ] || fail "64-byte copy: callers that are not the chain's: $bad"

# The same tree with frame pointers: the leaf's callers are lost, which
# is why the dwarf route is there.
mv "$DB" "$T/db-small"
start_dcpid -e perf::cpu-clock --callchain fp --callchain-period 1x
run "$T/nofp" tree 1 || fail "nofp tree failed"
ctl flush >/dev/null || fail "flush failed"
ctl status | grep -E '^callchains +fp' || fail "--callchain fp not fp"
ctl stacks --label dwarf-test >"$T/folded" || fail "dcpictl stacks failed"
stop_dcpid
set -- $(share ';leaf [0-9]+$' '(^|;)main;tree;outer;middle;inner;leaf [0-9]+$')
echo "tree with frame pointers: $1% of $2 samples whole"
[ "$1" -le 50 ] || fail "frame pointers gave $1% whole chains of a program without them"
