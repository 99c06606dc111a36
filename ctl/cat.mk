ctl_libdcpictl_la_SOURCES += ctl/cat.c
