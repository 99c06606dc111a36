#!/bin/sh
# dcpictl export --format=afdo: LLVM's sample profile of one image.  The
# workload (tests/workload/afdo.c), built with clang -O2 -g, runs under
# dcpid -g with a chain at every sample; the export must be read by
# llvm-profdata (show, and merge into the binary form), name mix first as
# prof does, put the inlined step() at its call line in mix, agree with
# list on the hottest line and its samples (a line's count is the most
# samples of one of its instructions), give the indirect call in mix the
# targets kernel_a and kernel_b about 3:1, and rebuild the workload with
# -fprofile-sample-use without a warning; for C++ (cxxchain.cc) the names
# must be the mangled ELF symbols.  Bad input (an image without
# DWARF, an epoch without the image, a stale binary, several images):
# a message, exit non-zero, no file.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
for tool in clang clang++ llvm-profdata nm; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: clang, llvm)"
done

SRC=$top_srcdir/tests/workload/afdo.c
CFL="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer"
clang $CFL -o "$T/w" "$SRC" || fail "cannot build the workload"
clang -O2 -o "$T/nodw" "$SRC" || fail "cannot build the workload without -g"
CXXSRC=$top_srcdir/tests/workload/cxxchain.cc
clang++ $CFL -o "$T/cxx" "$CXXSRC" || fail "cannot build cxxchain"

start_dcpid -e perf::cpu-clock -g --callchain-period 1x
"$T/w" 2 >/dev/null || fail "the workload failed"
"$T/nodw" 0.3 >/dev/null || fail "the workload without -g failed"
"$T/cxx" 1 >/dev/null || fail "cxxchain failed"
ctl flush >/dev/null || fail "flush failed"
E1=$(current_epoch)
ctl epoch >/dev/null || fail "epoch failed"
E2=$(current_epoch)
ctl flush >/dev/null || fail "flush failed"
stop_dcpid

ctl export --format=afdo --epoch "$E1" --image "$T/w" -o "$T/w.afdo" 2>"$T/err" ||
	fail "export afdo failed: $(cat "$T/err")"
llvm-profdata show --sample --all-functions "$T/w.afdo" >"$T/show" 2>&1 ||
	fail "llvm-profdata show refuses the profile: $(cat "$T/show")"
llvm-profdata merge --sample "$T/w.afdo" -o "$T/w.prof" 2>"$T/err" ||
	fail "llvm-profdata merge --sample failed: $(cat "$T/err")"
llvm-profdata show --sample "$T/w.prof" >/dev/null 2>&1 || fail "the merged profile does not read"

# The hottest function, as prof has it.
top=$(sed -n '1s/:.*//p' "$T/w.afdo")
ptop=$(ctl prof --epoch "$E1" --image "$T/w" --csv 2>/dev/null |
    awk -F, 'NR > 1 && $NF ~ /w$/ { print $(NF - 1); exit }')
echo "hottest function: afdo $top, prof $ptop"
[ "$top" = mix ] && [ "$ptop" = mix ] || fail "hottest: afdo '$top', prof '$ptop', expected mix: $(cat "$T/w.afdo")"

# Offsets are lines less the function's first (DW_AT_decl_line).
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
MIX=$(line_of '^mix(') STEP=$(line_of '^step(')
CALL=$(( $(line_of 'x = step(') - MIX )) ICALL=$(( $(line_of 'x = kernels\[') - MIX ))
grep -q "^ $CALL: step:[0-9]" "$T/w.afdo" ||
	fail "no inlined step at offset $CALL of mix: $(cat "$T/w.afdo")"

