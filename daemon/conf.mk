# Configuration file and options.
noinst_HEADERS += daemon/conf.h
daemon_libdcpid_la_SOURCES += daemon/conf.c
