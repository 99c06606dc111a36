# dcpid: everything but main() lives in a convenience library that the
# unit tests link too (they replace what they stub: the archive's objects
# come in only for symbols the test leaves undefined).
sbin_PROGRAMS += daemon/dcpid
noinst_LTLIBRARIES += daemon/libdcpid.la
daemon_libdcpid_la_SOURCES =
daemon_libdcpid_la_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS) $(SYSTEMD_CFLAGS) \
	$(BPF_CFLAGS) -I$(top_builddir)/daemon
daemon_libdcpid_la_LIBADD = lib/libdcpi.la lib/libdcpiutil.la $(PFM_LIBS) $(ELF_LIBS) $(DW_LIBS) $(SYSTEMD_LIBS) \
	$(BPF_LIBS)
daemon_dcpid_SOURCES = daemon/dcpid.c
daemon_dcpid_CFLAGS = $(daemon_libdcpid_la_CFLAGS)
daemon_dcpid_LDADD = daemon/libdcpid.la

# Sampling, ordering, aggregation, the event loop.
noinst_HEADERS += daemon/loop.h daemon/perf.h daemon/record.h daemon/order.h \
	daemon/agg.h daemon/stack.h daemon/core.h
daemon_libdcpid_la_SOURCES += daemon/loop.c daemon/perf.c daemon/perf_sys.c \
	daemon/record.c daemon/order.c daemon/agg.c daemon/stack.c daemon/core.c
# Call chains: a sample's chain turned into frames (callchain.c), kept
# by stack.c.
noinst_HEADERS += daemon/callchain.h
daemon_libdcpid_la_SOURCES += daemon/callchain.c
# What the profile lacks: losses, throttling, unattributed samples (loss.c).
noinst_HEADERS += daemon/loss.h
daemon_libdcpid_la_SOURCES += daemon/loss.c

# Sampling's jobs beside perf.c (perf_int.h: what they share); the system
# calls apart (perf_sys.h), for the tests' -Wl,--wrap.
noinst_HEADERS += daemon/perf_int.h daemon/perf_sys.h
daemon_libdcpid_la_SOURCES += daemon/perf_cpus.c daemon/perf_open.c daemon/perf_state.c \
	daemon/perf_ring.c daemon/perf_jitter.c

# In-kernel aggregation: the BPF program (bpf/bpfagg.bpf.c, compiled by clang
# for the bpf target and embedded by bpftool as bpfagg.skel.h), its loader
# and drain (bpfagg.c), and its counts attributed into the aggregation
# (bpfagg_bridge.c).
noinst_HEADERS += daemon/bpfagg.h daemon/bpfagg_key.h
daemon_libdcpid_la_SOURCES += daemon/bpfagg.c daemon/bpfagg_bridge.c
EXTRA_DIST += daemon/bpf/bpfagg.bpf.c
BUILT_SOURCES += daemon/bpfagg.skel.h
CLEANFILES += daemon/bpfagg.bpf.o daemon/bpfagg.skel.h
daemon/bpfagg.bpf.o: $(srcdir)/daemon/bpf/bpfagg.bpf.c $(srcdir)/daemon/bpfagg_key.h
	@$(MKDIR_P) daemon
	$(AM_V_GEN)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) \
	    -I/usr/include/$(BPF_MULTIARCH) $(BPF_CFLAGS) -Wall -Werror \
	    -c $(srcdir)/daemon/bpf/bpfagg.bpf.c -o $@
daemon/bpfagg.skel.h: daemon/bpfagg.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name bpfagg_bpf > $@.tmp && mv $@.tmp $@

# The profile database (epoch.c) and the flush into it (flush.c).
noinst_HEADERS += daemon/epoch.h daemon/flush.h
daemon_libdcpid_la_SOURCES += daemon/epoch.c daemon/flush.c

# The process table: pid -> process, with each module's part of it, and
# the modules' hooks for FORK, COMM and EXIT (proc.c).
noinst_HEADERS += daemon/proc.h
daemon_libdcpid_la_SOURCES += daemon/proc.c

# Attribution: address spaces (attr.c), images (imagetab.c), the kernel,
# modules and vdso (kernel.c), the build-id cache (cache.c).
noinst_HEADERS += daemon/attr.h daemon/imagetab.h daemon/kernel.h daemon/cache.h
daemon_libdcpid_la_SOURCES += daemon/attr.c daemon/imagetab.c daemon/kernel.c daemon/cache.c
# Their files' calls (open, stat, reading) with a deadline, on helper
# threads (fsio.c): a hung NFS or FUSE server must not stop the loop.
noinst_HEADERS += daemon/fsio.h
daemon_libdcpid_la_SOURCES += daemon/fsio.c
# A process's /proc/PID/status: its credentials, its pid in its own
# namespace, dcpid's capabilities and seccomp mode (procstatus.c).
noinst_HEADERS += daemon/procstatus.h
daemon_libdcpid_la_SOURCES += daemon/procstatus.c
# JIT code: anonymous executable memory named by perf maps (jit.c).
noinst_HEADERS += daemon/jit.h
daemon_libdcpid_la_SOURCES += daemon/jit.c

# Labels: whose sample (labeler.c), from the cgroup's name: cgroup paths to
# units and containers (cgroup.c).
noinst_HEADERS += daemon/labeler.h daemon/cgroup.h
daemon_libdcpid_la_SOURCES += daemon/labeler.c daemon/cgroup.c

# The control server: the protocol (control.c) and its socket (ctlsock.c).
noinst_HEADERS += daemon/control.h daemon/ctlsock.h
daemon_libdcpid_la_SOURCES += daemon/control.c daemon/ctlsock.c
# STATUS: each module's lines in a fixed order (status.c).
noinst_HEADERS += daemon/status.h
daemon_libdcpid_la_SOURCES += daemon/status.c

# `make demo` (as root): samples the hot workload for about 5 s with
# perf::cpu-clock into $(abs_top_builddir)/demo-db and shows where the time
# went.
demo: daemon/dcpid ctl/dcpictl
	@test "$$(id -u)" = 0 || { echo "make demo: run as root (system-wide perf)"; exit 1; }
	rm -rf $(abs_top_builddir)/demo-db
	$(CC) -O1 -g -fno-inline -o $(abs_top_builddir)/demo-hot $(abs_top_srcdir)/tests/workload/hot.c
	daemon/dcpid -f -e perf::cpu-clock -d $(abs_top_builddir)/demo-db \
	    --socket $(abs_top_builddir)/demo.sock & pid=$$!; \
	sleep 0.5; ./demo-hot 4; sleep 0.5; kill -TERM $$pid; wait $$pid
	DCPIDB=$(abs_top_builddir)/demo-db ctl/dcpictl prof -i -n 15 && \
	DCPIDB=$(abs_top_builddir)/demo-db ctl/dcpictl prof --image demo-hot -n 10 || \
	for f in $$(ls -S $(abs_top_builddir)/demo-db/2*/*/*/* | head -5); do \
	    ctl/dcpictl cat --summary "$$f" | grep -E '^(path|total_samples)'; done
CLEANFILES += demo-hot
.PHONY: demo

# Unwind tables from an image's CFI (unwind_table.c, elfutils' CFI reader),
# kept per image within a bound (unwind_cache.c), and the walk of a
# sample's user stack copy with them (unwind.c).
noinst_HEADERS += daemon/unwind_table.h daemon/unwind_cache.h daemon/unwind.h
daemon_libdcpid_la_SOURCES += daemon/unwind_table.c daemon/unwind_cache.c \
	daemon/unwind.c
