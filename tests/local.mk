# Tests: cmocka unit tests (tests/test_*.c), integration tests that drive the
# real dcpid and dcpictl (tests/integration/*.sh), fuzz targets (tests/fuzz/).
# Integration tests exit 77 (skip) where perf_event_open is not permitted,
# unless DCPI_REQUIRE_PERF=1, which makes that a failure.
#
# Every program that links cmocka sits inside `if ENABLE_TESTS`, so that
# ./configure --disable-tests (no libcmocka-dev) still builds and runs the
# rest: the integration tests, the fuzz corpora and their helpers.
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	DCPID='$(abs_top_builddir)/daemon/dcpid' DCPICTL='$(abs_top_builddir)/ctl/dcpictl'; \
	export top_srcdir top_builddir DCPID DCPICTL;
TEST_EXTENSIONS = .sh
# One test's time limit, in seconds: a test held up (a hung mount, a stuck
# wait) fails with a report of its processes (lib.sh's on_term) instead of
# holding up the suite, and CI, for good.  timeout(1) sends TERM to the
# test's whole process group, then KILL a minute later.
DCPI_TEST_TIMEOUT = 1800
SH_LOG_COMPILER = timeout -k 60 $(DCPI_TEST_TIMEOUT) $(SHELL)
# The unit tests too (a test_fsio that failed once hung in fsio_fini).
LOG_COMPILER = timeout -k 60 $(DCPI_TEST_TIMEOUT)
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

# lib/ helpers shared by the programs and libdcpi (hash table, FNV-1a, hex,
# clock, mkdir -p).
if ENABLE_TESTS
check_PROGRAMS += tests/test_htab
TESTS += tests/test_htab
tests_test_htab_SOURCES = tests/test_htab.c tests/fsync_log.h
tests_test_htab_CFLAGS = $(TESTS_CFLAGS)
tests_test_htab_LDADD = lib/libdcpibase.la $(TESTS_LIBS)
tests_test_htab_LDFLAGS = -Wl,--wrap=fsync
endif

# Format: the profile format, the database layout, dcpictl cat, fuzzing.
if ENABLE_TESTS
check_PROGRAMS += tests/test_profile tests/test_db
TESTS += tests/test_profile tests/test_db
tests_test_profile_SOURCES = tests/test_profile.c
tests_test_profile_CFLAGS = $(TESTS_CFLAGS) -DGOLDEN_DIR='"$(abs_top_srcdir)/tests/golden"'
tests_test_profile_LDADD = lib/libdcpi.la $(TESTS_LIBS)
tests_test_db_SOURCES = tests/test_db.c tests/fsync_log.h
tests_test_db_CFLAGS = $(TESTS_CFLAGS)
tests_test_db_LDADD = lib/libdcpi.la $(TESTS_LIBS)

# Image identity against binutils: one program with a build-id, one without
# (test_image's alone, so they go with it).
check_PROGRAMS += tests/test_image tests/image_bid tests/image_nobid
TESTS += tests/test_image
tests_test_image_SOURCES = tests/test_image.c
tests_test_image_CFLAGS = $(TESTS_CFLAGS) \
	-DIMAGE_BID='"$(abs_top_builddir)/tests/image_bid"' \
	-DIMAGE_NOBID='"$(abs_top_builddir)/tests/image_nobid"'
tests_test_image_LDADD = lib/libdcpi.la $(TESTS_LIBS)
tests_image_bid_SOURCES = tests/image_sample.c
tests_image_bid_LDFLAGS = $(AM_LDFLAGS) -Wl,--build-id=sha1
tests_image_nobid_SOURCES = tests/image_sample.c
tests_image_nobid_LDFLAGS = $(AM_LDFLAGS) -Wl,--build-id=none
endif

# A profile written by the library, for test_cat.sh.
check_PROGRAMS += tests/mkprofile
tests_mkprofile_SOURCES = tests/mkprofile.c
tests_mkprofile_LDADD = lib/libdcpi.la
TESTS += tests/integration/test_cat.sh
EXTRA_DIST += tests/integration/test_cat.sh tests/golden/gen.sh \
	tests/golden/unknown.prof tests/golden/unknown.cat \
	tests/golden/epoch10.prof tests/golden/epoch10.cat \
	tests/golden/empty.prof tests/golden/empty.cat \
	tests/golden/blanks.prof tests/golden/blanks.cat \
	tests/golden/bad-overlap.prof tests/golden/bad-noterm.prof

# Fuzzing (tests/fuzz/run.sh explains the scheme).  The corpus of each
# target runs as a plain regression test; check.sh fuzzes briefly when
# clang is there; `make fuzz FUZZ_SECONDS=N` fuzzes each target N seconds.
check_PROGRAMS += tests/fuzz/fuzz_profile_corpus
TESTS += tests/fuzz/fuzz_profile_corpus tests/fuzz/check.sh
tests_fuzz_fuzz_profile_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_profile.c
tests_fuzz_fuzz_profile_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/profile"'
tests_fuzz_fuzz_profile_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/check.sh tests/fuzz/driver.c \
	tests/fuzz/fuzz_profile.c tests/fuzz/fuzz_files.h tests/fuzz/corpus
