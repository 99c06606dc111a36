#!/bin/sh
# The fuzz targets for a short while (250,000 inputs or 20 s each) under
# `make check`;
# skipped (77) where clang cannot build libFuzzer programs.  `make fuzz`
# runs them longer.
: "${top_srcdir:?}" "${top_builddir:?}"
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || { echo "SKIP: no $CLANG"; exit 77; }
t=$(mktemp -d "${TMPDIR:-/tmp}/fuzzcheck.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$t/t.c"
"$CLANG" -fsanitize=fuzzer,address,undefined -o "$t/t" "$t/t.c" >/dev/null 2>&1 ||
	{ echo "SKIP: $CLANG cannot build libFuzzer programs"; exit 77; }
# A fixed seed and number of runs make the check repeatable: a run that a
# slower machine cuts short by time explores a prefix of what a full run
# did, so `make check` fails only on a change of the code or the corpus.
# `make fuzz` explores anew every time.
export FUZZ_SEED="${FUZZ_SEED:-1}" FUZZ_RUNS="${FUZZ_RUNS:-250000}"
exec sh "$top_srcdir/tests/fuzz/run.sh" "${FUZZ_SECONDS:-20}"
