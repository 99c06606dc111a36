# tests: attr.  Built from the attribution sources directly, so the test
# does not depend on the rest of the daemon.
check_PROGRAMS += tests/test_attr
TESTS += tests/test_attr
tests_test_attr_SOURCES = tests/test_attr.c daemon/attr.c daemon/image.c \
	daemon/kernel.c
tests_test_attr_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_attr_CFLAGS = $(TESTS_CFLAGS)
tests_test_attr_LDADD = lib/libdcpiutil.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS) -ldl
