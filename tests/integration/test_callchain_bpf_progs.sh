#!/bin/sh
# Call chains walked in the kernel (aggregate = bpf with -g on the dwarf
# route) of programs beside test_callchain_bpf.sh's, each checked sample
# by sample against dcpid's walk of the same sample's stack copy
# (DCPID_TEST_BPF_WALK=check):
#   - C++ with exceptions (cxxchain.cc, g++ -O2 -fomit-frame-pointer):
#     std::runtime_error thrown two frames down and caught, in a loop, so
#     that samples land in libstdc++'s __cxa_throw and libgcc_s's
#     unwinder (at least 100 of them, under main;run;step);
#   - Debian's liblzma, under Debian's xz (-O2, no frame pointers,
#     stripped): at least 300 samples under lzma_code;
# for each, at least 99% of at least 300 walks compared are the same in
# the kernel and in dcpid (the counts of the check, taken before and after
# each program; every process on the host is walked and checked too, so
# the walks that differ are also held to 1% of the program's own chain
# samples, at least 300).
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v ${CXX:-g++} >/dev/null || fail "${CXX:-g++} is not installed (README's build packages: build-essential)"
XZ=/usr/bin/xz
[ -x "$XZ" ] || fail "no $XZ (Debian's xz-utils)"
ldd "$XZ" | grep -q 'liblzma\.so' || fail "$XZ is not linked with liblzma: $(ldd "$XZ")"

${CXX:-g++} -O2 -g -fomit-frame-pointer -o "$T/cxxchain_bpf" "$top_srcdir/tests/workload/cxxchain.cc" ||
    fail "cannot compile cxxchain.cc"
if objdump -d "$T/cxxchain_bpf" | awk '/^[0-9a-f]+ <.*(run|step|sorted|lookup|rethrown|deep).*>:/ { f = 1 }
    f && /mov +%rsp,%rbp/ { b = 1 } /^$/ { f = 0 } END { exit !b }'; then
	fail "cxxchain's functions set up frame pointers"
fi
# 3 MB that xz -6 takes about a second of CPU to compress.
head -c 2300000 /dev/urandom | base64 >"$T/data" || fail "cannot write $T/data"

require_bpf

# checked: the check's counts, "COMPARED SAME".
checked() {
	ctl status >"$T/st" || fail "status failed"
	awk '$1 == "callchains-check" { print $2, $5 }' "$T/st"
}
# program NAME COMMAND...: runs it labelled NAME, and checks the walks
# compared meanwhile.
program() {
	name=$1; shift
	b=$(checked)
	ctl label "$name" -- "$@" >/dev/null || fail "$name failed"
	ctl flush >/dev/null || fail "flush failed"
	set -- $b $(checked)
	[ $# = 4 ] || fail "$name: no callchains-check line: $(grep callchains "$T/st")"
	grep -E '^callchains-(bpf|check) ' "$T/st"
	n=$(($3 - $1)) s=$(($4 - $2))
	ctl stacks --label "$name" >"$T/folded.$name" || fail "dcpictl stacks failed"
	own=$(awk '{ t += $NF } END { print t + 0 }' "$T/folded.$name")
	echo "$name: $s of $n samples' chains the same on both routes; $own chain samples of $name's own"
	[ "$n" -ge 300 ] || fail "$name: $n walks compared, expected 300 or more"
	[ $((s * 100)) -ge $((n * 99)) ] || fail "$name: $s of $n walks the same in the kernel and in dcpid"
	# The host's other processes are compared too: every difference is
	# taken for the program's, against its own chains alone.
	[ "$own" -ge 300 ] && [ $(((n - s) * 100)) -le "$own" ] ||
	    fail "$name: $((n - s)) walks differ, against $own chain samples of its own"
}
# share NAME ALL WHOLE: "PERCENT COUNT" of the samples of the stacks
# matching ALL that also match WHOLE.
share() {
	awk -v all="$2" -v whole="$3" '$0 ~ all { n = $NF; t += n; if ($0 ~ whole) w += n }
	    END { printf "%d %d\n", t ? 100 * w / t : 0, t }' "$T/folded.$1"
}

export DCPID_TEST_BPF_WALK=check
start_dcpid -e perf::cpu-clock -g --aggregate bpf --callchain-period 2x --period-jitter 20
unset DCPID_TEST_BPF_WALK
ctl status >"$T/st" || fail "status failed"
grep -qE '^callchains-walk +bpf .*checked' "$T/st" || fail "not checking: $(grep callchains-walk "$T/st")"

program cxx "$T/cxxchain_bpf" 3
set -- $(share cxx ';__cxa_throw;_Unwind_' '(^|;)main;run\(double\);step\(unsigned int\);')
echo "cxx: $2 samples in libgcc_s's unwinder under __cxa_throw, $1% from main;run;step"
[ "$2" -ge 100 ] && [ "$1" -ge 95 ] || fail "cxx: $1% of $2 in the unwinder: $(grep _Unwind "$T/folded.cxx" | head -n 3)"

program lzma sh -c "$XZ -6 -T1 -c '$T/data' >/dev/null && $XZ -6 -T1 -c '$T/data' >/dev/null"
set -- $(share lzma ';lzma_code;' '__libc_start_call_main;')
echo "lzma: $2 samples under liblzma's lzma_code, $1% from __libc_start_call_main"
[ "$2" -ge 300 ] && [ "$1" -ge 95 ] || fail "lzma: $1% of $2: $(grep lzma "$T/folded.lzma" | head -n 3)"
stop_dcpid
exit 0
