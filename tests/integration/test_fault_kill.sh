#!/bin/sh
# kill -9 at random points of 100 flushes (each of a dcpid started on the
# same database): every file stays valid, counts only grow, and the
# temporary files of the killed ones are gone after a restart.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_k9
"$T/hot_k9" 1000 & w=$!
trap 'kill -KILL $w 2>/dev/null; cleanup' EXIT
prev=0
i=0
while [ $i -lt 100 ]; do
	start_dcpid -e perf::cpu-clock
	ctl flush >/dev/null 2>&1 &
	f=$!
	# Anywhere from before the request is read to after it is answered.
	sleep 0.0$(( (i * 7) % 10 ))$(( (i * 3) % 10 ))
	kill -KILL "$DCPID_PID"
	wait "$DCPID_PID" 2>/dev/null
	DCPID_PID=
	wait $f
	i=$((i + 1))
	if [ $((i % 20)) = 0 ]; then
		p=$(profile_file "$(current_epoch)" hot_k9)
		if [ -n "$p" ]; then
			n=$(samples_in "$p" 0 0 | cut -d' ' -f2)
			[ "$n" -ge "$prev" ] || fail "hot_k9's samples went from $prev to $n after $i kills"
			prev=$n
		fi
	fi
done
# A clean run after the kills: everything valid, nothing half-written.
start_dcpid -e perf::cpu-clock
sleep 0.5
ctl flush || fail "flush after 100 kills failed"
stop_dcpid
kill -KILL $w; wait $w 2>/dev/null
p=$(profile_file "$(current_epoch)" hot_k9)
[ -n "$p" ] || fail "no profile of hot_k9 after 100 kills"
n=$(samples_in "$p" 0 0 | cut -d' ' -f2)
[ "$n" -gt "$prev" ] || fail "hot_k9's samples did not grow after the restart ($prev, $n)"
assert_db_valid
tmp=$(find "$DB" -name '.*' ! -name . | head -5)
[ -z "$tmp" ] || fail "temporary files left after the restart: $tmp"
echo "100 kills: $n samples of hot_k9, files valid, no temporary file"
