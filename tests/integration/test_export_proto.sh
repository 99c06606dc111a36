#!/bin/sh
# pprof's profile.proto from a live dcpid -g: a program
# where hot() is called from b() three times as often as from c(), built
# with frame pointers, exported with --format=pprof-proto and read by Go's
# pprof (built here from Debian's golang-github-google-pprof-dev): -top
# names hot first and totals the flat profile's samples, -traces has the
# stacks main;a;b;hot and main;a;c;hot 3:1 (within 5 points), -raw shows
# the program's build id on its mapping and the epoch's time.  Chains at
# every sample (--callchain-period 1x): at the default 10x, about 200
# chains put 5 points at 1.6 standard deviations, and CI saw 67.8%.
. "$top_srcdir/tests/integration/lib.sh"
require_perf

command -v go >/dev/null || fail "go is not installed (README's test packages: golang-go)"
[ -d /usr/share/gocode/src/github.com/google/pprof ] ||
	fail "Go's pprof sources are not installed (README's test packages: golang-github-google-pprof-dev)"
# Built once per build tree (make clean removes it): the build takes a
# while, the binary nothing.
CACHE=$top_builddir/tests/.cache
PPROF=$CACHE/pprof
if [ ! -x "$PPROF" ]; then
	mkdir -p "$CACHE/go" || fail "cannot make $CACHE"
	HOME=$CACHE/go GOCACHE=$CACHE/go/cache GOPATH=/usr/share/gocode GO111MODULE=off \
	    GOFLAGS= go build -o "$PPROF.$$" github.com/google/pprof >"$T/go.log" 2>&1 ||
		fail "go build github.com/google/pprof failed: $(tail -5 "$T/go.log")"
	mv "$PPROF.$$" "$PPROF" || fail "cannot install $PPROF"
fi
pprof() { HOME=$CACHE/go "$PPROF" -symbolize=none "$@"; }

cc_work chainp "$top_srcdir/tests/workload/chain.c" -fno-omit-frame-pointer \
    -DWORKLOAD_TAG='"proto"'
start_dcpid -e perf::cpu-clock -g --callchain-period 1x
"$T/chainp" 2 || fail "chainp failed"
ctl flush >/dev/null || fail "flush failed"
stop_dcpid

ctl export --format=pprof-proto --image "$T/chainp" -o "$T/p.pb.gz" ||
	fail "export pprof-proto failed"
[ "$(od -An -tx1 -N2 "$T/p.pb.gz" | tr -d ' ')" = 1f8b ] || fail "the export is not gzip"

# -top: hot first (the most flat samples), and the total is prof's.
pprof -top -sample_index=samples "$T/p.pb.gz" >"$T/top.txt" 2>"$T/top.err" ||
	fail "pprof -top failed: $(cat "$T/top.err")"
cat "$T/top.txt"
first=$(awk 'seen { print $6; exit } $1 == "flat" && $2 == "flat%" { seen = 1 }' "$T/top.txt")
[ "$first" = hot ] || fail "pprof -top names '$first' first, expected hot"
total=$(awk '/^Showing nodes accounting for/ { for (i = 1; i <= NF; i++) if ($i == "of") { print $(i + 1); exit } }' "$T/top.txt")
ctl prof --image "$T/chainp" --csv >"$T/flat.csv" || fail "prof failed"
flat=$(awk -F, 'NR > 1 { t += $1 } END { print t }' "$T/flat.csv")
echo "pprof total $total, prof total $flat"
[ -n "$total" ] && [ "$total" = "$flat" ] || fail "pprof total '$total', the flat profile's $flat"

# -traces: blocks of "COUNT LEAF" then callers, one a line.  Sum the
# counts of the chains hot, b (or c), a, main.
pprof -traces -sample_index=samples "$T/p.pb.gz" >"$T/traces.txt" 2>"$T/traces.err" ||
	fail "pprof -traces failed: $(cat "$T/traces.err")"
