#!/bin/sh
# period-jitter against aliasing.  tests/workload/lockstep.c runs f() for
# the middle half of every 1 ms of CLOCK_MONOTONIC and g() for the rest;
# cpu-clock at a fixed 1 ms period is an hrtimer on the same clock whose
# expiries stay on one grid, so every sample lands at one phase of the
# workload: the split of f to g is far from 50:50.  With --period-jitter
# the periods are drawn around 1 ms and the split is 50:50.  The profile
# header and dcpictl status say that the period is a mean.  (perf::cpu-clock
# samples every 1,000,000 ns by default.)
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v taskset >/dev/null || fail "taskset is missing (Debian package util-linux)"

cc_work lockstep "$top_srcdir/tests/workload/lockstep.c" -DWORKLOAD_TAG='"lockstep"'
set -- $(fn_range "$T/lockstep" dcpi_lockstep_f); f_range="$1 $2"
set -- $(fn_range "$T/lockstep" dcpi_lockstep_g); g_range="$1 $2"
# One CPU for the workload and the sampling: the grid and the workload's
# phase are that CPU's.  Pinned, so that a migration cannot mix two CPUs'
# grids; the other tests' load on it only takes samples away.
cpu=$(($(nproc) - 1))
run=0

# run_split JITTER: a fresh dcpid and database, 4 s of the workload; sets
# f and g (samples in each) and prof (the profile file).
run_split() {
	run=$((run + 1)) jitter=$1
	DB=$T/db$run
	start_dcpid -e perf::cpu-clock --cpus "$cpu" --period-jitter "$jitter"
	taskset -c "$cpu" "$T/lockstep" 4 || fail "lockstep failed"
	ctl status >"$T/status" || fail "dcpictl status failed"
	ctl flush >/dev/null || fail "dcpictl flush failed"
	stop_dcpid
	prof=$(profile_file "$(current_epoch)" lockstep)
	[ -n "$prof" ] || fail "run $run: no profile of lockstep"
	set -- $(samples_in "$prof" $f_range); f=$1
	set -- $(samples_in "$prof" $g_range); g=$1
	# 4 s at 1,000 samples/s, of which the other tests' load on the CPU
	# may leave the workload a tenth or less (107 seen): the callers
	# judge only enough samples, and run again for more.
	echo "run $run, jitter $jitter%: f $f, g $g"
}

# Without jitter: the grid's phase against the workload's is set when
# dcpid enables the event, at random; one within interrupt latency of a
# half's boundary splits the samples between f and g.  Such a phase is
# rare (tens of microseconds of 500), so a new dcpid (a new phase) is
# tried for up to three judged runs before the missing aliasing fails.
# A run with under 100 samples in f and g is not judged.
aliased= judged=0
for _ in 1 2 3 4 5 6; do
	run_split 0
	grep -q '^period-jitter' "$prof" && fail "$prof: a period-jitter line without jitter"
	grep -Eq '^period-jitter +none$' "$T/status" || fail "status does not say 'period-jitter none'"
	[ $((f + g)) -ge 100 ] || continue
	if [ $((100 * f)) -ge $((85 * (f + g))) ] || [ $((100 * g)) -ge $((85 * (f + g))) ]; then
		aliased=1
		break
	fi
	judged=$((judged + 1))
	[ "$judged" -lt 3 ] || break
done
[ -n "$aliased" ] || fail "no aliasing at a fixed period (last run: f $f, g $g)"

# With jitter 20%: each period's rate uniform in [0.8, 1.2] kHz, drawn at
# the start and anew about once a second, so in 4 s a few draws, each of
# which sweeps the samples over every phase unless it lands within 1/1000
# of 1 ms (about 1 in 200 per draw).  Within 10 points of 50:50, over at
# least 400 samples (binomial spread 2.5 points at most): runs add up
# until they have that many, as a loaded CPU leaves the workload little.
# One fresh start only for the rare run where a draw did land that close.
F=0 G=0 ok= retried=
for _ in 1 2 3 4 5 6 7 8; do
	run_split 20
	F=$((F + f)) G=$((G + g))
	[ $((F + G)) -ge 400 ] || continue
	if [ $((100 * F)) -ge $((40 * (F + G))) ] && [ $((100 * F)) -le $((60 * (F + G))) ]; then
		ok=1
		break
	fi
	[ -n "$retried" ] && break
	retried=1 F=0 G=0
done
[ -n "$ok" ] || fail "jitter 20%: f $F, g $G, not within 10 points of 50:50"
echo "jitter 20%: f $F, g $G: f's share $((100 * F / (F + G)))%"
grep -q '^period 1000000$' "$prof" || fail "$prof: the period line is not the mean 1000000"
grep -q '^period-jitter 20%$' "$prof" || fail "$prof: no 'period-jitter 20%' header line"
grep -Eq '^event +perf::cpu-clock period 1000000 \(mean\)$' "$T/status" ||
    fail "status does not call the period a mean"
grep -Eq '^period-jitter +20%, [1-9][0-9]* periods set, 0 fds at the fixed period$' "$T/status" ||
    fail "status has no period-jitter line with periods set"
"$DCPICTL" cat --summary "$prof" >/dev/null || fail "$prof does not pass the reader"

# From the configuration file, and a reload that turns it off: sampling
# restarts at the fixed period.
DB=$T/db-reload
printf 'event = perf::cpu-clock\ncpus = %s\nperiod-jitter = 5\n' "$cpu" >"$T/dcpid.conf"
start_dcpid --config "$T/dcpid.conf"
ctl status >"$T/status" || fail "dcpictl status failed"
grep -Eq '^period-jitter +5%, ' "$T/status" || fail "period-jitter = 5 in the file: not in status"
sed -i 's/^period-jitter = 5$/period-jitter = 0/' "$T/dcpid.conf"
ctl reload >/dev/null || fail "dcpictl reload failed"
ctl status >"$T/status" || fail "dcpictl status failed"
grep -Eq '^period-jitter +none$' "$T/status" || fail "period-jitter still on after the reload"
grep -Eq '^event +perf::cpu-clock period 1000000$' "$T/status" ||
    fail "the period is still called a mean after the reload"
stop_dcpid
echo "PASS"
