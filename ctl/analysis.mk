ctl_libdcpictl_la_SOURCES += ctl/analysis.c
