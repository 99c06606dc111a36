#!/bin/sh
# Where the BPF programs cannot load, or an image has no table for the
# kernel's walk, the ring's dwarf route takes the call chains (and with
# aggregate = auto the flat counts too), whole, and the log and status
# say why.  Each case is forced on the real kernel:
#   - no kernel BTF: dcpid in a mount namespace of its own where
#     /sys/kernel/btf/vmlinux is an empty file (libbpf relocates the
#     programs against it): with aggregate = auto the flat samples and the
#     chains of nofp.c's -O2 tree come through the ring, at least 95% of
#     them whole, with status and one log line naming the BTF file; with
#     aggregate = bpf dcpid does not start (exit 78), saying why;
#   - bpf() refused: dcpid as uid 0 with only the capabilities of
#     contrib/dcpid.service's CapabilityBoundingSet= less CAP_BPF, while
#     kernel.unprivileged_bpf_disabled is 1 or 2 (set to 2, which root can
#     undo, for the test where it is 0): the same, the reason naming
#     CAP_BPF and the setting;
#   - an image without a table: the tree built without .eh_frame and
#     .eh_frame_hdr (objcopy), under aggregate = bpf -g: its chain samples
#     take the ring (status: callchains-bpf's "no table"), cut where the
#     table is missing, while the tree with its table, in the same run, is
#     walked in the kernel, whole.
# The refusal by the verifier is test_callchain_bpf.sh's.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
for t in unshare setpriv objcopy mount; do
	command -v $t >/dev/null || fail "$t is missing (Debian packages util-linux, mount, binutils)"
done

${CC:-cc} -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -pthread \
    -o "$T/nofp" "$top_srcdir/tests/workload/nofp.c" -lz ||
    fail "cannot compile nofp.c"
# A build-id of its own: dcpid keys an image's table by its build-id,
# and a copy without the table must not stand for the tree with one.
${CC:-cc} -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -pthread \
    -Wl,--build-id=0x6e6f65682d6466726d2d746573742d3030303030 \
    -o "$T/noeh.full" "$top_srcdir/tests/workload/nofp.c" -lz ||
    fail "cannot compile nofp.c"
objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "$T/noeh.full" "$T/noeh" ||
    fail "objcopy could not remove .eh_frame"
! readelf -SW "$T/noeh" | grep -qE '\.(eh|debug)_frame' || fail "noeh still has a frame table"

require_bpf

CHAINS="-e perf::cpu-clock -g --callchain-period 2x --period-jitter 20"
run() { ctl label bpf-fallback -- "$@" >/dev/null; }
collect() {
	ctl flush >/dev/null || fail "flush failed"
	ctl status >"$T/st" || fail "status failed"
	ctl stacks --label bpf-fallback >"$T/folded" || fail "dcpictl stacks failed"
	stop_dcpid
}
TREE=';leaf [0-9]+$'
WHOLE='(^|;)main;tree;outer;middle;inner;leaf [0-9]+$'
# flat_samples NAME: the samples of the image named NAME in the labelled
# run's profile (flat, counted by the ring or the kernel).
flat_samples() {
	f=$(find "$DB" -path "*/perf::cpu-clock/bpf-fallback/$1.*" -type f | head -n 1)
	[ -n "$f" ] || fail "no profile of $1 under the label: $(find "$DB" -name "$1*")"
	"$DCPICTL" cat --summary "$f" | sed -n 's/^total_samples //p'
}
# fell_back CASE REASON: status and log say REASON (an ERE) for the flat
# samples and the chains, which are whole, and the flat profile is there.
fell_back() {
	grep -E '^(aggregate|callchains-walk) ' "$T/st"
	grep -qE "^aggregate +ring \(BPF: $2" "$T/st" || fail "$1: $(grep '^aggregate ' "$T/st")"
	grep -qE "^callchains-walk +ring \(BPF: $2" "$T/st" || fail "$1: $(grep '^callchains-walk ' "$T/st")"
	! grep -qE '^(aggregate-bpf|callchains-bpf) ' "$T/st" || fail "$1: a BPF program ran"
	[ "$(grep -cE "dcpid: samples counted by ring \(BPF: $2" "$DCPID_LOG")" = 1 ] ||
	    fail "$1: no log line saying why: $(grep 'counted by' "$DCPID_LOG")"
	grep -E "dcpid: samples counted by ring" "$DCPID_LOG"
	check_whole "$1: tree" "$TREE" "$WHOLE"
	n=$(flat_samples nofp)
	echo "$1: $n flat samples of the tree through the ring"
	[ "${n:-0}" -ge 300 ] || fail "$1: ${n:-0} flat samples of the tree, expected 300 or more"
}

# --- no kernel BTF ---
: >"$T/empty"
cat >"$T/nobtf" <<EOF
#!/bin/sh
mount --bind "$T/empty" /sys/kernel/btf/vmlinux || exit 1
exec "\$@"
EOF
chmod +x "$T/nobtf"
DCPID_WRAP="unshare -m --propagation private $T/nobtf" start_dcpid $CHAINS --aggregate auto
run "$T/nofp" tree 1 || fail "nofp tree failed"
collect
fell_back "no BTF" "no kernel BTF for the program's relocations: /sys/kernel/btf/vmlinux: empty"
mv "$DB" "$T/db-nobtf"
# Asked for by name, BPF that does not load is a configuration that
# cannot run: dcpid does not start (dcpid(8) EXIT STATUS); one that
# did would run until timeout ends it (124).
timeout 30 unshare -m --propagation private "$T/nobtf" "$DCPID" -f -d "$DB" \
    --socket "$SOCK" $CHAINS --aggregate bpf >"$T/bpf.log" 2>&1
rc=$?
echo "no BTF, aggregate = bpf: exit $rc, $(grep 'aggregate = bpf' "$T/bpf.log")"
[ $rc = 78 ] || fail "no BTF, aggregate = bpf: exit $rc, expected 78: $(tail -n 3 "$T/bpf.log")"
grep -q 'aggregate = bpf: no kernel BTF for the program.s relocations: /sys/kernel/btf/vmlinux: empty' "$T/bpf.log" ||
    fail "no BTF, aggregate = bpf: $(tail -n 3 "$T/bpf.log")"
rm -rf "$DB"

# --- bpf() refused: the unit's capabilities without CAP_BPF ---
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$top_srcdir/contrib/dcpid.service.in" |
    tr ' ' '\n' | grep -vx 'CAP_BPF' | tr 'A-Z\n' 'a-z ' | sed 's/cap_/+/g; s/ *$//; s/ /,/g')
