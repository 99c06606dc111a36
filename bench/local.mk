# Benchmarks (bench/README has their method and figures): run by hand, not
# by `make check`.

# dcpictl prof.
noinst_PROGRAMS += bench/mkprofdb
bench_mkprofdb_SOURCES = bench/mkprofdb.c
bench_mkprofdb_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
bench_mkprofdb_LDADD = lib/libdcpi.la $(ELF_LIBS) $(DW_LIBS)
EXTRA_DIST += bench/README bench/prof.sh

# `make bench-prof`: the prof benchmark over 1,000 images, 1,000,000 addresses.
bench-prof: bench/mkprofdb ctl/dcpictl
	$(SHELL) $(srcdir)/bench/prof.sh .
.PHONY: bench-prof

# The database's bytes per epoch, kernel symbols included (section
# "Disk: kallsyms once per kernel"), as root: `make bench-disk`.
EXTRA_DIST += bench/kallsyms_disk.sh
bench-disk: daemon/dcpid ctl/dcpictl
	$(SHELL) $(srcdir)/bench/kallsyms_disk.sh . $(BENCH_EPOCHS) $(BENCH_SECONDS)
.PHONY: bench-disk

# dcpid (section "dcpid: sample path and live cost"), as root.
noinst_PROGRAMS += bench/sample_path
bench_sample_path_SOURCES = bench/sample_path.c
bench_sample_path_CFLAGS = $(AM_CFLAGS) -I$(srcdir)/daemon $(ELF_CFLAGS)
bench_sample_path_LDADD = daemon/libdcpid.la $(ELF_LIBS) -lm
bench_sample_path_LDFLAGS = -Wl,--wrap=perf_sys_mmap
EXTRA_DIST += bench/live_cost.sh bench/chain_build.sh bench/stack_flush.sh \
	bench/chain_cost.sh bench/chain_service.sh bench/flush_sync.sh

# dcpid's stack-file flush: peak RSS and time of one merge (section "Call
# chains"), `bench/stack_flush [--old] DIR` on a copy of an epoch's stacks.
noinst_PROGRAMS += bench/stack_flush
bench_stack_flush_SOURCES = bench/stack_flush.c tests/proc_status.h
bench_stack_flush_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/tests
bench_stack_flush_LDADD = lib/libdcpi.la

# `make bench-chain-cost`: -G 16 against flat on sample_path, 11
# interleaved rounds (the aim: at most 2x).
bench-chain-cost: bench/sample_path
	$(SHELL) $(srcdir)/bench/chain_cost.sh . $(BENCH_ROUNDS)
.PHONY: bench-chain-cost

# `make bench-sample-path`: ns per sample on one core, then the instructions
# per sample under callgrind (a figure free of timing noise).
bench-sample-path: bench/sample_path
	./bench/sample_path
	$(LIBTOOL) --mode=execute valgrind --tool=callgrind --callgrind-out-file=bench-sample-path.callgrind \
	    --toggle-collect=timed_process ./bench/sample_path -n 256000 -g 2 2>&1 | \
	    awk '/^samples/ { n = $$2 } /Collected/ { ir = $$NF } \
	    END { printf "callgrind: %d instructions per sample (replay, %d samples)\n", ir / n, n }'

# `make bench-live-cost`: dcpid against perf record -a, about 5 minutes.
bench-live-cost: daemon/dcpid ctl/dcpictl
	$(SHELL) $(srcdir)/bench/live_cost.sh .
.PHONY: bench-sample-path bench-live-cost

# `make bench-bpf-cost`: aggregate=bpf against ring and perf record at
# 10 kHz, and the slowdown at 5 kHz (bench/README, "In-kernel aggregation").
EXTRA_DIST += bench/bpf_cost.sh bench/live_common.sh
bench-bpf-cost: daemon/dcpid ctl/dcpictl
	$(SHELL) $(srcdir)/bench/bpf_cost.sh .
.PHONY: bench-bpf-cost

# `make bench-ring-cost`: dcpid on the ring path against perf record at
# 10 kHz, interleaved rounds; BEFORE=BUILDDIR adds another build's dcpid
# (bench/README, "Zero-copy ring-buffer processing").
EXTRA_DIST += bench/ring_cost.sh
bench-ring-cost: daemon/dcpid ctl/dcpictl
	$(SHELL) $(srcdir)/bench/ring_cost.sh .
.PHONY: bench-ring-cost

