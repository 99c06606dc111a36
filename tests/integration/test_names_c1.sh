#!/bin/sh
# Names any user puts in front of the dcpi group: a JIT's perf map (any
# user) and a label (a dcpi member).  prof printed C1 control bytes raw
# (CSI 0x9b, NEL 0x85, OSC 0x9d), which drive a terminal as ESC [ does.
# Now every command escapes them as it escapes C0 and DEL: the bytes, the
# same controls encoded as UTF-8 (U+009B is C2 9B), a right-to-left
# override (U+202E) and bytes of no UTF-8 go out as \xHH in prof (text,
# --csv), cat, flamegraph, status and the label's listing; --json writes
# the characters as \u escapes and the bytes of no UTF-8 as the text \xHH.  A name
# in plain UTF-8 (é) is left as it is.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "jitdumper is x86-64 code"
for t in useradd userdel setpriv; do
	command -v $t >/dev/null || fail "$t is missing (Debian packages passwd, util-linux)"
done
cc_work jitdumper "$top_srcdir/tests/workload/jitdumper.c"
U=dcpi-c1-$$
useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$U" || fail "useradd $U failed"
trap 'find /tmp -maxdepth 1 -name "perf-*.map" -user "$U" -delete 2>/dev/null; userdel -f "$U" 2>/dev/null; cleanup' EXIT
chmod 755 "$T" && cp "$T/jitdumper" "$T/bin-jitdumper" && chmod 755 "$T/bin-jitdumper" ||
    fail "cannot prepare $T"

# One name with each kind: raw C1 bytes, C1 as UTF-8, a bidi override, a
# byte of no UTF-8, and an é that is text.
NAME=$(printf 'c1name\233[31m\302\233[32m\205\2350;t\007\342\200\256rev\377caf\303\251')
RAW="$(printf '\233') $(printf '\302\233') $(printf '\205') $(printf '\235') $(printf '\342\200\256') $(printf '\377') $(printf '\007')"
ESCAPED='c1name\x9b[31m\xc2\x9b[32m\x85\x9d0;t\x07\xe2\x80\xaerev\xffcafé'

start_dcpid -e perf::cpu-clock -g --callchain-period 1x
setpriv --reuid="$U" --regid="$U" --clear-groups sh -c \
    'printf "3e0000000000 1000 %s\n" "$1" >/tmp/perf-$$.map && exec "$2" run 1.5' sh "$NAME" "$T/bin-jitdumper" ||
    fail "the JIT failed"
"$DCPICTL" --socket "$SOCK" label "lab$(printf '\233')2J$(printf '\302\205')x" -- "$T/jitdumper" run 0.5 ||
    fail "dcpictl label failed"
ctl flush >/dev/null || fail "flush failed"

# raw_free FILE: none of the raw bytes on a line of ours (other processes'
# names, not ours, may be any UTF-8).
raw_free() {
	LC_ALL=C grep -a 'c1name\|lab' "$1" >"$T/ours" || return 0
	for b in $RAW; do
		LC_ALL=C grep -q -F "$b" "$T/ours" && return 1
	done
	return 0
}
check() {	# check WHAT FILE WANT: no raw byte, and WANT (a fixed string) there
	raw_free "$2" || fail "$1 printed a raw control byte: $(LC_ALL=C grep -a 'c1name\|lab' "$2" | od -c | head -5)"
	LC_ALL=C grep -q -F -- "$3" "$2" || fail "$1 lacks $3: $(LC_ALL=C grep -a 'c1name\|lab' "$2" | head -3)"
}
ctl prof >"$T/prof.txt" || fail "prof failed"
check prof "$T/prof.txt" "$ESCAPED"
ctl prof --csv >"$T/prof.csv" || fail "prof --csv failed"
check "prof --csv" "$T/prof.csv" "$ESCAPED"
ctl prof --json >"$T/prof.json" || fail "prof --json failed"
check "prof --json" "$T/prof.json" 'c1name\\x9b[31m\u009b[32m\\x85\\x9d0;t\u0007\u202erev\\xffcafé'
python3 - "$T/prof.json" <<'EOF' || fail "prof --json is not JSON or lost the name: $(grep c1name "$T/prof.json")"
import json, sys
def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
names = [v for v in strings(json.load(open(sys.argv[1], encoding="utf-8"))) if v.startswith("c1name")]
assert names == ["c1name\\x9b[31m\x9b[32m\\x85\\x9d0;t\x07\u202erev\\xffcaf\u00e9"], names
EOF
ctl prof --by label >"$T/labels.txt" || fail "prof --by label failed"
check "prof --by label" "$T/labels.txt" 'lab\x9b2J\xc2\x85x'
ctl status >"$T/status.txt" || fail "status failed"
raw_free "$T/status.txt" || fail "status printed a raw control byte"
f=$(profile_file "$(current_epoch)" "jit:bin-jitdumper")
[ -n "$f" ] || fail "no profile of [jit:bin-jitdumper]"
ctl cat "$f" >"$T/cat.txt" || fail "cat failed"
raw_free "$T/cat.txt" || fail "cat printed a raw control byte"
ctl flamegraph -o "$T/fg.svg" || fail "flamegraph failed"
check flamegraph "$T/fg.svg" 'c1name\x9b[31m'
stop_dcpid
echo "C1, bidi and bad bytes escaped in prof, --csv, --json, labels, status, cat and flamegraph"
