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
	for _u in ${TEST_USERS:-}; do userdel -f "$_u" 2>/dev/null; done
	if [ -n "${KEEP_TEST_DIR:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# test_daemon_hotplug takes a CPU offline, which every other test's
# workload and sample counts would feel: it holds this lock alone, the
# others share it while they run (a test's background processes inherit
# it until the test kills them).
DCPI_TEST_LOCK=${TMPDIR:-/tmp}/dcpi-tests.lock
if command -v flock >/dev/null; then
	exec 8>>"$DCPI_TEST_LOCK"
	flock -s 8
fi

# What each process named is doing, for the report of a test held up: its
# threads' states, where each sleeps and the kernel's stack (root reads
# it), on stderr.  proc_report PID...
proc_report() {
	for p in "$@"; do
		[ -d "/proc/$p/task" ] || continue
		echo "  pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-150)"
		for t in /proc/"$p"/task/*; do
			echo "    thread ${t##*/}: $(sed 's/.*) //; s/ .*//' "$t/stat" 2>/dev/null)" \
			    "in $(cat "$t/wchan" 2>/dev/null);" \
			    "$(tr '\n' ' ' <"$t/stack" 2>/dev/null | cut -c1-400)"
		done
	done >&2
}

# The threads of PID not yet ended (a zombie leader's live threads count).
live_threads() {
	cat /proc/"$1"/task/*/stat 2>/dev/null | sed 's/.*) //' | awk '$1 != "Z"' | wc -l
}

# Holds the tests' lock alone (test_daemon_hotplug, test_fault_hungfs, test_fault_storm,
# test_labels, test_images_reclaim):
# waits for the tests beside it to finish, but 20 minutes at most, then
# fails naming what still holds the lock (a process some test left
# running, which would otherwise hold up the whole suite for good).
lock_alone() {
	command -v flock >/dev/null || fail "flock is missing (Debian package util-linux)"
	flock -x -w 1200 8 && return 0
	holders=$(lock_holders 8>&-)
	proc_report $holders
	fail "$DCPI_TEST_LOCK still held after 20 minutes by pids $holders"
}
lock_holders() {
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = $$ ] && continue
		ls -l "$p/fd" 2>/dev/null | grep -q " -> $DCPI_TEST_LOCK\$" && printf '%s ' "${p#/proc/}"
	done
}

# Waits for the background child PID to end, SECS seconds at most (a
# process stuck on a hung file system would hold the test up for good);
# its exit status is wait's.  wait_child PID SECS
wait_child() {
	for _ in $(seq 1 $(($2 * 10))); do
		[ "$(live_threads "$1")" = 0 ] && { wait "$1"; return; }
		sleep 0.1
	done
	proc_report "$1"
	fail "pid $1 did not end within $2 s"
}

# The suite's time limit for one test (tests/local.mk: timeout sends TERM
# to the test's process group): say what each of its processes was doing,
# then fail, so that the EXIT trap cleans up (a CPU back online, a mount
# undone).
on_term() {
	trap - TERM
	sleep 1		# what TERM does not end is what held the test up
	echo "FAIL: over the suite's time limit for one test; its processes:" >&2
	proc_report $(pgrep -g "$(ps -o pgid= -p $$ | tr -d ' ')" | grep -vx -e $$ -e $PPID)
	fail "over the time limit"
}
trap on_term TERM

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

# The FUSE tests' needs (tests/workload/hangfs.c): fuse3 must be installed;
# a machine without FUSE itself skips (fuse_skip), even under
# DCPI_REQUIRE_PERF=1, since that is not a matter of perf.
fuse_skip() { echo "SKIP: $*"; exit 77; }
require_fuse() {
	command -v fusermount3 >/dev/null && pkg-config --exists fuse3 ||
	    fail "fuse3 is not installed (README's test packages: fuse3, libfuse3-dev)"
	[ -c /dev/fuse ] || fuse_skip "no /dev/fuse: FUSE is not available here"
}

# Compiles a C file with debug info into $T: cc_work OUT SRC [CFLAGS...].
cc_work() {
	out=$1 src=$2; shift 2
	${CC:-cc} -O1 -g -fno-inline -o "$T/$out" "$src" "$@" || fail "cannot compile $src"
}

# Starts dcpid in the background with the test's DB and socket; extra
# arguments are passed on (e.g. -e perf::cpu-clock).  Waits until the
# control socket answers STATUS.  DCPI_AGGREGATE=auto|bpf|ring picks where
# the samples are counted (the default is ring; CI runs the attribution
# tests once more with bpf: test_aggregate_bpf_attr.sh).  DCPID_WRAP: a
# command that runs dcpid (setpriv with fewer capabilities).
start_dcpid() {
	${DCPID_WRAP:-} "$DCPID" -f -d "$DB" --socket "$SOCK" ${DCPI_AGGREGATE:+--aggregate "$DCPI_AGGREGATE"} \
	    "$@" >"$DCPID_LOG" 2>&1 &
	DCPID_PID=$!
	for _ in $(seq 1 100); do
		if "$DCPICTL" --socket "$SOCK" status >/dev/null 2>&1; then return 0; fi
		kill -0 "$DCPID_PID" 2>/dev/null || fail "dcpid exited during start-up"
		sleep 0.1
	done
	fail "dcpid did not answer on $SOCK within 10 s"
}

# Stops dcpid with SIGTERM and waits for it (5 minutes at most); fails
# unless it exits 0.
stop_dcpid() {
	kill -TERM "$DCPID_PID" || fail "dcpid is not running"
	wait_child "$DCPID_PID" 300; rc=$?
	DCPID_PID=
	[ "$rc" = 0 ] || fail "dcpid exited $rc after SIGTERM"
}

ctl() { "$DCPICTL" -d "$DB" --socket "$SOCK" "$@"; }

# Builds the hot workload as a PIE with its own build-id: build_hot NAME
# [CFLAGS...] makes $T/NAME.
build_hot() {
	name=$1; shift
	cc_work "$name" "$top_srcdir/tests/workload/hot.c" -fPIE -pie \
	    -DWORKLOAD_TAG="\"$name\"" "$@"
}

# A function's address range from the symbol table, in decimal:
# fn_range BINARY SYMBOL prints "START END" (ELF virtual addresses).
fn_range() {
	set -- $(nm -S --defined-only "$1" | awk -v s="$2" '$4 == s { print $1, $2; exit }')
	[ $# = 2 ] || fail "no symbol with a size in the symbol table"
	echo $((0x$1)) $((0x$1 + 0x$2))
}

# The profile file of the image whose file is named NAME in an epoch:
# profile_file EPOCH NAME [EVENT]; prints nothing if there is none.
profile_file() {
	for f in "$DB/$1"/*/"${3:-perf::cpu-clock}/$2".*; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}

