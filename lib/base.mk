# Helpers both libdcpi and the programs use (hashing, hex, clock, mkdir -p,
# the hash table): one convenience library linked into each, since libdcpi
# exports only dcpi_ names.
noinst_LTLIBRARIES += lib/libdcpibase.la
lib_libdcpibase_la_SOURCES = lib/util.c lib/util.h lib/htab.c lib/htab.h
lib_libdcpi_la_LIBADD += lib/libdcpibase.la
lib_libdcpiutil_la_LIBADD += lib/libdcpibase.la
