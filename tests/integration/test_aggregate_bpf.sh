#!/bin/sh
# In-kernel aggregation (aggregate = bpf) against the ring-buffer path on
# the same workload at the same time: two daemons, one each way, sample
# the hot workload; status says which path each ran, the BPF daemon's
# samples came through its maps, and both profiles put the same share of
# the workload's samples in dcpi_workload_hot and counts within sampling
# noise of each other.  Then two programs of one layout run in turn keep
# their own samples.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_agg
# auto, so that a kernel without BPF (or without the permission) says so
# in status: a skip, which CI (DCPI_REQUIRE_PERF=1) turns into a failure.
# (lib.sh's DCPI_AGGREGATE comes first on the command line: this one wins.)
start_dcpid -e perf::cpu-clock --aggregate auto
ctl status >"$T/st.bpf" || fail "status (bpf)"
if grep -q '^aggregate  *ring (BPF:' "$T/st.bpf"; then
	stop_dcpid
	skip "BPF did not load: $(grep aggregate "$T/st.bpf")"
fi
DB2=$T/db.ring SOCK2=$T/ring.sock
"$DCPID" -f -d "$DB2" --socket "$SOCK2" -e perf::cpu-clock --aggregate ring \
    >"$T/ring.log" 2>&1 & RING_PID=$!
for _ in $(seq 1 100); do
	"$DCPICTL" --socket "$SOCK2" status >/dev/null 2>&1 && break
	kill -0 "$RING_PID" 2>/dev/null || fail "the ring daemon exited: $(cat "$T/ring.log")"
	sleep 0.1
done

"$T/hot_agg" 2 || fail "hot_agg failed"
ctl flush || fail "flush (bpf) failed"
"$DCPICTL" --socket "$SOCK2" flush >/dev/null || fail "flush (ring) failed"

ctl status >"$T/st.bpf" || fail "status (bpf)"
"$DCPICTL" --socket "$SOCK2" status >"$T/st.ring" || fail "status (ring)"
grep -q '^aggregate  *bpf' "$T/st.bpf" || fail "bpf daemon: $(grep aggregate "$T/st.bpf")"
grep -q '^aggregate  *ring (aggregate = ring)' "$T/st.ring" ||
    fail "ring daemon: $(grep aggregate "$T/st.ring")"
k=$(awk '$1 == "aggregate-bpf" { print $2 }' "$T/st.bpf")
[ "${k:-0}" -gt 0 ] || fail "no samples through the BPF maps"
grep -q '^aggregate-bpf' "$T/st.ring" && fail "the ring daemon reports BPF counts"

e=$(current_epoch)
assert_hot "$e" hot_agg "$T/hot_agg" dcpi_workload_hot 200
r=$(fn_range "$T/hot_agg" dcpi_workload_hot)
set -- $(samples_in "$(profile_file "$e" hot_agg)" $r)
bin=$1 btot=$2
DB_SAVE=$DB DB=$DB2
e2=$(readlink "$DB2/current")
assert_hot "$e2" hot_agg "$T/hot_agg" dcpi_workload_hot 200
set -- $(samples_in "$(profile_file "$e2" hot_agg)" $r)
rin=$1 rtot=$2
DB=$DB_SAVE
echo "hot_agg: bpf $bin of $btot, ring $rin of $rtot in dcpi_workload_hot"
# The same 2 s of CPU sampled twice by independent timers: the counts
# differ by the timers' phase and lost ticks only.  Five standard
# deviations of a Poisson count, and 5% for the VM's lost ticks.
d=$((btot > rtot ? btot - rtot : rtot - btot))
lim=$(awk -v a="$btot" -v b="$rtot" 'BEGIN { printf "%d", 5 * sqrt(a + b) + 0.05 * (a + b) / 2 }')
[ "$d" -le "$lim" ] || fail "bpf $btot and ring $rtot samples differ by $d (limit $lim)"
kill -TERM "$RING_PID"; wait "$RING_PID" || fail "the ring daemon exited $?"

# Two programs of one layout, in turn: a static program and its stripped
# copy (no build-id: two images), each process started as the other
# exits.  The kernel may give the new process's mm_struct the address of
# the one just freed, and the program reaches the same mm_lock_seq after
# the same start-up: the BPF program's cache of where a page of code lies
# must not take one for the other (it did: 3,962 of 3,963 samples went to
# the first program).
cc_work alt_a "$top_srcdir/tests/workload/hot.c" -static -Wl,--build-id=none \
    -DWORKLOAD_TAG='"alt"'
cp "$T/alt_a" "$T/alt_b" && strip "$T/alt_b" || fail "strip failed"
for _ in 1 2 3 4 5 6; do
	"$T/alt_a" 0.25 || fail "alt_a failed"
	"$T/alt_b" 0.25 || fail "alt_b failed"
done
ctl flush >/dev/null || fail "flush (bpf) failed"
e=$(current_epoch)
fa=$(profile_file "$e" alt_a) fb=$(profile_file "$e" alt_b)
[ -n "$fa" ] && [ -n "$fb" ] ||
    fail "no profile of alt_a or alt_b: one program's samples counted as the other's ($fa $fb)"
na=$(samples_in "$fa" 0 4294967295 | cut -d' ' -f2)
nb=$(samples_in "$fb" 0 4294967295 | cut -d' ' -f2)
echo "two programs of one layout in turn: alt_a $na, alt_b $nb samples"
awk -v a="$na" -v b="$nb" 'BEGIN { exit !(a >= 0.35 * (a + b) && b >= 0.35 * (a + b)) }' ||
    fail "alt_a $na and alt_b $nb samples: one program's counted as the other's"
assert_db_valid
stop_dcpid
