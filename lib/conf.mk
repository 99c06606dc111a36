# dcpid.conf: read by dcpid, and by dcpictl gc for the retention.
lib_libdcpiutil_la_SOURCES += lib/conf.c lib/conf.h
lib_libdcpiutil_la_LIBADD += $(PFM_LIBS)