# The hottest line of the profile against list's hottest instruction.
set -- $(awk -v step="$STEP" '
	/^[^ ]/ { fn = $1; sub(/:.*/, "", fn); next }
	/^  [0-9]/ && $2 ~ /^[0-9]+$/ { split($1, k, /[.:]/); if ($2 > best) { best = $2; off = k[1] } }
	END { print best, step + off }' "$T/w.afdo")
acount=$1 aline=$2
ctl list --epoch "$E1" --image "$T/w" mix >"$T/list" 2>/dev/null || fail "list mix failed"
set -- $(awk '
	/^[^ ].*:[0-9]+ / { split($1, f, ":"); line = f[2]; next }
	/^ +[0-9]+ +[0-9.]+ [0-9a-f]+ / { if ($1 + 0 > best) { best = $1 + 0; bl = line } }
	END { print best, bl }' "$T/list")
echo "hottest line: afdo $acount samples at line $aline, list $1 at line $2"
[ "$acount" = "$1" ] && [ "$aline" = "$2" ] ||
	fail "afdo's hottest line ($acount at $aline) is not list's ($1 at $2): $(cat "$T/list")"

# Call targets of the indirect call: kernel_a has 3 of the 4 slots.
tl=$(grep "^ $ICALL: " "$T/w.afdo")
ka=$(echo "$tl" | tr ' ' '\n' | sed -n 's/^kernel_a://p')
kb=$(echo "$tl" | tr ' ' '\n' | sed -n 's/^kernel_b://p')
echo "call targets at offset $ICALL: kernel_a ${ka:-none}, kernel_b ${kb:-none}"
[ -n "$ka" ] && [ -n "$kb" ] && [ "$kb" -gt 0 ] || fail "no call targets at $ICALL: $(cat "$T/w.afdo")"
[ $((ka * 2)) -ge $((kb * 3)) ] && [ "$ka" -le $((kb * 6)) ] ||
	fail "kernel_a $ka, kernel_b $kb: expected about 3:1"

# The compiler takes it as it is, without a word.
clang $CFL -fprofile-sample-use="$T/w.afdo" -o "$T/w2" "$SRC" 2>"$T/cc.err" ||
	fail "clang -fprofile-sample-use failed: $(cat "$T/cc.err")"
[ ! -s "$T/cc.err" ] || fail "clang warned: $(cat "$T/cc.err")"

# C++: the names are the linkage names, mangled, as the ELF symbols are
# and clang looks them up (std::sort's and std::map's templates, the
# static functions' _ZL...).
ctl export --format=afdo --epoch "$E1" --image "$T/cxx" -o "$T/cxx.afdo" 2>"$T/err" ||
	fail "export afdo of cxxchain failed: $(cat "$T/err")"
llvm-profdata show --sample "$T/cxx.afdo" >/dev/null 2>&1 || fail "llvm-profdata refuses cxxchain's profile"
nm "$T/cxx" | awk '{ print $NF }' | sort -u >"$T/cxx.syms"
sed -n 's/^\([^ ][^:]*\):.*/\1/p' "$T/cxx.afdo" | sort -u >"$T/cxx.fns"
nz=$(grep -c '^_Z' "$T/cxx.fns")
echo "cxxchain: $(wc -l <"$T/cxx.fns") functions, $nz mangled: $(head -3 "$T/cxx.fns" | tr '\n' ' ')"
[ "$nz" -ge 3 ] || fail "fewer than 3 mangled names: $(cat "$T/cxx.fns")"
missing=$(comm -23 "$T/cxx.fns" "$T/cxx.syms")
[ -z "$missing" ] || fail "names that are no symbol of cxxchain: $missing"
clang++ $CFL -fprofile-sample-use="$T/cxx.afdo" -o "$T/cxx2" "$CXXSRC" 2>"$T/cc.err" ||
	fail "clang++ -fprofile-sample-use failed: $(cat "$T/cc.err")"
[ ! -s "$T/cc.err" ] || fail "clang++ warned: $(cat "$T/cc.err")"

# Bad input: a message, exit non-zero, nothing written.
bad() {
	what=$1; want=$2; shift 2
	ctl export --format=afdo "$@" -o "$T/bad.afdo" 2>"$T/err" && fail "$what: export succeeded"
	[ ! -e "$T/bad.afdo" ] || fail "$what: $T/bad.afdo written"
	grep -q -- "$want" "$T/err" || fail "$what: message '$(cat "$T/err")', expected '$want'"
	echo "$what: $(cat "$T/err")"
}
ID=$(readelf -n "$T/nodw" | awk '/Build ID/ { print $3 }')
bad "no DWARF" "/usr/lib/debug/.build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-).debug" \
    --epoch "$E1" --image "$T/nodw"
bad "epoch without the image" "unknown image" --epoch "$E2" --image "$T/w"
bad "several images" "choose it" --epoch "$E1"
# Another build over the profiled one, and the database's copy of it gone.
clang -O1 -g -o "$T/w" "$SRC" || fail "cannot rebuild"
rm -rf "$DB/buildid"
bad "stale binary" "stale binary" --epoch "$E1" --image "$T/w"
exit 0
