# Sampling, ordering, aggregation, flush, the event loop.
noinst_HEADERS += daemon/loop.h daemon/perf.h daemon/order.h daemon/agg.h \
	daemon/flush.h daemon/epoch.h daemon/core.h
daemon_libdcpid_la_SOURCES += daemon/loop.c daemon/perf.c daemon/order.c \
	daemon/agg.c daemon/flush.c daemon/epoch.c daemon/core.c

# `make demo` (as root): samples the hot workload for about 5 s with
# perf::cpu-clock into $(abs_top_builddir)/demo-db and shows where the time
# went.
demo: daemon/dcpid ctl/dcpictl
	@test "$$(id -u)" = 0 || { echo "make demo: run as root (system-wide perf)"; exit 1; }
	rm -rf $(abs_top_builddir)/demo-db
	$(CC) -O1 -g -fno-inline -o $(abs_top_builddir)/demo-hot $(abs_top_srcdir)/tests/workload/hot.c
	daemon/dcpid -f -e perf::cpu-clock -d $(abs_top_builddir)/demo-db \
	    --socket $(abs_top_builddir)/demo.sock & pid=$$!; \
	sleep 0.5; ./demo-hot 4; sleep 0.5; kill -TERM $$pid; wait $$pid
	DCPIDB=$(abs_top_builddir)/demo-db ctl/dcpictl prof -i -n 15 && \
	DCPIDB=$(abs_top_builddir)/demo-db ctl/dcpictl prof --image demo-hot -n 10 || \
	for f in $$(ls -S $(abs_top_builddir)/demo-db/2*/*/*/* | head -5); do \
	    ctl/dcpictl cat --summary "$$f" | grep -E '^(path|total_samples)'; done
CLEANFILES += demo-hot
.PHONY: demo
