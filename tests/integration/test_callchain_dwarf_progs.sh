#!/bin/sh
# Call chains on the dwarf route (-g) of programs beside the C tree of
# test_callchain_dwarf.sh, each also recorded alone by perf record
# --call-graph dwarf and compared (perf cannot share the machine's
# sampling with dcpid reliably: perf script aborts on files recorded
# while another user asked for build-ids):
#   - a C++ program (g++ -O2, no frame pointers) whose hot code is
#     std::sort, std::map and exceptions thrown and caught, under
#     main;run;step: at least 95% of its samples have the whole chain from
#     _start, and at least 90% of those in libstdc++'s and libgcc_s's
#     throwing and unwinding code;
#   - Go (gochain.go, frame pointers, .debug_frame): the shares of whole
#     chains to main.hot, and of main.b among its callers, within 5
#     points of --callchain fp's, with the same chains;
#   - a program built -fno-omit-frame-pointer (chain.c): the same chains
#     below main, and within 5 points, as --callchain fp;
#   - a program in a system call (chain.c's getppid loop): at least 95%
#     of the samples with kernel frames have them below the user chain
#     _start;...;main;sys;getppid;
#   - beside perf: each share at most 3 points below perf's, and perf's
#     callers of each hot function a suffix of dcpid's (perf's walk may
#     stop early, never go elsewhere).  Without perf (Debian's linux-perf)
#     the comparison is left out, saying so.
# Each program runs for a fixed CPU time (cxxchain's, chain.c's and Go's
# clocks), so the shares hold on a loaded machine.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v ${CXX:-g++} >/dev/null || fail "${CXX:-g++} is not installed (README's build packages: build-essential)"
command -v go >/dev/null || fail "go is not installed (README's test packages: golang-go)"

${CXX:-g++} -O2 -g -o "$T/cxxchain" "$top_srcdir/tests/workload/cxxchain.cc" ||
    fail "cannot compile cxxchain.cc"
if objdump -d "$T/cxxchain" | awk '/^[0-9a-f]+ <.*(run|step|sorted|lookup|rethrown|deep).*>:/ { f = 1 }
    f && /mov +%rsp,%rbp/ { b = 1 } /^$/ { f = 0 } END { exit !b }'; then
	fail "cxxchain's functions set up frame pointers"
fi
mkdir -p "$T/gochain"
cp "$top_srcdir/tests/workload/gochain.go" "$T/gochain/main.go"
(cd "$T/gochain" && HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off \
    GOFLAGS= go build -o "$T/gochain_progs" main.go) || fail "go build failed"
cc_work chain_progs "$top_srcdir/tests/workload/chain.c" -fno-omit-frame-pointer \
    -DWORKLOAD_TAG='"progs"'

# The programs: NAME COMMAND...  Their files are named apart from the
# other tests' (test_callchain.sh's chain, test_callchain_go.sh's
# gochain_bin), whose checks take every process's samples of those names.
progs() {
	"$1" cxx "$T/cxxchain" 2
	"$1" go "$T/gochain_progs" 2
	"$1" fpc "$T/chain_progs" 2
	"$1" sys "$T/chain_progs" 1 sys
}

