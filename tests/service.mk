# tests: service (configuration file, systemd unit, man pages)
if ENABLE_TESTS
check_PROGRAMS += tests/test_config
TESTS += tests/test_config
tests_test_config_SOURCES = tests/test_config.c
tests_test_config_CFLAGS = $(TESTS_CFLAGS)
tests_test_config_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
endif
TESTS += tests/integration/test_man.sh
EXTRA_DIST += tests/integration/test_man.sh
TESTS += tests/integration/test_service.sh
EXTRA_DIST += tests/integration/test_service.sh
