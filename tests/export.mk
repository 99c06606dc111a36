# tests: export (other tools' formats)
if ENABLE_TESTS
check_PROGRAMS += tests/test_export
TESTS += tests/test_export
tests_test_export_SOURCES = tests/test_export.c
tests_test_export_CFLAGS = $(TESTS_CFLAGS)
tests_test_export_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif

# Against the real tools: google-pprof, gprof, callgrind_annotate (README's
# test packages); test_export_tools.sh needs perf and a running dcpid.
TESTS += tests/integration/test_export_tools.sh tests/integration/test_export_import.sh
EXTRA_DIST += tests/integration/test_export_tools.sh tests/integration/test_export_import.sh

# Fuzz targets of the four readers (tests/fuzz/run.sh); their corpora run
# as regression tests here.
check_PROGRAMS += tests/fuzz/fuzz_pprof_corpus tests/fuzz/fuzz_gmon_corpus \
	tests/fuzz/fuzz_callgrind_corpus tests/fuzz/fuzz_xprof_corpus
TESTS += tests/fuzz/fuzz_pprof_corpus tests/fuzz/fuzz_gmon_corpus \
	tests/fuzz/fuzz_callgrind_corpus tests/fuzz/fuzz_xprof_corpus
tests_fuzz_fuzz_pprof_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_pprof.c
tests_fuzz_fuzz_pprof_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/pprof"'
tests_fuzz_fuzz_pprof_corpus_LDADD = lib/libdcpi.la
tests_fuzz_fuzz_gmon_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_gmon.c
tests_fuzz_fuzz_gmon_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/gmon"'
tests_fuzz_fuzz_gmon_corpus_LDADD = lib/libdcpi.la
tests_fuzz_fuzz_callgrind_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_callgrind.c
tests_fuzz_fuzz_callgrind_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/callgrind"'
tests_fuzz_fuzz_callgrind_corpus_LDADD = lib/libdcpi.la
tests_fuzz_fuzz_xprof_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_xprof.c
tests_fuzz_fuzz_xprof_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/xprof"'
tests_fuzz_fuzz_xprof_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_pprof.c tests/fuzz/fuzz_gmon.c tests/fuzz/fuzz_callgrind.c \
	tests/fuzz/fuzz_xprof.c

# Hostile and large imported files (issue 18): control bytes, overflowing
# numbers, and the inputs that used to take quadratic time.
check_PROGRAMS += tests/mkhostile
tests_mkhostile_SOURCES = tests/mkhostile.c
TESTS += tests/integration/test_hostile_import.sh
EXTRA_DIST += tests/integration/test_hostile_import.sh
