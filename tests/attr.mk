# tests: attr, linking the daemon's library (only the attribution's objects
# and what they need come in).
check_PROGRAMS += tests/test_attr
TESTS += tests/test_attr
tests_test_attr_SOURCES = tests/test_attr.c
tests_test_attr_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_attr_CFLAGS = $(TESTS_CFLAGS)
tests_test_attr_LDADD = daemon/libdcpid.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS) -ldl

# The ELF image reader and note parser on the fuzz corpus (tests/fuzz/run.sh
# fuzzes them with libFuzzer).
check_PROGRAMS += tests/fuzz/fuzz_image_corpus
TESTS += tests/fuzz/fuzz_image_corpus
tests_fuzz_fuzz_image_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_image.c
tests_fuzz_fuzz_image_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/image"'
tests_fuzz_fuzz_image_corpus_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
tests_fuzz_fuzz_image_corpus_LDADD = daemon/libdcpid.la $(ELF_LIBS) $(DW_LIBS)
EXTRA_DIST += tests/fuzz/fuzz_image.c

# The build-id cache's queue and writer.
check_PROGRAMS += tests/test_cache
TESTS += tests/test_cache
tests_test_cache_SOURCES = tests/test_cache.c
tests_test_cache_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_cache_CFLAGS = $(TESTS_CFLAGS)
tests_test_cache_LDADD = daemon/libdcpid.la $(TESTS_LIBS) $(ELF_LIBS)
