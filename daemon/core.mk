# Sampling, ordering, aggregation, flush, the event loop.
noinst_HEADERS += daemon/loop.h
daemon_libdcpid_la_SOURCES += daemon/loop.c
