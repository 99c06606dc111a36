# The DCPI profile format, the database layout, files and image identity.
dcpiinclude_HEADERS += lib/dcpi/profile.h lib/dcpi/db.h lib/dcpi/image.h
lib_libdcpi_la_SOURCES += lib/profile.c lib/file.c lib/db.c lib/image.c \
	lib/internal.h lib/internal.c
