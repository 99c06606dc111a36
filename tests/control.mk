# tests: control (the protocol codec, the daemon's control server against a
# loop of the test's own, fuzzing of the decoder, dcpictl against dcpid).
if ENABLE_TESTS
check_PROGRAMS += tests/test_ctl tests/test_ctl_server tests/test_ctl_client
TESTS += tests/test_ctl tests/test_ctl_server tests/test_ctl_client
tests_test_ctl_SOURCES = tests/test_ctl.c
tests_test_ctl_CFLAGS = $(TESTS_CFLAGS)
tests_test_ctl_LDADD = lib/libdcpi.la $(TESTS_LIBS)
# The daemon's control server (control.c, ctlsock.c) from its library,
# with the test's own loop in place of loop.c's.
tests_test_ctl_server_SOURCES = tests/test_ctl_server.c
tests_test_ctl_server_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_ctl_server_CFLAGS = $(TESTS_CFLAGS) -pthread
tests_test_ctl_server_LDADD = daemon/libdcpid.la $(TESTS_LIBS) -lpthread
# dcpictl's control commands against a scripted daemon.
tests_test_ctl_client_SOURCES = tests/test_ctl_client.c ctl/control.c
tests_test_ctl_client_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_ctl_client_CFLAGS = $(TESTS_CFLAGS) -pthread
tests_test_ctl_client_LDADD = lib/libdcpi.la lib/libdcpiutil.la $(TESTS_LIBS) -lpthread
tests_test_ctl_client_LDFLAGS = -Wl,--wrap=connect
endif

check_PROGRAMS += tests/fuzz/fuzz_ctl_corpus
TESTS += tests/fuzz/fuzz_ctl_corpus
tests_fuzz_fuzz_ctl_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_ctl.c
tests_fuzz_fuzz_ctl_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/ctl"'
tests_fuzz_fuzz_ctl_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_ctl.c

# Raw bytes to a control socket, for test_control.sh.
check_PROGRAMS += tests/ctlraw
tests_ctlraw_SOURCES = tests/ctlraw.c
tests_ctlraw_LDADD = lib/libdcpi.la
TESTS += tests/integration/test_control.sh tests/integration/test_control_fair.sh
EXTRA_DIST += tests/integration/test_control.sh \
	tests/integration/test_control_fair.sh
