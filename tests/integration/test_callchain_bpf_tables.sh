#!/bin/sh
# The kernel walk's unwind tables in a small array (unwind-bpf-memory =
# 1M, 131,072 rows): the tables of two dozen of the host's libraries,
# mapped by a process of the test's and loaded again and again as if
# walks met them (DCPID_TEST_BPF_TABLES), drop each other and the
# workloads' tables for room while the workloads run, and dcpid's own
# walks read the tables from the kernel's array where they are there:
#   - with every sample the kernel walked also taking the ring
#     (DCPID_TEST_BPF_WALK=check), at least 99% of at least 300 compared
#     walks are the same on both routes;
#   - tables were dropped from the kernel's array for room, and status
#     says the tables' memory: in the kernel's maps (1 MiB of rows and
#     256 KiB of rules) and in dcpid, within unwind-memory.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

require_bpf
PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian's python3)"
${CC:-cc} -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -pthread \
    -o "$T/nofp" "$top_srcdir/tests/workload/nofp.c" -lz ||
    fail "cannot compile nofp.c"

# Libraries of 300 KB to 2 MB (a few thousand to 30,000 rows each).
find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name 'lib*.so.*' -type f \
    -size +300k -size -2000k | sort | head -24 >"$T/libs"
[ "$(wc -l <"$T/libs")" -ge 12 ] || skip "too few libraries here: $(wc -l <"$T/libs")"
"$PY" "$top_srcdir/tests/workload/map_text.py" "$T/libs" "$T/mapper.ready" &
MAPPER=$!
for _ in $(seq 1 100); do [ -s "$T/mapper.ready" ] && break; sleep 0.1; done
[ -s "$T/mapper.ready" ] || { kill $MAPPER; fail "the mapper did not start"; }

printf 'unwind-bpf-memory = 1M\n' >"$T/small.conf"
export DCPID_TEST_BPF_WALK=check DCPID_TEST_BPF_TABLES="$T/tables"
start_dcpid -e perf::cpu-clock -g --aggregate bpf --callchain-period 2x \
    --period-jitter 20 --config "$T/small.conf"
unset DCPID_TEST_BPF_WALK DCPID_TEST_BPF_TABLES
# The libraries' tables loaded anew every half second.
( while :; do echo $MAPPER >"$T/tables"; sleep 0.5; done ) &
LOADER=$!
run() { ctl label bpf-walk -- "$@" >/dev/null; }
run "$T/nofp" tree 1.5 || fail "nofp tree failed"
run "$T/nofp" zlib 1.5 || fail "nofp zlib failed"
run "$T/nofp" thread 1.5 || fail "nofp thread failed"
kill $LOADER $MAPPER
wait $LOADER $MAPPER 2>/dev/null
ctl flush >/dev/null || fail "flush failed"
ctl status >"$T/st" || fail "status failed"
stop_dcpid
grep -E '^(callchains-(walk|bpf|check)|unwind-(tables|tables-bpf|memory)) ' "$T/st"

set -- $(awk '$1 == "callchains-check" { print $2, $5 }' "$T/st")
[ "${1:-0}" -ge 300 ] || fail "check: ${1:-0} walks compared, expected 300 or more"
[ $(($2 * 100)) -ge $(($1 * 99)) ] || fail "check: $2 of $1 walks the same in the kernel and in dcpid"
echo "check: $2 of $1 samples' chains the same on both routes"

# 131,072 rows: 1 MiB, and the rules' 256 KiB.
grep -qE '^unwind-tables-bpf +[0-9]+ files, [0-9]+ rows of 131072 \(1280 KiB' "$T/st" ||
    fail "not the array asked for: $(grep unwind-tables-bpf "$T/st")"
set -- $(sed -n 's/^unwind-tables-bpf .*, \([0-9]*\) dropped for room$/\1/p' "$T/st")
[ "${1:-0}" -ge 10 ] || fail "${1:-0} tables dropped from the kernel's array, expected 10 or more"
set -- $(sed -n 's/^unwind-memory *\([0-9]*\) bytes of \([0-9]*\): \([0-9]*\) in the kernel.s maps, \([0-9]*\) in dcpid (\([0-9]*\) tables, \([0-9]*\) of them read from.*/\1 \2 \3 \4 \5 \6/p' "$T/st")
[ $# = 6 ] || fail "no unwind-memory line: $(grep unwind-memory "$T/st")"
[ "$3" = 1310720 ] || fail "kernel maps: $3 bytes, expected 1310720"
[ "$1" = $(($3 + $4)) ] && [ "$1" -le "$2" ] || fail "unwind-memory: $*"
[ "$6" -ge 1 ] && [ "$6" -le "$5" ] || fail "no table read from the kernel's array: $*"
exit 0
