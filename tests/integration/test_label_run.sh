#!/bin/sh
# dcpictl label on a live dcpid (as DCPI's dcpilabel): two
# commands labelled A and B at the same time, 2 s and 1 s of CPU, show in
# prof --by label at 2:1 with the workload on top of each; the children of
# a labelled shell are labelled; a user in dcpid's group may label their
# own command but not another user's process (a clear error, non-zero).
. "$top_srcdir/tests/integration/lib.sh"
require_perf

G=dcpitest-g$$ U=dcpitest-u$$
run_cleanup() {
	userdel "$U" 2>/dev/null
	groupdel "$G" 2>/dev/null
	cleanup
}
trap run_cleanup EXIT
groupadd "$G" && useradd -M -N -g nogroup -G "$G" -s /bin/sh "$U" ||
    fail "cannot make user $U in group $G"
chmod 755 "$T"
UCTL=$(for_all ctl dcpictl)	# a copy the user may run, wherever the tree is

build_hot run_hot
# A cap of one label: the host's cgroups (and test_labels' storm of 5,000,
# when it runs beside this test) fill it at once, and the runs below must
# still have labels of their own, from the reserve runs have beyond it.
cat >"$T/dcpid.conf" <<EOF
group = $G
label-max = 1
EOF
start_dcpid -e perf::cpu-clock --config "$T/dcpid.conf"
label() { "$DCPICTL" --socket "$SOCK" label "$@"; }

if [ "$(nproc)" -ge 2 ]; then
	label run-a -- "$T/run_hot" 2 & pa=$!
	label run-b -- "$T/run_hot" 1 & pb=$!
	wait $pa || fail "dcpictl label run-a failed"
	wait $pb || fail "dcpictl label run-b failed"
else
	label run-a -- "$T/run_hot" 2 || fail "dcpictl label run-a failed"
	label run-b -- "$T/run_hot" 1 || fail "dcpictl label run-b failed"
fi
# A shell and the programs it starts, one of them through a fork.
label run-sh -- sh -c '"$1" 0.5; "$1" 0.5 fork; exit 3' sh "$T/run_hot"
rc=$?
[ "$rc" = 3 ] || fail "dcpictl label exited $rc, the command 3"
# The command's own exit status and exec failure.
label run-x -- "$T/no-such-program" 2>"$T/noexec.err"
rc=$?
[ "$rc" = 127 ] || fail "dcpictl label of a missing program exited $rc, not 127"
echo "missing program: $(cat "$T/noexec.err")"

# The unprivileged user: their own command yes, this shell no.
runuser -u "$U" -- "$UCTL" --socket "$SOCK" label run-user -- "$T/run_hot" 0.5 ||
    fail "$U could not label their own command"
runuser -u "$U" -- "$UCTL" --socket "$SOCK" label -p $$ stolen >"$T/deny.out" 2>&1
rc=$?
echo "$U labelling pid $$ (root's): exit $rc: $(cat "$T/deny.out")"
[ "$rc" != 0 ] || fail "$U labelled root's process $$"
grep -q "may not label" "$T/deny.out" || fail "no clear refusal: $(cat "$T/deny.out")"
ctl flush >/dev/null || fail "flush failed"
ctl status | grep '^label' || fail "status failed"

ctl prof --by label --csv >"$T/bylabel.csv" || fail "prof --by label failed"
ctl prof --by label | sed -n '/label$/,$p'
n() { awk -F, -v l="$1" '$NF == l { print $1 }' "$T/bylabel.csv"; }
sa=$(n run-a) sb=$(n run-b) ssh=$(n run-sh) su=$(n run-user)
[ -n "$sa" ] && [ -n "$sb" ] || fail "prof --by label lacks run-a or run-b: $(cat "$T/bylabel.csv")"
share=$((sa * 1000 / (sa + sb)))
echo "run-a $sa, run-b $sb samples: share of run-a $share per mille (expected 667)"
[ "$share" -ge 617 ] && [ "$share" -le 717 ] || fail "share of run-a $share per mille, not within 5 points of 2:1"
for l in run-a run-b run-sh run-user; do
	ctl prof --label "$l" --csv >"$T/prof-$l.csv" || fail "prof --label $l failed"
	top=$(sed -n 2p "$T/prof-$l.csv" | cut -d, -f4)
	[ "$top" = dcpi_workload_hot ] || fail "prof --label $l: top procedure '$top': $(head -4 "$T/prof-$l.csv")"
done
# The shell's two children (one forked again): about 1 s of samples.
echo "run-sh: ${ssh:-0} samples, run-user: ${su:-0} samples"
[ "${ssh:-0}" -ge 800 ] || fail "run-sh: ${ssh:-0} samples, expected about 1000 from its children"
[ "${su:-0}" -ge 350 ] || fail "run-user: ${su:-0} samples, expected about 500"
[ -z "$(n stolen)" ] || fail "samples under the refused label 'stolen'"
# Nothing of the labelled runs is left unlabelled.
ctl prof --label '[none]' --csv | grep -q ',run_hot$' && fail "run_hot samples left unlabelled"
stop_dcpid
assert_db_valid
