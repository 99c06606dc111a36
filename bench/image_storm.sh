#!/bin/sh
# dcpid's CPU while many distinct programs start: each one's images are
# opened, stat'ed and read at their first samples (on fsio's helper
# threads since the hung-file-system fix), held for the build-id cache and
# checked at the flush.  The first 400 entries of /usr/bin each run with
# --version (0.5 s at most), sampled at 10 kHz per CPU, then a flush; the
# daemon's utime + stime in clock ticks.  Builds given are run in turn,
# ROUNDS rounds, so that the host's noise falls on each alike.
# Run by hand, as root: sh bench/image_storm.sh ROUNDS BUILDDIR...
set -u
[ "$(id -u)" = 0 ] || { echo "image_storm: needs root (system-wide sampling)" >&2; exit 1; }
[ $# -ge 2 ] || { echo "usage: image_storm.sh ROUNDS BUILDDIR..." >&2; exit 2; }
ROUNDS=$1
shift
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-image_storm.XXXXXX")
P=
trap '[ -n "$P" ] && kill -KILL "$P" 2>/dev/null; rm -rf "$T"' EXIT

one() {	# one BUILDDIR: prints "ticks images"
	b=$1
	rm -rf "$T/db"
	"$b/daemon/dcpid" -f -d "$T/db" --socket "$T/sock" \
	    -e perf::cpu-clock:period=100000 >"$T/log" 2>&1 &
	P=$!
	for _ in $(seq 1 100); do
		"$b/ctl/dcpictl" --socket "$T/sock" status >/dev/null 2>&1 && break
		sleep 0.1
	done
	t0=$(awk '{ print $14 + $15 }' "/proc/$P/stat")
	for p in $(ls /usr/bin | head -n 400); do
		[ -x "/usr/bin/$p" ] && timeout 0.5 "/usr/bin/$p" --version </dev/null >/dev/null 2>&1
	done
	"$b/ctl/dcpictl" --socket "$T/sock" flush >/dev/null
	t1=$(awk '{ print $14 + $15 }' "/proc/$P/stat")
	n=$("$b/ctl/dcpictl" -d "$T/db" prof -i 2>/dev/null | grep -c '^ ')
	kill "$P"
	wait "$P"
	P=
	echo "$((t1 - t0)) $n"
}

for r in $(seq 1 "$ROUNDS"); do
	for b in "$@"; do
		res=$(one "$b")
		echo "round $r $b: ${res% *} ticks, ${res#* } images with samples"
	done
done
