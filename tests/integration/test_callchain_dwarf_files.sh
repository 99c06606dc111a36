#!/bin/sh
# Call chains (dcpid -g, the dwarf route) of images whose call-frame
# information is not in the image's own .eh_frame, or whose file is gone:
#   - a copy of nofp stripped with strip --strip-all (.eh_frame stays; its
#     functions are sub_ADDR names): whole chains;
#   - nofp built without unwind tables (-fno-asynchronous-unwind-tables
#     -fno-unwind-tables: .eh_frame holds only the C runtime's _start and
#     the PLT) with its functions' CFI in .debug_frame: in the file itself,
#     in a separate debug file found by build-id
#     (/usr/lib/debug/.build-id/NN/REST.debug) and in one found by
#     .gnu_debuglink under /usr/lib/debug: whole chains, and status counts
#     the tables built with debug files;
#   - a short-lived run of an image whose file is gone, from the build-id
#     cache: an idle process of a copy that is then deleted puts the image
#     in the cache at a flush and keeps it known; another copy then runs
#     for a moment and is deleted, while dcpid is stopped (a dcpid that
#     reads its buffers late: a loaded host), so that neither its process
#     nor its file is there when its samples are unwound.  Nothing holds
#     the file then (the image's file was let go at the flush), and its
#     table was never built: it comes from DB/buildid/ID/executable.
# Each share is of the samples whose innermost frame is the image's leaf
# (the hottest function), as `dcpictl stacks --image-names` shows them:
# at least 95% have __libc_start_call_main followed by the image's six
# frames main;tree;outer;middle;inner;leaf (named, or sub_ADDR).
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v objcopy >/dev/null && command -v strip >/dev/null ||
    skip "no objcopy or strip (binutils)"

SRC=$top_srcdir/tests/workload/nofp.c
NOUNWIND="-fno-asynchronous-unwind-tables -fno-unwind-tables"
# Each build an image of its own, its build-id made of its name and this
# run's directory: the same code built alike (here, or by another test
# running beside) would have the same one.
build() {
	out=$1; shift
	id=$(echo "$T/$out" | sha1sum | cut -c1-40)
	${CC:-cc} -O2 -g -fomit-frame-pointer "$@" -Wl,--build-id=0x$id -pthread \
	    -o "$T/$out" "$SRC" -lz || fail "cannot compile $out"
}
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }

# Stripped: .eh_frame kept, no symbol table.
build nofp-strip -fasynchronous-unwind-tables
strip --strip-all "$T/nofp-strip" || fail "strip failed"
readelf -SW "$T/nofp-strip" | grep -q ' \.eh_frame ' || fail "nofp-strip has no .eh_frame"
readelf -SW "$T/nofp-strip" | grep -q ' \.symtab ' && fail "nofp-strip kept .symtab"

# No unwind tables: leaf's CFI only in .debug_frame.
build nofp-dbgf $NOUNWIND
leaf=$(nm "$T/nofp-dbgf" | awk '$3 == "leaf" { print $1 }')
[ -n "$leaf" ] || fail "nofp-dbgf has no leaf symbol"
# (Addresses are 16 hex digits in both tools: compared as strings.)
readelf -wf "$T/nofp-dbgf" | awk -v a="$leaf" '
    /^Contents of the / { eh = ($4 == ".eh_frame"); if ($4 == ".debug_frame") d = 1 }
    eh && / FDE / { split($NF, r, /[=.]+/); if (length(r[2]) == length(a) && a >= r[2] && a < r[3]) f = 1 }
    END { exit f || !d }' ||
    fail "nofp-dbgf: leaf has an FDE in .eh_frame, or there is no .debug_frame"

# The same, its debug sections in a debug file: by build-id, by debuglink.
DBGFILES=
done_dbg() { for f in $DBGFILES; do rm -f "$f"; rmdir "${f%/*}" 2>/dev/null; done; cleanup; }
trap done_dbg EXIT
build nofp-dbgb $NOUNWIND
bid=$(build_id "$T/nofp-dbgb")
[ -n "$bid" ] || fail "nofp-dbgb has no build-id"
byid=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
[ -e "$byid" ] && fail "$byid exists already"
mkdir -p "${byid%/*}" && DBGFILES="$byid" &&
    objcopy --only-keep-debug "$T/nofp-dbgb" "$byid" || fail "cannot write $byid"
