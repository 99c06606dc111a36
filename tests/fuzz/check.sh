#!/bin/sh
# The fuzz targets for a short while (about 10 s each) under `make check`;
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
exec sh "$top_srcdir/tests/fuzz/run.sh" "${FUZZ_SECONDS:-10}"