# Samples of a profile file inside [START, END) and in all:
# samples_in FILE START END prints "INSIDE TOTAL".  `dcpictl cat` lists
# each sampled address as an ELF virtual address (tstart + offset).
samples_in() {
	"$DCPICTL" cat "$1" >"$T/cat.out" || fail "dcpictl cat $1 failed"
	inside=0 total=0
	while read -r a n; do
		case $a in 0x*) ;; *) continue ;; esac
		total=$((total + n))
		# Kernel addresses overflow the shell's signed arithmetic and
		# lie in no user-space range anyway.
		case $a in 0x[89a-fA-F]???????????????) continue ;; esac
		if [ $((a)) -ge "$2" ] && [ $((a)) -lt "$3" ]; then inside=$((inside + n)); fi
	done <"$T/cat.out"
	echo "$inside $total"
}

# Checks that at least 90% of an image's samples, and at least MIN
# samples, lie in a function: assert_hot EPOCH NAME BINARY SYMBOL MIN.
assert_hot() {
	f=$(profile_file "$1" "$2")
	[ -n "$f" ] || fail "no profile for image $2 in epoch $1"
	set -- "$f" "$2" "$3" "$4" "$5"
	r=$(fn_range "$3" "$4")
	s=$(samples_in "$1" $r)
	set -- "$1" "$2" "$3" "$4" "$5" $s
	echo "$2: $6 of $7 samples in $4"
	[ "$7" -ge "$5" ] || fail "$2: $7 samples, expected at least $5"
	[ $(($6 * 100)) -ge $(($7 * 90)) ] || fail "$2: only $6 of $7 samples in $4"
}

