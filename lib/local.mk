# libdcpi: the installed library (public headers in lib/dcpi/).
lib_LTLIBRARIES += lib/libdcpi.la
lib_libdcpi_la_SOURCES =
lib_libdcpi_la_CFLAGS = $(AM_CFLAGS) -fvisibility=default
lib_libdcpi_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(LIBDCPI_LT_VERSION) -export-symbols-regex '^dcpi_'
lib_libdcpi_la_LIBADD =

# Programs' helpers (logging, allocation wrappers, dcpid.conf): not
# installed.
noinst_LTLIBRARIES += lib/libdcpiutil.la
lib_libdcpiutil_la_SOURCES = lib/log.c lib/log.h lib/xmalloc.c lib/xmalloc.h
lib_libdcpiutil_la_LIBADD =

CLEANFILES += lib/dcpi.pc

include lib/base.mk
include lib/conf.mk
include lib/format.mk
include lib/ctlproto.mk
include lib/symbol.mk
include lib/export.mk
include lib/perfmap.mk
include lib/jitdump.mk
include lib/label.mk
