#!/bin/sh
# Several events at once, each with its period: the :period= modifier, and
# the default period of software events such as page-faults (one sample
# per 1,000), which the header records and the sample counts follow.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

build_hot hot_ev
cc_work faults "$top_srcdir/tests/workload/faults.c"
start_dcpid -e perf::cpu-clock:period=500000 -e perf::page-faults:u
"$T/hot_ev" 1 || fail "workload failed"
"$T/faults" 100000 || fail "faults workload failed"
ctl flush || fail "dcpictl flush failed"
e=$(current_epoch)

f=$(profile_file "$e" hot_ev perf::cpu-clock:period=500000)
[ -n "$f" ] || fail "no perf::cpu-clock:period=500000 profile for hot_ev"
grep -aq '^period 500000$' "$f" || fail "$f: period is not 500000"
r=$(fn_range "$T/hot_ev" dcpi_workload_hot)
set -- $(samples_in "$f" $r)
echo "hot_ev: $1 of $2 samples in dcpi_workload_hot"
[ "$2" -ge 100 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ] || fail "hot_ev: $1 of $2 samples in the hot function"

f=$(profile_file "$e" faults perf::page-faults:u)
[ -n "$f" ] || fail "no perf::page-faults:u profile for the faults workload"
grep -aq '^period 1000$' "$f" || fail "$f: period is not 1000"
n=$("$DCPICTL" cat --summary "$f" | awk '$1 == "total_samples" { print $2 }')
echo "faults: $n samples for 100000 page faults"
[ "$n" -ge 80 ] && [ "$n" -le 130 ] || fail "faults: $n samples for 100000 faults at period 1000"
[ -z "$(profile_file "$e" kernel.kallsyms perf::page-faults:u)" ] || fail ":u sampled the kernel"
assert_db_valid
stop_dcpid
