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

# The slowest test first (a package build and a boot), so that the others
# run beside it under make -j.
TESTS += tests/integration/test_service_boot.sh
EXTRA_DIST += tests/integration/test_service_boot.sh
# Its debootstrapped tree, kept between runs.
clean-local: clean-boot-cache
clean-boot-cache:
	rm -rf tests/boot-cache
.PHONY: clean-boot-cache

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

# The cmocka unit tests and fuzz corpora only: what a package build can run
# (debian/rules), where perf_event_open and daemons are not allowed.
check-unit:
	@unit=; for t in $(TESTS); do case $$t in *.sh) ;; *) unit="$$unit $$t" ;; esac; done; \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$$unit"
.PHONY: check-unit