# perf's chains of a program, folded as dcpictl stacks folds them (root
# first, no argument lists): perf_run NAME COMMAND... writes
# $T/perf.NAME.  While another process samples with build-ids (another
# test's dcpid), the kernel marks some of perf's MMAP2 records as holding
# a build-id (PERF_RECORD_MISC_MMAP_BUILD_ID) and writes the device and
# inode there all the same: perf script takes the major number for the
# build-id's length and aborts (an assertion in util/build-id.c, then
# stack smashing).  perf record was asked for no build-ids, so the mark
# is cleared from the file first.
perf_run() {
	name=$1; shift
	perf record -q --no-buildid --call-graph dwarf -e cpu-clock -F 1000 \
	    -o "$T/perf.data" -- "$@" >/dev/null 2>"$T/perf.err" ||
	    fail "perf record of $name failed: $(tail -3 "$T/perf.err")"
	python3 - "$T/perf.data" <<-'EOF' || fail "cannot read $T/perf.data"
	import struct, sys
	with open(sys.argv[1], 'r+b') as f:
	    d = bytearray(f.read())
	    off, size = struct.unpack_from('<QQ', d, 40)   # the data section
	    p = off
	    while p < off + size:
	        typ, misc, sz = struct.unpack_from('<IHH', d, p)
	        if sz == 0:
	            sys.exit(1)
	        if typ == 10 and misc & 0x4000:            # MMAP2, BUILD_ID
	            struct.pack_into('<H', d, p + 4, misc & ~0x4000)
	        p += sz
	    f.seek(0)
	    f.write(d)
	EOF
	perf script -i "$T/perf.data" --no-inline -F comm,ip,sym,dso \
	    >"$T/perf.script" 2>"$T/perf.err" ||
	    fail "perf script on $name failed: $(tail -3 "$T/perf.err")"
	awk 'function out(  s, i) {
		if (n == 0) return
		s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]
		c[s]++; n = 0
	}
	/^[^ \t]/ || /^$/ { out(); next }
	{
		sym = $0; sub(/^[ \t]*[0-9a-f]+ /, "", sym)
		dso = sym; sub(/.*\(/, "", dso); sub(/\)$/, "", dso); sub(/.*\//, "", dso)
		sub(/ \([^(]*\)$/, "", sym)
		if (sym == "[unknown]") sym = dso "+?"
		f[++n] = sym
	}
	END { out(); for (s in c) print s, c[s] }' "$T/perf.script" >"$T/perf.$name"
}

# Runs the programs under dcpid, each as a label run of its own, into
# $T/ROUTE.NAME: dcpid_runs ROUTE ARGS...
dcpid_one() {
	name=$1; shift
	"$DCPICTL" --socket "$SOCK" label "$name" -- "$@" >/dev/null || fail "$name failed"
}
dcpid_runs() {
	route=$1; shift
	# A chain with every sample, as perf's runs have them.
	start_dcpid -e perf::cpu-clock "$@" --period-jitter 20 --callchain-period 1x
	ctl status | grep -E "^callchains +$route" || fail "not the $route route: $(ctl status | grep '^callchains')"
	progs dcpid_one
	ctl flush >/dev/null || fail "flush failed"
	for name in cxx go fpc sys; do
		ctl stacks --label "$name" >"$T/$route.$name" || fail "stacks --label $name failed"
	done
	stop_dcpid
	mv "$DB" "$T/db-$route"
}

# Perf first, alone; then dcpid's routes.
if command -v perf >/dev/null; then
	command -v python3 >/dev/null || fail "python3 is not installed"
	progs perf_run
else
	echo "perf is not installed (Debian's linux-perf): no comparison with perf record --call-graph dwarf"
fi
dcpid_runs dwarf -g
dcpid_runs fp --callchain fp

# share FILE ALL WHOLE: percent of the samples of the stacks of FILE
# matching ALL that also match WHOLE, their count, and the percent to a
# tenth.
share() {
	awk -v all="$2" -v whole="$3" '$0 ~ all { n = $NF; t += n; if ($0 ~ whole) w += n }
	    END { printf "%d %d %.1f\n", t ? 100 * w / t : 0, t, t ? 100 * w / t : 0 }' "$1"
}
# chains FILE HOT [MIN]: the chains from the root to the first frame
# named HOT (names without argument lists or clone suffixes, a frame
# named as the one above it once: a cold part put under its function),
# each with at least MIN percent (default 0: the commonest only) of the
# samples through HOT, commonest first.
chains() {
	awk -v hot="$2" -v min="${3:-0}" '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, f, ";"); p = ""; last = ""
		for (i = 1; i <= k; i++) {
			x = f[i]; sub(/\(.*/, "", x); sub(/ \[clone.*/, "", x)
			if (x == last) continue
			p = p == "" ? x : p ";" x; last = x
			if (x == hot) { c[p] += n; t += n; break }
		}
	}
	END { for (p in c) if (min == 0 || 100 * c[p] >= min * t) print c[p], p }' "$1" |
	    sort -k1,1nr | { if [ "${3:-0}" = 0 ]; then head -n1; else cat; fi; } | cut -d' ' -f2-
}
# suffix A B: whether chain A is B or a tail of it (at a frame's start).
suffix() {
	case ";$2" in *";$1") return 0 ;; esac
	return 1
}

# One row of the report: row WHAT NAME ALL WHOLE HOT... prints the
# samples of program NAME's stacks matching ALL and their shares matching
# WHOLE on each route (and perf's), checks perf's callers of each HOT
# against dcpid's, and leaves the shares in $dw $fp $pf, the samples in
# $ns.
row() {
	what=$1 name=$2 all=$3 whole=$4; shift 4
	set -- $(share "$T/dwarf.$name" "$all" "$whole") "$@"; dw=$1 ns=$2 dwx=$3; shift 3
	set -- $(share "$T/fp.$name" "$all" "$whole") "$@"; fp=$1 fpx=$3; shift 3
	pf=- pfx=-
	if [ -f "$T/perf.$name" ]; then
		set -- $(share "$T/perf.$name" "$all" "$whole") "$@"; pf=$1 pfx=$3; shift 3
		for hot; do
			c=$(chains "$T/dwarf.$name" "$hot") p=$(chains "$T/perf.$name" "$hot")
			[ -n "$c" ] && [ -n "$p" ] || fail "$name: no chain to $hot (dcpid '$c', perf '$p')"
			suffix "$p" "$c" || fail "$name: perf's callers of $hot are not dcpid's:
  perf  $p
  dcpid $c"
		done
		[ "$dw" -ge $((pf - 3)) ] || fail "$name: $dw% whole chains, perf $pf%"
	fi
	echo "$what: $ns samples; whole chains: dcpid -g $dwx%, perf dwarf $pfx%, --callchain fp $fpx%"
}

row cxx cxx . '^_start;([^;]*;)*main;run[^;]*;step' sorted lookup deeper
[ "$ns" -ge 500 ] && [ "$dw" -ge 95 ] ||
    fail "cxx: $dw% of $ns samples whole: $(grep -v '^_start;[^ ]*main;run' "$T/dwarf.cxx" | head -5)"
grep -qE '^_start;([^;]*;)*main;run[^;]*;step[^;]*;rethrown[^;]*;deep[^;]*;deeper[^;]*;([^;]*;)*__cxa_throw;_Unwind_RaiseException' \
    "$T/dwarf.cxx" || fail "cxx: no whole chain through __cxa_throw: $(grep __cxa_throw "$T/dwarf.cxx" | head -3)"
row 'cxx (throwing, unwinding)' cxx '_Unwind_|__cxa_|__gxx_personality' '^_start;([^;]*;)*main;run[^;]*;step'
[ "$ns" -ge 100 ] && [ "$dw" -ge 90 ] ||
    fail "cxx: $dw% of $ns samples in throwing and unwinding whole: $(grep -E '_Unwind_|__cxa_' "$T/dwarf.cxx" | grep -v '^_start;' | head -5)"

row go go 'main\.hot' 'runtime\.main;main\.main;main\.[bc];main\.hot' main.hot
[ "$ns" -ge 500 ] && [ "$dw" -ge 90 ] && [ "$dw" -ge $((fp - 5)) ] && [ "$dw" -le $((fp + 5)) ] ||
    fail "go: $dw% of $ns samples whole, $fp% with frame pointers"
set -- $(share "$T/dwarf.go" 'main\.hot' 'main\.b;main\.hot') $(share "$T/fp.go" 'main\.hot' 'main\.b;main\.hot')
echo "go: main.b calls main.hot in $3% of its samples on the dwarf route, $6% with frame pointers"
[ "$1" -ge $(($4 - 5)) ] && [ "$1" -le $(($4 + 5)) ] || fail "go: main.b's share $1% against $4%"
[ "$(chains "$T/dwarf.go" main.hot 2)" = "$(chains "$T/fp.go" main.hot 2)" ] ||
    fail "go: other chains to main.hot: $(chains "$T/dwarf.go" main.hot 2) against $(chains "$T/fp.go" main.hot 2)"

row fpc fpc ';hot( |;)' '(^|;)main;a;[bc];hot( |;)' hot
[ "$ns" -ge 500 ] && [ "$dw" -ge 95 ] && [ "$dw" -ge $((fp - 5)) ] && [ "$dw" -le $((fp + 5)) ] ||
    fail "fpc: $dw% of $ns samples whole, $fp% with frame pointers"
below_main() { chains "$1" hot 2 | sed 's/^.*;main;/main;/'; }
[ "$(below_main "$T/dwarf.fpc")" = "$(below_main "$T/fp.fpc")" ] ||
    fail "fpc: other chains: $(below_main "$T/dwarf.fpc") against $(below_main "$T/fp.fpc")"
grep -qE '^_start;([^;]*;)*main;a;b;hot [0-9]+$' "$T/dwarf.fpc" || fail "fpc: no chain from _start"

row sys sys 'entry_SYSCALL_64' '(^|;)main;sys;[^;]*getppid;entry_SYSCALL_64' sys
set -- $(share "$T/dwarf.sys" 'entry_SYSCALL_64' '^_start;([^;]*;)*main;sys;[^;]*getppid;entry_SYSCALL_64')
echo "sys: $1% of $2 samples in the kernel under the whole chain from _start"
[ "$2" -ge 200 ] && [ "$1" -ge 95 ] ||
    fail "sys: $1% of $2 samples in the kernel under the whole chain: $(grep -v '^_start' "$T/dwarf.sys" | head -3)"