FUZZ_SECONDS = 60
fuzz:
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	$(SHELL) '$(abs_top_srcdir)/tests/fuzz/run.sh' $(FUZZ_SECONDS)
.PHONY: fuzz
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf tests/fuzz/out
.PHONY: clean-fuzz

# Daemon: sampling, ordering, aggregation, flush (unit tests on
# daemon/libdcpid.la; integration tests against a live dcpid).
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
# The drain of the in-kernel counts, over slots in the test's memory.
check_PROGRAMS += tests/test_bpfagg
TESTS += tests/test_bpfagg
tests_test_bpfagg_SOURCES = tests/test_bpfagg.c
tests_test_bpfagg_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_bpfagg_CFLAGS = $(TESTS_CFLAGS) $(BPF_CFLAGS)
tests_test_bpfagg_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# Sampling's set-up (daemon/perf*.c) with perf_event_open, mmap and
# ioctl replaced; its zero-copy reading through core.c, with attr_sample, proc_exit and
# order_push replaced.
check_PROGRAMS += tests/test_perf
TESTS += tests/test_perf
tests_test_perf_SOURCES = tests/test_perf.c
tests_test_perf_CFLAGS = $(TESTS_CFLAGS)
tests_test_perf_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_perf_LDFLAGS = -Wl,--wrap=perf_sys_open -Wl,--wrap=perf_sys_mmap \
	-Wl,--wrap=perf_sys_munmap -Wl,--wrap=perf_sys_ioctl \
	-Wl,--wrap=perf_sys_read -Wl,--wrap=perf_sys_cpus \
	-Wl,--wrap=attr_sample -Wl,--wrap=proc_exit -Wl,--wrap=order_push
# The event loop's timers.
check_PROGRAMS += tests/test_loop
TESTS += tests/test_loop
tests_test_loop_SOURCES = tests/test_loop.c
tests_test_loop_CFLAGS = $(TESTS_CFLAGS)
tests_test_loop_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# The process table and the order of the process records' hooks.
check_PROGRAMS += tests/test_proc
TESTS += tests/test_proc
tests_test_proc_SOURCES = tests/test_proc.c
tests_test_proc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_proc_CFLAGS = $(TESTS_CFLAGS)
tests_test_proc_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# The flush into a database of the test's own, with the images and events
# the test's, and a failing write.
check_PROGRAMS += tests/test_stack
TESTS += tests/test_stack
tests_test_stack_SOURCES = tests/test_stack.c
tests_test_stack_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_stack_CFLAGS = $(TESTS_CFLAGS)
tests_test_stack_LDADD = daemon/libdcpid.la $(TESTS_LIBS)

check_PROGRAMS += tests/test_label
TESTS += tests/test_label
tests_test_label_SOURCES = tests/test_label.c
tests_test_label_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_label_CFLAGS = $(TESTS_CFLAGS)
tests_test_label_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_label_LDFLAGS = -Wl,--wrap=cgroup_read_pid

check_PROGRAMS += tests/test_flush
TESTS += tests/test_flush
tests_test_flush_SOURCES = tests/test_flush.c
tests_test_flush_CFLAGS = $(TESTS_CFLAGS)
tests_test_flush_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_flush_LDFLAGS = -Wl,--wrap=dcpi_atomic_writeat \
	-Wl,--wrap=dcpi_atomic_writeat_flags -Wl,--wrap=fsync
endif

DAEMON_ITESTS = tests/integration/test_daemon_hot.sh \
	tests/integration/test_daemon_procs.sh \
	tests/integration/test_daemon_epoch.sh \
	tests/integration/test_daemon_stop.sh \
	tests/integration/test_daemon_flushfail.sh \
	tests/integration/test_daemon_status.sh \
	tests/integration/test_daemon_nofile.sh \
	tests/integration/test_daemon_notify.sh \
	tests/integration/test_daemon_reload.sh \
	tests/integration/test_daemon_memcap.sh \
	tests/integration/test_daemon_events.sh \
	tests/integration/test_labels.sh \
	tests/integration/test_label_run.sh \
	tests/integration/test_callchain.sh \
	tests/integration/test_callchain_go.sh \
	tests/integration/test_callchain_dwarf.sh \
	tests/integration/test_callchain_dwarf_progs.sh
TESTS += $(DAEMON_ITESTS)
EXTRA_DIST += $(DAEMON_ITESTS) tests/integration/lib.sh tests/workload/hot.c \
	tests/workload/notify_listen.c tests/workload/faults.c tests/workload/cgstorm.c \
	tests/workload/slowio.c tests/workload/churn.c tests/workload/manymaps.c \
	tests/workload/hangfs.c \
	tests/workload/chain.c tests/workload/gochain.go tests/workload/nofp.c \
	tests/workload/cxxchain.cc
# Call chains of stripped images, of .debug_frame (in the file, in debug
# files), and from the build-id cache's copy of an image whose file is gone.
TESTS += tests/integration/test_callchain_dwarf_files.sh
EXTRA_DIST += tests/integration/test_callchain_dwarf_files.sh

