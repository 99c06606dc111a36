# Labels (the idle task's samples apart) and the unattributed samples file.
dcpiinclude_HEADERS += lib/dcpi/label.h
lib_libdcpi_la_SOURCES += lib/label.c
