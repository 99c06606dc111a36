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
