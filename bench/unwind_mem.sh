#!/bin/sh
# The unwind tables' memory, end to end, for a host running N distinct
# images (default 500): the real dcpid (aggregate = bpf, -g on the dwarf
# route, callchain-period 2x, as root) holding the tables of N ELF images
# of this host drawn at random (seed 1) from those bench/unwind_fleet.sh
# lists, with the kernel walk's rows array of each size given.  A process
# of the script's maps the N files executable, and dcpid loads their
# tables as if walks had met them (the test hook DCPID_TEST_BPF_TABLES:
# the same path, attribution, build and load, as a walk's request);
# before and after: the kernel memory of dcpid's BPF maps (bpftool map
# show, bytes_memlock: the rows and rules arrays apart), dcpid's RSS
# (anonymous, and the shared pages of the maps it maps), and status
# unwind-tables, unwind-tables-bpf and unwind-memory.
# Run by hand, as root: sh bench/unwind_mem.sh BUILDDIR [N] [ARRAY...]
# (ARRAY: unwind-bpf-memory values, default 16M 32M).
set -u
B=$(cd "${1:-.}" && pwd)
N=${2:-500}
shift 2 2>/dev/null || shift $#
ARRAYS=${*:-16M 32M}
DCPID=$B/daemon/dcpid
DCPICTL=$B/ctl/dcpictl
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-unwind-mem.XXXXXX")
MAPPER= DPID=
cleanup() {
	for p in $MAPPER $DPID; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
[ "$(id -u)" = 0 ] || { echo "unwind_mem: needs root" >&2; exit 1; }
command -v bpftool >/dev/null || { echo "unwind_mem: no bpftool" >&2; exit 1; }
[ -x "$B/bench/unwind" ] && [ -x "$DCPID" ] || { echo "unwind_mem: build $B first" >&2; exit 1; }
sh "$(dirname "$0")/host_images.sh" >"$T/host"
xargs -n 200 "$B/bench/unwind" -T -n 1 <"$T/host" >"$T/host.tables" 2>/dev/null
python3 - "$T/host.tables" "$N" >"$T/drawn" <<'PY'
import random, re, sys
t = []
for l in open(sys.argv[1]):
    m = re.match(r'(\S+) .* rows (\d+) bytes (\d+) ', l)
    if m:
        t.append((m.group(1), int(m.group(2)), int(m.group(3))))
random.seed(1)
for p, r, b in random.sample(t, int(sys.argv[2])):
    print(p, r, b)
PY
awk '{ r += $2; b += $3 } END { printf "drawn: %d images with a table, %d rows, %.1f MB of 8-byte rows in dcpid (bench/unwind -T)\n", NR, r, b / 1e6 }' "$T/drawn"
cut -d' ' -f1 "$T/drawn" >"$T/files"
python3 "$(dirname "$0")/../tests/workload/map_text.py" "$T/files" "$T/mapped" &
MAPPER=$!
for _ in $(seq 1 300); do [ -s "$T/mapped" ] && break; sleep 0.1; done
echo "mapped: $(cat "$T/mapped") files by pid $MAPPER"

# The kernel memory of the BPF maps dcpid holds (their fds' memlock in
# /proc/PID/fdinfo), the rows' and rules' arrays apart (by map id).
maps_kb() {
	tot=0 rows=0 rules=0 ids=" "
	for fd in /proc/$1/fd/*; do
		[ "$(readlink "$fd")" = anon_inode:bpf-map ] || continue
		fi=/proc/$1/fdinfo/${fd##*/}
		id=$(awk '$1 == "map_id:" { print $2 }' "$fi")
		case "$ids" in *" $id "*) continue ;; esac
		ids="$ids$id "
		m=$(awk '$1 == "memlock:" { print $2 }' "$fi")
		tot=$((tot + m))
		case "$(bpftool map show id "$id" | head -1)" in
		*" name unw_rows "*) rows=$m ;;
		*" name unw_rules "*) rules=$m ;;
		esac
	done
	awk -v t=$tot -v r=$rows -v u=$rules 'BEGIN { printf "maps %.1f MiB " \
	    "(unw_rows %.1f MiB, unw_rules %.0f KiB)", t / 1048576, r / 1048576, u / 1024 }'
}
rss() {
	awk '/^(VmRSS|RssAnon|RssFile|RssShmem):/ { printf "%s %.1f MiB ", $1, $2 / 1024 }' "/proc/$1/status"
}
status_lines() {
	"$DCPICTL" --socket "$T/sock" status | grep -E '^(unwind-tables|unwind-tables-bpf|unwind-memory) ' |
	    sed 's/; built from the held.*//'
}
for a in $ARRAYS; do
	rm -rf "$T/db" "$T/tables"
	printf 'unwind-bpf-memory = %s\n' "$a" >"$T/conf"
	DCPID_TEST_BPF_TABLES="$T/tables" "$DCPID" -f -d "$T/db" --socket "$T/sock" \
	    --config "$T/conf" -e perf::cpu-clock -g --aggregate bpf \
	    --callchain-period 2x >"$T/log" 2>&1 &
	DPID=$!
	for _ in $(seq 1 100); do "$DCPICTL" --socket "$T/sock" status >/dev/null 2>&1 && break; sleep 0.1; done
	sleep 2
	echo "== unwind-bpf-memory = $a, $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "before: $(maps_kb $DPID); dcpid $(rss $DPID)"
	status_lines
	t0=$(date +%s)
	echo $MAPPER >"$T/tables"
	# Loaded once the files in the kernel's array stop changing.
	prev=-1
	while :; do
		sleep 2
		n=$("$DCPICTL" --socket "$T/sock" status | awk '$1 == "unwind-tables" { print $2 }')
		[ "$n" = "$prev" ] && break
		prev=$n
	done
	echo "after ($(($(date +%s) - t0)) s): $(maps_kb $DPID); dcpid $(rss $DPID)"
	status_lines
	kill $DPID; wait $DPID; DPID=
done
