#!/bin/sh
# Builds and runs every libFuzzer target: tests/fuzz/run.sh [SECONDS_PER_TARGET]
#
# The scheme, for whoever adds a target:
# - A target is tests/fuzz/fuzz_NAME.c defining LLVMFuzzerTestOneInput (no
#   main).  It must abort() on any wrong result, not only crash on memory
#   errors: the sanitizers catch those.
# - Its first lines declare what it is linked with, paths relative to the
#   source tree:
#     // fuzz-sources: lib/profile.c lib/file.c lib/internal.c
#     // fuzz-libs: -lelf            (optional: extra link flags)
#   It is compiled with clang -fsanitize=fuzzer,address,undefined, with
#   -I for the build directory (config.h), lib/ and ctl/.
# - Its corpus is tests/fuzz/corpus/NAME/ (in git): a few small valid
#   inputs and invalid ones.  Inputs the fuzzer finds go to a scratch
#   directory in the build tree, not into git; copy the interesting ones.
# - The same target doubles as a regression test without clang: link it
#   with tests/fuzz/driver.c as a check program defining FUZZ_CORPUS (see
#   tests/local.mk, fuzz_profile_corpus).
#
# Environment: top_srcdir, top_builddir (default: the tree holding this
# script, and .), CLANG (default clang), FUZZ_TARGETS (names to run, default
# all).  Exits 1 if a target fails to build or the fuzzer finds a crash,
# leak, timeout or abort; the reproducer is left in
# $top_builddir/tests/fuzz/out/crash-* and the log beside it.
set -u

seconds=${1:-60}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$(pwd)}"
: "${CLANG:=clang}"
out=$top_builddir/tests/fuzz/out
mkdir -p "$out" || exit 1
[ -f "$top_builddir/config.h" ] || { echo "run.sh: no config.h in $top_builddir (set top_builddir)" >&2; exit 1; }

status=0
for src in "$top_srcdir"/tests/fuzz/fuzz_*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	if [ -n "${FUZZ_TARGETS:-}" ]; then
		case " $FUZZ_TARGETS " in *" $name "*) ;; *) continue ;; esac
	fi
	srcs=$(sed -n 's,^// fuzz-sources:,,p' "$src")
	libs=$(sed -n 's,^// fuzz-libs:,,p' "$src")
	files=
	for s in $srcs; do files="$files $top_srcdir/$s"; done
	bin=$out/fuzz_$name
	# shellcheck disable=SC2086
	if ! "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -I"$top_builddir" -I"$top_srcdir/lib" -I"$top_srcdir/ctl" \
	    -o "$bin" "$src" $files $libs; then
		echo "FAIL: fuzz_$name: does not build" >&2
		status=1
		continue
	fi
	corpus=$top_srcdir/tests/fuzz/corpus/$name
	work=$out/corpus-$name
	rm -rf "$work" && mkdir -p "$work"
	echo "fuzz_$name: ${seconds}s from $corpus"
	if ! (cd "$out" && "$bin" -max_total_time="$seconds" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
	    ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -artifact_prefix="$out/" -print_final_stats=1 \
	    "$work" "$corpus" >"$out/fuzz_$name.log" 2>&1); then
		echo "FAIL: fuzz_$name: see $out/fuzz_$name.log" >&2
		grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$out/fuzz_$name.log" | head -n 20 >&2
		status=1
	else
		grep -E '^stat::number_of_executed_units|^Done' "$out/fuzz_$name.log"
	fi
done
exit $status