# Images on real machines: no build-id, chroots, mount namespaces, deleted
# files, the vdso, separate debug files, stripped files' functions named
# from their frame information, programs run from a memfd, names
# holding newlines, files that root may not open; images freed once
# unused.
IMAGE_ITESTS = tests/integration/test_images_nobid.sh \
	tests/integration/test_images_elsewhere.sh \
	tests/integration/test_images_vdso.sh \
	tests/integration/test_images_debuginfo.sh \
	tests/integration/test_images_stripped.sh \
	tests/integration/test_images_onebad.sh \
	tests/integration/test_images_memfd.sh \
	tests/integration/test_images_names.sh \
	tests/integration/test_images_refused.sh \
	tests/integration/test_images_reclaim.sh
TESTS += $(IMAGE_ITESTS)
EXTRA_DIST += $(IMAGE_ITESTS) tests/workload/ctiny.c tests/workload/vdsoloop.c \
	tests/workload/memfdexec.c \
	tests/workload/gohot.go

# In-kernel aggregation (aggregate = bpf, not the default): the BPF path
# against the ring's on one workload, and the attribution tests again
# with every sample it can key counted in the kernel.
AGG_ITESTS = tests/integration/test_aggregate_bpf.sh \
	tests/integration/test_aggregate_bpf_attr.sh
TESTS += $(AGG_ITESTS)
EXTRA_DIST += $(AGG_ITESTS)
# Call chains walked in the kernel (aggregate = bpf with -g), checked
# sample by sample against dcpid's walks; the fallback to the ring.
TESTS += tests/integration/test_callchain_bpf.sh
EXTRA_DIST += tests/integration/test_callchain_bpf.sh

# Attribution, linking the daemon's library (only the attribution's objects
# and what they need come in).
if ENABLE_TESTS
check_PROGRAMS += tests/test_fsio
TESTS += tests/test_fsio
tests_test_fsio_SOURCES = tests/test_fsio.c
tests_test_fsio_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_fsio_CFLAGS = $(TESTS_CFLAGS)
tests_test_fsio_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
tests_test_fsio_LDFLAGS = -Wl,--wrap=pthread_create

check_PROGRAMS += tests/test_attr
TESTS += tests/test_attr
tests_test_attr_SOURCES = tests/test_attr.c
tests_test_attr_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_attr_CFLAGS = $(TESTS_CFLAGS)
tests_test_attr_LDADD = daemon/libdcpid.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS) -ldl
endif

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
if ENABLE_TESTS
check_PROGRAMS += tests/test_cache
TESTS += tests/test_cache
tests_test_cache_SOURCES = tests/test_cache.c
tests_test_cache_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_cache_CFLAGS = $(TESTS_CFLAGS)
tests_test_cache_LDADD = daemon/libdcpid.la $(TESTS_LIBS) $(ELF_LIBS)
tests_test_cache_LDFLAGS = -Wl,--wrap=fsync
endif

# Control: the protocol codec, the daemon's control server against a loop
# of the test's own, fuzzing of the decoder, dcpictl against dcpid.
if ENABLE_TESTS
check_PROGRAMS += tests/test_ctl tests/test_ctl_server tests/test_ctl_client
TESTS += tests/test_ctl tests/test_ctl_server tests/test_ctl_client
tests_test_ctl_SOURCES = tests/test_ctl.c
tests_test_ctl_CFLAGS = $(TESTS_CFLAGS)
tests_test_ctl_LDADD = lib/libdcpi.la $(TESTS_LIBS)
# The daemon's control server (control.c, ctlsock.c) from its library,
# run by the daemon's own loop (loop.c).
tests_test_ctl_server_SOURCES = tests/test_ctl_server.c
tests_test_ctl_server_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_ctl_server_CFLAGS = $(TESTS_CFLAGS) -pthread
tests_test_ctl_server_LDADD = daemon/libdcpid.la $(TESTS_LIBS) -lpthread
# dcpictl's control commands (label's too) against a scripted daemon.
tests_test_ctl_client_SOURCES = tests/test_ctl_client.c ctl/client.c ctl/labelcmd.c
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

# Service: the configuration file, the systemd unit, the man pages.
if ENABLE_TESTS
check_PROGRAMS += tests/test_config
TESTS += tests/test_config
tests_test_config_SOURCES = tests/test_config.c
tests_test_config_CFLAGS = $(TESTS_CFLAGS)
tests_test_config_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
endif
# The configuration file's reader on the fuzz corpus.
check_PROGRAMS += tests/fuzz/fuzz_conf_corpus
TESTS += tests/fuzz/fuzz_conf_corpus
tests_fuzz_fuzz_conf_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_conf.c
tests_fuzz_fuzz_conf_corpus_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/conf"'
tests_fuzz_fuzz_conf_corpus_LDADD = lib/libdcpiutil.la lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_conf.c
# The perf records' readers (daemon/record.c) on the fuzz corpus.
check_PROGRAMS += tests/fuzz/fuzz_record_corpus
TESTS += tests/fuzz/fuzz_record_corpus
tests_fuzz_fuzz_record_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_record.c
tests_fuzz_fuzz_record_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/record"'
tests_fuzz_fuzz_record_corpus_LDADD = daemon/libdcpid.la
EXTRA_DIST += tests/fuzz/fuzz_record.c
TESTS += tests/integration/test_man.sh
EXTRA_DIST += tests/integration/test_man.sh
TESTS += tests/integration/test_service.sh
EXTRA_DIST += tests/integration/test_service.sh

