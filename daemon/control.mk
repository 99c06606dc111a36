# The control server.
noinst_HEADERS += daemon/control.h daemon/ctlsock.h
daemon_libdcpid_la_SOURCES += daemon/control.c daemon/ctlsock.c
