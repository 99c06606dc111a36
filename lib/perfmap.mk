# perf's JIT symbol maps (/tmp/perf-PID.map), read by dcpid and the symbol
# tables (lib/dcpi/perfmap.h).
dcpiinclude_HEADERS += lib/dcpi/perfmap.h
lib_libdcpi_la_SOURCES += lib/perfmap.c