# Analysis: symbolization, the dataset, prof/list/diff/epochs/gc.
if ENABLE_TESTS
check_PROGRAMS += tests/test_symbol tests/test_analysis
TESTS += tests/test_symbol tests/test_analysis
tests_test_symbol_SOURCES = tests/test_symbol.c tests/analysis_util.h
tests_test_symbol_CFLAGS = $(TESTS_CFLAGS) -g -O1
tests_test_symbol_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_symbol_LDADD = lib/libdcpi.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS)
tests_test_analysis_SOURCES = tests/test_analysis.c tests/analysis_util.h
tests_test_analysis_CFLAGS = $(TESTS_CFLAGS) $(CAPSTONE_CFLAGS) -g -O1
tests_test_analysis_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_analysis_LDADD = ctl/libdcpictl.la lib/libdcpi.la lib/libdcpiutil.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS) $(CAPSTONE_LIBS)
endif
TESTS += tests/integration/test_prof.sh tests/integration/test_gc_config.sh \
	tests/integration/test_buildid_cache.sh tests/integration/test_kallsyms_once.sh
EXTRA_DIST += tests/integration/test_prof.sh tests/integration/test_gc_config.sh tests/workload/other.c \
	tests/integration/test_buildid_cache.sh tests/integration/test_kallsyms_once.sh
# Kernel symbol snapshots kept once per kernel: the store, the reference,
# the reader (lib/dcpi/kallsyms.h), and its fuzz target.
if ENABLE_TESTS
check_PROGRAMS += tests/test_kallsyms
TESTS += tests/test_kallsyms
tests_test_kallsyms_SOURCES = tests/test_kallsyms.c
tests_test_kallsyms_CFLAGS = $(TESTS_CFLAGS)
tests_test_kallsyms_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_kallsyms_corpus
TESTS += tests/fuzz/fuzz_kallsyms_corpus
tests_fuzz_fuzz_kallsyms_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_kallsyms.c
tests_fuzz_fuzz_kallsyms_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/kallsyms"'
tests_fuzz_fuzz_kallsyms_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_kallsyms.c

# Packed epochs: the format, dcpi_db_compress, the readers through packs
# (lib/dcpi/pack.h), its fuzz target, and dcpictl compress on a live
# dcpid's epochs.
if ENABLE_TESTS
check_PROGRAMS += tests/test_pack
TESTS += tests/test_pack
tests_test_pack_SOURCES = tests/test_pack.c
tests_test_pack_CFLAGS = $(TESTS_CFLAGS)
tests_test_pack_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_pack_corpus
TESTS += tests/fuzz/fuzz_pack_corpus
tests_fuzz_fuzz_pack_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_pack.c
tests_fuzz_fuzz_pack_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/pack"'
tests_fuzz_fuzz_pack_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_pack.c
TESTS += tests/integration/test_epoch_compress.sh
EXTRA_DIST += tests/integration/test_epoch_compress.sh

# The symbol table readers (ELF, kallsyms) on the fuzz corpus.
check_PROGRAMS += tests/fuzz/fuzz_symbol_corpus
TESTS += tests/fuzz/fuzz_symbol_corpus
tests_fuzz_fuzz_symbol_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_symbol.c
tests_fuzz_fuzz_symbol_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/symbol"'
tests_fuzz_fuzz_symbol_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_symbol.c

# Export: other tools' formats.
if ENABLE_TESTS
check_PROGRAMS += tests/test_export
TESTS += tests/test_export
tests_test_export_SOURCES = tests/test_export.c tests/export_util.h
tests_test_export_CFLAGS = $(TESTS_CFLAGS)
tests_test_export_LDADD = lib/libdcpi.la $(TESTS_LIBS)
# pprof's profile.proto: the test inflates it (zlib) and reads it back.
check_PROGRAMS += tests/test_export_proto
TESTS += tests/test_export_proto
tests_test_export_proto_SOURCES = tests/test_export_proto.c tests/export_util.h
tests_test_export_proto_CFLAGS = $(TESTS_CFLAGS) $(ZLIB_CFLAGS)
tests_test_export_proto_LDADD = lib/libdcpi.la $(TESTS_LIBS) $(ZLIB_LIBS)
endif

# Against the real tools: google-pprof, gprof, callgrind_annotate (README's
# test packages); test_export_tools.sh needs perf and a running dcpid.
TESTS += tests/integration/test_export_tools.sh tests/integration/test_export_import.sh
EXTRA_DIST += tests/integration/test_export_tools.sh tests/integration/test_export_import.sh

# Fuzz targets of the four readers (tests/fuzz/run.sh); their corpora run
# as regression tests here.
check_PROGRAMS += tests/fuzz/fuzz_pprof_corpus tests/fuzz/fuzz_gmon_corpus \
	tests/fuzz/fuzz_callgrind_corpus tests/fuzz/fuzz_xprof_corpus
