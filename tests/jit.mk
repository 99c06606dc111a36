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
TESTS += tests/integration/test_jit_node.sh
EXTRA_DIST += tests/integration/test_jit_node.sh tests/workload/jit_hot.js
TESTS += tests/integration/test_jit_jitdump.sh
EXTRA_DIST += tests/integration/test_jit_jitdump.sh
TESTS += tests/integration/test_jit_java.sh
EXTRA_DIST += tests/integration/test_jit_java.sh tests/workload/JitHot.java
# jit.c from the daemon's library, with the test's stubs in place of the
# aggregation, the cache, the images.
if ENABLE_TESTS
check_PROGRAMS += tests/test_jit
TESTS += tests/test_jit
tests_test_jit_SOURCES = tests/test_jit.c
tests_test_jit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_jit_CFLAGS = $(TESTS_CFLAGS)
tests_test_jit_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
endif
# jitdump files: the parser (lib/jitdump.c) and its fuzz corpus.
if ENABLE_TESTS
check_PROGRAMS += tests/test_jitdump
TESTS += tests/test_jitdump
tests_test_jitdump_SOURCES = tests/test_jitdump.c
tests_test_jitdump_CFLAGS = $(TESTS_CFLAGS)
tests_test_jitdump_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_jitdump_corpus
TESTS += tests/fuzz/fuzz_jitdump_corpus
tests_fuzz_fuzz_jitdump_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_jitdump.c
tests_fuzz_fuzz_jitdump_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/jitdump"'
tests_fuzz_fuzz_jitdump_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_jitdump.c