chains=$(awk '
	function end() { if (n >= 4 && f[1] == "hot" && f[3] == "a" && f[4] == "main") s[f[2]] += c; n = 0 }
	/^-+\+-+$/ { end(); next }
	NF == 2 && n == 0 && $1 ~ /^[0-9]+$/ { c = $1; f[++n] = $2; next }
	NF == 1 && n > 0 { f[++n] = $1 }
	END { end(); printf "%d %d\n", s["b"], s["c"] }' "$T/traces.txt")
set -- $chains
tb=$1 tc=$2
echo "pprof -traces: main;a;b;hot $tb, main;a;c;hot $tc"
[ "$tb" -gt 0 ] && [ "$tc" -gt 0 ] || fail "no main;a;b;hot or main;a;c;hot: $(head -30 "$T/traces.txt")"
awk -v x="$tb" -v y="$tc" 'BEGIN { p = 100 * x / (x + y); d = p - 75; if (d < 0) d = -d; exit !(d <= 5) }' ||
	fail "pprof -traces: b $tb and c $tc, expected 3:1 within 5 points"

# -raw: the mapping with the program's build id, and the epoch's time.
bid=$(readelf -n "$T/chainp" | awk '/Build ID/ { print $3; exit }')
pprof -raw "$T/p.pb.gz" >"$T/raw.txt" 2>"$T/raw.err" || fail "pprof -raw failed: $(cat "$T/raw.err")"
awk -v b="$bid" '/^Mappings/ { m = 1; next } m && index($0, b) && index($0, "chainp") { ok = 1 } END { exit !ok }' \
    "$T/raw.txt" || fail "pprof -raw: no mapping of chainp with build id $bid: $(sed -n '/^Mappings/,$p' "$T/raw.txt")"
grep -q '^Time: 20' "$T/raw.txt" || fail "pprof -raw: no time: $(head -5 "$T/raw.txt")"

# A chain cut short: the dwarf route with a user stack copy of 64 bytes
# (callchain-stack, from the configuration file), too little for chain.c's
# frames, whose chains then end in [truncated: stack-copy] (as
# test_callchain_dwarf.sh shows with stacks).  The exports name that end
# as stacks does where frames have names: pprof -traces has at least 90%
# of hot's samples in traces ending in [truncated: stack-copy] above
# callers that are the whole chain's, callgrind_annotate --inclusive=yes
# gives [truncated: stack-copy] at least 90% of them; gprof, which has no
# name for it, shows the last frame unwound <spontaneous>.
for tool in callgrind_annotate gprof; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: valgrind, binutils)"
done
cc_work chaincut "$top_srcdir/tests/workload/chain.c" -DWORKLOAD_TAG='"cut"'
mv "$DB" "$T/db-fp"
printf 'callchain = dwarf\ncallchain-stack = 64\n' >"$T/small.conf"
start_dcpid -e perf::cpu-clock --config "$T/small.conf"
"$T/chaincut" 1 || fail "chaincut failed"
ctl flush >/dev/null || fail "flush failed"
stop_dcpid

ctl export --format=pprof-proto --image "$T/chaincut" -o "$T/cut.pb.gz" || fail "export pprof-proto failed"
pprof -traces -sample_index=samples "$T/cut.pb.gz" >"$T/cut.traces" 2>"$T/traces.err" ||
	fail "pprof -traces failed: $(cat "$T/traces.err")"
set -- $(awk -v whole="hot;a;main;__libc_start_call_main;__libc_start_main@@GLIBC_2.34;_start" '
	function end(  s, i) {
		if (n > 0 && f[1] == "hot") {
			t += c
			# hot is called by b or c, either.
			s = f[1]; for (i = 2; i < n; i++) if (i != 2 || (f[i] != "b" && f[i] != "c")) s = s ";" f[i]
			if (f[n] == "[truncated: stack-copy]" && index(whole ";", s ";") == 1) w += c
		}
		n = 0
	}
	/^-+\+-+$/ { end(); next }
	n == 0 && /^ *[0-9]+ +[^ ]/ { c = $1; sub(/^ *[0-9]+ +/, ""); f[++n] = $0; next }
	n > 0 { sub(/^ +/, ""); f[++n] = $0 }
	END { end(); printf "%d %d\n", t ? 100 * w / t : 0, t }' "$T/cut.traces")
echo "pprof -traces: $1% of $2 samples in hot end in [truncated: stack-copy] above its callers"
[ "$2" -ge 300 ] && [ "$1" -ge 90 ] || fail "pprof -traces: $1% of $2: $(sed -n '/^-/,$p' "$T/cut.traces" | head -20)"

ctl export --format=callgrind --image "$T/chaincut" -o "$T/cut.cg" || fail "export callgrind failed"
callgrind_annotate --inclusive=yes "$T/cut.cg" >"$T/cut.cgi" 2>&1 ||
	fail "callgrind_annotate failed: $(cat "$T/cut.cgi")"
set -- $(awk '{ gsub(",", "", $1) } / \?\?\?:\[truncated: stack-copy\] \[\[truncated\]\]$/ { c = $1 }
    /:hot \[/ { l = $1 } END { printf "%d %d\n", l ? 100 * c / l : 0, l }' "$T/cut.cgi")
echo "callgrind_annotate --inclusive=yes: [truncated: stack-copy] $1% of hot's $2"
[ "$2" -ge 300 ] && [ "$1" -ge 90 ] || fail "callgrind: [truncated: stack-copy] $1% of $2: $(cat "$T/cut.cgi")"

ctl export --format=gmon --image "$T/chaincut" -o "$T/cut.gmon" || fail "export gmon failed"
gprof -b -q "$T/chaincut" "$T/cut.gmon" >"$T/cut.gprof" 2>&1 || fail "gprof failed: $(cat "$T/cut.gprof")"
grep -q '<spontaneous>' "$T/cut.gprof" || fail "gprof: no <spontaneous> caller: $(cat "$T/cut.gprof")"
exit 0
