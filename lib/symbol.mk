# Symbolization and the in-memory dataset (owned by the analysis work).
dcpiinclude_HEADERS += lib/dcpi/symbol.h lib/dcpi/dataset.h
lib_libdcpi_la_SOURCES += lib/symbol.c lib/dataset.c
# The symbol table readers, one source a file (lib/sym_int.h).
lib_libdcpi_la_SOURCES += lib/sym_int.h lib/sym_demangle.c lib/sym_kallsyms.c \
	lib/sym_elf.c lib/sym_debuginfo.c lib/sym_lines.c
lib_libdcpi_la_CFLAGS += $(ELF_CFLAGS) $(DW_CFLAGS) $(DEBUGINFOD_CFLAGS)
# -lstdc++ for __cxa_demangle (C++ and Rust legacy names).
lib_libdcpi_la_LIBADD += $(ELF_LIBS) $(DW_LIBS) $(DEBUGINFOD_LIBS) -lstdc++
