# Attribution: address spaces and images.
noinst_HEADERS += daemon/attr.h
daemon_libdcpid_la_SOURCES += daemon/attr.c
