# Symbolization and the in-memory dataset (owned by the analysis work).
dcpiinclude_HEADERS += lib/dcpi/symbol.h lib/dcpi/dataset.h
lib_libdcpi_la_SOURCES += lib/symbol.c lib/dataset.c
lib_libdcpi_la_CFLAGS += $(ELF_CFLAGS) $(DW_CFLAGS) $(DEBUGINFOD_CFLAGS)
# -lstdc++ for __cxa_demangle (C++ and Rust legacy names).
lib_libdcpi_la_LIBADD += $(ELF_LIBS) $(DW_LIBS) $(DEBUGINFOD_LIBS) -lstdc++
