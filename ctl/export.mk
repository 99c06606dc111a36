ctl_libdcpictl_la_SOURCES += ctl/export.c
