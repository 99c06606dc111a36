# The control protocol shared by dcpid and dcpictl.
dcpiinclude_HEADERS += lib/dcpi/ctl.h
lib_libdcpi_la_SOURCES += lib/ctl.c