TESTS += tests/fuzz/fuzz_pprof_corpus tests/fuzz/fuzz_gmon_corpus \
	tests/fuzz/fuzz_callgrind_corpus tests/fuzz/fuzz_xprof_corpus
tests_fuzz_fuzz_pprof_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_pprof.c
tests_fuzz_fuzz_pprof_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/pprof"'
tests_fuzz_fuzz_pprof_corpus_LDADD = lib/libdcpi.la
tests_fuzz_fuzz_gmon_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_gmon.c
tests_fuzz_fuzz_gmon_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/gmon"'
tests_fuzz_fuzz_gmon_corpus_LDADD = lib/libdcpi.la
tests_fuzz_fuzz_callgrind_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_callgrind.c
tests_fuzz_fuzz_callgrind_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/callgrind"'
tests_fuzz_fuzz_callgrind_corpus_LDADD = lib/libdcpi.la
tests_fuzz_fuzz_xprof_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_xprof.c
tests_fuzz_fuzz_xprof_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/xprof"'
tests_fuzz_fuzz_xprof_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_pprof.c tests/fuzz/fuzz_gmon.c tests/fuzz/fuzz_callgrind.c \
	tests/fuzz/fuzz_xprof.c

# Hostile and large imported files: control bytes, overflowing numbers,
# and inputs that take quadratic time in a naive reader.
check_PROGRAMS += tests/mkhostile
tests_mkhostile_SOURCES = tests/mkhostile.c
TESTS += tests/integration/test_hostile_import.sh
EXTRA_DIST += tests/integration/test_hostile_import.sh

# Fault tests: kill -9 during flushes, a full
# disk, the database removed or read-only, process storms and churn.  A
# second dcpid on the same database is test_daemon_status.sh's.
FAULT_ITESTS = tests/integration/test_fault_kill.sh \
	tests/integration/test_fault_enospc.sh \
	tests/integration/test_fault_dbdir.sh \
	tests/integration/test_fault_storm.sh \
	tests/integration/test_fault_jitmaps.sh \
	tests/integration/test_fault_churn.sh \
	tests/integration/test_fault_slowflush.sh \
	tests/integration/test_fault_slowscan.sh \
	tests/integration/test_fault_tempfiles.sh \
	tests/integration/test_fault_dblock.sh
TESTS += $(FAULT_ITESTS)
EXTRA_DIST += $(FAULT_ITESTS)

# Hostile neighbours: links, modes and special files in the
# database and among dcpictl's inputs.
HOSTILE_ITESTS = tests/integration/test_fault_dbsymlink.sh \
	tests/integration/test_fault_dbperm.sh \
	tests/integration/test_fault_special.sh
TESTS += $(HOSTILE_ITESTS)
EXTRA_DIST += $(HOSTILE_ITESTS)

# JIT code: perf maps, daemon/jit.c, jitdump files, node and Java under
# dcpid.
if ENABLE_TESTS
check_PROGRAMS += tests/test_perfmap
TESTS += tests/test_perfmap
tests_test_perfmap_SOURCES = tests/test_perfmap.c
tests_test_perfmap_CFLAGS = $(TESTS_CFLAGS)
tests_test_perfmap_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
# The perf map parser on the fuzz corpus (tests/fuzz/run.sh fuzzes it).
check_PROGRAMS += tests/fuzz/fuzz_perfmap_corpus
TESTS += tests/fuzz/fuzz_perfmap_corpus
tests_fuzz_fuzz_perfmap_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_perfmap.c
tests_fuzz_fuzz_perfmap_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/perfmap"'
tests_fuzz_fuzz_perfmap_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_perfmap.c
TESTS += tests/integration/test_jit_node.sh
EXTRA_DIST += tests/integration/test_jit_node.sh tests/workload/jit_hot.js
TESTS += tests/integration/test_jit_jitdump.sh
EXTRA_DIST += tests/integration/test_jit_jitdump.sh
# Maps, dumps and programs a hostile user points at root's files.
TESTS += tests/integration/test_jit_hostile.sh tests/integration/test_names_c1.sh
EXTRA_DIST += tests/integration/test_jit_hostile.sh tests/integration/test_names_c1.sh \
	tests/workload/jitdumper.c
TESTS += tests/integration/test_jit_java.sh
EXTRA_DIST += tests/integration/test_jit_java.sh tests/workload/JitHot.java
# What an unprivileged user's JIT can make dcpid hold; maps read at exit.
TESTS += tests/integration/test_jit_bounds.sh tests/integration/test_jit_exitmap.sh
EXTRA_DIST += tests/integration/test_jit_bounds.sh tests/integration/test_jit_exitmap.sh \
	tests/workload/jitmap.c
if ENABLE_TESTS
# jit.c from the daemon's library, with the test's stubs in place of the
# aggregation, the cache, the images.
check_PROGRAMS += tests/test_jit
TESTS += tests/test_jit
tests_test_jit_SOURCES = tests/test_jit.c
tests_test_jit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_jit_CFLAGS = $(TESTS_CFLAGS)
tests_test_jit_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
# The jitdump parser (lib/jitdump.c).
check_PROGRAMS += tests/test_jitdump
TESTS += tests/test_jitdump
tests_test_jitdump_SOURCES = tests/test_jitdump.c
tests_test_jitdump_CFLAGS = $(TESTS_CFLAGS)
tests_test_jitdump_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_jitdump_corpus
TESTS += tests/fuzz/fuzz_jitdump_corpus
tests_fuzz_fuzz_jitdump_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_jitdump.c
tests_fuzz_fuzz_jitdump_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/jitdump"'
tests_fuzz_fuzz_jitdump_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_jitdump.c