[ -n "$caps" ] || fail "no CapabilityBoundingSet= in contrib/dcpid.service.in"
ubd=/proc/sys/kernel/unprivileged_bpf_disabled
[ -r $ubd ] || fail "no $ubd"
old=$(cat $ubd)
if [ "$old" = 0 ]; then
	# 2, not 1: 1 could not be undone before a reboot.
	trap 'echo 0 >'$ubd'; cleanup' EXIT
	echo 2 >$ubd || fail "cannot set kernel.unprivileged_bpf_disabled"
fi
echo "capabilities: $caps; kernel.unprivileged_bpf_disabled = $(cat $ubd)"
DCPID_WRAP="setpriv --bounding-set=-all,$caps --inh-caps=-all --" start_dcpid $CHAINS --aggregate auto
capeff=0x$(awk '$1 == "CapEff:" { print $2 }' "/proc/$DCPID_PID/status")
[ $((capeff >> 39 & 1)) = 0 ] && [ $((capeff >> 21 & 1)) = 0 ] && [ $((capeff >> 38 & 1)) = 1 ] ||
    fail "no CAP_BPF: dcpid's effective capabilities are $capeff"
run "$T/nofp" tree 1 || fail "nofp tree failed"
collect
fell_back "no CAP_BPF" "bpf\(\) refused: no CAP_BPF \(nor CAP_SYS_ADMIN\), kernel.unprivileged_bpf_disabled = $(cat $ubd)"
if [ "$old" = 0 ]; then
	echo 0 >$ubd
	trap cleanup EXIT
fi
mv "$DB" "$T/db-nocap"

# --- an image without a table, beside one with its table ---
start_dcpid $CHAINS --aggregate bpf
ctl label bpf-noeh -- "$T/noeh" tree 2 >/dev/null || fail "noeh tree failed"
ctl flush >/dev/null && ctl status >"$T/st.noeh" || fail "status failed"
ctl stacks --label bpf-noeh >"$T/folded.noeh" || fail "dcpictl stacks failed"
run "$T/nofp" tree 1 || fail "nofp tree failed"
collect
grep -E '^(callchains-walk|callchains-bpf) ' "$T/st.noeh" "$T/st"
grep -qE '^callchains-walk +bpf' "$T/st" || fail "no table: $(grep callchains-walk "$T/st")"
# callchains-bpf N walked in the kernel (A attributed), R to the ring: ... K no table, ...
set -- $(sed -n 's/^callchains-bpf  *\([0-9]*\) walked.* \([0-9]*\) no table,.*/\1 \2/p' "$T/st.noeh" "$T/st")
[ $# = 4 ] || fail "no table: no callchains-bpf line: $(grep callchains-bpf "$T/st")"
echo "no table: by the end of noeh's run $2 chain samples took the ring for want of a table; in the tree's run $(($3 - $1)) were walked in the kernel"
# 2 s of CPU and 1 s, a chain every 2 ms on average; the first of
# noeh's take the ring with "no table yet", until dcpid has tried.
[ "$2" -ge 200 ] || fail "no table: $2 samples took the ring for want of a table, expected 200 or more"
[ $(($3 - $1)) -ge 200 ] || fail "no table: the tree's run walked $(($3 - $1)) chains in the kernel"
# noeh's chains: dcpid's walk stops where the table is missing and says
# so (a frame pointer step may still find a frame: dcpid's own walk for
# code no table covers), never reaching the tree's callers.
set -- $(awk '/;leaf [0-9]+$/ { n = $NF; t += n; if ($0 ~ /^\[truncated: no-table\];/) c += n; if ($0 ~ /tree;outer/) w += n }
    END { printf "%d %d %d\n", t ? 100 * c / t : 0, t, w }' "$T/folded.noeh")
echo "no table: $1% of $2 of noeh's samples in leaf cut at the missing table, $3 with the tree's callers"
awk '{ print $NF "\t" $0 }' "$T/folded.noeh" | sort -nr | head -n 3 | cut -f2
[ "$2" -ge 300 ] && [ "$1" -ge 90 ] && [ "$3" = 0 ] ||
    fail "no table: $1% of $2 cut, $3 whole: $(grep -E 'leaf [0-9]+$' "$T/folded.noeh" | head -n 5)"
check_whole "no table: the tree beside it" "$TREE" "$WHOLE"
exit 0
