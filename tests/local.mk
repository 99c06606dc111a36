# Tests: cmocka unit tests (tests/test_*.c), integration tests that drive the
# real dcpid and dcpictl (tests/integration/*.sh), fuzz targets (tests/fuzz/).
# Integration tests exit 77 (skip) where perf_event_open is not permitted,
# unless DCPI_REQUIRE_PERF=1, which makes that a failure.
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	DCPID='$(abs_top_builddir)/daemon/dcpid' DCPICTL='$(abs_top_builddir)/ctl/dcpictl'; \
	export top_srcdir top_builddir DCPID DCPICTL;
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
TESTS_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
TESTS_LIBS = $(CMOCKA_LIBS)

include tests/base.mk
include tests/format.mk
include tests/daemon.mk
include tests/attr.mk
include tests/control.mk
include tests/service.mk
include tests/analysis.mk
include tests/export.mk
include tests/fault.mk
include tests/jit.mk
include tests/idle.mk
