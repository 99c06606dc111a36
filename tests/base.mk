# tests: lib/ helpers shared by the programs and libdcpi (hash table,
# FNV-1a, hex, clock, mkdir -p)
if ENABLE_TESTS
check_PROGRAMS += tests/test_htab
TESTS += tests/test_htab
tests_test_htab_SOURCES = tests/test_htab.c
tests_test_htab_CFLAGS = $(TESTS_CFLAGS)
tests_test_htab_LDADD = lib/libdcpibase.la $(TESTS_LIBS)
endif