# Idle: the idle task's samples apart, labels, the unattributed file.
if ENABLE_TESTS
check_PROGRAMS += tests/test_idle
TESTS += tests/test_idle
tests_test_idle_SOURCES = tests/test_idle.c tests/analysis_util.h
tests_test_idle_CFLAGS = $(TESTS_CFLAGS) -g -O1
tests_test_idle_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_idle_LDADD = ctl/libdcpictl.la lib/libdcpi.la lib/libdcpiutil.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS)
endif
# The unattributed file's reader on the fuzz corpus.
check_PROGRAMS += tests/fuzz/fuzz_unattr_corpus
TESTS += tests/fuzz/fuzz_unattr_corpus
tests_fuzz_fuzz_unattr_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_unattr.c
tests_fuzz_fuzz_unattr_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/unattr"'
tests_fuzz_fuzz_unattr_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_unattr.c
TESTS += tests/integration/test_idle.sh
EXTRA_DIST += tests/integration/test_idle.sh

# Cgroups: labels of cgroup paths, /proc/PID/cgroup and mountinfo, the walk
# of this machine's cgroup2 hierarchy (as root; skipped where none).
if ENABLE_TESTS
check_PROGRAMS += tests/test_cgroup
TESTS += tests/test_cgroup
tests_test_cgroup_SOURCES = tests/test_cgroup.c
tests_test_cgroup_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_cgroup_CFLAGS = $(TESTS_CFLAGS)
tests_test_cgroup_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
endif
# The cgroup parsers and labels on the fuzz corpus.
check_PROGRAMS += tests/fuzz/fuzz_cgroup_corpus
TESTS += tests/fuzz/fuzz_cgroup_corpus
tests_fuzz_fuzz_cgroup_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_cgroup.c
tests_fuzz_fuzz_cgroup_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/cgroup"'
tests_fuzz_fuzz_cgroup_corpus_LDADD = daemon/libdcpid.la
EXTRA_DIST += tests/fuzz/fuzz_cgroup.c

# Go's function table (lib/sym_gopclntab.c): each layout, broken tables;
# and the reader on the fuzz corpus.
if ENABLE_TESTS
check_PROGRAMS += tests/test_gopclntab
TESTS += tests/test_gopclntab
tests_test_gopclntab_SOURCES = tests/test_gopclntab.c lib/sym_gopclntab.c
tests_test_gopclntab_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_gopclntab_CFLAGS = $(TESTS_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
tests_test_gopclntab_LDADD = $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_gopclntab_corpus
TESTS += tests/fuzz/fuzz_gopclntab_corpus
tests_fuzz_fuzz_gopclntab_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_gopclntab.c \
	lib/sym_gopclntab.c
tests_fuzz_fuzz_gopclntab_corpus_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/gopclntab"'
tests_fuzz_fuzz_gopclntab_corpus_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
EXTRA_DIST += tests/fuzz/fuzz_gopclntab.c

# /proc/PID/status: kernels' texts, malformed ones, this process's own; and
# the parser on the fuzz corpus.
if ENABLE_TESTS
check_PROGRAMS += tests/test_procstatus
TESTS += tests/test_procstatus
tests_test_procstatus_SOURCES = tests/test_procstatus.c
tests_test_procstatus_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_procstatus_CFLAGS = $(TESTS_CFLAGS)
tests_test_procstatus_LDADD = daemon/libdcpid.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_procstatus_corpus
TESTS += tests/fuzz/fuzz_procstatus_corpus
tests_fuzz_fuzz_procstatus_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_procstatus.c
tests_fuzz_fuzz_procstatus_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/procstatus"'
tests_fuzz_fuzz_procstatus_corpus_LDADD = daemon/libdcpid.la
EXTRA_DIST += tests/fuzz/fuzz_procstatus.c

# The cmocka unit tests and fuzz corpora only: what a package build can run
# (debian/rules), where perf_event_open and daemons are not allowed.
check-unit:
	@unit=; for t in $(TESTS); do case $$t in *.sh) ;; *) unit="$$unit $$t" ;; esac; done; \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$$unit"
.PHONY: check-unit

# Labels in the analysis commands: --label, prof --by label and
# label,procedure, diff of two labels, epochs --label, the exports' label,
# on a database of labelled profiles that mklabelled writes.
check_PROGRAMS += tests/mklabelled
tests_mklabelled_SOURCES = tests/mklabelled.c
tests_mklabelled_LDADD = lib/libdcpi.la
TESTS += tests/integration/test_label_analysis.sh
EXTRA_DIST += tests/integration/test_label_analysis.sh