# `make bench-image-storm` (as root): dcpid's CPU while 400 distinct
# programs start; BEFORE=BUILDDIR adds another build's dcpid (bench/README,
# "Image reads on helper threads").
EXTRA_DIST += bench/image_storm.sh
bench-image-storm: daemon/dcpid ctl/dcpictl
	$(SHELL) $(srcdir)/bench/image_storm.sh 5 . $(BEFORE)
.PHONY: bench-image-storm

# `make bench-image-churn` (as root): dcpid's memory while rounds of new
# programs run (bench/README, "Images freed once unused").
EXTRA_DIST += bench/image_churn.sh bench/spin.c
bench-image-churn: daemon/dcpid ctl/dcpictl
	$(SHELL) $(srcdir)/bench/image_churn.sh .
.PHONY: bench-image-churn

# period-jitter (section "Period jitter"), as root: `make bench-jitter`.
noinst_PROGRAMS += bench/jitter
bench_jitter_SOURCES = bench/jitter.c
bench-jitter: bench/jitter
	./bench/jitter -t 10
	taskset -c 0 ./bench/jitter -c 0 -t 10
.PHONY: bench-jitter

# `make bench-fleet`: push to a clickhouse-server of its own and fleet prof
# over 100 million rows (bench/README, "The fleet").
EXTRA_DIST += bench/fleet.sh
bench-fleet: bench/mkprofdb ctl/dcpictl
	$(SHELL) $(srcdir)/bench/fleet.sh .
.PHONY: bench-fleet

# The unwind tables' rows, bytes and build time, and the walk's time at
# depths 8, 16, 32 (`bench/unwind [IMAGE...]`; section "Unwinding").
noinst_PROGRAMS += bench/unwind
bench_unwind_SOURCES = bench/unwind.c
bench_unwind_CFLAGS = $(AM_CFLAGS) -I$(srcdir)/daemon $(ELF_CFLAGS) $(DW_CFLAGS) \
	-O2 -fomit-frame-pointer -fasynchronous-unwind-tables
bench_unwind_LDADD = daemon/libdcpid.la $(ELF_LIBS) $(DW_LIBS)
# The walk over a real run's samples (perf record --call-graph dwarf's
# copies, extracted by perf_ustack.py): bench/unwind_vs_perf.sh COMMAND.
noinst_PROGRAMS += bench/unwind_replay
bench_unwind_replay_SOURCES = bench/unwind_replay.c
bench_unwind_replay_CFLAGS = $(AM_CFLAGS) -I$(srcdir)/daemon $(ELF_CFLAGS) $(DW_CFLAGS)
bench_unwind_replay_LDADD = daemon/libdcpid.la $(ELF_LIBS) $(DW_LIBS)
EXTRA_DIST += bench/perf_ustack.py bench/unwind_vs_perf.sh
# `sh bench/dwarf_cost.sh BUILDDIR`: the dwarf route's steady cost beside
# the fp route, the flat profile and perf record --call-graph dwarf.
EXTRA_DIST += bench/dwarf_cost.sh
# `sh bench/unwind_fleet.sh BUILDDIR [N]`: the tables of every image of
# this host, and their sum over N at random (section "Unwind tables for a
# host of 500 images").
EXTRA_DIST += bench/unwind_fleet.sh
# `sh bench/unwind_mem.sh BUILDDIR [N] [ARRAY...]`, as root: the real
# dcpid holding the tables of N distinct images (aggregate = bpf, -g),
# the kernel's map memory and dcpid's RSS and status before and after.
EXTRA_DIST += bench/unwind_mem.sh bench/host_images.sh
# `sh bench/chain_period_cost.sh BUILDDIR`: dcpid's CPU with chains at
# 10x the flat profile's period (callchain-period) against every sample.
EXTRA_DIST += bench/chain_period_cost.sh
# `sh bench/afdo.sh BUILDDIR`: stb_image's JPEG decoder rebuilt with
# clang -fprofile-sample-use from dcpictl export --format=afdo, against
# its plain build (section "AutoFDO from dcpi's profiles").
EXTRA_DIST += bench/afdo.sh

# Call chains walked in the kernel: the BPF walk's cost a sample at depths
# 8, 16 and 32 beside dcpid's walk (section "Call chains walked in the
# kernel"), as root: sh bench/bpf_walk_cost.sh BUILDDIR [SECS] [RATE].
EXTRA_DIST += bench/bpf_walk_cost.sh bench/deep.c
