# The DCPI profile format and the database layout.
dcpiinclude_HEADERS += lib/dcpi/profile.h lib/dcpi/db.h
lib_libdcpi_la_SOURCES += lib/profile.c lib/atomic.c lib/db.c
