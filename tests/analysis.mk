# tests: analysis (symbolization, dataset, prof/list/diff/epochs/gc)
if ENABLE_TESTS
check_PROGRAMS += tests/test_symbol tests/test_analysis
TESTS += tests/test_symbol tests/test_analysis
tests_test_symbol_SOURCES = tests/test_symbol.c tests/analysis_util.h
tests_test_symbol_CFLAGS = $(TESTS_CFLAGS) -g -O1
tests_test_symbol_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_symbol_LDADD = lib/libdcpi.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS)
tests_test_analysis_SOURCES = tests/test_analysis.c tests/analysis_util.h
tests_test_analysis_CFLAGS = $(TESTS_CFLAGS) -g -O1
tests_test_analysis_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_analysis_LDADD = ctl/libdcpictl.la lib/libdcpi.la lib/libdcpiutil.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS)
endif
TESTS += tests/integration/test_prof.sh tests/integration/test_gc_config.sh \
	tests/integration/test_buildid_cache.sh
EXTRA_DIST += tests/integration/test_prof.sh tests/integration/test_gc_config.sh tests/workload/other.c \
	tests/integration/test_buildid_cache.sh
# The symbol table readers (ELF, kallsyms) on the fuzz corpus.
if ENABLE_TESTS
check_PROGRAMS += tests/fuzz/fuzz_symbol_corpus
TESTS += tests/fuzz/fuzz_symbol_corpus
tests_fuzz_fuzz_symbol_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_symbol.c
tests_fuzz_fuzz_symbol_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/symbol"'
tests_fuzz_fuzz_symbol_corpus_LDADD = lib/libdcpi.la
endif
EXTRA_DIST += tests/fuzz/fuzz_symbol.c
