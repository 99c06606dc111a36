# tests: export (other tools' formats)
if ENABLE_TESTS
check_PROGRAMS += tests/test_export
TESTS += tests/test_export
tests_test_export_SOURCES = tests/test_export.c
tests_test_export_CFLAGS = $(TESTS_CFLAGS)
tests_test_export_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
