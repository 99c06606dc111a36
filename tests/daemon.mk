# tests: daemon (sampling, ordering, aggregation, flush; integration tests
# against a live dcpid)
if ENABLE_TESTS
check_PROGRAMS += tests/test_daemon_core
TESTS += tests/test_daemon_core
tests_test_daemon_core_SOURCES = tests/test_daemon_core.c
tests_test_daemon_core_CFLAGS = $(TESTS_CFLAGS)
tests_test_daemon_core_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# Lost samples and throttling by CPU and time, through core.c to STATUS.
check_PROGRAMS += tests/test_daemon_lost
TESTS += tests/test_daemon_lost
tests_test_daemon_lost_SOURCES = tests/test_daemon_lost.c
tests_test_daemon_lost_CFLAGS = $(TESTS_CFLAGS)
tests_test_daemon_lost_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_daemon_lost_LDFLAGS = -Wl,--wrap=status_add
# The perf record layouts (daemon/record.c).
check_PROGRAMS += tests/test_record
TESTS += tests/test_record
tests_test_record_SOURCES = tests/test_record.c
tests_test_record_CFLAGS = $(TESTS_CFLAGS)
tests_test_record_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# perf.c's set-up with perf_event_open, mmap and ioctl replaced.
check_PROGRAMS += tests/test_perf
TESTS += tests/test_perf
tests_test_perf_SOURCES = tests/test_perf.c
tests_test_perf_CFLAGS = $(TESTS_CFLAGS)
tests_test_perf_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_perf_LDFLAGS = -Wl,--wrap=perf_sys_open -Wl,--wrap=perf_sys_mmap \
	-Wl,--wrap=perf_sys_munmap -Wl,--wrap=perf_sys_ioctl
# The event loop's timers.
check_PROGRAMS += tests/test_loop
TESTS += tests/test_loop
tests_test_loop_SOURCES = tests/test_loop.c
tests_test_loop_CFLAGS = $(TESTS_CFLAGS)
tests_test_loop_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# The flush into a database of the test's own, with the images and events
# the test's, and a failing write.
check_PROGRAMS += tests/test_flush
TESTS += tests/test_flush
tests_test_flush_SOURCES = tests/test_flush.c
tests_test_flush_CFLAGS = $(TESTS_CFLAGS)
tests_test_flush_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_flush_LDFLAGS = -Wl,--wrap=dcpi_atomic_writeat
endif

DAEMON_ITESTS = tests/integration/test_daemon_hot.sh \
	tests/integration/test_daemon_procs.sh \
	tests/integration/test_daemon_epoch.sh \
	tests/integration/test_daemon_stop.sh \
	tests/integration/test_daemon_flushfail.sh \
	tests/integration/test_daemon_status.sh \
	tests/integration/test_daemon_notify.sh \
	tests/integration/test_daemon_reload.sh \
	tests/integration/test_daemon_memcap.sh \
	tests/integration/test_daemon_events.sh
TESTS += $(DAEMON_ITESTS)
EXTRA_DIST += $(DAEMON_ITESTS) tests/integration/lib.sh tests/workload/hot.c \
	tests/workload/notify_listen.c tests/workload/faults.c

# Images on real machines: no build-id, chroots, mount namespaces, deleted
# files, the vdso, separate debug files.
IMAGE_ITESTS = tests/integration/test_images_nobid.sh \
	tests/integration/test_images_elsewhere.sh \
	tests/integration/test_images_vdso.sh \
	tests/integration/test_images_debuginfo.sh \
	tests/integration/test_images_onebad.sh
TESTS += $(IMAGE_ITESTS)
EXTRA_DIST += $(IMAGE_ITESTS) tests/workload/ctiny.c tests/workload/vdsoloop.c \
	tests/workload/gohot.go
