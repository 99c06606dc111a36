# perf's jitdump files (jit-PID.dump), read by dcpid (lib/dcpi/jitdump.h).
dcpiinclude_HEADERS += lib/dcpi/jitdump.h
lib_libdcpi_la_SOURCES += lib/jitdump.c
