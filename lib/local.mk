# libdcpi: the installed library (public headers in lib/dcpi/).
lib_LTLIBRARIES += lib/libdcpi.la
lib_libdcpi_la_SOURCES =
lib_libdcpi_la_CFLAGS = $(AM_CFLAGS) -fvisibility=default
lib_libdcpi_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(LIBDCPI_LT_VERSION) -export-symbols-regex '^dcpi_'
lib_libdcpi_la_LIBADD =

# Programs' helpers (logging, allocation wrappers, dcpid.conf): not
# installed.
noinst_LTLIBRARIES += lib/libdcpiutil.la
lib_libdcpiutil_la_SOURCES = lib/log.c lib/log.h lib/xmalloc.c lib/xmalloc.h
lib_libdcpiutil_la_LIBADD =

CLEANFILES += lib/dcpi.pc

# Helpers both libdcpi and the programs use (hashing, hex, clock, mkdir -p,
# the hash table): one convenience library linked into each, since libdcpi
# exports only dcpi_ names.
noinst_LTLIBRARIES += lib/libdcpibase.la
lib_libdcpibase_la_SOURCES = lib/util.c lib/util.h lib/htab.c lib/htab.h
lib_libdcpi_la_LIBADD += lib/libdcpibase.la
lib_libdcpiutil_la_LIBADD += lib/libdcpibase.la

# dcpid.conf: read by dcpid, and by dcpictl gc for the retention.
lib_libdcpiutil_la_SOURCES += lib/conf.c lib/conf.h
lib_libdcpiutil_la_LIBADD += $(PFM_LIBS)

# Errors (struct dcpi_error): below every other source of libdcpi.
dcpiinclude_HEADERS += lib/dcpi/error.h
lib_libdcpi_la_SOURCES += lib/error.c

# The DCPI profile format, the database layout, files and image identity.
dcpiinclude_HEADERS += lib/dcpi/profile.h lib/dcpi/file.h lib/dcpi/db.h lib/dcpi/image.h
lib_libdcpi_la_SOURCES += lib/profile.c lib/file.c lib/db.c lib/image.c \
	lib/internal.h lib/internal.c

# The control protocol shared by dcpid and dcpictl.
dcpiinclude_HEADERS += lib/dcpi/ctl.h
lib_libdcpi_la_SOURCES += lib/ctl.c

# Symbolization and the in-memory dataset.
dcpiinclude_HEADERS += lib/dcpi/symbol.h lib/dcpi/dataset.h
lib_libdcpi_la_SOURCES += lib/symtab.c lib/symbol.c lib/dataset.c
# The symbol table readers, one source a file (lib/sym_int.h).
lib_libdcpi_la_SOURCES += lib/sym_int.h lib/sym_demangle.c lib/sym_kallsyms.c \
	lib/sym_elf.c lib/sym_ehframe.c lib/sym_gopclntab.c lib/sym_debuginfo.c lib/sym_lines.c
lib_libdcpi_la_CFLAGS += $(ELF_CFLAGS) $(DW_CFLAGS) $(DEBUGINFOD_CFLAGS)
# -lstdc++ for __cxa_demangle (C++ and Rust legacy names).
lib_libdcpi_la_LIBADD += $(ELF_LIBS) $(DW_LIBS) $(DEBUGINFOD_LIBS) -lstdc++

# Exporters and importers of other tools' formats (lib/dcpi/export.h).
dcpiinclude_HEADERS += lib/dcpi/export.h
lib_libdcpi_la_SOURCES += lib/export_int.h lib/export_util.c lib/export_pprof.c \
	lib/export_gmon.c lib/export_callgrind.c lib/export_xprof.c lib/export_proto.c \
	lib/export_afdo.c
# zlib gzips the profile.proto export, as pprof and the servers take it,
# and the kernel symbol snapshots.
lib_libdcpi_la_CFLAGS += $(ZLIB_CFLAGS)
lib_libdcpi_la_LIBADD += $(ZLIB_LIBS)
lib_libdcpi_la_CFLAGS += $(ELF_CFLAGS)
lib_libdcpi_la_LIBADD += $(ELF_LIBS)

# perf's JIT symbol maps (/tmp/perf-PID.map), read by dcpid and the symbol
# tables (lib/dcpi/perfmap.h).
dcpiinclude_HEADERS += lib/dcpi/perfmap.h
lib_libdcpi_la_SOURCES += lib/perfmap.c

# perf's jitdump files (jit-PID.dump), read by dcpid (lib/dcpi/jitdump.h).
dcpiinclude_HEADERS += lib/dcpi/jitdump.h
lib_libdcpi_la_SOURCES += lib/jitdump.c

# Labels (the idle task's samples apart) and the unattributed samples file.
dcpiinclude_HEADERS += lib/dcpi/label.h
lib_libdcpi_la_SOURCES += lib/label.c

# Kernel symbol snapshots kept once per kernel (gzip through zlib, above).
dcpiinclude_HEADERS += lib/dcpi/kallsyms.h
lib_libdcpi_la_SOURCES += lib/kallsyms.c

# Packed epochs: an ended epoch's host directory as one gzip file, read
# through dcpi_read_file and dcpi_db_list as if unpacked (zlib, above).
dcpiinclude_HEADERS += lib/dcpi/pack.h
lib_libdcpi_la_SOURCES += lib/pack.c

# Call chains: the per-epoch stack file beside the profiles.
dcpiinclude_HEADERS += lib/dcpi/stackfile.h
lib_libdcpi_la_SOURCES += lib/stackfile.c
