#!/bin/sh
# A full disk (a small tmpfs as the database): the flush fails, dcpid keeps
# sampling and says so in status, and once space is freed the next flush
# writes every count it held.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

mkdir -p "$DB"
# Room for the kernel's symbols snapshot, then filled.
# A tmpfs is 1777 by default, which dcpid rightly refuses.
mount -t tmpfs -o size=16m,mode=0750 dcpi-test "$DB" || skip "cannot mount a tmpfs"
unmount() {
	if [ -n "$DCPID_PID" ]; then kill -KILL "$DCPID_PID"; wait "$DCPID_PID"; fi
	DCPID_PID=
	umount "$DB" || umount -l "$DB"
	cleanup
}
trap unmount EXIT

# Sum of the counts in every profile of the database: EPOCH/HOST/EVENT/
# IMAGE, and EPOCH/HOST/EVENT/LABEL/IMAGE for labelled samples ([idle],
# the host's services).
db_samples() {
	for f in $(find "$DB" -mindepth 4 -maxdepth 5 -type f ! -name '.*'); do
		"$DCPICTL" cat "$f" || fail "dcpictl cat $f failed"
	done | awk '$1 ~ /^0x/ { n += $2 } END { print n + 0 }'
}
# Samples attributed so far, by status: samples less the unattributed,
# and less the JIT samples still waiting for a map (another test's node
# or java may be running on the host: their samples are in no profile
# yet).
attributed() {
	ctl status | awk '$1 == "samples" { n = $2 } $1 == "unattributed" { u += $3 }
	    $1 == "jit" && $2 == "samples" { j += $3 }
	    $1 == "jit" && ($2 == "named" || $2 == "anon") { j -= $3 }
	    END { print n - u - j }'
}
stat_field() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }

build_hot hot_full
start_dcpid -e perf::cpu-clock --flush-interval 3600
dd if=/dev/zero of="$DB/filler" bs=64k 2>/dev/null
[ "$(df --output=avail -k "$DB" | tail -1)" -lt 64 ] || fail "the tmpfs is not full"
"$T/hot_full" 1 || fail "workload failed"
s0=$(stat_field samples)
ctl flush >"$T/flush.out" 2>&1 && fail "flush into a full disk succeeded: $(cat "$T/flush.out")"
grep -q "No space left" "$T/flush.out" || fail "flush error does not name the cause: $(cat "$T/flush.out")"
ctl status >"$T/status"
grep -q "^last-flush-result *flush failed.*No space left" "$T/status" ||
    fail "status does not show the failed flush: $(cat "$T/status")"
[ "$(stat_field flush-errors)" -ge 1 ] || fail "flush-errors not counted"
# Still sampling.
"$T/hot_full" 1 || fail "workload failed"
# Status counts what has been processed, up to a second behind.
for _ in $(seq 1 30); do
	s1=$(stat_field samples)
	[ "$s1" -ge $((s0 + 300)) ] && break
	sleep 0.1
done
[ "$s1" -ge $((s0 + 300)) ] || fail "dcpid stopped sampling on a full disk ($s0, then $s1)"
[ -z "$(find "$DB" -name '.*' ! -name . | head -1)" ] || fail "a failed flush left a temporary file"
# Space freed: the next flush writes everything held.
rm -f "$DB/filler"
a0=$(attributed)
ctl flush || fail "flush after freeing space failed"
a1=$(attributed)
n=$(db_samples)
echo "attributed before the flush $a0, after $a1; in the database $n"
[ "$n" -ge "$a0" ] && [ "$n" -le "$a1" ] ||
    fail "the database holds $n samples, expected $a0 to $a1"
grep -q "^last-flush-result *ok" "$(ctl status >"$T/status2"; echo "$T/status2")" ||
    fail "status does not show the good flush"
assert_hot "$(current_epoch)" hot_full "$T/hot_full" dcpi_workload_hot 100
assert_db_valid
stop_dcpid
