#!/bin/sh
# Call chains on a steady service: dcpid flat and with -g (depth 64), in
# turn, while Debian's PostgreSQL serves pgbench's TPC-B on every CPU
# (scale 10, 4 clients, 2 threads, no rate limit), so that the CPUs are
# busy with one server's processes whose stacks repeat, as a production
# host's do (bench/chain_build.sh is the other end: a build, where
# nearly every chain is new).  For each PERIOD (perf::cpu-clock's, in ns)
# and ROUNDS rounds (default 2), each mode runs SECS seconds (default 30)
# after its first 2; printed: the samples and dcpid's CPU (utime + stime)
# in those SECS, so the cost a sample without the start-up (the /proc
# scan, the first images, the kernel's symbols), dcpid's VmRSS at the end
# and VmHWM, the chains held then, the stack file's bytes after one
# flush, and pgbench's transactions a second.
# Needs root and the postgresql and postgresql-contrib packages' cluster
# (pg_lsclusters); the database dcpibench is made once (pgbench -i) and
# kept; a cluster that was down is stopped again at the end.
#   sh bench/chain_service.sh BUILDDIR [ROUNDS] [SECS] [PERIOD...]
set -u
NAME=chain-service
B=$(cd "${1:?usage: chain_service.sh BUILDDIR [ROUNDS] [SECS] [PERIOD...]}" && pwd)
ROUNDS=${2:-2}
SECS=${3:-30}
shift 3 2>/dev/null || shift $#
PERIODS=${*:-1000000 100000}
HZ=$(getconf CLK_TCK)
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-$NAME.XXXXXX")
PROF= PGB= STARTED=

cleanup() {
	for p in $PGB $PROF; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$STARTED" ] && pg_ctlcluster $STARTED stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || { echo "$NAME: needs root (system-wide sampling)" >&2; exit 1; }
command -v pgbench >/dev/null && command -v pg_lsclusters >/dev/null ||
    { echo "$NAME: needs PostgreSQL (postgresql, postgresql-contrib)" >&2; exit 1; }
set -- $(pg_lsclusters -h | head -1)
[ $# -ge 4 ] || { echo "$NAME: no PostgreSQL cluster (pg_createcluster)" >&2; exit 1; }
CL="$1 $2" PORT=$3
if [ "$4" != online ]; then
	pg_ctlcluster $CL start || exit 1
	STARTED=$CL
fi
PG() { runuser -u postgres -- "$@" -p "$PORT"; }
if ! PG psql -Atc "select 1 from pg_database where datname = 'dcpibench'" | grep -q 1; then
	PG createdb dcpibench && PG pgbench -q -i -s 10 dcpibench >/dev/null 2>&1 ||
	    { echo "$NAME: pgbench -i failed" >&2; exit 1; }
fi

cpu_secs() { awk -v hz="$HZ" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"; }
status_val() { awk -v k="$1" -v f="$2" '$1 == k && NF >= f { print $f; exit }' "$T/st"; }

printf "%-8s %-5s %-5s %9s %6s %7s %7s %7s %8s %10s %7s\n" period round mode \
    samples cpu_s us_samp rss_MB hwm_MB chains stackfile tps
run() {	# PERIOD ROUND MODE
	db=$T/db sock=$T/sock g=
	[ "$3" = -g ] && g=-g
	rm -rf "$db" "$sock"
	"$B/daemon/dcpid" -f $g -d "$db" --socket "$sock" --flush-interval 3600 \
	    -e "perf::cpu-clock:period=$1" >"$T/dcpid.log" 2>&1 &
	PROF=$!
	for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
	PG pgbench -c 4 -j 2 -T $((SECS + 4)) dcpibench >"$T/pgb" 2>&1 &
	PGB=$!
	sleep 2
	"$B/ctl/dcpictl" --socket "$sock" status >"$T/st"
	s0=$(status_val samples 2) c0=$(cpu_secs $PROF)
	sleep "$SECS"
	"$B/ctl/dcpictl" --socket "$sock" status >"$T/st"
	s1=$(status_val samples 2) c1=$(cpu_secs $PROF)
	ch=$(status_val callchains 5)
	rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$PROF/status")
	hwm=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$PROF/status")
	wait $PGB; PGB=
	"$B/ctl/dcpictl" --socket "$sock" flush >/dev/null
	kill -TERM $PROF; wait $PROF; PROF=
	sb=$(find "$db" -type f -name stacks -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	tps=$(awk '/^tps/ { printf "%.0f", $3; exit }' "$T/pgb")
	echo "$s0 $s1 $c0 $c1" | awk -v p="$1" -v r="$2" -v m="$3" -v rss="$rss" -v hwm="$hwm" \
	    -v ch="${ch:-0}" -v sb="$sb" -v tps="$tps" '{ n = $2 - $1; c = $4 - $3
		printf "%-8s %-5s %-5s %9d %6.2f %7.2f %7s %7s %8s %10s %7s\n", p, r, m, n, c,
		    n ? c * 1e6 / n : 0, rss, hwm, m == "-g" ? ch : "-", sb, tps }'
}

for p in $PERIODS; do
	for r in $(seq 1 "$ROUNDS"); do
		run "$p" "$r" flat
		run "$p" "$r" -g
	done
done
