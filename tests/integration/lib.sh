# Shared by the integration tests: sourced, not run.  They drive the real
# dcpid and dcpictl built in this tree (DCPID, DCPICTL from the test
# environment) with a database and socket in a private temporary directory.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
: "${DCPID:=$top_builddir/daemon/dcpid}"
: "${DCPICTL:=$top_builddir/ctl/dcpictl}"

T=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-test.XXXXXX")
DB=$T/db
SOCK=$T/dcpid.sock
DCPID_LOG=$T/dcpid.log
DCPID_PID=
export DCPIDB=$DB DCPI_SOCKET=$SOCK

cleanup() {
	if [ -n "$DCPID_PID" ] && kill -0 "$DCPID_PID" 2>/dev/null; then
		kill -KILL "$DCPID_PID" 2>/dev/null
		wait "$DCPID_PID" 2>/dev/null
	fi
	if [ -n "${KEEP_TEST_DIR:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; [ -f "$DCPID_LOG" ] && { echo "--- dcpid log:" >&2; tail -n 30 "$DCPID_LOG" >&2; }; exit 1; }
skip() {
	if [ "${DCPI_REQUIRE_PERF:-0}" = 1 ]; then fail "would skip, but DCPI_REQUIRE_PERF=1: $*"; fi
	echo "SKIP: $*"; exit 77
}

# Skips (or fails under DCPI_REQUIRE_PERF=1) unless this process may sample
# the whole system: root, or perf_event_paranoid <= 0 with CAP_PERFMON.
require_perf() {
	[ "$(id -u)" = 0 ] || skip "not root: system-wide perf_event_open needs root or CAP_PERFMON"
	[ -r /proc/sys/kernel/perf_event_paranoid ] || skip "no perf_event_open on this kernel"
}

# Compiles a C file with debug info into $T: cc_work OUT SRC [CFLAGS...].
cc_work() {
	out=$1 src=$2; shift 2
	${CC:-cc} -O1 -g -fno-inline "$@" -o "$T/$out" "$src" || fail "cannot compile $src"
}

# Starts dcpid in the background with the test's DB and socket; extra
# arguments are passed on (e.g. -e perf::cpu-clock).  Waits until the
# control socket answers STATUS.
start_dcpid() {
	"$DCPID" -f -d "$DB" --socket "$SOCK" "$@" >"$DCPID_LOG" 2>&1 &
	DCPID_PID=$!
	for _ in $(seq 1 100); do
		if "$DCPICTL" --socket "$SOCK" status >/dev/null 2>&1; then return 0; fi
		kill -0 "$DCPID_PID" 2>/dev/null || fail "dcpid exited during start-up"
		sleep 0.1
	done
	fail "dcpid did not answer on $SOCK within 10 s"
}

# Stops dcpid with SIGTERM and waits for it; fails unless it exits 0.
stop_dcpid() {
	kill -TERM "$DCPID_PID" || fail "dcpid is not running"
	wait "$DCPID_PID"; rc=$?
	DCPID_PID=
	[ "$rc" = 0 ] || fail "dcpid exited $rc after SIGTERM"
}

ctl() { "$DCPICTL" -d "$DB" --socket "$SOCK" "$@"; }