# Call chains: the per-epoch stack file (lib/stackfile.c), its reader on
# the fuzz corpus.
if ENABLE_TESTS
check_PROGRAMS += tests/test_stackfile
TESTS += tests/test_stackfile
tests_test_stackfile_SOURCES = tests/test_stackfile.c
tests_test_stackfile_CFLAGS = $(TESTS_CFLAGS)
tests_test_stackfile_LDADD = lib/libdcpi.la $(TESTS_LIBS)
# The flush's read (mapped) and write (streamed), and its peak memory.
check_PROGRAMS += tests/test_stackfile_flush
TESTS += tests/test_stackfile_flush
tests_test_stackfile_flush_SOURCES = tests/test_stackfile_flush.c tests/proc_status.h
tests_test_stackfile_flush_CFLAGS = $(TESTS_CFLAGS)
tests_test_stackfile_flush_LDADD = lib/libdcpi.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_stackfile_corpus
TESTS += tests/fuzz/fuzz_stackfile_corpus
tests_fuzz_fuzz_stackfile_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_stackfile.c
tests_fuzz_fuzz_stackfile_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/stackfile"'
tests_fuzz_fuzz_stackfile_corpus_LDADD = lib/libdcpi.la
EXTRA_DIST += tests/fuzz/fuzz_stackfile.c

# Call chains in the analysis commands: dcpictl stacks (folded
# stacks) and prof --callers/--callees, on a database of stacks of one
# program that mkstacks writes.
check_PROGRAMS += tests/mkstacks
tests_mkstacks_SOURCES = tests/mkstacks.c
tests_mkstacks_LDADD = lib/libdcpi.la
TESTS += tests/integration/test_stacks_ctl.sh
EXTRA_DIST += tests/integration/test_stacks_ctl.sh
# Exports with call chains, checked with callgrind_annotate, gprof and
# google-pprof (README's test packages); no perf needed.
TESTS += tests/integration/test_export_stacks.sh
EXTRA_DIST += tests/integration/test_export_stacks.sh tests/workload/stacks.c
# dcpictl flamegraph: the SVG file (XML, widths, escaping) and its script in
# headless Chromium (zoom, search, a screenshot into tests/flamegraph.png).
TESTS += tests/integration/test_flamegraph.sh
EXTRA_DIST += tests/integration/test_flamegraph.sh
CLEANFILES += tests/flamegraph.png

# period-jitter against a workload in lock-step with the sampling period.
TESTS += tests/integration/test_period_jitter.sh
EXTRA_DIST += tests/integration/test_period_jitter.sh tests/workload/lockstep.c

# pprof's profile.proto from a live dcpid -g, read by Go's pprof, which the
# test builds once into tests/.cache (golang-github-google-pprof-dev).
TESTS += tests/integration/test_export_proto.sh
EXTRA_DIST += tests/integration/test_export_proto.sh
clean-local: clean-go-cache
clean-go-cache:
	rm -rf tests/.cache
.PHONY: clean-go-cache

# The fleet: push to ClickHouse servers the tests start on
# loopback, exactly once, prof --from, a two-shard cluster.
TESTS += tests/integration/test_clickhouse_push.sh tests/integration/test_clickhouse_resume.sh \
	tests/integration/test_clickhouse_cluster.sh tests/integration/test_clickhouse_live.sh
EXTRA_DIST += tests/integration/test_clickhouse_push.sh tests/integration/test_clickhouse_resume.sh \
	tests/integration/test_clickhouse_cluster.sh tests/integration/test_clickhouse_live.sh \
	tests/integration/clickhouse.sh
# The ClickHouse client's parsers and encoder: URL, RowBinary, TSV answers.
if ENABLE_TESTS
check_PROGRAMS += tests/test_clickhouse
TESTS += tests/test_clickhouse
tests_test_clickhouse_SOURCES = tests/test_clickhouse.c
tests_test_clickhouse_CFLAGS = $(TESTS_CFLAGS) -g -O1
tests_test_clickhouse_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_clickhouse_LDADD = ctl/libdcpictl.la lib/libdcpi.la lib/libdcpiutil.la $(TESTS_LIBS)
endif
check_PROGRAMS += tests/fuzz/fuzz_clickhouse_corpus
TESTS += tests/fuzz/fuzz_clickhouse_corpus
tests_fuzz_fuzz_clickhouse_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_clickhouse.c
tests_fuzz_fuzz_clickhouse_corpus_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/clickhouse"'
tests_fuzz_fuzz_clickhouse_corpus_LDADD = ctl/libdcpictl.la lib/libdcpi.la lib/libdcpiutil.la
EXTRA_DIST += tests/fuzz/fuzz_clickhouse.c

# A hung file system, then CPU hotplug, last: each waits for the tests
# running beside it to finish (lib.sh's lock), since every dcpid samples
# the program on the hung file system, and every test feels a CPU going.
TESTS += tests/integration/test_fault_hungfs.sh tests/integration/test_daemon_hotplug.sh
EXTRA_DIST += tests/integration/test_fault_hungfs.sh tests/integration/test_daemon_hotplug.sh

