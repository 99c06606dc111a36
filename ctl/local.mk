# dcpictl: commands live in a convenience library that the tests link too.
bin_PROGRAMS += ctl/dcpictl
noinst_LTLIBRARIES += ctl/libdcpictl.la
ctl_libdcpictl_la_SOURCES = ctl/commands.h
ctl_libdcpictl_la_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS) $(DW_CFLAGS) $(CAPSTONE_CFLAGS) $(DEBUGINFOD_CFLAGS)
ctl_libdcpictl_la_LIBADD = lib/libdcpi.la lib/libdcpiutil.la $(PFM_LIBS)
ctl_dcpictl_SOURCES = ctl/dcpictl.c
ctl_dcpictl_CFLAGS = $(ctl_libdcpictl_la_CFLAGS)
ctl_dcpictl_LDADD = ctl/libdcpictl.la

# Control commands: status, flush, epoch, quit, reload; label, which runs
# a command under a label.
ctl_libdcpictl_la_SOURCES += ctl/client.c ctl/client.h ctl/labelcmd.c
# Profile files as text: cat (DCPI's and other tools' formats).
ctl_libdcpictl_la_SOURCES += ctl/cat.c
# Analysis commands: prof, list, diff, epochs, gc.
ctl_libdcpictl_la_SOURCES += ctl/prof.c ctl/list.c ctl/diff.c ctl/epochs.c
ctl_libdcpictl_la_LIBADD += $(CAPSTONE_LIBS) -lm
# Call chains: stacks (folded stacks), and the callers and callees of a
# procedure for stacks and prof.
ctl_libdcpictl_la_SOURCES += ctl/stacks.c ctl/stacks.h ctl/callsite.c ctl/callsite.h
# flamegraph: the folded stacks as an interactive SVG file.
ctl_libdcpictl_la_SOURCES += ctl/flamegraph.c
# What they share: the selection options, the symbol cache, the row table
# and the output (text, CSV, JSON).
ctl_libdcpictl_la_SOURCES += ctl/analysis.h ctl/selection.c ctl/selection.h \
	ctl/symcache.c ctl/symcache.h ctl/rows.c ctl/rows.h \
	ctl/output.c ctl/output_text.c ctl/output_csv.c ctl/output_json.c \
	ctl/output.h
# Other tools' formats: export and import.
ctl_libdcpictl_la_SOURCES += ctl/export.c ctl/import.c
# The fleet: push to ClickHouse, and prof/diff --from it (libcurl).
ctl_libdcpictl_la_SOURCES += ctl/clickhouse.c ctl/clickhouse.h ctl/push.c ctl/fleet.c ctl/fleet.h
ctl_libdcpictl_la_CFLAGS += $(CURL_CFLAGS)
ctl_libdcpictl_la_LIBADD += $(CURL_LIBS)
# The statistics of diff and stats (GSL's quantiles and Student's t).
ctl_libdcpictl_la_SOURCES += ctl/stats_math.c ctl/stats_math.h ctl/runs.c ctl/runs.h ctl/stats.c
ctl_libdcpictl_la_CFLAGS += $(GSL_CFLAGS)
ctl_libdcpictl_la_LIBADD += $(GSL_LIBS)
