# Benchmarks (bench/README has their method and figures).
noinst_PROGRAMS += bench/mkprofdb
bench_mkprofdb_SOURCES = bench/mkprofdb.c
bench_mkprofdb_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS)
bench_mkprofdb_LDADD = lib/libdcpi.la $(ELF_LIBS) $(DW_LIBS)
EXTRA_DIST += bench/README bench/prof.sh

# `make bench-prof`: the prof benchmark over 1,000 images, 1,000,000 addresses.
bench-prof: bench/mkprofdb ctl/dcpictl
	$(SHELL) $(srcdir)/bench/prof.sh .
.PHONY: bench-prof
include bench/daemon.mk
