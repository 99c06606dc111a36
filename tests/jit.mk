# tests: JIT code (perf maps, daemon/jit.c, node and Java under dcpid).
if ENABLE_TESTS
check_PROGRAMS += tests/test_perfmap
TESTS += tests/test_perfmap
tests_test_perfmap_SOURCES = tests/test_perfmap.c
tests_test_perfmap_CFLAGS = $(TESTS_CFLAGS)
tests_test_perfmap_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
# The perf map parser on the fuzz corpus (tests/fuzz/run.sh fuzzes it).
check_PROGRAMS += tests/fuzz/fuzz_perfmap_corpus
TESTS += tests/fuzz/fuzz_perfmap_corpus
tests_fuzz_fuzz_perfmap_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_perfmap.c
tests_fuzz_fuzz_perfmap_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/perfmap"'
tests_fuzz_fuzz_perfmap_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_perfmap.c