strip --strip-all "$T/nofp-dbgb" || fail "strip failed"
build nofp-dbgl $NOUNWIND
link=/usr/lib/debug$T/nofp-dbgl.debug
mkdir -p "${link%/*}" && DBGFILES="$DBGFILES $link" &&
    objcopy --only-keep-debug "$T/nofp-dbgl" "$link" || fail "cannot write $link"
strip --strip-all "$T/nofp-dbgl" &&
    objcopy --add-gnu-debuglink="$link" "$T/nofp-dbgl" || fail "cannot link nofp-dbgl's debug file"
for p in nofp-dbgb nofp-dbgl; do
	readelf -SW "$T/$p" | grep -q '\.debug_frame' && fail "$p kept .debug_frame"
done

# The build-id cache's: the same program under one more name.
build nofp-bc -fasynchronous-unwind-tables

# A chain with every sample: the shares below want a second's samples.
start_dcpid -e perf::cpu-clock -g --callchain-period 1x
for p in nofp-strip nofp-dbgf nofp-dbgb nofp-dbgl; do
	"$T/$p" tree 1 || fail "$p tree failed"
done

mkdir "$T/idle" "$T/run1" "$T/run2" && cp "$T/nofp-bc" "$T/idle/" || fail "cannot copy nofp-bc"
mkfifo "$T/hold" || fail "mkfifo failed"
"$T/idle/nofp-bc" idle <"$T/hold" &
IDLE=$!
exec 9>"$T/hold"
sleep 0.5
rm "$T/idle/nofp-bc"
ctl flush >/dev/null || fail "flush failed"
bcid=$(build_id "$T/nofp-bc")
[ -f "$DB/buildid/$bcid/executable" ] ||
    fail "nofp-bc (deleted while it runs) is not in the build-id cache"
# Each run from a path of its own, and only once dcpid has stopped (kill
# returns before the signal is taken): a copy dcpid could still open at
# its path would be read there, not from the build-id cache.
for i in 1 2; do
	kill -STOP "$DCPID_PID"
	for _ in $(seq 1 100); do
		[ "$(awk '{ print $3 }' "/proc/$DCPID_PID/stat")" = T ] && break
		sleep 0.01
	done
	cp "$T/nofp-bc" "$T/run$i/" && "$T/run$i/nofp-bc" tree 0.08 && rm "$T/run$i/nofp-bc"
	rc=$?
	kill -CONT "$DCPID_PID"
	[ $rc = 0 ] || fail "nofp-bc tree failed"
	sleep 1.5
done
exec 9>&-
wait "$IDLE"
ctl flush >/dev/null || fail "flush failed"
ctl status | grep -E '^(callchains|unwind-tables)' | tee "$T/status" || fail "status failed"
ctl stacks --image-names >"$T/folded" || fail "dcpictl stacks failed"
stop_dcpid

# whole IMAGE: the share of IMAGE's leaf samples (its hottest innermost
# frame) under __libc_start_call_main and six frames of IMAGE, and their
# count.
whole() {
	awk -v img="$1" '
	{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
	  if (index(f[k], img "`") != 1) next
	  by[f[k]] += n; line[NR] = s; cnt[NR] = n; last[NR] = f[k]
	  ok[NR] = k >= 7 && f[k - 6] ~ /`__libc_start_call_main$/
	  for (j = k - 5; ok[NR] && j <= k; j++) if (index(f[j], img "`") != 1) ok[NR] = 0 }
	END { for (l in by) if (by[l] > by[top]) top = l
	  for (r in line) if (last[r] == top) { t += cnt[r]; if (ok[r]) w += cnt[r] }
	  printf "%d %d %s\n", t ? 100 * w / t : 0, t, top }' "$T/folded"
}
for p in nofp-strip nofp-dbgf nofp-dbgb nofp-dbgl nofp-bc; do
	set -- $(whole "$p")
	echo "$p: $1% of $2 samples in ${3:-nothing} whole"
	min=300
	[ $p = nofp-bc ] && min=60
	[ "$2" -ge $min ] && [ "$1" -ge 95 ] ||
	    fail "$p: $1% of $2 whole: $(grep "$p\`" "$T/folded" | sort -t' ' -k2 -nr | head -3)"
done
grep -q "nofp-strip\`sub_[0-9a-f]*;nofp-strip\`sub_" "$T/folded" ||
    fail "nofp-strip's frames are not sub_ADDR names"
grep -qE 'from debug files [2-9]' "$T/status" || fail "no tables from the two debug files"
grep -qE 'the build-id cache [1-9]' "$T/status" || fail "no table from the build-id cache"
