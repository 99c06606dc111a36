#!/bin/sh
# The unwind tables' memory for a host running many distinct images: the
# table of every ELF executable and shared object of this host (under
# /usr/lib/x86_64-linux-gnu, /usr/bin, /usr/sbin and the JVMs, symbolic
# links followed once), built as dcpid builds them (bench/unwind -T), then
# the sum over N of them drawn at random (1,000 draws: median, 99th
# percentile, largest), over the N largest, and over the images mapped
# executable by this host's processes now.  dcpid keeps its tables under
# unwind-memory (default 64M), dropping the least recently used.
# Run by hand: sh bench/unwind_fleet.sh BUILDDIR [N]  (N default 500).
set -u
B=$(cd "${1:-.}" && pwd)
N=${2:-500}
T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-unwind-fleet.XXXXXX")
trap 'rm -rf "$T"' EXIT
[ -x "$B/bench/unwind" ] || { echo "unwind_fleet: build bench/unwind in $B first" >&2; exit 1; }
sh "$(dirname "$0")/host_images.sh" >"$T/host"
cat /proc/[0-9]*/maps 2>/dev/null | awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' | sort -u >"$T/mapped"
xargs -n 200 "$B/bench/unwind" -T -n 1 <"$T/host" >"$T/host.tables"
xargs -n 200 "$B/bench/unwind" -T -n 1 <"$T/mapped" >"$T/mapped.tables" 2>/dev/null
echo "== $(date -u +%Y-%m-%dT%H:%MZ), $(. /etc/os-release; echo "$PRETTY_NAME")"
python3 - "$T/host.tables" "$T/mapped.tables" "$N" <<'PY'
import random, re, sys
def load(p):
    out = []
    for l in open(p):
        m = re.search(r' bytes (\d+) .* build ([\d.]+) ms', l)
        if m:
            out.append((int(m.group(1)), float(m.group(2))))
    return out
host, mapped, n = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
none = sum(1 for l in open(sys.argv[1]) if ' none: ' in l)
b = sorted(x[0] for x in host)
k = len(b)
MB = 1e6
print("host: %d images with a table (%d without), %.1f MB in all, built in %.1f s"
      % (k, none, sum(b) / MB, sum(x[1] for x in host) / 1e3))
print("a table: median %d bytes, mean %d, 90th percentile %d, 99th %d, largest %.1f MB"
      % (b[k // 2], sum(b) // k, b[int(k * .9)], b[int(k * .99)], b[-1] / MB))
if k >= n:
    random.seed(1)
    s = sorted(sum(random.sample(b, n)) for _ in range(1000))
    print("%d at random: median %.1f MB, 99th percentile %.1f MB, largest %.1f MB"
          % (n, s[500] / MB, s[990] / MB, s[-1] / MB))
    print("the %d largest: %.1f MB; the %d smallest: %.1f MB"
          % (n, sum(b[-n:]) / MB, n, sum(b[:n]) / MB))
print("mapped now by this host's processes: %d images, %.1f MB"
      % (len(mapped), sum(x[0] for x in mapped) / MB))
PY