# Unwind tables and the walk of a stack copy (daemon/unwind_table.c,
# unwind.c): real unwinding of the test's own stack, its functions built
# as distributions build (-O2, no frame pointers, asynchronous unwind
# tables); unwind_dbgframe has only .debug_frame (no .eh_frame_hdr),
# unwind_plt PLT sections of IBT's layout (.plt.sec) that no FDE covers.
if ENABLE_TESTS
check_PROGRAMS += tests/test_unwind tests/unwind_dbgframe tests/unwind_plt
TESTS += tests/test_unwind
tests_test_unwind_SOURCES = tests/test_unwind.c
tests_test_unwind_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon \
	-DDBGFRAME_PROG='"$(abs_top_builddir)/tests/unwind_dbgframe"' \
	-DPLT_PROG='"$(abs_top_builddir)/tests/unwind_plt"' \
	-DHOSTILE_IMAGE='"$(abs_top_srcdir)/tests/fuzz/corpus/unwind/huge-register"'
tests_test_unwind_CFLAGS = $(TESTS_CFLAGS) -O2 -fomit-frame-pointer -fasynchronous-unwind-tables
tests_test_unwind_LDADD = daemon/libdcpid.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS) -lpthread
tests_unwind_dbgframe_SOURCES = tests/unwind_dbgframe.c
tests_unwind_dbgframe_CFLAGS = $(AM_CFLAGS) -g -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables
tests_unwind_dbgframe_LDFLAGS = -Wl,--no-eh-frame-hdr
tests_unwind_plt_SOURCES = tests/unwind_dbgframe.c
tests_unwind_plt_CFLAGS = $(AM_CFLAGS) -O1
tests_unwind_plt_LDFLAGS = -Wl,-z,ibtplt -Wl,--no-ld-generated-unwind-info
endif
# The tables' 8-byte rows and their interned rules.
if ENABLE_TESTS
check_PROGRAMS += tests/test_unwind_rules
TESTS += tests/test_unwind_rules
tests_test_unwind_rules_SOURCES = tests/test_unwind_rules.c
tests_test_unwind_rules_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon
tests_test_unwind_rules_CFLAGS = $(TESTS_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
tests_test_unwind_rules_LDADD = daemon/libdcpid.la $(TESTS_LIBS) $(ELF_LIBS) $(DW_LIBS) -ldl
endif
# The kernel walk's tables in a small array, dropped and loaded again
# while dcpid's walks read them there.
TESTS += tests/integration/test_callchain_bpf_tables.sh
EXTRA_DIST += tests/integration/test_callchain_bpf_tables.sh tests/workload/map_text.py
# The table builder and the walk on arbitrary bytes (tests/fuzz/run.sh).
check_PROGRAMS += tests/fuzz/fuzz_unwind_corpus
TESTS += tests/fuzz/fuzz_unwind_corpus
tests_fuzz_fuzz_unwind_corpus_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz_unwind.c
tests_fuzz_fuzz_unwind_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/unwind"'
tests_fuzz_fuzz_unwind_corpus_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
tests_fuzz_fuzz_unwind_corpus_LDADD = daemon/libdcpid.la $(ELF_LIBS) $(DW_LIBS)
# Call chains on a period of their own (callchain-period): dense flat
# profiles, sparse stacks with the same shares, the stack file's chains
# lines, and the missed-caller repair on fp chains only.
TESTS += tests/integration/test_callchain_period.sh
EXTRA_DIST += tests/integration/test_callchain_period.sh

# The statistics of diff and stats against published values.
if ENABLE_TESTS
check_PROGRAMS += tests/test_stats_math
TESTS += tests/test_stats_math
tests_test_stats_math_SOURCES = tests/test_stats_math.c ctl/stats_math.c ctl/stats_math.h
tests_test_stats_math_CFLAGS = $(TESTS_CFLAGS) $(GSL_CFLAGS)
tests_test_stats_math_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ctl
tests_test_stats_math_LDADD = lib/libdcpiutil.la $(TESTS_LIBS) $(GSL_LIBS)
endif
TESTS += tests/integration/test_diff_significant.sh
EXTRA_DIST += tests/integration/test_diff_significant.sh tests/workload/trio.c
TESTS += tests/integration/test_flamegraph_diff.sh
EXTRA_DIST += tests/integration/test_flamegraph_diff.sh
# dcpictl export --format=afdo: LLVM's sample profile, read by llvm-profdata
# and clang (clang, llvm)
TESTS += tests/integration/test_export_afdo.sh
EXTRA_DIST += tests/integration/test_export_afdo.sh tests/workload/afdo.c
# The AutoFDO cycle on stb_image's JPEG decoder (clang, llvm, libstb-dev)
TESTS += tests/integration/test_afdo_cycle.sh
EXTRA_DIST += tests/integration/test_afdo_cycle.sh tests/workload/stbdecode.c
# The ring's route where the BPF programs cannot load (no kernel BTF, no
# CAP_BPF) or an image has no unwind table.
TESTS += tests/integration/test_bpf_fallback.sh
EXTRA_DIST += tests/integration/test_bpf_fallback.sh
# Held-out programs on the kernel's walk, checked sample by sample against
# dcpid's: C++ with exceptions, Debian's liblzma.
TESTS += tests/integration/test_callchain_bpf_progs.sh
EXTRA_DIST += tests/integration/test_callchain_bpf_progs.sh
