# Configuration file and options.
noinst_HEADERS += daemon/config.h
daemon_libdcpid_la_SOURCES += daemon/config.c
