#!/bin/sh
# A long-running dcpid frees the images it no longer needs: a host that
# builds or deploys new programs all day samples a new image with each.
# 150 programs of distinct build-ids (set A) run and exit; after two more
# flushes their images are freed (status images-freed, the images count
# back down, attribution memory down).  Then 150 others (set B) take the
# freed images' indexes, and set A runs again (read again): every
# program's samples are its own (dcpi_workload_hot >= 90% of each
# profile), set A's counts do not move while only B runs, and nothing is
# lost (the database passes the format reader).
. "$top_srcdir/tests/integration/lib.sh"
require_perf
# Alone: dcpid samples the whole host, and another run of this test (the
# aggregate = bpf one) running the same programs would move the counts
# this one checks.
lock_alone

N=150
# The programs stay in the build tree (tests/.cache, made once): the
# dcpids of the tests beside this one sample them too, and would copy
# every one into their build-id caches if their files were gone.
C=$top_builddir/tests/.cache/reclaim
if [ ! -x "$C/b/hb$((N - 1))" ]; then
	mkdir -p "$top_builddir/tests/.cache"
	W=$(mktemp -d "$top_builddir/tests/.cache/reclaim.XXXXXX") || fail "mktemp"
	${CC:-cc} -O1 -g -fno-inline -c -o "$W/hot.o" "$top_srcdir/tests/workload/hot.c" ||
	    fail "cannot compile hot.c"
	mkdir -p "$W/a" "$W/b"
	i=0
	while [ $i -lt $N ]; do
		for s in a b; do
			bid=$(printf '%s%039x' "$([ $s = a ] && echo d || echo e)" $i)
			${CC:-cc} -o "$W/$s/h$s$i" "$W/hot.o" -Wl,--build-id=0x$bid ||
			    fail "cannot link $W/$s/h$s$i"
		done
		i=$((i + 1))
	done
	# Another run (aggregate = bpf) may have made it meanwhile.
	mv -T "$W" "$C" 2>/dev/null || rm -rf "$W"
fi
readelf -n "$C/a/ha7" | grep -q "Build ID: d0*7$" || fail "ha7: build-id not as linked"

run_set() { for f in "$C/$1"/h*; do "$f" 0.03 || fail "$f failed"; done; }
st() { ctl status >"$T/status.$1" || fail "status failed"; }
field() { awk -v k="$1" '$1 == k { print $2 }' "$T/status.$2"; }
# total_samples of each profile of a set, "NAME COUNT" a line, sorted
counts() {
	for f in "$DB/$(current_epoch)"/*/perf::cpu-clock/h$1*.*; do
		[ -f "$f" ] || continue
		n=$(ctl cat --summary "$f" | sed -n 's/^total_samples //p')
		echo "$(basename "$f" | cut -d. -f1) $n"
	done | sort
}

start_dcpid -e perf::cpu-clock --flush-interval 3600
st start
run_set a
ctl flush >/dev/null || fail "flush failed"
st a
ctl flush >/dev/null && ctl flush >/dev/null || fail "flush failed"
st idle
grep -E '^(images|memory-attribution)' "$T/status.start" "$T/status.a" "$T/status.idle"
ia=$(field images a) ii=$(field images idle) freed=$(field images-freed idle)
[ "$ia" -ge $((N + $(field images start))) ] ||
    fail "status after set A: $ia images, not $N more than at the start"
[ "$freed" -ge $((N * 9 / 10)) ] || fail "$freed images freed, expected most of set A's $N"
[ "$ii" -le $((ia - N * 9 / 10)) ] || fail "$ii images held after two flushes, $ia before"
[ "$(field memory-attribution idle)" -lt "$(field memory-attribution a)" ] ||
    fail "attribution memory did not go down: $(field memory-attribution a) then $(field memory-attribution idle)"
counts a >"$T/a1"
[ "$(wc -l <"$T/a1")" -eq $N ] || fail "$(wc -l <"$T/a1") profiles of set A, not $N"

run_set b
ctl flush >/dev/null || fail "flush failed"
counts a >"$T/a2"
counts b >"$T/b2"
cmp -s "$T/a1" "$T/a2" || fail "set A's counts moved while only set B ran: $(diff "$T/a1" "$T/a2" | head -5)"
[ "$(wc -l <"$T/b2")" -eq $N ] || fail "$(wc -l <"$T/b2") profiles of set B, not $N"

run_set a
ctl flush >/dev/null || fail "flush failed"
st end
counts a >"$T/a3"
counts b >"$T/b3"
cmp -s "$T/b2" "$T/b3" || fail "set B's counts moved while only set A ran: $(diff "$T/b2" "$T/b3" | head -5)"
grows=$(join "$T/a1" "$T/a3" | awk '$3 > $2 { n++ } END { print n + 0 }')
echo "set A: $grows of $N profiles grew in its second run"
[ "$grows" -ge $((N * 9 / 10)) ] || fail "only $grows of set A's $N profiles grew in its second run"
stop_dcpid

# Each program's samples in its own hot function (a freed index given to
# another image would mix them).
e=$(current_epoch)
bad=0
for f in "$C"/a/ha1 "$C"/a/ha77 "$C"/a/ha149 "$C"/b/hb0 "$C"/b/hb76 "$C"/b/hb148; do
	assert_hot "$e" "$(basename "$f")" "$f" dcpi_workload_hot 10
done
sa=$(awk '{ s += $2 } END { print s }' "$T/a3") sb=$(awk '{ s += $2 } END { print s }' "$T/b3")
echo "set A $sa samples, set B $sb"
grep -E "^(images|aggregate)" "$T/status.end"
grep -q '^flush-errors *0$' "$T/status.end" || fail "flush errors: $(grep flush "$T/status.end")"
assert_db_valid
