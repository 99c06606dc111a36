# dcpid: everything but main() lives in a convenience library that the
# unit tests link too.
sbin_PROGRAMS += daemon/dcpid
noinst_LTLIBRARIES += daemon/libdcpid.la
daemon_libdcpid_la_SOURCES =
daemon_libdcpid_la_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_libdcpid_la_LIBADD = lib/libdcpi.la lib/libdcpiutil.la $(PFM_LIBS) $(ELF_LIBS) $(DW_LIBS) $(SYSTEMD_LIBS)
daemon_dcpid_SOURCES = daemon/dcpid.c
daemon_dcpid_CFLAGS = $(daemon_libdcpid_la_CFLAGS)
daemon_dcpid_LDADD = daemon/libdcpid.la

include daemon/core.mk
include daemon/attr.mk
include daemon/control.mk
