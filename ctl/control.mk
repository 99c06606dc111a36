ctl_libdcpictl_la_SOURCES += ctl/control.c
