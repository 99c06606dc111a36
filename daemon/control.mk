# The control server.
noinst_HEADERS += daemon/control.h
daemon_libdcpid_la_SOURCES += daemon/control.c
