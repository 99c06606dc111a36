# Exporters and importers of other tools' formats (lib/dcpi/export.h).
dcpiinclude_HEADERS += lib/dcpi/export.h
lib_libdcpi_la_SOURCES += lib/export_int.h lib/export_util.c lib/export_pprof.c \
	lib/export_gmon.c lib/export_callgrind.c lib/export_xprof.c
lib_libdcpi_la_CFLAGS += $(ELF_CFLAGS)
lib_libdcpi_la_LIBADD += $(ELF_LIBS)
