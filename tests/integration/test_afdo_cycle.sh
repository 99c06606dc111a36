#!/bin/sh
# The AutoFDO cycle on a program nobody here wrote: stb_image's JPEG
# decoder (Debian's libstb-dev; tests/workload/stbdecode.c only loops over
# it) built with clang -O2 -g, run under dcpid, exported with dcpictl
# export --format=afdo, rebuilt with -fprofile-sample-use.  llvm-profdata
# must take the profile; its hottest function must be prof's and the
# decoder's known hot spot, stbi__jpeg_decode_block (Huffman decoding);
# clang must rebuild without a warning, and with its coverage checks at
# 90% name no function of 100 samples or more (one of which less than 90%
# of the samples find their line in the rebuilt code).  Speed is
# bench/afdo.sh's business, not this test's.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
for tool in clang llvm-profdata; do
	command -v $tool >/dev/null || fail "$tool is not installed (README's test packages: clang, llvm)"
done
[ -f /usr/include/stb/stb_image.h ] || fail "stb_image.h is not installed (README's test packages: libstb-dev)"

SRC=$top_srcdir/tests/workload/stbdecode.c
CFL="-O2 -g -fdebug-info-for-profiling"
clang $CFL -o "$T/stb" "$SRC" -lm || fail "cannot build stbdecode"
"$T/stb" make "$T/img.jpg" || fail "cannot write the benchmark's JPEG"

start_dcpid -e perf::cpu-clock
"$T/stb" "$T/img.jpg" 3 >"$T/out" || fail "stbdecode failed"
ctl flush >/dev/null || fail "flush failed"
stop_dcpid
echo "stbdecode: $(cat "$T/out")"

ctl export --format=afdo --image "$T/stb" -o "$T/stb.afdo" 2>"$T/err" ||
	fail "export afdo failed: $(cat "$T/err")"
llvm-profdata show --sample "$T/stb.afdo" >"$T/show" 2>&1 ||
	fail "llvm-profdata refuses the profile: $(cat "$T/show")"
top=$(sed -n '1s/:.*//p' "$T/stb.afdo")
ptop=$(ctl prof --image "$T/stb" --csv 2>/dev/null |
    awk -F, 'NR > 1 && $NF ~ /stb$/ { print $(NF - 1); exit }')
echo "hottest function: afdo $top ($(sed -n '1s/^[^:]*://p' "$T/stb.afdo")), prof $ptop;" \
    "$(grep -c '^[^ ]' "$T/stb.afdo") functions"
[ "$top" = stbi__jpeg_decode_block ] && [ "$ptop" = "$top" ] ||
	fail "hottest: afdo '$top', prof '$ptop', expected stbi__jpeg_decode_block"

clang $CFL -fprofile-sample-use="$T/stb.afdo" -o "$T/stb2" "$SRC" -lm 2>"$T/cc.err" ||
	fail "clang -fprofile-sample-use failed: $(cat "$T/cc.err")"
[ ! -s "$T/cc.err" ] || fail "clang warned: $(cat "$T/cc.err")"
clang $CFL -fprofile-sample-use="$T/stb.afdo" -mllvm -sample-profile-check-record-coverage=90 \
    -mllvm -sample-profile-check-sample-coverage=90 -o "$T/stb3" "$SRC" -lm 2>"$T/cc.err" ||
	fail "clang -fprofile-sample-use with coverage checks failed: $(cat "$T/cc.err")"
# A function of a few samples is noise: those of 100 or more must apply.
awk '/available profile samples/ { for (i = 1; i < NF; i++) if ($(i + 1) == "of") { x = $i; y = $(i + 2) }
    if (y >= 100) { print; bad = 1 } } END { exit bad }' "$T/cc.err" ||
	fail "clang's coverage checks: $(cat "$T/cc.err")"
"$T/stb2" "$T/img.jpg" 0.2 >/dev/null || fail "the rebuilt stbdecode failed"
exit 0
