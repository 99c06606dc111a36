#!/bin/sh
# AutoFDO from dcpi's profiles: stb_image's JPEG decoder
# (tests/workload/stbdecode.c over Debian's libstb-dev) built with clang
# -O2 -g, run under dcpid, exported with dcpictl export --format=afdo and
# rebuilt with -fprofile-sample-use; beside it the same program rebuilt
# from perf record (cpu-clock, no LBR) + create_llvm_prof --use_lbr=false
# (Debian's autofdo) at the same sampling rate.  Then ROUNDS interleaved
# rounds, each running the three builds in turn (base, dcpi, perf) for
# SECONDS of CPU time each; a build's figure is its median decodes per
# CPU second.  DWARF 4: create_llvm_prof 0.19 cannot read clang 14's
# default DWARF 5 ("mangled .debug_info").
#
#   bench/afdo.sh BUILDDIR [ROUNDS [SECONDS [PROFILE_SECONDS]]]
set -u
B=$(cd "${1:-.}" && pwd)
ROUNDS=${2:-9} SECS=${3:-2} PSECS=${4:-8}
SRC=$(cd "$(dirname "$0")/.." && pwd)
DCPID=$B/daemon/dcpid DCPICTL=$B/ctl/dcpictl
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-afdo.XXXXXX")
DPID=
cleanup() { [ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || { echo "afdo: needs root (system-wide sampling)" >&2; exit 1; }
for t in clang llvm-profdata perf; do
	command -v $t >/dev/null || { echo "afdo: no $t" >&2; exit 1; }
done
CFL="-O2 -gdwarf-4 -fdebug-info-for-profiling"
W=$SRC/tests/workload/stbdecode.c
clang $CFL -o "$T/base" "$W" -lm || exit 1
"$T/base" make "$T/img.jpg" || exit 1

# dcpi: the whole system sampled at 1 kHz, the program's image exported.
"$DCPID" -f -d "$T/db" --socket "$T/s" -e perf::cpu-clock -g >"$T/dcpid.log" 2>&1 &
DPID=$!
for _ in $(seq 1 100); do "$DCPICTL" --socket "$T/s" status >/dev/null 2>&1 && break; sleep 0.1; done
"$T/base" "$T/img.jpg" "$PSECS" >/dev/null || exit 1
"$DCPICTL" --socket "$T/s" flush >/dev/null || exit 1
kill -TERM "$DPID"; wait "$DPID"; DPID=
"$DCPICTL" -d "$T/db" export --format=afdo --image "$T/base" -o "$T/dcpi.afdo" || exit 1
llvm-profdata show --sample "$T/dcpi.afdo" >/dev/null || exit 1
clang $CFL -fprofile-sample-use="$T/dcpi.afdo" -o "$T/dcpi" "$W" -lm || exit 1

# perf + create_llvm_prof, the same rate, where the tool runs.
HAVE_CP=0 why=
if ! command -v create_llvm_prof >/dev/null; then
	why="no create_llvm_prof (Debian's autofdo)"
elif ! perf record -q -e cpu-clock -F 1000 --no-buildid -o "$T/perf.data" \
    "$T/base" "$T/img.jpg" "$PSECS" >/dev/null 2>&1; then
	why="perf record failed"
elif ! create_llvm_prof --binary="$T/base" --profile="$T/perf.data" --use_lbr=false \
    --format=text --out="$T/perf.afdo" >"$T/cp.log" 2>&1 || [ ! -s "$T/perf.afdo" ]; then
	why="create_llvm_prof wrote no profile"
elif ! llvm-profdata show --sample "$T/perf.afdo" >"$T/cp.log" 2>&1; then
	why="llvm-profdata refuses create_llvm_prof's profile: $(grep -a -m1 error "$T/cp.log" | tr -cd '[:print:]')"
elif ! clang $CFL -fprofile-sample-use="$T/perf.afdo" -o "$T/perf" "$W" -lm 2>"$T/cp.log"; then
	why="clang refuses create_llvm_prof's profile"
else
	HAVE_CP=1
fi
[ $HAVE_CP = 1 ] || echo "afdo: no perf build: $why" >&2

BUILDS="base dcpi"
[ $HAVE_CP = 1 ] && BUILDS="$BUILDS perf"
for r in $(seq 1 "$ROUNDS"); do
	for b in $BUILDS; do
		n=$("$T/$b" "$T/img.jpg" "$SECS" | cut -d' ' -f1)
		echo "$b $n" >>"$T/runs"
	done
done
echo "stb_image JPEG decode (1024x1024, q90), $ROUNDS interleaved rounds of ${SECS} s CPU each;"
echo "profiles of ${PSECS} s at 1 kHz; decodes per CPU second, median (min-max):"
for b in $BUILDS; do
	awk -v b="$b" -v s="$SECS" '$1 == b { print $2 / s }' "$T/runs" | sort -n |
	    awk -v b="$b" '{ v[++n] = $1 }
		END { m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2;
		    printf "%s %.1f %.1f %.1f\n", b, m, v[1], v[n] }'
done >"$T/med"
base=$(awk '$1 == "base" { print $2 }' "$T/med")
while read -r b m lo hi; do
	printf '  %-5s %7.1f (%.1f-%.1f)  %+.1f%%\n' "$b" "$m" "$lo" "$hi" \
	    "$(echo "$m $base" | awk '{ print ($1 / $2 - 1) * 100 }')"
done <"$T/med"