# Every file of the database passes the format reader.
# (Names may hold blanks and newlines: find hands them over whole.)
assert_db_valid() {
	find "$DB" -mindepth 4 -maxdepth 4 -type f ! -name '.*' -exec sh -c '
	    for f; do "$0" cat --summary "$f" >/dev/null || { echo "$f"; exit 1; }; done' \
	    "$DCPICTL" {} + >"$T/invalid.out" || fail "$(cat "$T/invalid.out") does not pass the reader"
	n=$(find "$DB" -mindepth 4 -maxdepth 4 -type f ! -name '.*' -printf x | wc -c)
	[ "$n" -gt 0 ] || fail "no profile files in $DB"
	echo "$n profile files valid"
}

# The kernel symbols of an epoch's host directory: kallsyms_of EPOCH
# prints the text of the snapshot its kallsyms.ref names (DB/kernels/,
# gzip) or, in the older layout, of its own copy.
kallsyms_of() {
	_d="$DB/$1/$(hostname)"
	if [ -f "$_d/kallsyms" ]; then cat "$_d/kallsyms"; return 0; fi
	[ -f "$_d/kallsyms.ref" ] || fail "no kernel symbols in $_d"
	# Through a file: a reader that stops early (grep -q) would make
	# zcat's broken pipe look like an unreadable snapshot.
	zcat "$DB/$(cat "$_d/kallsyms.ref")" >"$T/kallsyms_of.txt" ||
	    fail "$_d/kallsyms.ref names $(cat "$_d/kallsyms.ref"): unreadable"
	cat "$T/kallsyms_of.txt"
}

# The epoch DB/current points at.
current_epoch() { readlink "$DB/current"; }

# Samples of a JIT pseudo-image's profile by the symbols of its perf-map
# (offsets are addresses with tstart 0): jit_samples PERFMAP PROFILE REGEX
# prints "IN_REGEX IN_ANON TOTAL", REGEX matching the hot symbol's name.
jit_samples() {
	"$DCPICTL" cat "$2" >"$T/cat.out" || fail "dcpictl cat $2 failed"
	awk -v re="$3" 'function hex(s,  v, i) {
		sub(/^0[xX]/, "", s); v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
		return v
	}
	NR == FNR {
		start[NR] = hex($1); size[NR] = hex($2)
		$1 = $2 = ""; name[NR] = $0; n = NR; next
	}
	$1 ~ /^0x/ {
		a = hex($1); total += $2
		for (i = 1; i <= n; i++)
			if (a >= start[i] && a < start[i] + size[i]) {
				if (name[i] ~ re) hot += $2
				if (name[i] ~ /\[anon\]/) anon += $2
				break
			}
	}
	END { print hot + 0, anon + 0, total + 0 }' "$1" "$T/cat.out"
}

# A copy of a program built here (a libtool program: DIR/.libs/NAME with
# libdcpi) that other users can run, in $T/bin (the caller makes $T
# searchable): the build tree may sit in a directory only root may enter,
# such as a clone in mktemp -d.  for_all DIR NAME prints the copy's path.
for_all() {
	mkdir -p "$T/bin" && chmod 755 "$T/bin" || fail "cannot make $T/bin"
	"$top_builddir/$1/$2" --help >/dev/null 2>&1	# a libtool wrapper links its program first
	if [ -x "$top_builddir/$1/.libs/$2" ]; then
		cp "$top_builddir/$1/.libs/$2" "$T/bin/$2.bin" &&
		    cp -P "$top_builddir"/lib/.libs/libdcpi.so* "$T/bin/" ||
		    fail "cannot copy $2"
		printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$T/bin" \
		    "$T/bin/$2.bin" >"$T/bin/$2"
	else
		cp "$top_builddir/$1/$2" "$T/bin/$2" || fail "cannot copy $2"
	fi
	chmod -R a+rX "$T/bin" && chmod 755 "$T/bin/$2" || fail "cannot make $2 executable"
	echo "$T/bin/$2"
}

