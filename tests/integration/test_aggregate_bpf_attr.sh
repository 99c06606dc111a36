#!/bin/sh
# The attribution tests again with the samples counted in the kernel
# (aggregate = bpf; the default, ring, runs them in the suite itself), each
# in its own shell as make check runs it.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

# Each test takes the tests' lock itself (some alone): this one's shared
# hold would keep those waiting for good.
command -v flock >/dev/null && flock -u 8
rc=77
for t in test_daemon_hot test_daemon_procs test_images_nobid test_images_elsewhere \
    test_images_vdso test_images_reclaim test_labels test_jit_jitdump; do
	DCPI_AGGREGATE=bpf sh "$top_srcdir/tests/integration/$t.sh" >"$T/$t.log" 2>&1
	r=$?
	echo "$t with aggregate=bpf: exit $r"
	case $r in
	0) [ "$rc" = 77 ] && rc=0 ;;
	77) ;;
	*)	# The reason first: CI shows only the head of a long log.
		grep '^FAIL' "$T/$t.log" >&2
		cat "$T/$t.log" >&2
		fail "$t failed with aggregate=bpf" ;;
	esac
done
exit $rc
