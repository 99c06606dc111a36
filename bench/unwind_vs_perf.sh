#!/bin/sh
# dcpid's walk against perf's, sample by sample, on one run:
#
#   bench/unwind_vs_perf.sh [-F HZ] COMMAND [ARG...]
#
# Records COMMAND with perf record --call-graph dwarf (cpu-clock, 1 kHz by
# default, 8 KiB stack copies), walks each sample's copy with
# bench/unwind_replay (tables built from the mapped files), and compares
# the chains with perf script's, frame by frame (image, offset in the
# file; a caller's at its return address minus one, as perf shows them), kernel
# frames left out.  A chain is "identical", "perf's a prefix" (this walk
# goes further: perf stops at __libc_start_call_main, start_thread and
# signal frames), "perf lacks" frames (which this walk has between
# perf's: perf 6.1 leaves out __libc_start_main between
# __libc_start_call_main and _start) or "different".  Run as root from
# the build tree.
#
# perf 6.1 here aborts in its build-id code on perf.data written with
# the build-id cache (-N avoids it) and on some runs even so; then only
# the walk's own summary is given.
set -u
hz=1000
if [ "${1:-}" = -F ]; then hz=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-F HZ] COMMAND [ARG...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d "${TMPDIR:-/tmp}/unwind_vs_perf.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
perf record -q -B -N --call-graph dwarf,8192 -e cpu-clock -F "$hz" \
    -o "$t/perf.data" -- "$@" >/dev/null || exit 1
python3 "$here/perf_ustack.py" "$t/perf.data" "$t/replay" || exit 1
"$here/unwind_replay" -v "$t/replay" >"$t/ours" || exit 1
perf script -i "$t/perf.data" --ns -F time,ip,sym,dso >"$t/perf" 2>/dev/null ||
	{ echo "perf script failed: no comparison"; exit 0; }
python3 - "$t/ours" "$t/perf" <<'PY'
import collections, os, re, sys
ours = {}
for line in open(sys.argv[1]):
    w = line.split()
    frames = [(x.rsplit('+', 1)[0], int(x.rsplit('+', 1)[1], 16)) for x in w[1:-1]]
    ours[int(w[0])] = (frames, w[-1])
count = collections.Counter()
example = {}
for block in open(sys.argv[2]).read().split('\n\n'):
    lines = block.strip('\n').split('\n')
    if not lines or not lines[0].strip():
        continue
    t = int(lines[0].split()[0].rstrip(':').replace('.', ''))
    perf = []
    for x in lines[1:]:
        m = re.match(r'\s*([0-9a-f]+) (.*) \((.*)\)$', x)
        if m and m.group(3) not in ('inlined', '[kernel.kallsyms]'):
            perf.append((os.path.basename(m.group(3)), int(m.group(1), 16)))
    if t not in ours:
        count['not walked (no user IP in a mapping)'] += 1
        continue
    o, end = ours[t]
    # perf's frames in ours, in order, and the frames of ours perf lacks.
    i, missing = 0, []
    for f in o:
        if i < len(perf) and f == perf[i]:
            i += 1
        elif i < len(perf):
            missing.append(f)
    if perf == o:
        k = 'identical'
    elif i == len(perf) and not missing:
        k = "perf's a prefix"
    elif i == len(perf):
        k = 'perf lacks %s' % ' '.join('%s+%x' % f for f in missing)
    else:
        k = 'different'
        example.setdefault(k, (perf, o))
    count[k] += 1
for k, v in count.most_common():
    print('%6d %s' % (v, k))
for k, (p, o) in example.items():
    print('a %s chain:\n  perf %s\n  ours %s' % (k, p, o))
PY
