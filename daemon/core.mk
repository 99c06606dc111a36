# Sampling, ordering, aggregation, flush, the event loop.
noinst_HEADERS += daemon/loop.h daemon/perf.h daemon/order.h daemon/agg.h \
	daemon/flush.h daemon/core.h
daemon_libdcpid_la_SOURCES += daemon/loop.c daemon/perf.c daemon/order.c \
	daemon/agg.c daemon/flush.c daemon/core.c