# After a stall that dcpid held the records through (a slow flush, a slow
# start-up scan): stop_expect_held WHAT flushes, takes status into
# $T/status.txt, stops dcpid, and fails if a sample or sideband record
# was lost or a read overflowed, if no record waited 1,000 ms or more
# (so the stall was real), or if the log says a buffer overflowed.  WHAT
# names the stall in the messages.
stop_expect_held() {
	ctl flush >/dev/null || fail "flush failed"
	ctl status >"$T/status.txt" || fail "status failed"
	grep -E '^(lost|sideband-watch|processes)' "$T/status.txt"
	stop_dcpid
	lostsb=$(awk '$1 == "lost-sideband" { print $2 }' "$T/status.txt")
	lost=$(awk '$1 == "lost" { print $2 }' "$T/status.txt")
	watch=$(grep '^sideband-watch' "$T/status.txt") || fail "status: no sideband-watch line"
	[ "$lostsb" = 0 ] || fail "$lostsb sideband records lost during the $1"
	[ "$lost" = 0 ] || fail "$lost samples lost during the $1"
	echo "$watch" | grep -q ' 0 overflows$' || fail "status: $watch"
	waited=$(echo "$watch" | sed -n 's/.*records read after \([0-9]*\) ms.*/\1/p')
	[ "${waited:-0}" -ge 1000 ] ||
	    fail "no record waited through the $1 (at most ${waited:-?} ms): it was not slow"
	! grep -q "overflowed" "$DCPID_LOG" || fail "dcpid's log says the sideband overflowed"
}

# A system user of the test's own, in no group of dcpid's, removed by
# cleanup: test_user NAME.  exec_as NAME COMMAND... execs COMMAND as it,
# in place of the shell: run it in a subshell, "(exec_as U prog) &", and
# $! is prog's pid (a function run with & is a subshell of another pid).
test_user() {
	command -v useradd >/dev/null && command -v setpriv >/dev/null ||
	    fail "useradd or setpriv is missing (Debian packages passwd, util-linux)"
	useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$1" || fail "useradd $1 failed"
	TEST_USERS="${TEST_USERS:-} $1"
}
exec_as() { _u=$1; shift; exec setpriv --reuid="$_u" --regid="$_u" --init-groups "$@"; }

# Skips (or fails under DCPI_REQUIRE_PERF=1) unless the BPF programs of
# aggregate = bpf load here, as dcpid with aggregate = auto finds; the
# probe's database is moved aside.
require_bpf() {
	start_dcpid -e perf::cpu-clock --aggregate auto
	ctl status >"$T/st.probe" || fail "status failed"
	stop_dcpid
	if grep -q '^aggregate  *ring (BPF:' "$T/st.probe"; then
		skip "BPF did not load: $(grep aggregate "$T/st.probe")"
	fi
	mv "$DB" "$T/db-probe"
}

# check_whole NAME ALL WHOLE [OTHER]: at least 95% of at least 100
# samples of the stacks in $T/folded matching ALL (and not OTHER)
# also match WHOLE.
check_whole() {
	set -- "$1" "$2" "$3" $(awk -v all="$2" -v whole="$3" -v other="${4:-^$}" \
	    '$0 ~ all && $0 !~ other { n = $NF; t += n; if ($0 ~ whole) w += n }
	    END { printf "%d %d\n", t ? 100 * w / t : 0, t }' "$T/folded")
	echo "$1: $4% of $5 samples whole"
	[ "$5" -ge 100 ] && [ "$4" -ge 95 ] ||
	    fail "$1: $4% of $5 whole: $(grep -E "$2" "$T/folded" | sort -t' ' -k2 -nr | head -3)"
}
