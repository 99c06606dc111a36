# tests: the idle task's samples apart, labels, the unattributed file
if ENABLE_TESTS
check_PROGRAMS += tests/test_idle
TESTS += tests/test_idle
tests_test_idle_SOURCES = tests/test_idle.c tests/analysis_util.h
tests_test_idle_CFLAGS = $(TESTS_CFLAGS) -g -O1
tests_test_idle_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_idle_LDADD = ctl/libdcpictl.la lib/libdcpi.la lib/libdcpiutil.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS)
endif
# The unattributed file's reader on the fuzz corpus.
check_PROGRAMS += tests/fuzz/fuzz_unattr_corpus
TESTS += tests/fuzz/fuzz_unattr_corpus
tests_fuzz_fuzz_unattr_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_unattr.c
tests_fuzz_fuzz_unattr_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/unattr"'
tests_fuzz_fuzz_unattr_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_unattr.c
TESTS += tests/integration/test_idle.sh
EXTRA_DIST += tests/integration/test_idle.sh
