#!/bin/sh
# dcpid's memory on a host that runs new programs all day (a build or CI
# host, a fleet deploying new binaries), as root:
#   sh bench/image_churn.sh BUILDDIR [PROGRAMS] [ROUNDS]
# Links PROGRAMS (default 1000) copies of a 5 ms busy loop, each with its
# own build-id, then runs dcpid (perf::cpu-clock, its own database and
# socket; AGG=bpf for aggregate = bpf) while ROUNDS (default 3) rounds
# each run PROGRAMS new ones (round r's build-ids differ from every other
# round's), and after each round two flushes.  Prints, at the start and
# after each round, status's images and memory-attribution and dcpid's
# VmRSS: a dcpid that keeps every image it ever sampled grows by a round's
# images each round; one that frees unused images stays where round 0 left
# it.
set -u
B=${1:?usage: image_churn.sh BUILDDIR [PROGRAMS] [ROUNDS]}
N=${2:-1000}
R=${3:-3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/image_churn.XXXXXX") || exit 1
trap 'kill "$P" 2>/dev/null; rm -rf "$T"' EXIT
P=
cc -O1 -c -o "$T/spin.o" "$SRC/bench/spin.c" || exit 1
r=0
while [ "$r" -lt "$R" ]; do
	mkdir "$T/r$r"
	i=0
	while [ "$i" -lt "$N" ]; do
		cc -o "$T/r$r/s$i" "$T/spin.o" -Wl,--build-id=0x$(printf '%08x%032x' "$r" "$i") ||
		    exit 1
		i=$((i + 1))
	done
	r=$((r + 1))
done
export LD_LIBRARY_PATH="$B/lib/.libs:$B/daemon/.libs"
D=$B/daemon/.libs/dcpid C=$B/ctl/.libs/dcpictl
[ -x "$D" ] || D=$B/daemon/dcpid
[ -x "$C" ] || C=$B/ctl/dcpictl
"$D" -f -d "$T/db" --socket "$T/sock" -e perf::cpu-clock ${AGG:+--aggregate "$AGG"} \
    >"$T/log" 2>&1 &
P=$!
for _ in $(seq 100); do "$C" --socket "$T/sock" status >/dev/null 2>&1 && break; sleep 0.1; done
show() {
	"$C" --socket "$T/sock" flush >/dev/null && "$C" --socket "$T/sock" flush >/dev/null ||
	    { echo "image_churn: flush failed" >&2; exit 1; }
	"$C" --socket "$T/sock" status >"$T/status"
	printf '%-10s images %6s  memory-attribution %9s  VmRSS %6s kB\n' "$1" \
	    "$(awk '$1 == "images" { print $2 }' "$T/status")" \
	    "$(awk '$1 == "memory-attribution" { print $2 }' "$T/status")" \
	    "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$P/status")"
}
echo "$B, aggregate ${AGG:-ring}, $N programs a round"
show start
r=0
while [ "$r" -lt "$R" ]; do
	for f in "$T/r$r"/s*; do "$f"; done
	show "round $r"
	r=$((r + 1))
done
kill "$P"
wait "$P"
P=
