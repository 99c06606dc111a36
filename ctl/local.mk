# dcpictl: commands live in a convenience library that the tests link too.
bin_PROGRAMS += ctl/dcpictl
noinst_LTLIBRARIES += ctl/libdcpictl.la
ctl_libdcpictl_la_SOURCES = ctl/commands.h
ctl_libdcpictl_la_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS) $(CAPSTONE_CFLAGS) $(DEBUGINFOD_CFLAGS)
ctl_libdcpictl_la_LIBADD = lib/libdcpi.la lib/libdcpiutil.la $(PFM_LIBS)
ctl_dcpictl_SOURCES = ctl/dcpictl.c
ctl_dcpictl_CFLAGS = $(ctl_libdcpictl_la_CFLAGS)
ctl_dcpictl_LDADD = ctl/libdcpictl.la

include ctl/control.mk
include ctl/cat.mk
include ctl/analysis.mk
include ctl/export.mk
noinst_HEADERS += ctl/commands.h
